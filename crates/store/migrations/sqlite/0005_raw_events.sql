-- What each source reported, verbatim, per container it touched (the merge input).
CREATE TABLE raw_events (
    id            BLOB PRIMARY KEY NOT NULL,
    account_id    BLOB NOT NULL,
    container_id  BLOB NOT NULL REFERENCES containers(id),
    shipment_id   BLOB NOT NULL,
    data_source   TEXT NOT NULL,
    event         TEXT NOT NULL,
    estimated     INTEGER NOT NULL,
    at_us         INTEGER,
    locode        TEXT,
    timezone      TEXT,
    vessel_name   TEXT,
    vessel_imo    TEXT,
    voyage        TEXT,
    original      TEXT NOT NULL,
    observed_us   INTEGER NOT NULL,
    created_us    INTEGER NOT NULL
) STRICT;
CREATE INDEX raw_events_container ON raw_events (container_id, created_us DESC, id DESC);
