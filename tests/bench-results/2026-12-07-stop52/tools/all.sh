#!/bin/bash
# all.sh BUILD OUT : one full run of each benchmark on /tmp/b48/BUILD's jars
B=$1; O=$2; mkdir -p $O/scaling
cd /tmp/b48/$B/src && CP=$(cat /tmp/b48/$B/bench.cp)
W=/tmp/b52/work; rm -rf $W; mkdir -p $W
echo "scaling $(date +%T)"
java -Xmx2g -cp "$CP" org.oml.lakewriter.bench.ScalingBenchmark --events 100000,1000000 --tenants 8,64,512 --modes B2,B5 --repeat 3 --out $O/scaling > $O/scaling.log 2>&1
rm -rf $W; mkdir -p $W
echo "producer $(date +%T)"
java -Xmx2g -cp "$CP" org.oml.lakewriter.bench.DrainBenchmark --events 100000 --tenants 8 --repeat 3 --modes B2,B5 --producer-duration 20s --out $O/producer --work $W/p > $O/producer.log 2>&1
rm -rf $W; mkdir -p $W
echo "sustained $(date +%T)"
java -Xmx2g -cp "$CP" org.oml.lakewriter.bench.SustainedBenchmark --drain-rate 1914 --loads 0.5 --window 600s --jvm-warmup 60s --min-tick-spacing 100ms --checkpoint-interval 500ms --out $O/sustained --work $W/u > $O/sustained.log 2>&1
rm -rf $W
echo "ALLDONE $(date +%T)"
