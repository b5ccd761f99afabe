-- Retention (`boxtrack_store::retention`) deletes history older than its settings in batches;
-- these find it by age. (On PostgreSQL the event log and payloads are partitioned by month.)
CREATE INDEX events_created ON events (created_us);
CREATE INDEX webhook_notifications_created ON webhook_notifications (created_us);
