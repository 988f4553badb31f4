-- 60,000 outbox rows in seq order, two tenants alternating. The first row of each tenant validates
-- workarea wa-1. Then per 10 rows of a tenant's stream: 6 journal events, 2 promotions (a 513-byte
-- Tink-shaped body, its sha256 as the ciphertext digest, ratified by another principal; into wa-1
-- or wa-3, 20 rows each in turn) and 2 retractions of the tenant's promotion made 104 rows
-- earlier: at position 4 a demote or an erase, at position 9 a reassign into wa-1 (validated) or
-- wa-3 (not), 20 and 40 rows each in turn.
INSERT INTO oml_outbox (tenant_id, kind, artifact_id, artifact_version, workarea_id,
    path_at_write, writer_identity, principal, ratified_by, provenance_class, plaintext_digest,
    ciphertext_digest, body, data_key_id, envelope)
SELECT t, k,
    CASE WHEN k = 'workarea_validated' THEN NULL WHEN k = 'journal' THEN 'a-' || i
         WHEN k = 'materialize' THEN 'm-' || i ELSE 'm-' || (i - 104) END,
    CASE WHEN k <> 'workarea_validated' THEN 1 END,
    CASE WHEN k = 'workarea_validated' THEN 'wa-1'
         WHEN k = 'materialize' THEN CASE WHEN (i / 20) % 2 = 0 THEN 'wa-1' ELSE 'wa-3' END
         WHEN k = 'reassign' THEN CASE WHEN (i / 40) % 2 = 0 THEN 'wa-1' ELSE 'wa-3' END END,
    CASE WHEN k = 'materialize' THEN '/notes/m-' || i || '.md'
         WHEN k = 'workarea_validated' THEN '/wa-1' END,
    CASE WHEN k IN ('journal', 'materialize') THEN 'alice' WHEN k = 'workarea_validated' THEN 'rev'
         END,
    CASE WHEN k IN ('journal', 'materialize') THEN 'alice@' || t END,
    CASE WHEN k = 'materialize' THEN 'bob' END,
    CASE WHEN k = 'materialize' THEN 'human' END,
    CASE WHEN k = 'journal' THEN encode(sha256(convert_to('a-' || i, 'UTF8')), 'hex')
         WHEN k = 'materialize' THEN encode(sha256(convert_to('plain:m-' || i, 'UTF8')), 'hex') END,
    CASE WHEN k = 'materialize' THEN encode(sha256(b), 'hex') END,
    CASE WHEN k = 'materialize' THEN b END,
    CASE WHEN k = 'materialize' THEN 'dek-m-' || i END,
    CASE WHEN k = 'journal' THEN '{"sig":"ed25519:abc","digest":"a-' || i || '"}' END
FROM generate_series(1, 60000) AS i,
LATERAL (SELECT CASE WHEN i % 2 = 0 THEN 'acme' ELSE 'globex' END AS t,
                CASE WHEN i <= 2 THEN 'workarea_validated'
                     WHEN (i / 2) % 10 IN (2, 7) THEN 'materialize'
                     WHEN (i / 2) % 10 = 4 AND i > 200 THEN
                       CASE WHEN (i / 20) % 2 = 0 THEN 'demote' ELSE 'erase' END
                     WHEN (i / 2) % 10 = 9 AND i > 200 THEN 'reassign'
                     ELSE 'journal' END AS k,
                '\x01'::bytea || decode(repeat(md5(i::text), 32), 'hex') AS b) x
ORDER BY i;
