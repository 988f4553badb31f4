#!/bin/bash
# Outside check: first start over a full outbox (snapshot-phase cut), unrelated open transaction in
# another database, kill -9 mid-snapshot, same command line again, a second writer by mistake, verify.
set -u
W=/tmp/ow; PG=$W/pg; PORT=55439; LW=/work/main/lakewriter
su pgow -c "pg_ctl -D $PG stop -m immediate" >/dev/null 2>&1; rm -rf $PG $W/lake $W/state $W/state2 $W/*.log
su pgow -c "initdb -D $PG -U postgres --auth=trust" >/dev/null
printf "wal_level=logical\nport=$PORT\nmax_prepared_transactions=5\nunix_socket_directories='$W'\n" | su pgow -c "tee -a $PG/postgresql.conf" >/dev/null
su pgow -c "pg_ctl -D $PG -l $W/pg.log start -w" >/dev/null
psql -h $W -p $PORT -U postgres -qc "CREATE DATABASE oml" -c "CREATE DATABASE other"
cat > $W/lw.properties <<P
postgres.url=jdbc:postgresql://localhost:$PORT/oml
postgres.user=postgres
writer.id=w1
lake.root=$W/lake
state.dir=$W/state
cut.snapshot-phase-rows=5000
checkpoint.interval=500ms
P
$LW init-db --config $W/lw.properties > $W/init.log 2>&1 || { echo init failed; cat $W/init.log; exit 1; }
# the outbox rows: 60,000 journal events, or the SQL file given as the first argument
if [ -n "${1:-}" ]; then
  psql -h $W -p $PORT -U postgres -d oml -qf "$1"
else
  psql -h $W -p $PORT -U postgres -d oml -qc "INSERT INTO oml_outbox (tenant_id, kind, artifact_id, artifact_version, writer_identity, principal, plaintext_digest, envelope) SELECT t, 'journal', 'a-' || i, 1, 'alice', 'alice@' || t, encode(sha256(convert_to('a-' || i, 'UTF8')), 'hex'), '{\"sig\":\"ed25519:abc\",\"digest\":\"a-' || i || '\"}' FROM generate_series(1, 60000) AS i, LATERAL (SELECT CASE WHEN i % 2 = 0 THEN 'acme' ELSE 'globex' END AS t) x ORDER BY i"
fi
# an unrelated transaction left open in another database, for the whole check
(psql -h $W -p $PORT -U postgres -d other -c "BEGIN; CREATE TABLE junk(x int); INSERT INTO junk VALUES (1); SELECT pg_sleep(600);" > /dev/null 2>&1 &)
sleep 1
$LW run --config $W/lw.properties > $W/run1.log 2>&1 &
P1=$!
front() { psql -h $W -p $PORT -U postgres -d oml -tAc "SELECT coalesce(max(frontier_seq),0) FROM oml_lake_frontier" 2>/dev/null || echo 0; }
for i in $(seq 1 600); do f=$(front); [ "${f:-0}" -gt 0 ] && break; sleep 0.2; done
echo "frontier at kill: $(front) of 60000"; kill -9 $P1; wait $P1 2>/dev/null
$LW run --config $W/lw.properties > $W/run2.log 2>&1 &
P2=$!
sleep 20
echo "second writer by mistake (other state dir):"
timeout 120 $LW run --config $W/lw.properties -D state.dir=$W/state2 > $W/run3.log 2>&1; echo "exit $?"; grep -o "LEASE_HELD[^.]*" $W/run3.log | head -1
for i in $(seq 1 300); do [ "$(front)" -ge 60000 ] && break; sleep 1; done
echo "frontier after restart: $(front)"
psql -h $W -p $PORT -U postgres -d oml -tAc "SELECT tenant_id, kind, count(*) FROM oml_outbox GROUP BY 1, 2 ORDER BY 1, 2"
kill -TERM $P2; wait $P2; echo "run2 exit $?"
$LW verify --config $W/lw.properties > $W/verify.log 2>&1; echo "verify exit $?"; tail -5 $W/verify.log
grep -i "snapshotPhase\|restored from\|starting fresh\|resum" $W/run2.log | head -3
su pgow -c "pg_ctl -D $PG stop -m immediate" >/dev/null
