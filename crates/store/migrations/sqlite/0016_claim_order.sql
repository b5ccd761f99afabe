-- Claims take due notifications in (next_attempt_us, id) order and go on after the last one
-- they took. A WITHOUT ROWID table's index entries end with the primary key already; the id
-- is named so the index reads as it does on PostgreSQL.
DROP INDEX webhook_notifications_due;
CREATE INDEX webhook_notifications_due ON webhook_notifications (next_attempt_us, id) WHERE delivery_status = 'pending';
