-- The account on the four tables whose rows reached it through another row (PostgreSQL's
-- 0057 keys every account table by it, for Citus; the statements that write these name it on
-- both backends). The default only lets SQLite add a NOT NULL column; every row is filled.
ALTER TABLE custom_field_options ADD COLUMN account_id BLOB NOT NULL DEFAULT X'';
UPDATE custom_field_options SET account_id = COALESCE((SELECT d.account_id FROM custom_field_definitions d WHERE d.id = custom_field_options.definition_id), X'');
ALTER TABLE document_downloads ADD COLUMN account_id BLOB NOT NULL DEFAULT X'';
UPDATE document_downloads SET account_id = COALESCE((SELECT d.account_id FROM documents d WHERE d.id = document_downloads.document_id), X'');
ALTER TABLE webhook_attempts ADD COLUMN account_id BLOB NOT NULL DEFAULT X'';
UPDATE webhook_attempts SET account_id = COALESCE((SELECT n.account_id FROM webhook_notifications n WHERE n.id = webhook_attempts.notification_id), X'');
ALTER TABLE webhook_bodies ADD COLUMN account_id BLOB NOT NULL DEFAULT X'';
UPDATE webhook_bodies SET account_id = COALESCE((SELECT n.account_id FROM webhook_notifications n WHERE n.id = webhook_bodies.notification_id), X'');
