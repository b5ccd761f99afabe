-- Tracking: requests (also the work queue), shipments, containers, transport events and the
-- per-account event log. Merge state is kept as JSON; the columns beside it serve filters.
ALTER TABLE accounts ADD COLUMN event_seq BIGINT NOT NULL DEFAULT 0;

CREATE TABLE tracking_requests (
    id               UUID PRIMARY KEY NOT NULL,
    account_id       UUID NOT NULL REFERENCES accounts(id),
    request_number   TEXT NOT NULL,
    request_type     TEXT NOT NULL,
    scac             TEXT,
    auto_detect      BOOLEAN NOT NULL,
    status           TEXT NOT NULL,
    failed_reason    TEXT,
    is_retrying      BOOLEAN NOT NULL,
    retry_count      BIGINT,
    ref_numbers      JSONB NOT NULL,
    shipment_tags    JSONB NOT NULL,
    shipment_id      UUID,
    next_attempt_us  BIGINT,
    locked_until_us  BIGINT,
    created_us       BIGINT NOT NULL,
    updated_us       BIGINT NOT NULL
);
CREATE INDEX tracking_requests_account_created ON tracking_requests (account_id, created_us DESC, id DESC);
CREATE INDEX tracking_requests_due ON tracking_requests (next_attempt_us) WHERE next_attempt_us IS NOT NULL;
CREATE UNIQUE INDEX tracking_requests_live ON tracking_requests (account_id, request_number, request_type, COALESCE(scac, ''))
    WHERE status IN ('pending', 'awaiting_manifest', 'created');

CREATE TABLE shipments (
    id                     UUID PRIMARY KEY NOT NULL,
    account_id             UUID NOT NULL REFERENCES accounts(id),
    tracking_request_id    UUID,
    bill_of_lading_number  TEXT NOT NULL,
    scac                   TEXT NOT NULL,
    pod_locode             TEXT,
    ref_numbers            JSONB NOT NULL,
    tags                   JSONB NOT NULL,
    route                  JSONB NOT NULL,
    state                  JSONB NOT NULL,
    tracking_stopped_us    BIGINT,
    stopped_reason         TEXT,
    created_us             BIGINT NOT NULL,
    updated_us             BIGINT NOT NULL
);
CREATE INDEX shipments_account_updated ON shipments (account_id, updated_us DESC, id DESC);

CREATE TABLE containers (
    id                UUID PRIMARY KEY NOT NULL,
    account_id        UUID NOT NULL REFERENCES accounts(id),
    shipment_id       UUID NOT NULL REFERENCES shipments(id),
    number            TEXT NOT NULL,
    ref_numbers       JSONB NOT NULL,
    state             JSONB NOT NULL,
    current_status    TEXT NOT NULL,
    ready_for_pickup  BOOLEAN NOT NULL,
    pickup_lfd_us     BIGINT,
    active            BOOLEAN NOT NULL,
    created_us        BIGINT NOT NULL,
    updated_us        BIGINT NOT NULL
);
CREATE INDEX containers_account_updated ON containers (account_id, updated_us DESC, id DESC);
CREATE INDEX containers_shipment ON containers (shipment_id);
CREATE INDEX containers_number ON containers (account_id, number);

CREATE TABLE transport_events (
    id            UUID PRIMARY KEY NOT NULL,
    account_id    UUID NOT NULL,
    container_id  UUID NOT NULL REFERENCES containers(id),
    shipment_id   UUID NOT NULL,
    event         TEXT NOT NULL,
    at_us         BIGINT,
    locode        TEXT,
    timezone      TEXT,
    terminal      TEXT,
    vessel_name   TEXT,
    vessel_imo    TEXT,
    voyage        TEXT,
    data_source   TEXT NOT NULL,
    created_us    BIGINT NOT NULL
);
CREATE INDEX transport_events_container ON transport_events (container_id, created_us DESC, id DESC);

CREATE TABLE events (
    account_id    UUID NOT NULL,
    seq           BIGINT NOT NULL,
    id            UUID NOT NULL UNIQUE,
    event         TEXT NOT NULL,
    object_type   TEXT NOT NULL,
    object_id     UUID NOT NULL,
    payload       JSONB NOT NULL,
    created_us    BIGINT NOT NULL,
    PRIMARY KEY (account_id, seq)
);
