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
-- Not captured by CDC; read by the tick and by `lakewriter status` (which names the holders).
-- The candidates are the xids in xip plus every xid in [range_lo, range_hi). Since the tick
-- narrows its candidates to the outbox's writers (see oml_lake_outbox_writers below), it writes
-- them all into xip and leaves the range empty (range_lo = range_hi). A row written by an older
-- tick (snapshot xip plus [xmax, Y)) keeps its meaning, so an upgrade while a seq is pending
-- needs no migration: that seq simply waits for its wider, older candidate set.
CREATE TABLE IF NOT EXISTS oml_lake_horizon_pending (
  writer_id   text PRIMARY KEY,
  pending_seq bigint NOT NULL,
  xip         xid8[] NOT NULL,
  range_lo    xid8 NOT NULL,
  range_hi    xid8 NOT NULL,
  since       timestamptz NOT NULL DEFAULT now()
);
COMMENT ON COLUMN oml_lake_horizon_pending.xip IS
  'candidate xids: the outbox writers (holders of RowExclusiveLock on oml_outbox) when the seq was read';
COMMENT ON COLUMN oml_lake_horizon_pending.range_lo IS
  'candidates also include [range_lo, range_hi); empty since the tick reads pg_locks';

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

-- The transactions that may still hold an outbox seq <= L, for a tick that read L and then took
-- its own xid p_me: the xids (below p_me) of the transactions that hold RowExclusiveLock on
-- oml_outbox in this database, read from pg_locks. Why that set is enough (ARCHITECTURE.md, "Only
-- outbox writers may hold the horizon"; docs/horizon-candidates.md):
--
-- * The order inside one INSERT. The executor opens oml_outbox with RowExclusiveLock before any
--   row is formed; then the BEFORE INSERT trigger (oml_outbox_assign_seq) calls
--   pg_current_xact_id(), which assigns the xid and inserts the transactionid ExclusiveLock on
--   it, and only then calls nextval. A transaction T that had been handed a seq s <= L when L was
--   read therefore already held both locks at that moment.
-- * Locks are held to the end of the transaction. T keeps both until it commits or aborts, so if
--   T is still running when pg_locks is read (after L), both rows are there, with T's
--   virtualtransaction. If T has ended, its outcome is already in the commit log and its commit
--   record is before the tick's own in the WAL, which is all the horizon needs.
-- * The order of the reads. L first (its own statement), then p_me, then one pg_locks scan. A
--   transaction that had no transactionid lock at the scan drew its seq after the scan, so after
--   L: its seq is > L. The same holds for an xid >= p_me (assigned after L). The sequence must be
--   CACHE 1: a cached value is handed out later by a backend that read it before L, without the
--   sequence moving. READ COMMITTED (checked by the tick) gives each statement a fresh view.
-- * One scan. pg_locks is read once (a single GROUP BY over pg_lock_status()), so a relation lock
--   and an xid lock of the same holder come from one call. Two references to pg_locks would be two
--   calls, two different moments.
-- * Fast-path locks. RowExclusiveLock is a weak lock and usually lives in the backend's fast-path
--   slots, not in the shared lock table; pg_locks reports those too (fastpath = true). The view
--   reads every backend's fast-path slots first and then the shared table: a lock moved from a
--   slot to the shared table meanwhile (when someone asks for a strong lock) is seen once or
--   twice, never missed.
-- * Subtransactions. The lock of an INSERT in a subtransaction belongs to the subtransaction's
--   resource owner. If the subtransaction commits, the lock passes to its parent and stays until
--   the top-level transaction ends. If it rolls back, the lock may be released, but the rows it
--   inserted can never commit either: their seqs are gaps. tx_id is the top-level xid
--   (pg_current_xact_id), whose lock belongs to the top-level transaction; the subtransactions'
--   own xids are candidates too (all of the holder's transactionid ExclusiveLocks), harmlessly.
-- * Prepared transactions. PREPARE TRANSACTION moves the locks to a dummy process. pg_locks shows
--   them with a NULL pid, and on PostgreSQL 17 (checked on 17.6) the dummy keeps the preparing
--   backend's virtualtransaction, so both locks stay matched even while PREPARE moves them
--   partition by partition; a prepared transaction recovered after a restart holds both under
--   one virtualtransaction of its own. pg_xact_status says 'in progress' until COMMIT or
--   ROLLBACK PREPARED. HorizonCandidatesTest pins this behaviour: rerun it on a new major version.
-- * Other databases. A relation oid is unique only within a database: the scan keeps the locks of
--   this database only. A transaction that never wrote the outbox (an idle session, a report, an
--   orphaned prepared transaction, anything in another database) holds no such lock and is not a
--   candidate, so it cannot hold the horizon.
-- pg_locks reports 32-bit xids. A running xid is within 2^31 of the next xid (wraparound
-- protection), so it widens exactly against p_me: full = p_me - ((p_me - x) mod 2^32).
CREATE OR REPLACE FUNCTION oml_lake_outbox_writers(p_me xid8) RETURNS xid8[]
LANGUAGE sql VOLATILE AS $$
  WITH holders AS (
    SELECT virtualtransaction,
           array_agg(transactionid::text::bigint)
             FILTER (WHERE locktype = 'transactionid' AND mode = 'ExclusiveLock') AS xids
      FROM pg_locks
     WHERE granted
     GROUP BY virtualtransaction
    HAVING bool_or(locktype = 'relation'
                   AND database = (SELECT oid FROM pg_database
                                    WHERE datname = current_database())
                   AND relation = 'oml_outbox'::regclass
                   AND mode = 'RowExclusiveLock')
  ), widened AS (
    SELECT (p_me::text::bigint
            - ((p_me::text::bigint % 4294967296) - x + 4294967296) % 4294967296) AS x,
           ((p_me::text::bigint % 4294967296) - x + 4294967296) % 4294967296 AS behind
      FROM holders, unnest(holders.xids) AS x
  )
  SELECT coalesce(array_agg(DISTINCT x::text::xid8), '{}')
    FROM widened
   WHERE behind BETWEEN 1 AND 2147483647
$$;

-- One tick of the horizon protocol (ARCHITECTURE.md, "The stable prefix"). Returns stable_seq.
--   1. promote the pending seq once none of its candidates is in progress;
--   2. read L, the sequence's last handed-out value;
--   3. take an xid of our own, Y (a later statement);
--   4. candidates = the outbox writers below Y (oml_lake_outbox_writers, a later statement);
--   5. if none is in progress already, L is stable now; else keep it pending.
-- Until the narrowing, step 4 took every running xid of the cluster (snapshot xip plus
-- [xmax, Y)): any transaction anywhere, even in another database, held every tenant's lake.
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
  v_writers  xid8[];
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
      v_writers := oml_lake_outbox_writers(v_me);
      IF oml_lake_candidates_running(v_writers, v_me, v_me) THEN
        v_pending := ROW(p_writer, v_last, v_writers, v_me, v_me, now());
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

-- ---------------------------------------------------------------------------------------------
-- Dependency breakers (issue 11 item 7): the job upserts the state of each dependency's circuit
-- breaker on every transition (best effort, off the task thread, with timeouts), so that
-- `lakewriter status`, a separate process, shows an open breaker. CLOSED rows stay as history.
-- ---------------------------------------------------------------------------------------------
CREATE TABLE IF NOT EXISTS oml_lake_dependency (
  writer_id   text NOT NULL,
  dependency  text NOT NULL,
  state       text NOT NULL,
  since       timestamptz NOT NULL,
  last_error  text,
  updated_at  timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (writer_id, dependency),
  CONSTRAINT oml_lake_dependency_state CHECK (state IN ('CLOSED', 'OPEN', 'HALF_OPEN', 'FORCED_OPEN', 'DISABLED', 'METRICS_ONLY'))
);

-- The leader lease of a lake (ADR-0003 d2: exactly one lake writer, a singleton with a leader
-- lease; docs/leader-lease.md). One row per lake root, NOT per writer_id: every writer commits
-- with the same Delta txn app id, so two writers on one lake break exactly-once whatever their
-- writer ids. Taken and renewed by the running job (LeaderLease, LeaseKeeper); every time
-- comparison is PostgreSQL's now(). epoch grows by one each time the lease passes to another
-- holder and is written into each Delta commit's commitInfo. Not captured by CDC.
CREATE TABLE IF NOT EXISTS oml_lake_lease (
  lake_root       text PRIMARY KEY,
  epoch           bigint NOT NULL,
  holder          text NOT NULL,
  holder_host     text,
  holder_pid      bigint,
  job_id          text,
  writer_id       text NOT NULL,
  slot            text,
  acquired_at     timestamptz NOT NULL,
  renewed_at      timestamptz NOT NULL,
  expires_at      timestamptz NOT NULL,
  renew_period_ms bigint NOT NULL
);
