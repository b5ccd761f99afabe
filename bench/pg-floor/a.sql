-- Today's per-row outbox, 256 rows a transaction as the delivery lane does: the claim writes a
-- lease into each row, the rendered bodies are inserted, each outcome rewrites its row.
\set lo random(1, 39000)
BEGIN;
SET LOCAL plan_cache_mode = force_generic_plan;
UPDATE n SET locked_until_us = 5 WHERE id = ANY(ARRAY(SELECT id FROM n WHERE delivery_status = 'pending' AND next_attempt_us <= 1000000000 AND (next_attempt_us, id) > (:lo, '00000000-0000-0000-0000-000000000000') ORDER BY next_attempt_us, id LIMIT 256 FOR UPDATE SKIP LOCKED)) RETURNING id, account_id, webhook_id, event_id, seq, event, reference_type, reference_id, delivery_status, attempts, next_attempt_us, last_status_code, last_error, created_us, updated_us;
COMMIT;
BEGIN;
INSERT INTO bodies SELECT id, body FROM n WHERE next_attempt_us > :lo AND delivery_status = 'pending' ORDER BY next_attempt_us LIMIT 256 ON CONFLICT DO NOTHING;
COMMIT;
BEGIN;
UPDATE n SET delivery_status = 'succeeded', attempts = attempts + 1, next_attempt_us = NULL, locked_until_us = NULL, last_status_code = 204, last_attempt_us = 7, last_duration_ms = 1, updated_us = 7 WHERE id = ANY(ARRAY(SELECT id FROM n WHERE delivery_status = 'pending' AND next_attempt_us > :lo ORDER BY next_attempt_us, id LIMIT 256));
COMMIT;
