-- Every delivery attempt of a notification.
CREATE TABLE webhook_attempts (
    id               UUID PRIMARY KEY NOT NULL,
    notification_id  UUID NOT NULL REFERENCES webhook_notifications(id),
    attempted_us     BIGINT NOT NULL,
    status_code      BIGINT,
    duration_ms      BIGINT NOT NULL,
    error            TEXT
);
CREATE INDEX webhook_attempts_notification ON webhook_attempts (notification_id, attempted_us);
