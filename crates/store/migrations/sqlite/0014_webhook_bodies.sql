-- Rendered notification bodies live apart from the delivery state: a body is written once and
-- never changed, while the state row is rewritten by every claim and attempt. Kept in the
-- notification row, the body made each of those rewrites copy ~1 KiB more and split pages.
CREATE TABLE webhook_bodies (
    notification_id  BLOB PRIMARY KEY NOT NULL,
    body             TEXT NOT NULL
) STRICT;
INSERT INTO webhook_bodies (notification_id, body)
    SELECT id, body FROM webhook_notifications WHERE body IS NOT NULL;
ALTER TABLE webhook_notifications DROP COLUMN body;
