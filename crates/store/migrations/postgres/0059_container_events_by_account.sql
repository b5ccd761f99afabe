-- A container's events, reached by the account first. Since migration 57 the primary keys are
-- (account_id, id), and a lookup of one container's open events that names the account (as
-- every statement does, for Citus) was planned as a BitmapAnd of the account's whole key and
-- the container's index while a new table's statistics still called it small: the merge's
-- supersede step then read every event of the account for each container, and ingest fell to
-- about a twentieth (BENCHMARKS.md, "Ingest after the account keys"). One index on both
-- columns keeps each lookup to the container's rows, and leads with the distribution column.
DROP INDEX IF EXISTS transport_events_container;
CREATE INDEX transport_events_container ON transport_events (account_id, container_id, created_us DESC, id DESC);
DROP INDEX IF EXISTS raw_events_container;
CREATE INDEX raw_events_container ON raw_events (account_id, container_id, created_us DESC, id DESC);
