-- What the lake should hold, computed in SQL from oml_outbox alone (no writer code): the
-- validator's rules (operators/.../validate/EventValidator.java, docs/null-columns.md), silver's
-- StateTransitions, gold's rules (docs/gold.md). Prints lines in the format LakeStates53.java
-- prints for the lake read back, so that `diff` of the two sorted outputs is the check:
--   count|<prefix>|bronze|N            count|<prefix>|dead_letter|N    dlclass|<prefix>|CLASS|N
--   silver|t|artifact|version|state|workarea|has_body
--   lineage|t|artifact|version|state|workarea|promoted_seq|retractions
--   memory|t|artifact|version|workarea|validated_seq
--   workarea|t|workarea|state|path|validated_seq|invalidated_seq
\pset format unaligned
\pset tuples_only on
\pset footer off
SET client_min_messages = warning;

CREATE OR REPLACE FUNCTION mix53.json_object_ok(t text) RETURNS boolean LANGUAGE plpgsql IMMUTABLE AS $$
BEGIN
  IF length(t) - length(replace(replace(t, '{', ''), '[', '')) > 64 THEN RETURN false; END IF;
  RETURN json_typeof(t::json) = 'object';
EXCEPTION WHEN others THEN RETURN false;
END $$;

CREATE OR REPLACE FUNCTION mix53.blank(x text) RETURNS boolean LANGUAGE sql IMMUTABLE AS
  $$ SELECT x IS NULL OR btrim(x, E' \t\r\n') = '' $$;

-- the error class of a row, NULL when valid
CREATE OR REPLACE FUNCTION mix53.err(o oml_outbox) RETURNS text LANGUAGE sql IMMUTABLE AS $$
  SELECT CASE
    WHEN o.kind IS NULL OR o.kind NOT IN ('journal', 'materialize', 'demote', 'erase', 'simulation_end',
        'reassign', 'workarea_validated', 'workarea_invalidated') THEN 'UNKNOWN_KIND'
    WHEN o.tenant_id IS NULL OR o.tenant_id !~ '^[a-z0-9][a-z0-9_-]{0,62}$' THEN 'INVALID_TENANT'
    WHEN o.event_time IS NULL THEN 'MISSING_FIELD'
    WHEN o.kind = 'journal' AND mix53.blank(o.envelope) THEN 'MISSING_FIELD'
    WHEN o.kind = 'materialize' AND (mix53.blank(o.artifact_id) OR o.artifact_version IS NULL
        OR mix53.blank(o.workarea_id) OR mix53.blank(o.writer_identity) OR mix53.blank(o.principal)
        OR mix53.blank(o.ratified_by) OR mix53.blank(o.provenance_class)
        OR mix53.blank(o.plaintext_digest) OR mix53.blank(o.ciphertext_digest) OR o.body IS NULL
        OR mix53.blank(o.data_key_id)) THEN 'MISSING_FIELD'
    WHEN o.kind = 'workarea_validated' AND (mix53.blank(o.workarea_id) OR mix53.blank(o.writer_identity)
        OR mix53.blank(o.path_at_write)) THEN 'MISSING_FIELD'
    WHEN o.kind = 'workarea_invalidated' AND (mix53.blank(o.workarea_id) OR mix53.blank(o.writer_identity))
        THEN 'MISSING_FIELD'
    WHEN o.kind = 'reassign' AND (mix53.blank(o.artifact_id) OR o.artifact_version IS NULL
        OR mix53.blank(o.workarea_id)) THEN 'MISSING_FIELD'
    WHEN o.kind IN ('demote', 'erase', 'simulation_end') AND (mix53.blank(o.artifact_id)
        OR o.artifact_version IS NULL) THEN 'MISSING_FIELD'
    WHEN o.kind = 'journal' AND NOT mix53.json_object_ok(o.envelope) THEN 'UNPARSEABLE_ENVELOPE'
    WHEN o.kind = 'materialize' AND o.ratified_by = o.writer_identity THEN 'UNRATIFIED_BODY'
    WHEN o.kind = 'materialize' AND length(o.body) > 16 * 1024 * 1024 THEN 'BODY_TOO_LARGE'
    WHEN o.kind = 'materialize' AND encode(sha256(o.body), 'hex') <> lower(o.ciphertext_digest)
        THEN 'DIGEST_MISMATCH'
    WHEN o.kind = 'materialize' AND (length(o.body) < 33 OR get_byte(o.body, 0) <> 1) THEN 'PLAINTEXT_BODY'
  END
