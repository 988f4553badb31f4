-- The OML outbox contract, as the lake writer reads it. Applied by OutboxContract.apply():
-- every statement is idempotent, so a migration can run twice (and concurrently: the caller
-- holds an advisory lock). The publication is created by the caller, because its name is an
-- option.
--
-- Constraints are deliberately few. A real outbox may lack them, so the lake writer validates
-- kind, tenant id and the fields each kind requires itself, and dead-letters what fails.

-- seq is assigned at insert and visible at commit. CACHE 1: a cached sequence would hand a
-- backend values before its transaction exists, and the horizon protocol would be unsound.
CREATE SEQUENCE IF NOT EXISTS oml_outbox_seq AS bigint CACHE 1;
ALTER SEQUENCE oml_outbox_seq CACHE 1;

CREATE TABLE IF NOT EXISTS oml_outbox (
  seq               bigint PRIMARY KEY,
  tx_id             bigint NOT NULL,
  tenant_id         text,
  kind              text,
  artifact_id       text,
  artifact_version  bigint,
  workarea_id       text,
  path_at_write     text,
  writer_identity   text,
  principal         text,
  ratified_by       text,
  provenance_class  text,
  plaintext_digest  text,
  ciphertext_digest text,
  body              bytea,
  data_key_id       text,
  envelope          text,
  event_time        timestamptz DEFAULT now(),
  requeue_of        bigint
);

-- The xid first, then the seq. A transaction that holds a seq <= L therefore had its xid when
-- L was read, which is what the tick's candidate set relies on. seq is drawn here and not as a
-- column default, because defaults are evaluated before BEFORE triggers run.
CREATE OR REPLACE FUNCTION oml_outbox_assign_seq() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  NEW.tx_id := pg_current_xact_id()::text::bigint;
  NEW.seq := nextval('oml_outbox_seq');
  RETURN NEW;
END
$$;

CREATE OR REPLACE TRIGGER oml_outbox_assign_seq
  BEFORE INSERT ON oml_outbox
  FOR EACH ROW EXECUTE FUNCTION oml_outbox_assign_seq();

-- The stable prefix, one row per writer. Captured by CDC: its updates travel through the same
-- WAL stream as the outbox rows they vouch for.
CREATE TABLE IF NOT EXISTS oml_lake_horizon (
  writer_id   text PRIMARY KEY,
  stable_seq  bigint NOT NULL DEFAULT 0,
  pending_seq bigint,
  ticked_at   timestamptz NOT NULL DEFAULT now()
);

-- The candidate set of the pending seq: transactions that may still hold a seq <= pending_seq.
-- Not captured by CDC; read by the tick and by `lakewriter status` (which names the blocking pids).
CREATE TABLE IF NOT EXISTS oml_lake_horizon_pending (
  writer_id   text PRIMARY KEY,
  pending_seq bigint NOT NULL,
  xip         xid8[] NOT NULL,
  range_lo    xid8 NOT NULL,
  range_hi    xid8 NOT NULL,
  since       timestamptz NOT NULL DEFAULT now()
);

-- The frontier the sink has committed, per writer. A cache for `lakewriter status`; recovery
-- reads the Delta log, never this.
CREATE TABLE IF NOT EXISTS oml_lake_frontier (
  writer_id    text PRIMARY KEY,
  frontier_seq bigint NOT NULL,
  updated_at   timestamptz NOT NULL DEFAULT now()
);

-- true while x may still commit. A NULL status means the xid is too old for the commit log
-- (or invalid): it has long finished.
CREATE OR REPLACE FUNCTION oml_lake_xid_in_progress(x xid8) RETURNS boolean
LANGUAGE sql VOLATILE AS $$
  SELECT coalesce(pg_xact_status(x) = 'in progress', false)
$$;

-- true while any xid of the candidate set may still commit.
CREATE OR REPLACE FUNCTION oml_lake_candidates_running(p_xip xid8[], p_lo xid8, p_hi xid8)
RETURNS boolean
LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  x xid8;
  i bigint;
BEGIN
  FOREACH x IN ARRAY p_xip LOOP
    IF oml_lake_xid_in_progress(x) THEN
      RETURN true;
    END IF;
  END LOOP;
  FOR i IN p_lo::text::bigint .. p_hi::text::bigint - 1 LOOP
    IF oml_lake_xid_in_progress(i::text::xid8) THEN
      RETURN true;
    END IF;
  END LOOP;
  RETURN false;
END
$$;

-- One tick of the horizon protocol (ARCHITECTURE.md, "The stable prefix"). Returns stable_seq.
--   1. promote the pending seq once none of its candidates is in progress;
--   2. read L, the sequence's last handed-out value;
--   3. take an xid of our own, Y, then (a later statement) a snapshot S;
--   4. candidates = xip(S) below Y, plus every xid in [xmax(S), Y);
--   5. if none is in progress already, L is stable now; else keep it pending.
-- The horizon row's update commits after every transaction it waited for, so CDC delivers it
-- after all their rows. Each statement must see a fresh snapshot: READ COMMITTED only.
CREATE OR REPLACE FUNCTION oml_lake_tick(p_writer text) RETURNS bigint
LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  v_stable   bigint;
  v_pending  oml_lake_horizon_pending%ROWTYPE;
  v_last     bigint;
  v_called   boolean;
  v_me       xid8;
  v_snap     pg_snapshot;
  v_xip      xid8[];
  v_lo       xid8;
