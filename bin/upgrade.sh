#!/usr/bin/env bash
# Upgrades the lake writer on a Flink session cluster through a savepoint (docs/upgrade.md):
#   1. stop the running job with a savepoint (POST /jobs/{id}/stop), and wait for it;
#   2. upload the new job jar (POST /jars/upload);
#   3. run it from that savepoint (POST /jars/{id}/run, allowNonRestoredState = false);
#   4. check that the new job and all its tasks are RUNNING and that it completes checkpoints
#      (each completed checkpoint is a lake commit), and, with --psql-url, that the committed
#      frontier moves (or has caught up with the outbox).
# Needs bash, curl and jq. Everything after "--" is passed to the job's main (LakeWriterJob):
#
#   bin/upgrade.sh --rest http://jobmanager:8081 --jar oml-lakewriter-app-0.2.0-job.jar \
#       --savepoint-dir file:///flink-data/savepoints -- --config /opt/lakewriter/lakewriter.properties
#
# Exit codes: 0 upgraded and checked; 2 usage; 3 no job to upgrade; 4 savepoint failed (the old
# job keeps running); 5 the new jar was refused (the old job is stopped: resubmit the OLD jar with
# the printed savepoint to roll back); 6 the new job did not come up or make progress.
set -euo pipefail

REST="" JOB="" JOB_NAME="oml-lakewriter" JAR="" SAVEPOINT_DIR="" ENTRY_CLASS=""
TIMEOUT=300 CHECKPOINTS=2 PSQL_URL="" WRITER_ID=""
usage() { sed -n '2,20p' "$0" | sed 's/^# \{0,1\}//' >&2; echo "options: --rest URL --jar FILE --savepoint-dir DIR [--job ID | --job-name PREFIX] [--entry-class C] [--timeout SECONDS] [--checkpoints N] [--psql-url URL --writer-id ID] -- JOB ARGS" >&2; exit 2; }
while [[ $# -gt 0 ]]; do
  case "$1" in
    --rest) REST="${2%/}"; shift 2 ;;
    --job) JOB="$2"; shift 2 ;;
    --job-name) JOB_NAME="$2"; shift 2 ;;
    --jar) JAR="$2"; shift 2 ;;
    --savepoint-dir) SAVEPOINT_DIR="$2"; shift 2 ;;
    --entry-class) ENTRY_CLASS="$2"; shift 2 ;;
    --timeout) TIMEOUT="$2"; shift 2 ;;
    --checkpoints) CHECKPOINTS="$2"; shift 2 ;;
    --psql-url) PSQL_URL="$2"; shift 2 ;;
    --writer-id) WRITER_ID="$2"; shift 2 ;;
    --) shift; break ;;
    -h|--help) usage ;;
    *) echo "upgrade: unknown option $1" >&2; usage ;;
  esac
done
[[ -n "$REST" && -n "$JAR" && -n "$SAVEPOINT_DIR" ]] || { echo "upgrade: --rest, --jar and --savepoint-dir are required" >&2; usage; }
[[ -f "$JAR" ]] || { echo "upgrade: no jar at $JAR" >&2; exit 2; }
[[ -z "$PSQL_URL" || -n "$WRITER_ID" ]] || { echo "upgrade: --psql-url needs --writer-id" >&2; exit 2; }
for tool in curl jq; do command -v "$tool" >/dev/null || { echo "upgrade: $tool is required" >&2; exit 2; }; done

log() { echo "upgrade: $(date -u +%H:%M:%S) $*"; }
api() { curl -sS --fail-with-body --max-time 180 "$@"; }
deadline=$((SECONDS + TIMEOUT))

if [[ -z "$JOB" ]]; then
  JOB=$(api "$REST/jobs/overview" | jq -r --arg p "$JOB_NAME" \
    '[.jobs[] | select(.state == "RUNNING" and (.name | startswith($p)))] | if length == 1 then .[0].jid else empty end')
  [[ -n "$JOB" ]] || { echo "upgrade: not exactly one RUNNING job named '$JOB_NAME*' at $REST; pass --job ID" >&2; exit 3; }
fi
log "stopping job $JOB with a savepoint into $SAVEPOINT_DIR"
trigger=$(api -X POST -H 'Content-Type: application/json' \
  -d "$(jq -n --arg d "$SAVEPOINT_DIR" '{targetDirectory: $d, drain: false}')" \
  "$REST/jobs/$JOB/stop" | jq -r '."request-id"')
