-- A source that is polled again answers with the same events again; each is kept once per
-- container (observation_key: the first 8 bytes of the SHA-256 of the observation as stored). Rows written before
-- this migration have no key (NULLs never collide) and stay as they are.
ALTER TABLE raw_events ADD COLUMN observation_key BIGINT;
CREATE UNIQUE INDEX raw_events_once ON raw_events (container_id, observation_key);
