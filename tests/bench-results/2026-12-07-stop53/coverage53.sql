-- How often each edge case of the mix occurs among the VALID rows (run after outside-expect53.sql,
-- which builds mix53.v, mix53.prom, mix53.sil).
WITH p AS (SELECT * FROM mix53.prom),
r AS (SELECT v.* FROM mix53.v v WHERE err IS NULL AND kind IN ('demote','erase','simulation_end','reassign'))
SELECT 'erase then a later retraction (keys)' what, count(DISTINCT (e.tenant_id,e.artifact_id,e.artifact_version)) FROM r e JOIN p USING (tenant_id,artifact_id,artifact_version) JOIN r l ON (l.tenant_id,l.artifact_id,l.artifact_version)=(e.tenant_id,e.artifact_id,e.artifact_version) AND l.seq>e.seq WHERE e.kind='erase' AND e.seq>p.pseq
UNION ALL SELECT 'erase then reassign (keys)', count(DISTINCT (e.tenant_id,e.artifact_id,e.artifact_version)) FROM r e JOIN p USING (tenant_id,artifact_id,artifact_version) JOIN r l ON (l.tenant_id,l.artifact_id,l.artifact_version)=(e.tenant_id,e.artifact_id,e.artifact_version) AND l.seq>e.seq AND l.kind='reassign' WHERE e.kind='erase' AND e.seq>p.pseq
UNION ALL SELECT 'erase then demote (keys)', count(DISTINCT (e.tenant_id,e.artifact_id,e.artifact_version)) FROM r e JOIN p USING (tenant_id,artifact_id,artifact_version) JOIN r l ON (l.tenant_id,l.artifact_id,l.artifact_version)=(e.tenant_id,e.artifact_id,e.artifact_version) AND l.seq>e.seq AND l.kind='demote' WHERE e.kind='erase' AND e.seq>p.pseq
UNION ALL SELECT 'simulation_end rows', count(*) FROM r WHERE kind='simulation_end'
UNION ALL SELECT 'retractions of keys never promoted (rows)', count(*) FROM r LEFT JOIN p USING (tenant_id,artifact_id,artifact_version) WHERE p.pseq IS NULL
UNION ALL SELECT 'retractions at a seq below the key''s promotion (rows)', count(*) FROM r JOIN p USING (tenant_id,artifact_id,artifact_version) WHERE r.seq < p.pseq
UNION ALL SELECT 'keys promoted 2+ times (producer retry)', count(*) FROM (SELECT 1 FROM mix53.v WHERE err IS NULL AND kind='materialize' GROUP BY tenant_id,artifact_id,artifact_version HAVING count(*)>1) x
UNION ALL SELECT 're-promotions after an erase (rows)', count(*) FROM mix53.v m JOIN r e USING (tenant_id,artifact_id,artifact_version) JOIN p USING (tenant_id,artifact_id,artifact_version) WHERE m.err IS NULL AND m.kind='materialize' AND e.kind='erase' AND e.seq>p.pseq AND m.seq>e.seq
UNION ALL SELECT 'artifacts with v1 retracted, v2 active', count(*) FROM mix53.sil a JOIN mix53.sil b ON (a.tenant_id,a.artifact_id)=(b.tenant_id,b.artifact_id) AND a.artifact_version=1 AND b.artifact_version=2 WHERE a.state<>'active' AND b.state='active'
UNION ALL SELECT 'artifacts with v2 retracted, v1 active', count(*) FROM mix53.sil a JOIN mix53.sil b ON (a.tenant_id,a.artifact_id)=(b.tenant_id,b.artifact_id) AND a.artifact_version=1 AND b.artifact_version=2 WHERE a.state='active' AND b.state<>'active'
UNION ALL SELECT 'p1 (prepared) first promotions of keys part B promotes again later', count(*) FROM mix53.sil s WHERE s.pseq BETWEEN 24209 AND 24509 AND s.artifact_id LIKE 'm-%'
UNION ALL SELECT 'same key, different silver state across tenants', count(*) FROM (SELECT artifact_id, artifact_version FROM mix53.sil GROUP BY 1,2 HAVING count(DISTINCT state)>1) x;
