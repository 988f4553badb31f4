#!/bin/bash
# Stop 53's outside check over outside-mix53.sql, driving ./lakewriter as an operator would.
# Own PostgreSQL 15 (user pgow, port 55453, /tmp/ow53), init-db, an unrelated open transaction in
# another database for the whole check, then:
#   1. part A (main rows ord < 24000) committed; `run`; kill -9 mid-drain; the same command line
#      again; a second writer by mistake (must exit 1, LEASE_HELD); wait for frontier = end of A
#   2. prepared transaction p53a (part p1, 301 rows) and p53c (part p3, 10 rows), then part B (the
#      other main rows) committed: the frontier must HOLD at the end of A (documented horizon
#      hold; `status` must name the gid); then COMMIT PREPARED p53a: the frontier may only reach
#      the end of p1's seqs while p53c holds; kill -9 during the drain of part B and restart;
#      ROLLBACK PREPARED p53c: the frontier must reach the outbox max
#   3. p53b (part p2) prepared after the drain, 'tail' rows committed behind it: hold again;
#      COMMIT PREPARED p53b: the frontier must reach the max
#   4. dead-letters list, SIGTERM (exit 0), verify, rebuild-gold --check per tenant, the SQL
#      expectation (outside-expect53.sql) against the lake read back (LakeStates53.java)
# Output: stdout (outside-mix53-a.txt) and OUT (default: this directory's run-a/ subdirectory).
set -u
H=$(cd "$(dirname "$0")" && pwd)
OUT=${OUT:-$H/run-a}; mkdir -p "$OUT"
W=/tmp/ow53; PG=$W/pg; PORT=55453; LW=/work/main/lakewriter
export PATH=/usr/lib/postgresql/15/bin:$PATH
id pgow >/dev/null 2>&1 || useradd -m pgow; mkdir -p $W; chown pgow $W
su pgow -c "PATH=$PATH pg_ctl -D $PG stop -m immediate" >/dev/null 2>&1
rm -rf $PG $W/lake $W/state $W/state2 $W/*.log
su pgow -c "PATH=$PATH initdb -D $PG -U postgres --auth=trust" >/dev/null
printf "wal_level=logical\nport=$PORT\nmax_prepared_transactions=10\nunix_socket_directories='$W'\n" | su pgow -c "tee -a $PG/postgresql.conf" >/dev/null
su pgow -c "PATH=$PATH pg_ctl -D $PG -l $W/pg.log start -w" >/dev/null
q() { psql -h $W -p $PORT -U postgres -d oml -v ON_ERROR_STOP=1 -qtAX "$@"; }
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
cp $W/lw.properties "$OUT/lw.properties"
ts() { date +%H:%M:%S; }
front() { q -c "SELECT coalesce(max(frontier_seq),0) FROM oml_lake_frontier" 2>/dev/null || echo 0; }
lastseq() { q -c "SELECT last_value FROM oml_outbox_seq"; }
maxseq() { q -c "SELECT coalesce(max(seq),0) FROM oml_outbox"; }
waitfront() { # waitfront TARGET SECONDS: until frontier >= TARGET
  for i in $(seq 1 $2); do [ "$(front)" -ge "$1" ] && return 0; sleep 1; done; return 1; }

$LW init-db --config $W/lw.properties > $OUT/init.log 2>&1 || { echo init failed; cat $OUT/init.log; exit 1; }
q -f "$H/outside-mix53.sql" >/dev/null || { echo mix failed; exit 1; }
echo "[$(ts)] plan rows by part: $(q -c "SELECT string_agg(part || '=' || n, ' ') FROM (SELECT part, count(*) n FROM mix53.plan GROUP BY 1 ORDER BY 1) x")"

# ---- 1. part A
q -c "SELECT mix53.load('main', 0, 24000)" >/dev/null
A_END=$(lastseq); echo "[$(ts)] part A committed: seqs 1..$A_END"
(psql -h $W -p $PORT -U postgres -d other -c "BEGIN; CREATE TABLE junk(x int); INSERT INTO junk VALUES (1); SELECT pg_sleep(3000);" > /dev/null 2>&1 &)
sleep 1
$LW run --config $W/lw.properties > $OUT/run1.log 2>&1 &
P1=$!
for i in $(seq 1 900); do f=$(front); [ "${f:-0}" -gt 0 ] && break; sleep 0.2; done
echo "[$(ts)] frontier at kill -9: $(front) of $A_END"; kill -9 $P1; wait $P1 2>/dev/null
$LW run --config $W/lw.properties > $OUT/run2.log 2>&1 &
P2=$!
sleep 20
echo "[$(ts)] second writer by mistake (other state dir):"
timeout 180 $LW run --config $W/lw.properties -D state.dir=$W/state2 > $OUT/run3.log 2>&1; echo "  exit $?"; grep -o "LEASE_HELD[^.]*" $OUT/run3.log | head -1 | cut -c1-160
waitfront $A_END 600; echo "[$(ts)] frontier after restart: $(front) (part A ends at $A_END)"

# ---- 2. prepared p53a (p1) and p53c (p3), then part B committed
q -c "BEGIN" -c "SELECT mix53.load('p1', 0, 1e9)" -c "PREPARE TRANSACTION 'p53a'" >/dev/null
P1_END=$(lastseq)
q -c "BEGIN" -c "SELECT mix53.load('p3', 0, 1e9)" -c "PREPARE TRANSACTION 'p53c'" >/dev/null
P3_END=$(lastseq)
q -c "SELECT mix53.load('main', 24000, 1e9)" >/dev/null
B_END=$(lastseq)
echo "[$(ts)] prepared p53a seqs $((A_END+1))..$P1_END, p53c $((P1_END+1))..$P3_END; part B committed $((P3_END+1))..$B_END"
sleep 30
echo "[$(ts)] frontier 30 s later (must stay $A_END while p53a, p53c are prepared): $(front)"
$LW status --config $W/lw.properties > $OUT/status-held1.txt 2>&1; echo "  status exit $?; names p53a: $(grep -c p53a $OUT/status-held1.txt), p53c: $(grep -c p53c $OUT/status-held1.txt)"
q -c "COMMIT PREPARED 'p53a'"
echo "[$(ts)] COMMIT PREPARED p53a"
sleep 20
echo "[$(ts)] frontier 20 s later (p53c still prepared; must be <= $P1_END): $(front)"
q -c "ROLLBACK PREPARED 'p53c'"
echo "[$(ts)] ROLLBACK PREPARED p53c"
for i in $(seq 1 600); do f=$(front); [ "$f" -gt "$P3_END" ] && break; sleep 0.2; done
echo "[$(ts)] frontier at the second kill -9 (draining part B): $(front) of $B_END"; kill -9 $P2; wait $P2 2>/dev/null
$LW run --config $W/lw.properties > $OUT/run4.log 2>&1 &
P4=$!
waitfront $(maxseq) 900; echo "[$(ts)] frontier after the second restart: $(front) (outbox max $(maxseq), seq last value $(lastseq))"

# ---- 3. p53b prepared after the drain, tail committed behind it
PRE2=$(front)
q -c "BEGIN" -c "SELECT mix53.load('p2', 0, 1e9)" -c "PREPARE TRANSACTION 'p53b'" >/dev/null
P2_END=$(lastseq)
q -c "SELECT mix53.load('tail', 0, 1e9)" >/dev/null
T_END=$(lastseq)
echo "[$(ts)] prepared p53b seqs $((PRE2+1))..$P2_END; tail committed $((P2_END+1))..$T_END"
sleep 30
echo "[$(ts)] frontier 30 s later (must stay $PRE2): $(front)"
$LW status --config $W/lw.properties > $OUT/status-held2.txt 2>&1; echo "  status exit $?; names p53b: $(grep -c p53b $OUT/status-held2.txt)"
q -c "COMMIT PREPARED 'p53b'"
echo "[$(ts)] COMMIT PREPARED p53b"
waitfront $T_END 600; echo "[$(ts)] frontier: $(front) (outbox max $(maxseq))"
sleep 5

# ---- 4. reports
q -c "SELECT tenant_id, kind, count(*) FROM oml_outbox GROUP BY 1, 2 ORDER BY 1, 2" > $OUT/outbox-kinds.txt
$LW dead-letters list --status all --limit 100000 --config $W/lw.properties > $OUT/dead-letters.txt 2>&1; rc=$?; echo "[$(ts)] dead-letters list exit $rc: $(tail -1 $OUT/dead-letters.txt | cut -c1-200)"
q -c "SELECT coalesce(tenant_id,'(null)') || ' ' || error_class || ' ' || count(*) FROM oml_lake_dead_letter GROUP BY tenant_id, error_class ORDER BY 1" > $OUT/dead-letter-journal.txt
$LW status --config $W/lw.properties > $OUT/status-end.txt 2>&1
kill -TERM $P4; wait $P4; rc=$?; echo "[$(ts)] run (last) SIGTERM exit $rc"
$LW verify --config $W/lw.properties > $OUT/verify.txt 2>&1; rc=$?; echo "[$(ts)] verify exit $rc"; tail -3 $OUT/verify.txt
for t in acme globex initech; do
  $LW maintain rebuild-gold --tenant $t --check --config $W/lw.properties > $OUT/rebuild-gold-check-$t.txt 2>&1; echo "  rebuild-gold --check $t exit $?"
done
q -f "$H/outside-expect53.sql" | grep '|' | sort > $OUT/expect.txt
java -cp "/work/main/app/target/oml-lakewriter-app-0.1.0-SNAPSHOT.jar:$(cat /work/main/app/target/lakewriter.classpath)" \
  "$H/LakeStates53.java" $W/lake 2>$OUT/lake-read.err | sort > $OUT/lake.txt
echo "[$(ts)] expectation lines $(wc -l < $OUT/expect.txt), lake lines $(wc -l < $OUT/lake.txt)"
diff $OUT/expect.txt $OUT/lake.txt > $OUT/diff.txt; echo "  diff exit $? ($(grep -c '^[<>]' $OUT/diff.txt) differing lines)"
grep '^count\|^dlclass' $OUT/expect.txt
echo "  silver by tenant and state (expected):"; awk -F'|' '$1=="silver"{print "   ", $2, $5}' $OUT/expect.txt | sort | uniq -c
echo "  memories by tenant (expected / lake): $(awk -F'|' '$1=="memory"{print $2}' $OUT/expect.txt | sort | uniq -c | tr '\n' ' ') / $(awk -F'|' '$1=="memory"{print $2}' $OUT/lake.txt | sort | uniq -c | tr '\n' ' ')"
for f in run1 run2 run3 run4; do
  echo "  $f.log: $(grep -c 'Exception' $OUT/$f.log) Exception lines, $(grep -c 'switched from RUNNING to FAILED' $OUT/$f.log) RUNNING->FAILED, $(grep -ci 'restart' $OUT/$f.log) 'restart'"
done
su pgow -c "PATH=$PATH pg_ctl -D $PG stop -m immediate" >/dev/null
