#!/bin/bash
# ab100k.sh NAME:SETTINGS... : DrainBenchmark 100k / 8 tenants / B2,B5 / repeat 3, in order (build m58)
for spec in "$@"; do
  N=${spec%%:*}; S=${spec#*:}
  o=/tmp/r58/ab100k/$N-$(date +%H%M%S); mkdir -p $o
  cd /tmp/b48/m58/src && java -Xmx2g -cp "$(cat /tmp/b48/m58/bench.cp)" org.oml.lakewriter.bench.DrainBenchmark \
    --events 100000 --tenants 8 --repeat 3 --modes B2,B5 --producer-duration 0 --out $o --work $o/work $S > $o/log.txt 2>&1
  rm -rf $o/work
  echo "$N $(grep -E '^\| B5/B2' $o/*.md | head -1) $(grep '^| B5 | full' $o/*.md | awk -F'|' '{print "B5",$4,"cpu",$8}') $(grep -A6 'JVM CPU by thread' $o/*.md | grep '^| B5')"
done
