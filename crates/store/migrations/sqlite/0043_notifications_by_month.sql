-- A notification's body and earlier attempts carry its creation time, as on PostgreSQL, where
-- the three tables are partitioned by month of it (there it places a body and its attempts in
-- their notification's month; here it only keeps the two schemas alike for `boxtrack copy`).
ALTER TABLE webhook_bodies ADD COLUMN notification_created_us INTEGER NOT NULL DEFAULT 0;
UPDATE webhook_bodies SET notification_created_us =
    COALESCE((SELECT created_us FROM webhook_notifications n WHERE n.id = webhook_bodies.notification_id), 0);
ALTER TABLE webhook_attempts ADD COLUMN notification_created_us INTEGER NOT NULL DEFAULT 0;
UPDATE webhook_attempts SET notification_created_us =
    COALESCE((SELECT created_us FROM webhook_notifications n WHERE n.id = webhook_attempts.notification_id), 0);
