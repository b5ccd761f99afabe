-- bench/pg-floor: 40 000 pending notifications shaped like boxtrack's outbox (the columns and
-- indexes of migrations 0007, 0015 and 0016, bodies of ~1.1 KiB kept in the row so both scripts
-- can read or copy them), a body table, a compact attempt log, one cursor per webhook, and for
-- c.sql the due state in a table of its own.
DROP TABLE IF EXISTS n, bodies, attempts_log, cursors, due;
CREATE TABLE n (
    id UUID PRIMARY KEY, account_id UUID NOT NULL, webhook_id UUID NOT NULL, event_id UUID NOT NULL,
    seq BIGINT NOT NULL, event TEXT NOT NULL, reference_type TEXT NOT NULL, reference_id UUID NOT NULL,
    delivery_status TEXT NOT NULL, attempts BIGINT NOT NULL, next_attempt_us BIGINT, locked_until_us BIGINT,
    last_status_code BIGINT, last_error TEXT, created_us BIGINT NOT NULL, updated_us BIGINT NOT NULL,
    last_attempt_us BIGINT, last_duration_ms BIGINT, body TEXT) WITH (fillfactor = 50);
CREATE INDEX n_acct ON n (account_id, created_us DESC, id DESC);
CREATE INDEX n_due ON n (next_attempt_us, id) WHERE delivery_status = 'pending';
CREATE UNIQUE INDEX n_seq ON n (webhook_id, seq);
INSERT INTO n SELECT gen_random_uuid(), '00000000-0000-0000-0000-000000000001', '00000000-0000-0000-0000-000000000002', gen_random_uuid(),
  g, 'tracking_request.succeeded', 'tracking_request', gen_random_uuid(), 'pending', 0, g, NULL, NULL, NULL, g, g, NULL, NULL, repeat('x', 1100)
  FROM generate_series(1, 40000) g;
CREATE TABLE bodies (notification_id UUID PRIMARY KEY, body TEXT NOT NULL);
CREATE TABLE attempts_log (notification_id UUID NOT NULL, attempted_us BIGINT NOT NULL, status_code INT, duration_ms INT, error TEXT);
CREATE INDEX attempts_log_n ON attempts_log (notification_id);
CREATE TABLE cursors (webhook_id UUID PRIMARY KEY, pos BIGINT NOT NULL, locked_until_us BIGINT);
INSERT INTO cursors VALUES ('00000000-0000-0000-0000-000000000002', 0, NULL);
-- c.sql only: the due state of every pending notification in a narrow table of its own.
CREATE TABLE due (notification_id UUID NOT NULL, next_attempt_us BIGINT NOT NULL, locked_until_us BIGINT) WITH (fillfactor = 70);
CREATE INDEX due_order ON due (next_attempt_us, notification_id);
INSERT INTO due SELECT id, next_attempt_us, NULL FROM n;
VACUUM ANALYZE;
