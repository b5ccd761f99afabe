-- Delivery storage shaped for the delivery path, which rewrites a notification's state at
-- every claim and attempt and adds an attempt row per request:
-- * bodies live apart from the state: a body is written once and never changed, and kept in
--   the notification row it made each rewrite copy ~1 KiB more and split pages;
-- * notifications and attempts are WITHOUT ROWID tables clustered on their keys, so a write
--   touches one b-tree less (no separate primary-key index) and a notification's attempts sit
--   together; attempts no longer carry a foreign key (the store only ever adds attempts to
--   notifications it has just read, and notifications are never deleted), which spared a
--   lookup per attempt.
CREATE TABLE webhook_bodies (
    notification_id  BLOB PRIMARY KEY NOT NULL,
    body             TEXT NOT NULL
) STRICT;
INSERT INTO webhook_bodies (notification_id, body)
    SELECT id, body FROM webhook_notifications WHERE body IS NOT NULL;

CREATE TABLE webhook_attempts_new (
    notification_id  BLOB NOT NULL,
    id               BLOB NOT NULL,
    attempted_us     INTEGER NOT NULL,
    status_code      INTEGER,
    duration_ms      INTEGER NOT NULL,
    error            TEXT,
    PRIMARY KEY (notification_id, id)
) STRICT, WITHOUT ROWID;
INSERT INTO webhook_attempts_new (notification_id, id, attempted_us, status_code, duration_ms, error)
    SELECT notification_id, id, attempted_us, status_code, duration_ms, error FROM webhook_attempts;
DROP TABLE webhook_attempts;
ALTER TABLE webhook_attempts_new RENAME TO webhook_attempts;

CREATE TABLE webhook_notifications_new (
    id                BLOB PRIMARY KEY NOT NULL,
    account_id        BLOB NOT NULL REFERENCES accounts(id),
    webhook_id        BLOB NOT NULL,
    event_id          BLOB NOT NULL,
    seq               INTEGER NOT NULL,
    event             TEXT NOT NULL,
    reference_type    TEXT NOT NULL,
    reference_id      BLOB NOT NULL,
    delivery_status   TEXT NOT NULL,
    attempts          INTEGER NOT NULL,
    next_attempt_us   INTEGER,
    locked_until_us   INTEGER,
    last_status_code  INTEGER,
    last_error        TEXT,
    created_us        INTEGER NOT NULL,
    updated_us        INTEGER NOT NULL,
    replay_of         BLOB
) STRICT, WITHOUT ROWID;
INSERT INTO webhook_notifications_new (id, account_id, webhook_id, event_id, seq, event, reference_type, reference_id,
        delivery_status, attempts, next_attempt_us, locked_until_us, last_status_code, last_error, created_us, updated_us, replay_of)
    SELECT id, account_id, webhook_id, event_id, seq, event, reference_type, reference_id,
        delivery_status, attempts, next_attempt_us, locked_until_us, last_status_code, last_error, created_us, updated_us, replay_of
    FROM webhook_notifications;
DROP TABLE webhook_notifications;
ALTER TABLE webhook_notifications_new RENAME TO webhook_notifications;
CREATE INDEX webhook_notifications_account_created ON webhook_notifications (account_id, created_us DESC, id DESC);
CREATE INDEX webhook_notifications_due ON webhook_notifications (next_attempt_us) WHERE delivery_status = 'pending';