savepoint=""
while [[ $SECONDS -lt $deadline ]]; do
  status=$(api "$REST/jobs/$JOB/savepoints/$trigger")
  if [[ $(jq -r '.status.id' <<<"$status") == COMPLETED ]]; then
    if jq -e '.operation."failure-cause"' <<<"$status" >/dev/null; then
      echo "upgrade: the savepoint failed; job $JOB keeps running:" >&2
      jq -r '.operation."failure-cause"."stack-trace" // .operation."failure-cause"' <<<"$status" | head -20 >&2
      exit 4
    fi
    savepoint=$(jq -r '.operation.location' <<<"$status")
    break
  fi
  sleep 1
done
[[ -n "$savepoint" ]] || { echo "upgrade: no savepoint within ${TIMEOUT}s; check job $JOB" >&2; exit 4; }
log "savepoint: $savepoint"
frontier_before=""
frontier() { psql "$PSQL_URL" -Atc "SELECT coalesce((SELECT frontier_seq FROM oml_lake_frontier WHERE writer_id = '$WRITER_ID'), 0)"; }
outbox_max() { psql "$PSQL_URL" -Atc "SELECT coalesce(max(seq), 0) FROM oml_outbox"; }
[[ -z "$PSQL_URL" ]] || frontier_before=$(frontier)

log "uploading $JAR"
jar_id=$(api -X POST -F "jarfile=@$JAR;type=application/x-java-archive" "$REST/jars/upload" | jq -r '.filename' | xargs basename)
# NUL-separated, so that job arguments that look like jq options ("--config") stay arguments.
body=$( { (( $# == 0 )) || printf '%s\0' "$@"; } | jq -Rs --arg sp "$savepoint" --arg entry "$ENTRY_CLASS" \
  '{programArgsList: (split("\u0000") | map(select(. != ""))), savepointPath: $sp, allowNonRestoredState: false}
   + (if $entry == "" then {} else {entryClass: $entry} end)')
log "running $jar_id from the savepoint"
if ! run=$(api -X POST -H 'Content-Type: application/json' -d "$body" "$REST/jars/$jar_id/run"); then
  echo "upgrade: the new jar was refused:" >&2
  jq -r '.errors[]?' <<<"$run" 2>/dev/null | grep -m 5 -E 'Exception|SLOT_|LEASE_|STATE_|option' >&2 || echo "$run" >&2
  echo "upgrade: the old job is stopped at $savepoint; to roll back, run the OLD jar with that savepoint" >&2
  exit 5
fi
new_job=$(jq -r '.jobid' <<<"$run")
log "new job: $new_job"

while :; do
  job=$(api "$REST/jobs/$new_job")
  state=$(jq -r '.state' <<<"$job")
  if [[ $state == RUNNING ]] && jq -e '[.vertices[].status] | all(. == "RUNNING")' <<<"$job" >/dev/null; then break; fi
  if [[ $state == FAILED || $state == CANCELED || $state == FINISHED || $SECONDS -ge $deadline ]]; then
    echo "upgrade: new job $new_job is $state:" >&2
    api "$REST/jobs/$new_job/exceptions" | jq -r '."root-exception" // empty' | head -20 >&2
    exit 6
  fi
  sleep 1
done
log "new job $new_job is RUNNING"
while [[ $(api "$REST/jobs/$new_job/checkpoints" | jq -r '.counts.completed') -lt $CHECKPOINTS ]]; do
  [[ $SECONDS -lt $deadline ]] || { echo "upgrade: new job $new_job completed fewer than $CHECKPOINTS checkpoints in ${TIMEOUT}s" >&2; exit 6; }
  sleep 1
done
log "new job $new_job completed $CHECKPOINTS checkpoints"
if [[ -n "$PSQL_URL" ]]; then
  while :; do
    now=$(frontier); max=$(outbox_max)
    if [[ $now -gt $frontier_before || $now -ge $max ]]; then log "frontier $frontier_before -> $now (outbox max $max)"; break; fi
    [[ $SECONDS -lt $deadline ]] || { echo "upgrade: frontier stuck at $now (outbox max $max)" >&2; exit 6; }
    sleep 1
  done
else
  log "frontier not checked (no --psql-url)"
fi
log "upgraded: job $new_job from $savepoint"