$$;

DROP TABLE IF EXISTS mix53.v, mix53.prom, mix53.ret, mix53.sil, mix53.wa, mix53.lin;
CREATE TABLE mix53.v AS SELECT o.*, mix53.err(o) AS err FROM oml_outbox o;
CREATE INDEX ON mix53.v (tenant_id, artifact_id, artifact_version, seq);
ANALYZE mix53.v;

-- bronze and dead letters per table prefix
SELECT 'count|' || pfx || '|' || tbl || '|' || count(*)
  FROM (SELECT CASE WHEN err IS NULL OR err <> 'INVALID_TENANT' THEN tenant_id ELSE '_invalid' END AS pfx,
               CASE WHEN err IS NULL THEN 'bronze' ELSE 'dead_letter' END AS tbl FROM mix53.v) x
 GROUP BY pfx, tbl ORDER BY 1;
SELECT 'dlclass|' || pfx || '|' || err || '|' || count(*)
  FROM (SELECT CASE WHEN err <> 'INVALID_TENANT' THEN tenant_id ELSE '_invalid' END AS pfx, err
          FROM mix53.v WHERE err IS NOT NULL) x
 GROUP BY pfx, err ORDER BY 1;

-- silver: the first valid promotion of a key makes the row; retractions after it, in seq order;
-- erase is terminal (nothing after it counts)
CREATE TABLE mix53.prom AS
SELECT DISTINCT ON (tenant_id, artifact_id, artifact_version) tenant_id, artifact_id, artifact_version,
       seq AS pseq, workarea_id AS pwa
  FROM mix53.v WHERE err IS NULL AND kind = 'materialize'
 ORDER BY tenant_id, artifact_id, artifact_version, seq;
CREATE TABLE mix53.ret AS
SELECT r.tenant_id, r.artifact_id, r.artifact_version, r.seq, r.kind, r.workarea_id
  FROM mix53.v r JOIN mix53.prom p USING (tenant_id, artifact_id, artifact_version)
 WHERE r.err IS NULL AND r.kind IN ('demote', 'erase', 'simulation_end', 'reassign') AND r.seq > p.pseq;
DELETE FROM mix53.ret r USING (SELECT tenant_id, artifact_id, artifact_version, min(seq) AS eseq
                                 FROM mix53.ret WHERE kind = 'erase' GROUP BY 1, 2, 3) e
 WHERE r.tenant_id = e.tenant_id AND r.artifact_id = e.artifact_id
   AND r.artifact_version = e.artifact_version AND r.seq > e.eseq;
CREATE TABLE mix53.sil AS
SELECT p.*,
       coalesce((SELECT CASE r.kind WHEN 'demote' THEN 'demoted' WHEN 'erase' THEN 'erased'
                                    ELSE 'simulation_ended' END
                   FROM mix53.ret r
                  WHERE (r.tenant_id, r.artifact_id, r.artifact_version) = (p.tenant_id, p.artifact_id, p.artifact_version)
                    AND r.kind <> 'reassign' ORDER BY r.seq DESC LIMIT 1), 'active') AS state,
       coalesce((SELECT r.workarea_id FROM mix53.ret r
                  WHERE (r.tenant_id, r.artifact_id, r.artifact_version) = (p.tenant_id, p.artifact_id, p.artifact_version)
                    AND r.kind = 'reassign' ORDER BY r.seq DESC LIMIT 1), p.pwa) AS wa
  FROM mix53.prom p;
SELECT 'silver|' || tenant_id || '|' || artifact_id || '|' || artifact_version || '|' || state || '|'
       || wa || '|' || CASE WHEN state = 'erased' THEN 0 ELSE 1 END
  FROM mix53.sil ORDER BY 1;