BEGIN
  IF current_setting('transaction_isolation') <> 'read committed' THEN
    RAISE EXCEPTION 'oml_lake_tick must run under READ COMMITTED, not %',
      current_setting('transaction_isolation')
      USING HINT = 'A frozen snapshot would report running transactions as finished.';
  END IF;
  -- Serialize ticks of one writer without assigning an xid (Y must come after L).
  PERFORM pg_advisory_xact_lock(hashtext('oml_lake_tick'), hashtext(p_writer));

  SELECT stable_seq INTO v_stable FROM oml_lake_horizon WHERE writer_id = p_writer;
  v_stable := coalesce(v_stable, 0);

  SELECT * INTO v_pending FROM oml_lake_horizon_pending WHERE writer_id = p_writer;
  IF FOUND AND NOT oml_lake_candidates_running(v_pending.xip, v_pending.range_lo,
                                               v_pending.range_hi) THEN
    v_stable := greatest(v_stable, v_pending.pending_seq);
    v_pending := NULL;
  END IF;

  IF v_pending.writer_id IS NULL THEN
    SELECT last_value, is_called INTO v_last, v_called FROM oml_outbox_seq;
    IF NOT v_called THEN
      v_last := v_last - 1;
    END IF;
    IF v_last > v_stable THEN
      v_me := pg_current_xact_id();
      v_snap := pg_current_snapshot();
      SELECT coalesce(array_agg(x), '{}') INTO v_xip
        FROM pg_snapshot_xip(v_snap) AS x WHERE x < v_me;
      v_lo := least(pg_snapshot_xmax(v_snap), v_me);
      IF oml_lake_candidates_running(v_xip, v_lo, v_me) THEN
        v_pending := ROW(p_writer, v_last, v_xip, v_lo, v_me, now());
      ELSE
        v_stable := v_last;
      END IF;
    END IF;
  END IF;

  IF v_pending.writer_id IS NULL THEN
    DELETE FROM oml_lake_horizon_pending WHERE writer_id = p_writer;
  ELSE
    INSERT INTO oml_lake_horizon_pending AS p
      VALUES (v_pending.writer_id, v_pending.pending_seq, v_pending.xip, v_pending.range_lo,
              v_pending.range_hi, v_pending.since)
      ON CONFLICT (writer_id) DO UPDATE
        SET pending_seq = EXCLUDED.pending_seq, xip = EXCLUDED.xip,
            range_lo = EXCLUDED.range_lo, range_hi = EXCLUDED.range_hi,
            since = CASE WHEN p.pending_seq = EXCLUDED.pending_seq THEN p.since
                         ELSE EXCLUDED.since END;
  END IF;

  INSERT INTO oml_lake_horizon AS h (writer_id, stable_seq, pending_seq, ticked_at)
    VALUES (p_writer, v_stable, v_pending.pending_seq, now())
    ON CONFLICT (writer_id) DO UPDATE
      SET stable_seq = greatest(h.stable_seq, EXCLUDED.stable_seq),
          pending_seq = EXCLUDED.pending_seq,
          ticked_at = EXCLUDED.ticked_at;
  RETURN v_stable;
END
$$;

-- The PostgreSQL dead-letter journal: one 'materialize-skipped' record per outbox row that the
-- writer could not apply (ADR-0003 d6). The lake's dead_letter table, committed in the same Delta
-- commit as the row's batch, is the authority; this journal is what operators (`lakewriter
-- dead-letters list`) and the reconciler query. The writer inserts a record once the checkpoint
-- that carries the row's batch completes, with ON CONFLICT (seq) DO NOTHING, so a replay never
-- adds a second one. The raw row keeps every outbox column except the body, which is replaced by
-- its sha256 (and its length). Not captured by CDC.
--
-- `lakewriter dead-letters requeue` inserts a new outbox row with requeue_of = seq and, in the
-- same transaction, sets status 'requeued', requeued_as, requeued_at and requeued_by. Nothing
-- else ever changes a record, and the original outbox row is never edited.
CREATE TABLE IF NOT EXISTS oml_lake_dead_letter (
  seq               bigint PRIMARY KEY,
  writer_id         text NOT NULL,
  tenant_id         text,
  kind              text,
  error_class       text NOT NULL,
  message           text NOT NULL,
  attempts          integer NOT NULL DEFAULT 1,
  first_failure_at  timestamptz NOT NULL,
  last_failure_at   timestamptz NOT NULL,
  journalled_at     timestamptz NOT NULL DEFAULT now(),
  status            text NOT NULL DEFAULT 'dead',
  requeued_as       bigint,
  requeued_at       timestamptz,
  requeued_by       text,
  tx_id             bigint,
  artifact_id       text,
  artifact_version  bigint,
  workarea_id       text,
  path_at_write     text,
  writer_identity   text,
  principal         text,
  ratified_by       text,
  provenance_class  text,
  plaintext_digest  text,
  ciphertext_digest text,
  body_sha256       text,
  body_bytes        bigint,
  data_key_id       text,
  envelope          text,
  event_time        timestamptz,
  requeue_of        bigint,
  CONSTRAINT oml_lake_dead_letter_status CHECK (status IN ('dead', 'requeued')),
  CONSTRAINT oml_lake_dead_letter_requeued CHECK (
    (status = 'dead' AND requeued_as IS NULL AND requeued_at IS NULL)
    OR (status = 'requeued' AND requeued_as IS NOT NULL AND requeued_at IS NOT NULL))
);

CREATE INDEX IF NOT EXISTS oml_lake_dead_letter_tenant_status
  ON oml_lake_dead_letter (tenant_id, status);
CREATE INDEX IF NOT EXISTS oml_lake_dead_letter_error_class
  ON oml_lake_dead_letter (error_class);
