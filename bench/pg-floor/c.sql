-- The per-row outbox with its due state moved to a narrow table of its own (`due`), so that
-- a success deletes the due row and rewrites the notification in place (a HOT update: no
-- indexed column changes) instead of moving it out of the partial due index. Rows are picked
-- by `ctid = ANY(ARRAY(...))`, a TID scan (`IN (subquery)` became a scan of the whole table).
\set lo random(1, 39000)
BEGIN;
SET LOCAL plan_cache_mode = force_generic_plan;
WITH c AS (UPDATE due SET locked_until_us = 5 WHERE ctid = ANY(ARRAY(SELECT ctid FROM due WHERE next_attempt_us <= 1000000000 AND (next_attempt_us, notification_id) > (:lo, '00000000-0000-0000-0000-000000000000') AND (locked_until_us IS NULL OR locked_until_us < 1) ORDER BY next_attempt_us, notification_id LIMIT 256 FOR UPDATE SKIP LOCKED)) RETURNING notification_id) SELECT n.id, n.account_id, n.webhook_id, n.event_id, n.seq, n.event, n.reference_type, n.reference_id, n.delivery_status, n.attempts, n.next_attempt_us, n.last_status_code, n.last_error, n.created_us, n.updated_us FROM c JOIN n ON n.id = c.notification_id;
COMMIT;
BEGIN;
INSERT INTO bodies SELECT n.id, n.body FROM due JOIN n ON n.id = due.notification_id WHERE due.next_attempt_us > :lo ORDER BY due.next_attempt_us LIMIT 256 ON CONFLICT DO NOTHING;
COMMIT;
BEGIN;
WITH d AS (DELETE FROM due WHERE ctid = ANY(ARRAY(SELECT ctid FROM due WHERE next_attempt_us > :lo ORDER BY next_attempt_us, notification_id LIMIT 256)) RETURNING notification_id)
UPDATE n SET delivery_status = 'succeeded', attempts = attempts + 1, locked_until_us = NULL, last_status_code = 204, last_attempt_us = 7, last_duration_ms = 1, updated_us = 7 FROM d WHERE n.id = d.notification_id;
COMMIT;
