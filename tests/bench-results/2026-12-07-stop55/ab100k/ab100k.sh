#!/bin/bash
# ab100k.sh BUILD... : one DrainBenchmark 100k / 8 tenants / B2,B5 / repeat 3 per build, in order
for B in "$@"; do
  o=/tmp/r55/ab100k/$B-$(date +%H%M%S); mkdir -p $o
  cd /tmp/b48/$B/src && java -Xmx2g -cp "$(cat /tmp/b48/$B/bench.cp)" org.oml.lakewriter.bench.DrainBenchmark \
    --events 100000 --tenants 8 --repeat 3 --modes B2,B5 --producer-duration 0 --out $o --work $o/work > $o/log.txt 2>&1
  rm -rf $o/work
  echo "$B $(grep -E '^\| B5/B2' $o/*.md | head -1)"
done
