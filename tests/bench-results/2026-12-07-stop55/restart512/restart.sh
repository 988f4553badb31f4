#!/bin/bash
# KILL=1: end the run with kill -9 instead of SIGTERM (no save at close; the next start finds the copy saved at first use)
# restart.sh X: 20,480 more rows (40 per tenant), then `run` with /tmp/r55/X/app.jar and sinks.jar; prints the
# seconds from the start to the first commit past the old frontier and to the outbox max; SIGTERM.
X=$1; W=/tmp/ow2; export PATH=/usr/lib/postgresql/15/bin:$PATH
q() { psql -h $W -p 55460 -U postgres -d oml -qtAX "$@"; }
lo=$(q -c "SELECT max(seq) FROM oml_outbox"); f0=$(q -c "SELECT max(frontier_seq) FROM oml_lake_frontier")
q -v lo=$lo -v hi=$((lo+20479)) -f $W/mix512.sql; max=$(q -c "SELECT max(seq) FROM oml_outbox")
ROOT=/work/main; CP=$(sed "s#[^:]*/oml-lakewriter-sinks-0.1.0-SNAPSHOT.jar#/tmp/r55/$X/sinks.jar#" $ROOT/app/target/lakewriter.classpath)
t0=$(date +%s.%N)
java -Xmx2g $JOPTS --add-opens=java.base/java.util=ALL-UNNAMED --add-opens=java.base/java.lang=ALL-UNNAMED \
  -Dlog4j.configurationFile=$ROOT/app/src/main/resources/org/oml/lakewriter/cli/log4j2-cli.properties \
  -cp "/tmp/r55/$X/app.jar:$CP" org.oml.lakewriter.cli.LakeWriterCli run --config $W/lw.properties > $W/restart-$X-$(date +%H%M%S).log 2>&1 &
P=$!; first=""
for i in $(seq 1 3000); do
  f=$(q -c "SELECT max(frontier_seq) FROM oml_lake_frontier")
  [ -z "$first" ] && [ "$f" -gt "$f0" ] && first=$(echo "$(date +%s.%N) - $t0" | bc)
  [ "$f" -ge "$max" ] && break; sleep 0.2
done
done_s=$(echo "$(date +%s.%N) - $t0" | bc)
if [ -n "$KILL" ]; then kill -9 $P; else kill -TERM $P; fi; wait $P
printf "%s first commit %.1f s, drained %d rows in %.1f s\n" $X $first $((max-f0)) $done_s
