-- rows FROM :lo TO :hi of the 512-tenant mix: tenant t<i % 512>; per tenant, in rounds of 10
-- (round = (i / 512) % 10): 6 journal events, 2 promotions (m-<i>, into wa-1 or wa-3),
-- a demote (round 4) and an erase (round 9) of the tenant's promotion 1024 rows earlier.
INSERT INTO oml_outbox (tenant_id, kind, artifact_id, artifact_version, workarea_id,
    path_at_write, writer_identity, principal, ratified_by, provenance_class, plaintext_digest,
    ciphertext_digest, body, data_key_id, envelope)
SELECT t, k,
    CASE WHEN k = 'journal' THEN 'a-' || i WHEN k = 'materialize' THEN 'm-' || i
         ELSE 'm-' || (i - 1024) END,
    1,
    CASE WHEN k = 'materialize' THEN CASE WHEN (i / 5120) % 2 = 0 THEN 'wa-1' ELSE 'wa-3' END END,
    CASE WHEN k = 'materialize' THEN '/notes/m-' || i || '.md' END,
    CASE WHEN k IN ('journal', 'materialize') THEN 'alice' END,
    CASE WHEN k IN ('journal', 'materialize') THEN 'alice@' || t END,
    CASE WHEN k = 'materialize' THEN 'bob' END,
    CASE WHEN k = 'materialize' THEN 'human' END,
    CASE WHEN k = 'journal' THEN encode(sha256(convert_to('a-' || i, 'UTF8')), 'hex')
         WHEN k = 'materialize' THEN encode(sha256(convert_to('plain:m-' || i, 'UTF8')), 'hex') END,
    CASE WHEN k = 'materialize' THEN encode(sha256(b), 'hex') END,
    CASE WHEN k = 'materialize' THEN b END,
    CASE WHEN k = 'materialize' THEN 'dek-m-' || i END,
    CASE WHEN k = 'journal' THEN '{"sig":"ed25519:abc","digest":"a-' || i || '"}' END
FROM generate_series(:lo, :hi) AS i,
LATERAL (SELECT 't' || (i % 512) AS t,
                CASE WHEN (i / 512) % 10 IN (2, 7) THEN 'materialize'
                     WHEN (i / 512) % 10 = 4 AND i >= 5120 THEN 'demote'
                     WHEN (i / 512) % 10 = 9 AND i >= 5120 THEN 'erase'
                     ELSE 'journal' END AS k,
                '\x01'::bytea || decode(repeat(md5(i::text), 32), 'hex') AS b) x
ORDER BY i;
