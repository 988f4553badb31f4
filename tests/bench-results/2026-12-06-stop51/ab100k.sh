#!/bin/bash
for i in 1 2; do  # then again with 3 4 for b in base51 proj51; do
  out=/tmp/b51/d100k/$b-$i; rm -rf $out; mkdir -p $out
  cd /tmp/b48/$b/src && CP=$(cat /tmp/b48/$b/bench.cp)
  echo "== $b-$i $(date +%T)"
  java -Xmx2g -cp "$CP" org.oml.lakewriter.bench.DrainBenchmark --events 100000 --tenants 8 --repeat 3 --modes B5 --producer-duration 0 --out $out --work $out/work > $out/log.txt 2>&1; rm -rf $out/work
  grep -E "B5 rep [0-9]: done" $out/log.txt | cut -c1-110
done; done; echo ALLDONE
