-- Tracking: requests (also the work queue), shipments, containers, transport events and the
-- per-account event log. Merge state is kept as JSON; the columns beside it serve filters.
ALTER TABLE accounts ADD COLUMN event_seq INTEGER NOT NULL DEFAULT 0;

CREATE TABLE tracking_requests (
    id               BLOB PRIMARY KEY NOT NULL,
    account_id       BLOB NOT NULL REFERENCES accounts(id),
    request_number   TEXT NOT NULL,
    request_type     TEXT NOT NULL,
    scac             TEXT,
    auto_detect      INTEGER NOT NULL,
    status           TEXT NOT NULL,
    failed_reason    TEXT,
    is_retrying      INTEGER NOT NULL,
    retry_count      INTEGER,
    ref_numbers      TEXT NOT NULL,
    shipment_tags    TEXT NOT NULL,
    shipment_id      BLOB,
    next_attempt_us  INTEGER,
    locked_until_us  INTEGER,
    created_us       INTEGER NOT NULL,
    updated_us       INTEGER NOT NULL
) STRICT;
CREATE INDEX tracking_requests_account_created ON tracking_requests (account_id, created_us DESC, id DESC);
CREATE INDEX tracking_requests_due ON tracking_requests (next_attempt_us) WHERE next_attempt_us IS NOT NULL;
CREATE UNIQUE INDEX tracking_requests_live ON tracking_requests (account_id, request_number, request_type, COALESCE(scac, ''))
    WHERE status IN ('pending', 'awaiting_manifest', 'created');

CREATE TABLE shipments (
    id                     BLOB PRIMARY KEY NOT NULL,
    account_id             BLOB NOT NULL REFERENCES accounts(id),
    tracking_request_id    BLOB,
    bill_of_lading_number  TEXT NOT NULL,
    scac                   TEXT NOT NULL,
    pod_locode             TEXT,
    ref_numbers            TEXT NOT NULL,
    tags                   TEXT NOT NULL,
    route                  TEXT NOT NULL,
    state                  TEXT NOT NULL,
    tracking_stopped_us    INTEGER,
    stopped_reason         TEXT,
    created_us             INTEGER NOT NULL,
    updated_us             INTEGER NOT NULL
) STRICT;
CREATE INDEX shipments_account_updated ON shipments (account_id, updated_us DESC, id DESC);

CREATE TABLE containers (
    id                BLOB PRIMARY KEY NOT NULL,
    account_id        BLOB NOT NULL REFERENCES accounts(id),
    shipment_id       BLOB NOT NULL REFERENCES shipments(id),
    number            TEXT NOT NULL,
    ref_numbers       TEXT NOT NULL,
    state             TEXT NOT NULL,
    current_status    TEXT NOT NULL,
    ready_for_pickup  INTEGER NOT NULL,
    pickup_lfd_us     INTEGER,
    active            INTEGER NOT NULL,
    created_us        INTEGER NOT NULL,
    updated_us        INTEGER NOT NULL
) STRICT;
CREATE INDEX containers_account_updated ON containers (account_id, updated_us DESC, id DESC);
CREATE INDEX containers_shipment ON containers (shipment_id);
CREATE INDEX containers_number ON containers (account_id, number);

CREATE TABLE transport_events (
    id            BLOB PRIMARY KEY NOT NULL,
    account_id    BLOB NOT NULL,
    container_id  BLOB NOT NULL REFERENCES containers(id),
    shipment_id   BLOB NOT NULL,
    event         TEXT NOT NULL,
    at_us         INTEGER,
    locode        TEXT,
    timezone      TEXT,
    terminal      TEXT,
    vessel_name   TEXT,
    vessel_imo    TEXT,
    voyage        TEXT,
    data_source   TEXT NOT NULL,
    created_us    INTEGER NOT NULL
) STRICT;
CREATE INDEX transport_events_container ON transport_events (container_id, created_us DESC, id DESC);

CREATE TABLE events (
    account_id    BLOB NOT NULL,
    seq           INTEGER NOT NULL,
    id            BLOB NOT NULL UNIQUE,
    event         TEXT NOT NULL,
    object_type   TEXT NOT NULL,
    object_id     BLOB NOT NULL,
    payload       TEXT NOT NULL,
    created_us    INTEGER NOT NULL,
    PRIMARY KEY (account_id, seq)
) STRICT;
