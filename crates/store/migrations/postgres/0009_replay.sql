-- A replayed notification points at the one it repeats (when there was one).
ALTER TABLE webhook_notifications ADD COLUMN replay_of UUID;