-- workareas: the last validation event of each (tenant, workarea)
CREATE TABLE mix53.wa AS
SELECT DISTINCT ON (tenant_id, workarea_id) tenant_id, workarea_id,
       CASE kind WHEN 'workarea_validated' THEN 'validated' ELSE 'invalidated' END AS state,
       (SELECT path_at_write FROM mix53.v w WHERE w.err IS NULL AND w.kind = 'workarea_validated'
           AND (w.tenant_id, w.workarea_id) = (x.tenant_id, x.workarea_id) ORDER BY seq DESC LIMIT 1) AS path,
       (SELECT max(seq) FROM mix53.v w WHERE w.err IS NULL AND w.kind = 'workarea_validated'
           AND (w.tenant_id, w.workarea_id) = (x.tenant_id, x.workarea_id)) AS validated_seq,
       (SELECT max(seq) FROM mix53.v w WHERE w.err IS NULL AND w.kind = 'workarea_invalidated'
           AND (w.tenant_id, w.workarea_id) = (x.tenant_id, x.workarea_id)) AS invalidated_seq
  FROM mix53.v x WHERE err IS NULL AND kind IN ('workarea_validated', 'workarea_invalidated')
 ORDER BY tenant_id, workarea_id, seq DESC;
SELECT 'workarea|' || tenant_id || '|' || workarea_id || '|' || state || '|' || coalesce(path, 'null')
       || '|' || coalesce(validated_seq::text, 'null') || '|' || coalesce(invalidated_seq::text, 'null')
  FROM mix53.wa ORDER BY 1;

-- memories: active silver rows whose workarea is validated now
SELECT 'memory|' || s.tenant_id || '|' || s.artifact_id || '|' || s.artifact_version || '|' || s.wa
       || '|' || w.validated_seq
  FROM mix53.sil s JOIN mix53.wa w ON (w.tenant_id, w.workarea_id) = (s.tenant_id, s.wa)
 WHERE s.state = 'active' AND w.state = 'validated' ORDER BY 1;

-- lineage: a row per key with a valid journal event or promotion; promoted rows as silver;
-- unpromoted rows keep the journal's workarea unless a reassign (after the row exists) moves it;
-- retractions: every valid retraction after the row was created (also after an erase)
CREATE TABLE mix53.lin AS
SELECT tenant_id, artifact_id, artifact_version, min(seq) AS cseq
  FROM mix53.v WHERE err IS NULL AND kind IN ('journal', 'materialize') AND artifact_id IS NOT NULL
   AND artifact_version IS NOT NULL GROUP BY 1, 2, 3;
SELECT 'lineage|' || l.tenant_id || '|' || l.artifact_id || '|' || l.artifact_version || '|'
       || coalesce(s.state, 'null') || '|'
       || coalesce(
            -- promoted: silver's workarea, except that reassigns BEFORE the promotion were
            -- overridden by it (s.wa already); unpromoted: last reassign after creation, else the
            -- creating journal's workarea
            s.wa,
            (SELECT r.workarea_id FROM mix53.v r WHERE r.err IS NULL AND r.kind = 'reassign'
                AND (r.tenant_id, r.artifact_id, r.artifact_version) = (l.tenant_id, l.artifact_id, l.artifact_version)
                AND r.seq > l.cseq ORDER BY r.seq DESC LIMIT 1),
            (SELECT c.workarea_id FROM mix53.v c WHERE c.seq = l.cseq),
            'null') || '|'
       || coalesce(s.pseq::text, 'null') || '|'
       || (SELECT count(*) FROM mix53.v r WHERE r.err IS NULL
              AND r.kind IN ('demote', 'erase', 'simulation_end', 'reassign')
              AND (r.tenant_id, r.artifact_id, r.artifact_version) = (l.tenant_id, l.artifact_id, l.artifact_version)
              AND r.seq > l.cseq)
  FROM mix53.lin l LEFT JOIN mix53.sil s USING (tenant_id, artifact_id, artifact_version)
 ORDER BY 1;
