-- A log-and-cursor outbox: lease one cursor row, read the next 256 rows with their bodies,
-- append 256 compact attempt rows, advance the cursor.
\set lo random(1, 39000)
BEGIN;
UPDATE cursors SET locked_until_us = 5 WHERE webhook_id = '00000000-0000-0000-0000-000000000002';
SELECT id, account_id, webhook_id, event_id, seq, event, reference_type, reference_id, created_us, body FROM n WHERE webhook_id = '00000000-0000-0000-0000-000000000002' AND seq > :lo ORDER BY seq LIMIT 256;
COMMIT;
BEGIN;
INSERT INTO attempts_log SELECT gen_random_uuid(), 7, 204, 1, NULL FROM generate_series(1, 256);
UPDATE cursors SET pos = :lo + 256, locked_until_us = NULL WHERE webhook_id = '00000000-0000-0000-0000-000000000002';
COMMIT;
