-- The outbox: one row per (event, matching active webhook), written in the transaction that
-- appends the event. Delivery state and attempts live here.
CREATE TABLE webhook_notifications (
    id                BLOB PRIMARY KEY NOT NULL,
    account_id        BLOB NOT NULL REFERENCES accounts(id),
    webhook_id        BLOB NOT NULL,
    event_id          BLOB NOT NULL,
    seq               INTEGER NOT NULL,
    event             TEXT NOT NULL,
    reference_type    TEXT NOT NULL,
    reference_id      BLOB NOT NULL,
    delivery_status   TEXT NOT NULL,
    body              TEXT,
    attempts          INTEGER NOT NULL,
    next_attempt_us   INTEGER,
    locked_until_us   INTEGER,
    last_status_code  INTEGER,
    last_error        TEXT,
    created_us        INTEGER NOT NULL,
    updated_us        INTEGER NOT NULL
) STRICT;
CREATE INDEX webhook_notifications_account_created ON webhook_notifications (account_id, created_us DESC, id DESC);
CREATE INDEX webhook_notifications_due ON webhook_notifications (next_attempt_us) WHERE delivery_status = 'pending';
