-- Runs after 10-outbox-contract.sql (the contract SQL the lake writer ships, mounted from
-- app/src/main/resources/org/oml/lakewriter/contract/). It adds what OutboxContract.apply() (and
-- so `lakewriter init-db`) adds around that script for postgres.schema = public and
-- postgres.publication = oml_lake_pub: every oml_* function pinned to its schema, and the
-- publication over the outbox and the horizon table. The replication slot is created by the
-- job's preflight at the first `flink run` (or by `lakewriter init-db`).
DO $$
DECLARE
  f regprocedure;
BEGIN
  FOR f IN
    SELECT p.oid::regprocedure FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
    WHERE n.nspname = 'public' AND p.proname LIKE 'oml\_%'
  LOOP
    EXECUTE format('ALTER FUNCTION %s SET search_path = public', f);
  END LOOP;
END
$$;

CREATE PUBLICATION oml_lake_pub FOR TABLE public.oml_outbox, public.oml_lake_horizon;
