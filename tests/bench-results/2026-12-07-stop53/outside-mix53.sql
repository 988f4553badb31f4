-- Stop 53's outside mix: the PLAN of ~49,000 outbox rows over three tenants (acme, globex,
-- initech) plus hostile rows, held in schema mix53 (not in the publication). outside-check-mix53.sh
-- inserts it in stages (mix53.load(part, lo, hi)), so that two prepared transactions can hold
-- seqs in the middle and at the end of the outbox. Nothing here writes oml_outbox by itself.
--
-- Bulk rows: global i = 1..48000, tenant r = i % 3 (0 acme, 1 globex, 2 initech), tenant-local
-- j = i / 3, block b = j / 20, position p = j % 20 (toff = r shifts each tenant's pattern so the
-- same artifact id has another fate in another tenant). A(b) = 'm-' || (b*20+10) is promoted at
-- version 1 (p 10) and version 2 (p 12); B(b) = 'm-' || (b*20+11) at version 1 only (p 11).
--   p 0-9, 18  journal of 'a-' || j v1 (p 9: no key; p 1,2: with a workarea; p 3: journal of
--              A(b) v1, which p 10 then promotes)
--   p 10,11,12 promotions (Tink-shaped 513-byte body, sha256 as ciphertext digest, ratified by bob)
--   p 13       producer retry: the same key promoted again with another seq (even b: A(b) v1, a few
--              rows later; odd b: B(b-25) v1, far away)
--   p 14       (b >= 50) retraction of ONE version of A(b-50): demote / erase / simulation_end /
--              reassign by (b+toff) % 4, version ((b/4)%2)+1
--   p 15       retraction of a key never promoted (even b: 'never-' || j; odd b: the journal-only
--              key 'a-' || (b*20+4), which lineage holds unpromoted)
--   p 16       (b >= 60) a second retraction of the key p 14 retracted ten blocks earlier
--              (reassign / demote / simulation_end): erase then reassign/demote, demote then
--              simulation_end, simulation_end then demote, ...
--   p 17       (b >= 30) reassign of B(b-30) into wa-1..wa-5
--   p 19       (b >= 60, b % 3 = 0) producer retry after the retractions: A(b-60) v1 promoted again
-- Workareas: wa-1..wa-5 and 'wa-"ü'\' (a quote, a backslash, a non-ASCII letter). Validation
-- events (ord = the tenant's row at block b, + .5): see the VALUES list below.
-- Hostile rows (every 173rd i, + .3), 18 kinds in turn: unknown kinds, bad tenant ids (Acme,
-- NULL, '', ../etc, 64 characters), a digest that does not match the body (its key promoted
-- correctly 300 rows later), malformed / non-object / 70-deep / trailing-token envelopes, a
-- plaintext body, a self-ratified body, missing workarea, NULL event_time, a reassign without a
-- workarea, a workarea_validated without path_at_write (of wa-4, whose memories would then
-- appear), a NULL kind, and a tenant 'hooli' that has only unknown-kind rows.
-- Parts: 'main' (loaded in two halves around the prepared transactions), 'p1' (300 rows in a
-- prepared transaction committed late, with retractions of keys promoted at HIGHER seqs and
-- first promotions of keys that part B promotes again), 'p3' (10 rows, ROLLBACK PREPARED), 'p2'
-- (200 rows prepared after the drain), 'tail' (100 rows committed after p2 was prepared).
DROP SCHEMA IF EXISTS mix53 CASCADE;
CREATE SCHEMA mix53;
CREATE TABLE mix53.plan (
  part text NOT NULL, ord numeric NOT NULL, t text, k text, aid text, ver bigint, wa text,
  path text, variant text, env text);

-- bulk
INSERT INTO mix53.plan (part, ord, t, k, aid, ver, wa, path)
SELECT 'main', i, t, k,
    CASE WHEN k = 'journal' AND p = 9 THEN NULL
         WHEN k = 'journal' AND p = 3 THEN 'm-' || (b * 20 + 10)
         WHEN k = 'journal' THEN 'a-' || j
         WHEN p IN (10, 11) THEN 'm-' || j
         WHEN p = 12 THEN 'm-' || (b * 20 + 10)
         WHEN p = 13 AND b % 2 = 0 THEN 'm-' || (b * 20 + 10)
         WHEN p = 13 THEN 'm-' || ((b - 25) * 20 + 11)
         WHEN p = 14 THEN 'm-' || ((b - 50) * 20 + 10)
         WHEN p = 15 AND b % 2 = 0 THEN 'never-' || j
         WHEN p = 15 THEN 'a-' || (b * 20 + 4)
         WHEN p = 16 THEN 'm-' || ((b - 60) * 20 + 10)
         WHEN p = 17 THEN 'm-' || ((b - 30) * 20 + 11)
         WHEN p = 19 THEN 'm-' || ((b - 60) * 20 + 10) END,
    CASE WHEN k = 'journal' AND p = 9 THEN NULL
         WHEN p = 12 THEN 2
         WHEN p = 14 THEN ((b / 4) % 2) + 1
         WHEN p = 16 THEN (((b - 10) / 4) % 2) + 1
         ELSE 1 END,
    CASE WHEN k = 'journal' AND p IN (1, 2) THEN 'wa-' || ((b % 5) + 1)
         WHEN p IN (10, 12) OR (p = 13 AND b % 2 = 0) OR p = 19 THEN
           CASE WHEN (b - CASE WHEN p = 19 THEN 60 ELSE 0 END) % 37 = 5 THEN 'wa-"ü''\'
                ELSE 'wa-' || (((b - CASE WHEN p = 19 THEN 60 ELSE 0 END + r) % 5) + 1) END
         WHEN p = 11 THEN 'wa-' || (((b * 3 + r) % 5) + 1)
         WHEN p = 13 THEN 'wa-' || ((((b - 25) * 3 + r) % 5) + 1)
         WHEN k = 'reassign' AND p = 14 THEN 'wa-' || ((b / 3) % 5 + 1)
         WHEN k = 'reassign' AND p = 15 THEN 'wa-1'
         WHEN k = 'reassign' AND p = 16 THEN 'wa-' || ((b / 7) % 5 + 1)
         WHEN k = 'reassign' AND p = 17 THEN 'wa-' || (((b * 7 + r) % 5) + 1) END,
    CASE WHEN k = 'materialize' THEN '/notes/m-' || j || '.md'
         WHEN k = 'reassign' THEN '/moved/' || j
         WHEN k = 'journal' AND p = 2 THEN '/drafts/"q"\' || j END
FROM generate_series(1, 48000) AS i,
LATERAL (SELECT i % 3 AS r, i / 3 AS j, (i / 3) / 20 AS b, (i / 3) % 20 AS p) q,
LATERAL (SELECT (ARRAY['acme', 'globex', 'initech'])[r + 1] AS t,
    CASE WHEN p IN (10, 11, 12) THEN 'materialize'
         WHEN p = 13 AND (b % 2 = 0 OR b >= 25) THEN 'materialize'
         WHEN p = 14 AND b >= 50 THEN (ARRAY['demote', 'erase', 'simulation_end', 'reassign'])[((b + r) % 4) + 1]
         WHEN p = 15 THEN (ARRAY['demote', 'erase', 'simulation_end', 'reassign'])[(b % 4) + 1]
         WHEN p = 16 AND b >= 60 THEN (ARRAY['reassign', 'demote', 'simulation_end'])[((b / 4) % 3) + 1]
         WHEN p = 17 AND b >= 30 THEN 'reassign'
         WHEN p = 19 AND b >= 60 AND b % 3 = 0 THEN 'materialize'
         ELSE 'journal' END AS k) x;

-- validation events: (tenant, block, sub-order, kind, workarea, path)
INSERT INTO mix53.plan (part, ord, t, k, wa, path)
SELECT 'main', 3 * (blk * 20) + r + 0.5 + sub / 100.0, t, k, wa, path
FROM (VALUES
  ('acme', 0, 0, 'workarea_validated', 'wa-1', '/wa-1'),
  ('acme', 0, 1, 'workarea_validated', 'wa-2', '/wa-2'),
  ('acme', 0, 2, 'workarea_validated', 'wa-"ü''\', '/wa/"weird"\'),
  ('globex', 0, 0, 'workarea_validated', 'wa-1', '/wa-1'),
  ('globex', 0, 1, 'workarea_validated', 'wa-2', '/wa-2'),
  ('initech', 0, 3, 'workarea_validated', 'wa-1', '/wa-1'),
  ('initech', 0, 4, 'workarea_validated', 'wa-2', '/wa-2'),
  ('acme', 200, 0, 'workarea_invalidated', 'wa-1', NULL),
  ('globex', 210, 0, 'workarea_invalidated', 'wa-1', NULL),
  ('initech', 220, 0, 'workarea_invalidated', 'wa-1', NULL),
  ('acme', 300, 0, 'workarea_invalidated', 'wa-2', NULL),
  ('globex', 300, 0, 'workarea_invalidated', 'wa-2', NULL),
  ('initech', 300, 0, 'workarea_invalidated', 'wa-2', NULL),
  ('acme', 400, 0, 'workarea_validated', 'wa-1', '/wa-1-v2'),
  ('globex', 450, 0, 'workarea_validated', 'wa-1', '/wa-1-v2'),
  ('initech', 500, 0, 'workarea_validated', 'wa-1', '/wa-1-v2'),
  ('acme', 500, 1, 'workarea_invalidated', 'wa-5', NULL),
  ('globex', 500, 1, 'workarea_invalidated', 'wa-5', NULL),
  ('initech', 500, 1, 'workarea_invalidated', 'wa-5', NULL),
  ('acme', 600, 0, 'workarea_validated', 'wa-3', '/wa-3'),
  ('globex', 600, 0, 'workarea_validated', 'wa-3', '/wa-3'),
  ('initech', 600, 0, 'workarea_validated', 'wa-3', '/wa-3'),
  ('acme', 650, 0, 'workarea_validated', 'wa-3', '/wa-3-again'),
  ('globex', 650, 0, 'workarea_validated', 'wa-3', '/wa-3-again'),
  ('initech', 650, 0, 'workarea_validated', 'wa-3', '/wa-3-again'),
  ('acme', 700, 0, 'workarea_validated', 'wa-2', '/wa-2-b'),
  ('acme', 700, 1, 'workarea_invalidated', 'wa-2', NULL),
  ('acme', 700, 2, 'workarea_validated', 'wa-2', '/wa-2-c'),
  ('globex', 700, 0, 'workarea_validated', 'wa-4', '/wa-4'),
  ('globex', 700, 1, 'workarea_invalidated', 'wa-4', NULL),
  ('initech', 750, 0, 'workarea_invalidated', 'wa-"ü''\', NULL)
) v(t, blk, sub, k, wa, path),
LATERAL (SELECT CASE t WHEN 'acme' THEN 0 WHEN 'globex' THEN 1 ELSE 2 END AS r) q;

-- initech's first two rows: a retraction of a key never promoted, and an invalidation of a
-- workarea never validated, before initech has any table
INSERT INTO mix53.plan (part, ord, t, k, aid, ver, wa) VALUES
  ('main', 0.1, 'initech', 'demote', 'ghost', 1, NULL),
  ('main', 0.2, 'initech', 'workarea_invalidated', NULL, NULL, 'wa-9');

-- awkward but valid keys: an artifact id with a slash, quotes and non-ASCII, version 2^53+1,
-- promoted into the weird workarea, then reassigned (every 50th block of each tenant)
INSERT INTO mix53.plan (part, ord, t, k, aid, ver, wa, path)
SELECT 'main', 3 * (blk * 20 + 18) + r + 0.4 + s / 100.0, (ARRAY['acme', 'globex', 'initech'])[r + 1],
    CASE s WHEN 0 THEN 'materialize' ELSE 'reassign' END,
    'ünï/"x"' || blk, 9007199254740993,
    CASE s WHEN 0 THEN 'wa-"ü''\' ELSE 'wa-' || ((blk / 50) % 5 + 1) END,
    '/ü/"p"\' || blk
FROM generate_series(0, 750, 50) AS blk, generate_series(0, 2) AS r, generate_series(0, 1) AS s;

-- hostile rows, 18 kinds in turn
INSERT INTO mix53.plan (part, ord, t, k, aid, ver, wa, path, variant, env)
SELECT 'main', i + 0.3,
    CASE h WHEN 2 THEN 'Acme' WHEN 3 THEN CASE WHEN (i / 173 / 18) % 2 = 0 THEN NULL ELSE '' END
           WHEN 4 THEN CASE WHEN (i / 173 / 18) % 2 = 0 THEN '../etc' ELSE repeat('x', 64) END
           WHEN 16 THEN 'hooli' ELSE t END,
    CASE h WHEN 0 THEN 'promote' WHEN 1 THEN 'MATERIALIZE' WHEN 2 THEN 'journal' WHEN 3 THEN 'journal'
           WHEN 4 THEN 'materialize' WHEN 5 THEN 'materialize' WHEN 6 THEN 'journal' WHEN 7 THEN 'journal'
           WHEN 8 THEN 'journal' WHEN 9 THEN 'materialize' WHEN 10 THEN 'materialize'
           WHEN 11 THEN 'materialize' WHEN 12 THEN 'journal' WHEN 13 THEN 'reassign'
           WHEN 14 THEN 'workarea_validated' WHEN 15 THEN NULL WHEN 16 THEN 'erase_all'
           WHEN 17 THEN 'journal' END,
    CASE WHEN h IN (14) THEN NULL WHEN h = 13 THEN 'm-10' ELSE 'h' || h || '-' || i END,
    CASE WHEN h = 14 THEN NULL ELSE 1 END,
    CASE WHEN h IN (11, 13) THEN NULL WHEN h = 14 THEN 'wa-4' ELSE 'wa-1' END,
    CASE WHEN h = 14 THEN NULL ELSE '/hostile/' || i END,
    CASE h WHEN 5 THEN 'digest_mismatch' WHEN 9 THEN 'plaintext' WHEN 10 THEN 'unratified'
           WHEN 12 THEN 'no_event_time' END,
    CASE h WHEN 6 THEN '{"sig":' WHEN 7 THEN '[1,2]' WHEN 8 THEN repeat('{"a":', 70) || '1' || repeat('}', 70)
           WHEN 17 THEN '{"a":1} x' END
FROM generate_series(173, 48000, 173) AS i,
LATERAL (SELECT (i / 173) % 18 AS h, (ARRAY['acme', 'globex', 'initech'])[(i % 3) + 1] AS t) x;

-- the digest-mismatch keys promoted correctly 300 rows later (a corrected row from the producer)
INSERT INTO mix53.plan (part, ord, t, k, aid, ver, wa, path)
SELECT 'main', ord + 300, t, 'materialize', aid, 1, 'wa-1', '/fixed/' || aid
FROM mix53.plan WHERE variant = 'digest_mismatch' AND ord + 300 < 48000;

-- p1: prepared mid-load (seqs between the halves), committed late
INSERT INTO mix53.plan (part, ord, t, k, aid, ver, wa, path)
SELECT 'p1', n, (ARRAY['acme', 'globex', 'initech'])[(n % 3) + 1],
    CASE n % 6 WHEN 0 THEN 'materialize' WHEN 1 THEN 'materialize' WHEN 2 THEN 'demote'
               WHEN 3 THEN 'erase' WHEN 4 THEN 'materialize' ELSE 'journal' END,
    CASE n % 6 WHEN 0 THEN 'p1-' || n WHEN 1 THEN 'p1-' || n
               WHEN 2 THEN 'm-' || ((n / 3) * 20 + 11)           -- B(n/3), promoted in part A
               WHEN 3 THEN 'm-' || ((700 + n / 6) * 20 + 10)     -- A(700+), promoted in part B: no-op
               WHEN 4 THEN 'm-' || ((600 + n / 6) * 20 + 10)     -- A(600+) v1: part B promotes it again
               ELSE 'p1j-' || n END,
    1,
    CASE WHEN n % 6 IN (0, 1) THEN 'wa-1' WHEN n % 6 = 4 THEN 'wa-3' END,
    CASE WHEN n % 6 IN (0, 1, 4) THEN '/p1/' || n END
FROM generate_series(1, 300) AS n;
INSERT INTO mix53.plan (part, ord, t, k, wa) VALUES ('p1', 150.5, 'globex', 'workarea_invalidated', 'wa-3');

-- p3: prepared and rolled back: none of these may reach the lake
INSERT INTO mix53.plan (part, ord, t, k, aid, ver, wa, path)
SELECT 'p3', n, 'acme', 'materialize', 'p3-' || n, 1, 'wa-1', '/p3/' || n FROM generate_series(1, 10) AS n;

-- p2: prepared after the drain, with normal rows committed behind it ('tail')
INSERT INTO mix53.plan (part, ord, t, k, aid, ver, wa, path)
SELECT 'p2', n,
    CASE WHEN n % 5 IN (2, 3) THEN (ARRAY['acme', 'globex', 'initech'])[(p1n % 3) + 1]
         ELSE (ARRAY['acme', 'globex', 'initech'])[(n % 3) + 1] END,
    CASE n % 5 WHEN 0 THEN 'materialize' WHEN 1 THEN 'demote' WHEN 2 THEN 'erase'
               WHEN 3 THEN 'reassign' ELSE 'simulation_end' END,
    CASE n % 5 WHEN 0 THEN 'p2-' || n
               WHEN 1 THEN 'm-' || ((400 + n) * 20 + 11)         -- B(400+) v1
               WHEN 4 THEN 'm-' || ((500 + n) * 20 + 10)         -- A(500+) v1
               ELSE 'p1-' || p1n END,                            -- a p1 promotion, in its tenant
    1,
    CASE WHEN n % 5 = 0 THEN 'wa-1' WHEN n % 5 = 3 THEN 'wa-2' END,
    CASE WHEN n % 5 IN (0, 3) THEN '/p2/' || n END
FROM generate_series(1, 200) AS n,
LATERAL (SELECT 6 * (n / 6 + 1) + (n % 2) AS p1n) q;
INSERT INTO mix53.plan (part, ord, t, k, wa) VALUES ('p2', 100.5, 'acme', 'workarea_invalidated', 'wa-3');

INSERT INTO mix53.plan (part, ord, t, k, aid, ver, wa, path)
SELECT 'tail', n,
    (ARRAY['acme', 'globex', 'initech'])[(CASE WHEN n % 10 = 0 THEN n / 2 ELSE n END % 3) + 1],
    CASE WHEN n % 10 = 0 THEN 'demote' ELSE 'journal' END,
    CASE WHEN n % 10 = 0 THEN 'p2-' || (n / 2) ELSE 'tail-' || n END,  -- p2-5 .. p2-50, in its tenant
    1, NULL, NULL
FROM generate_series(1, 100) AS n;
INSERT INTO mix53.plan (part, ord, t, k, wa, path) VALUES ('tail', 50.5, 'initech', 'workarea_validated', 'wa-4', '/wa-4');

-- the outbox columns of each planned row
CREATE VIEW mix53.rows AS
SELECT part, ord, t AS tenant_id, k AS kind, aid AS artifact_id, ver AS artifact_version,
    wa AS workarea_id, path AS path_at_write,
    CASE WHEN k IN ('journal', 'materialize') THEN 'alice'
         WHEN k IN ('workarea_validated', 'workarea_invalidated') THEN 'rev' END AS writer_identity,
    CASE WHEN k = 'materialize' THEN 'alice@' || coalesce(t, '?') END AS principal,
    CASE WHEN k = 'materialize' THEN CASE WHEN variant = 'unratified' THEN 'alice' ELSE 'bob' END END AS ratified_by,
    CASE WHEN k = 'materialize' THEN 'human' END AS provenance_class,
    CASE WHEN k = 'journal' THEN encode(sha256(convert_to(coalesce(aid, 'none') || ':' || ord, 'UTF8')), 'hex')
         WHEN k = 'materialize' THEN encode(sha256(convert_to('plain:' || aid || ':' || ver, 'UTF8')), 'hex') END AS plaintext_digest,
    CASE WHEN k = 'materialize' THEN
      encode(sha256(CASE WHEN variant = 'digest_mismatch' THEN b || '\x00'::bytea ELSE b END), 'hex') END AS ciphertext_digest,
    CASE WHEN k = 'materialize' THEN b END AS body,
    CASE WHEN k = 'materialize' THEN 'dek-' || aid || '-' || ver END AS data_key_id,
    CASE WHEN k = 'journal' THEN coalesce(env, '{"sig":"ed25519:abc","digest":"' || ord || '"}') END AS envelope,
    CASE WHEN variant = 'no_event_time' THEN NULL ELSE now() END AS event_time
FROM mix53.plan,
LATERAL (SELECT CASE WHEN variant = 'plaintext'
                     THEN convert_to('# notes for ' || aid || repeat(' lorem ipsum', 20), 'UTF8')
                     ELSE '\x01'::bytea || decode(repeat(md5(coalesce(aid, '') || ':' || ver), 32), 'hex') END AS b) x;

-- insert one part's rows with lo <= ord < hi, in ord order (seqs follow ord)
CREATE FUNCTION mix53.load(p_part text, lo numeric, hi numeric) RETURNS bigint
LANGUAGE sql AS $$
  WITH ins AS (
    INSERT INTO oml_outbox (tenant_id, kind, artifact_id, artifact_version, workarea_id,
        path_at_write, writer_identity, principal, ratified_by, provenance_class,
        plaintext_digest, ciphertext_digest, body, data_key_id, envelope, event_time)
    SELECT tenant_id, kind, artifact_id, artifact_version, workarea_id, path_at_write,
        writer_identity, principal, ratified_by, provenance_class, plaintext_digest,
        ciphertext_digest, body, data_key_id, envelope, event_time
    FROM mix53.rows WHERE part = p_part AND ord >= lo AND ord < hi ORDER BY ord
    RETURNING 1)
  SELECT count(*) FROM ins
$$;
