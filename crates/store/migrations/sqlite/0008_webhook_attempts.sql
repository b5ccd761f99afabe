-- Every delivery attempt of a notification.
CREATE TABLE webhook_attempts (
    id               BLOB PRIMARY KEY NOT NULL,
    notification_id  BLOB NOT NULL REFERENCES webhook_notifications(id),
    attempted_us     INTEGER NOT NULL,
    status_code      INTEGER,
    duration_ms      INTEGER NOT NULL,
    error            TEXT
) STRICT;
CREATE INDEX webhook_attempts_notification ON webhook_attempts (notification_id, attempted_us);
