-- Claims take due notifications in (next_attempt_us, id) order and go on after the last one
-- they took, so the due index carries the id; a claim now writes only the lease
-- (`locked_until_us`, in no index), which PostgreSQL can write in place (a HOT update) when
-- the row's page has room: new pages of the table are left half empty for it.
DROP INDEX webhook_notifications_due;
CREATE INDEX webhook_notifications_due ON webhook_notifications (next_attempt_us, id) WHERE delivery_status = 'pending';
ALTER TABLE webhook_notifications SET (fillfactor = 50);
