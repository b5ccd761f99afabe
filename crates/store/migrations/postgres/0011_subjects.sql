-- What boxtrack polls upstream: one row per carrier + reference, whichever accounts track it.
CREATE TABLE subjects (
    id               UUID PRIMARY KEY NOT NULL,
    scac             TEXT NOT NULL,
    kind             TEXT NOT NULL,
    reference        TEXT NOT NULL,
    active           BOOLEAN NOT NULL,
    next_due_us      BIGINT NOT NULL,
    locked_until_us  BIGINT,
    failures         INTEGER NOT NULL,
    last_polled_us   BIGINT,
    last_success_us  BIGINT,
    last_error       TEXT,
    created_us       BIGINT NOT NULL
);
CREATE UNIQUE INDEX subjects_key ON subjects (scac, kind, reference);
CREATE INDEX subjects_due ON subjects (next_due_us) WHERE active;
CREATE INDEX tracking_requests_subject ON tracking_requests (request_number, request_type);
