-- The outbox: one row per (event, matching active webhook), written in the transaction that
-- appends the event. Delivery state and attempts live here.
CREATE TABLE webhook_notifications (
    id                UUID PRIMARY KEY NOT NULL,
    account_id        UUID NOT NULL REFERENCES accounts(id),
    webhook_id        UUID NOT NULL,
    event_id          UUID NOT NULL,
    seq               BIGINT NOT NULL,
    event             TEXT NOT NULL,
    reference_type    TEXT NOT NULL,
    reference_id      UUID NOT NULL,
    delivery_status   TEXT NOT NULL,
    body              TEXT,
    attempts          BIGINT NOT NULL,
    next_attempt_us   BIGINT,
    locked_until_us   BIGINT,
    last_status_code  BIGINT,
    last_error        TEXT,
    created_us        BIGINT NOT NULL,
    updated_us        BIGINT NOT NULL
);
CREATE INDEX webhook_notifications_account_created ON webhook_notifications (account_id, created_us DESC, id DESC);
CREATE INDEX webhook_notifications_due ON webhook_notifications (next_attempt_us) WHERE delivery_status = 'pending';
