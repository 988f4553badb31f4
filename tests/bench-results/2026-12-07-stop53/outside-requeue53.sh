#!/bin/bash
# After outside-check-mix53b.sh (its PostgreSQL data, lake and state dir under /tmp/ow53 are
# reused): the writer started again with the same command line, then the operator's repairs by
# `dead-letters requeue`: a DIGEST_MISMATCH with --body-file (the bytes whose sha256 is the row's
# digest), an UNPARSEABLE_ENVELOPE and an UNRATIFIED_BODY without --force (must be refused, exit 1),
# and an UNKNOWN_KIND with --force (the copy is dead-lettered again, the stream goes on). Then
# SIGTERM, verify, rebuild-gold --check, and the SQL expectation against the lake as before.
set -u
H=$(cd "$(dirname "$0")" && pwd)
OUT=${OUT:-$H/run-requeue}; mkdir -p "$OUT"
W=/tmp/ow53; PG=$W/pg; PORT=55453; LW=/work/main/lakewriter
export PATH=/usr/lib/postgresql/15/bin:$PATH
su pgow -c "PATH=$PATH pg_ctl -D $PG -l $W/pg3.log start -w" >/dev/null
q() { psql -h $W -p $PORT -U postgres -d oml -v ON_ERROR_STOP=1 -qtAX "$@"; }
ts() { date +%H:%M:%S; }
front() { q -c "SELECT coalesce(max(frontier_seq),0) FROM oml_lake_frontier" 2>/dev/null || echo 0; }
$LW run --config $W/lw.properties > $OUT/run5.log 2>&1 &
P5=$!
for i in $(seq 1 300); do grep -q "lake writer running" $OUT/run5.log && break; sleep 1; done
echo "[$(ts)] run5 running, frontier $(front)"
pick() { q -c "SELECT seq FROM oml_lake_dead_letter WHERE error_class = '$1' AND status = 'dead' ORDER BY seq LIMIT 1"; }
DM=$(pick DIGEST_MISMATCH); UE=$(pick UNPARSEABLE_ENVELOPE); UR=$(pick UNRATIFIED_BODY); UK=$(pick UNKNOWN_KIND)
# the repaired body: the planned body plus the byte the mix appended before hashing
q -c "SELECT encode('\\x01'::bytea || decode(repeat(md5(artifact_id || ':' || artifact_version), 32), 'hex') || '\\x00'::bytea, 'hex') FROM oml_outbox WHERE seq = $DM" | xxd -r -p > $OUT/repaired-$DM.bin
echo "  body file sha256 $(sha256sum < $OUT/repaired-$DM.bin | cut -c1-16)..., row digest $(q -c "SELECT left(ciphertext_digest, 16) FROM oml_outbox WHERE seq = $DM")..."
$LW dead-letters requeue $DM --body-file $OUT/repaired-$DM.bin --config $W/lw.properties > $OUT/requeue-dm.txt 2>&1; rc=$?; echo "[$(ts)] requeue $DM (DIGEST_MISMATCH, --body-file) exit $rc: $(head -1 $OUT/requeue-dm.txt | cut -c1-200)"
$LW dead-letters requeue $UE --config $W/lw.properties > $OUT/requeue-ue.txt 2>&1; rc=$?; echo "[$(ts)] requeue $UE (UNPARSEABLE_ENVELOPE) exit $rc: $(head -1 $OUT/requeue-ue.txt | cut -c1-200)"
$LW dead-letters requeue $UR --config $W/lw.properties > $OUT/requeue-ur.txt 2>&1; rc=$?; echo "[$(ts)] requeue $UR (UNRATIFIED_BODY) exit $rc: $(head -1 $OUT/requeue-ur.txt | cut -c1-200)"
$LW dead-letters requeue $UK --force --config $W/lw.properties > $OUT/requeue-uk.txt 2>&1; rc=$?; echo "[$(ts)] requeue $UK (UNKNOWN_KIND, --force) exit $rc: $(head -1 $OUT/requeue-uk.txt | cut -c1-200)"
MAX=$(q -c "SELECT max(seq) FROM oml_outbox")
for i in $(seq 1 300); do [ "$(front)" -ge "$MAX" ] && break; sleep 1; done
echo "[$(ts)] frontier $(front) (outbox max $MAX)"
q -c "SELECT seq, kind, error_class, status, requeued_as FROM oml_lake_dead_letter WHERE seq IN ($DM, $UE, $UR, $UK) OR requeue_of IS NOT NULL ORDER BY seq"
q -c "SELECT seq, requeue_of, kind, tenant_id FROM oml_outbox WHERE requeue_of IS NOT NULL"
sleep 3
kill -TERM $P5; wait $P5; rc=$?; echo "[$(ts)] run5 SIGTERM exit $rc"
$LW verify --config $W/lw.properties > $OUT/verify.txt 2>&1; rc=$?; echo "[$(ts)] verify exit $rc: $(tail -1 $OUT/verify.txt)"
for t in acme globex initech; do
  $LW maintain rebuild-gold --tenant $t --check --config $W/lw.properties > $OUT/rebuild-gold-check-$t.txt 2>&1; echo "  rebuild-gold --check $t exit $?"
done
q -f "$H/outside-expect53.sql" | grep '|' | sort > $OUT/expect.txt
java -cp "/work/main/app/target/oml-lakewriter-app-0.1.0-SNAPSHOT.jar:$(cat /work/main/app/target/lakewriter.classpath)" \
  "$H/LakeStates53.java" $W/lake 2>$OUT/lake-read.err | sort > $OUT/lake.txt
diff $OUT/expect.txt $OUT/lake.txt > $OUT/diff.txt; rc=$?; echo "[$(ts)] expectation $(wc -l < $OUT/expect.txt) lines, lake $(wc -l < $OUT/lake.txt); diff exit $rc ($(grep -c '^[<>]' $OUT/diff.txt) differing lines)"
grep '^count' $OUT/expect.txt | tr '\n' ' '; echo
echo "  run5.log: $(grep -c 'Exception' $OUT/run5.log) Exception lines, $(grep -c 'switched from RUNNING to FAILED' $OUT/run5.log) RUNNING->FAILED"
su pgow -c "PATH=$PATH pg_ctl -D $PG stop -m immediate" >/dev/null
