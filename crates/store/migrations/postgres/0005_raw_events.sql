-- What each source reported, verbatim, per container it touched (the merge input).
CREATE TABLE raw_events (
    id            UUID PRIMARY KEY NOT NULL,
    account_id    UUID NOT NULL,
    container_id  UUID NOT NULL REFERENCES containers(id),
    shipment_id   UUID NOT NULL,
    data_source   TEXT NOT NULL,
    event         TEXT NOT NULL,
    estimated     BOOLEAN NOT NULL,
    at_us         BIGINT,
    locode        TEXT,
    timezone      TEXT,
    vessel_name   TEXT,
    vessel_imo    TEXT,
    voyage        TEXT,
    original      JSONB NOT NULL,
    observed_us   BIGINT NOT NULL,
    created_us    BIGINT NOT NULL
);
CREATE INDEX raw_events_container ON raw_events (container_id, created_us DESC, id DESC);
