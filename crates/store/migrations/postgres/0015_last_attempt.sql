-- A notification's latest attempt lives in its own row (`last_status_code` and `last_error`
-- were there already; its time and duration join them). The delivery path rewrites that row
-- at every attempt anyway, so a first attempt that succeeds (nearly all of them) no longer
-- adds an attempt row; the attempt a row holds moves to `webhook_attempts` when the next one
-- is recorded. Rows from before keep every attempt in `webhook_attempts` and leave these NULL.
ALTER TABLE webhook_notifications ADD COLUMN last_attempt_us BIGINT;
ALTER TABLE webhook_notifications ADD COLUMN last_duration_ms BIGINT;
