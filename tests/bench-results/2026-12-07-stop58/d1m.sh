#!/bin/bash
# d1m.sh RUN [extra args]
R=$1; shift
out=/tmp/b49/runs/$R; rm -rf $out; mkdir -p $out
cd /tmp/b48/$BUILD/src && CP=$(cat /tmp/b48/$BUILD/bench.cp)
java -Xmx2g $JOPTS -cp "$CP" org.oml.lakewriter.bench.DrainBenchmark --events 1000000 --tenants 8 --repeat 1 --modes B5 --producer-duration 0 --out $out --work $out/work "$@" > $out/log.txt 2>&1
du -sh $out/work/lake-* 2>/dev/null | tail -1 > $out/lake-size.txt
rm -rf $out/work
grep -E "B5 rep 1: done" $out/log.txt | cut -c1-200
