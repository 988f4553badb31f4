#!/bin/bash
# 512 tenants (1,536 tables), a live producer, `run` under a supervisor that restarts it with the
# same command line, kill -9 three times, a second writer by mistake, then verify and the lake's
# silver states against SQL.
set -u
W=/tmp/ow2; PG=$W/pg; PORT=55460; LW=${LW:-/work/main/lakewriter}; MIX=${MIX:-$(cd "$(dirname "$0")" && pwd)/tenants512-mix.sql}
export PATH=/usr/lib/postgresql/15/bin:$PATH
su pgow -c "PATH=$PATH pg_ctl -D $PG stop -m immediate" >/dev/null 2>&1
rm -rf $PG $W/lake $W/state $W/state2 $W/*.log
su pgow -c "PATH=$PATH initdb -D $PG -U postgres --auth=trust" >/dev/null
printf "wal_level=logical\nport=$PORT\nunix_socket_directories='$W'\n" | su pgow -c "tee -a $PG/postgresql.conf" >/dev/null
su pgow -c "PATH=$PATH pg_ctl -D $PG -l $W/pg.log start -w" >/dev/null
q() { psql -h $W -p $PORT -U postgres -d oml -v ON_ERROR_STOP=1 -qtAX "$@"; }
psql -h $W -p $PORT -U postgres -qc "CREATE DATABASE oml" -c "CREATE DATABASE other"
cat > $W/lw.properties <<P
postgres.url=jdbc:postgresql://localhost:$PORT/oml
postgres.user=postgres
writer.id=w1
lake.root=$W/lake
state.dir=$W/state
checkpoint.interval=1s
P
ts() { date +%H:%M:%S; }
front() { q -c "SELECT coalesce(max(frontier_seq),0) FROM oml_lake_frontier" 2>/dev/null || echo 0; }
maxseq() { q -c "SELECT coalesce(max(seq),0) FROM oml_outbox"; }
$LW init-db --config $W/lw.properties > $W/init.log 2>&1 || { echo init failed; cat $W/init.log; exit 1; }
q -v lo=0 -v hi=51199 -f $MIX
echo "[$(ts)] preloaded $(maxseq) rows over 512 tenants"
(psql -h $W -p $PORT -U postgres -d other -c "BEGIN; CREATE TABLE junk(x int); INSERT INTO junk VALUES (1); SELECT pg_sleep(900);" > /dev/null 2>&1 &)
# supervisor: same command line, restarted at once whenever it exits
( n=0; while [ ! -f $W/stop ]; do n=$((n+1)); $LW run --config $W/lw.properties > $W/run$n.log 2>&1; rc=$?; echo "[$(ts)] run$n exited $rc" >> $W/super.log; done ) &
SUP=$!
# live producer: 1,024 rows every second (2 per tenant) for 150 s
( lo=51200; for s in $(seq 1 150); do q -v lo=$lo -v hi=$((lo+1023)) -f $MIX; lo=$((lo+1024)); sleep 1; done; echo "[$(ts)] producer done at $lo" >> $W/super.log ) &
PROD=$!
jpid() { pgrep -f "LakeWriterCli run --config $W/lw.properties\$" | head -1; }
for k in 1 2 3; do
  sleep 35
  echo "[$(ts)] frontier $(front) of $(maxseq); kill -9 writer $(jpid)"
  kill -9 $(jpid) 2>/dev/null
  if [ $k = 2 ]; then
    sleep 15
    echo "[$(ts)] second writer by mistake (own state dir):"
    timeout 180 $LW run --config $W/lw.properties -D state.dir=$W/state2 > $W/second.log 2>&1; echo "  exit $?; $(grep -o 'LEASE_HELD[^.]*' $W/second.log | head -1)"
  fi
done
wait $PROD
M=$(maxseq); echo "[$(ts)] producer done; outbox max $M; frontier $(front)"
for i in $(seq 1 600); do [ "$(front)" -ge "$M" ] && break; sleep 1; done
echo "[$(ts)] frontier $(front) of $M"
touch $W/stop; kill -TERM $(jpid); wait $SUP; cat $W/super.log
$LW verify --config $W/lw.properties > $W/verify.log 2>&1; echo "verify exit $?"; tail -3 $W/verify.log
for f in $W/run*.log; do echo "  $(basename $f): $(grep -c 'Exception' $f) Exception lines, $(grep -c 'RUNNING to FAILED' $f) RUNNING->FAILED, $(grep -ci 'restored from\|resum' $f) restore lines"; done
echo "expected silver by state:"; q -c "SELECT CASE kind WHEN 'materialize' THEN 'promoted' ELSE kind END, count(*) FROM oml_outbox WHERE kind IN ('materialize','demote','erase') GROUP BY 1 ORDER BY 1"
