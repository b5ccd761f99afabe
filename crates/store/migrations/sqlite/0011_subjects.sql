-- What boxtrack polls upstream: one row per carrier + reference, whichever accounts track it.
CREATE TABLE subjects (
    id               BLOB PRIMARY KEY NOT NULL,
    scac             TEXT NOT NULL,
    kind             TEXT NOT NULL,
    reference        TEXT NOT NULL,
    active           INTEGER NOT NULL,
    next_due_us      INTEGER NOT NULL,
    locked_until_us  INTEGER,
    failures         INTEGER NOT NULL,
    last_polled_us   INTEGER,
    last_success_us  INTEGER,
    last_error       TEXT,
    created_us       INTEGER NOT NULL
) STRICT;
CREATE UNIQUE INDEX subjects_key ON subjects (scac, kind, reference);
CREATE INDEX subjects_due ON subjects (next_due_us) WHERE active = 1;
CREATE INDEX tracking_requests_subject ON tracking_requests (request_number, request_type);
