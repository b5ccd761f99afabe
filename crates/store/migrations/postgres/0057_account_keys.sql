-- Keys lead with the account, foreign keys between an account's tables name it, and the four
-- tables that reached their account through another row carry it: what Citus needs to keep
-- an account's rows on one shard (docs/scaling.md, "Past one primary"), valid on plain
-- PostgreSQL alike. Lookups by a secret alone (a key's digest, a session's or token's hash)
-- keep an index of their own.
-- account_id on the rows that reached their account through another table
ALTER TABLE custom_field_options ADD COLUMN account_id UUID;
UPDATE custom_field_options o SET account_id = d.account_id FROM custom_field_definitions d WHERE d.id = o.definition_id;
ALTER TABLE custom_field_options ALTER COLUMN account_id SET NOT NULL;
ALTER TABLE document_downloads ADD COLUMN account_id UUID;
UPDATE document_downloads x SET account_id = d.account_id FROM documents d WHERE d.id = x.document_id;
ALTER TABLE document_downloads ALTER COLUMN account_id SET NOT NULL;
ALTER TABLE webhook_attempts ADD COLUMN account_id UUID;
UPDATE webhook_attempts a SET account_id = n.account_id FROM webhook_notifications n WHERE n.id = a.notification_id AND n.created_us = a.notification_created_us;
ALTER TABLE webhook_attempts ALTER COLUMN account_id SET NOT NULL;
ALTER TABLE webhook_bodies ADD COLUMN account_id UUID;
UPDATE webhook_bodies b SET account_id = n.account_id FROM webhook_notifications n WHERE n.id = b.notification_id AND n.created_us = b.notification_created_us;
ALTER TABLE webhook_bodies ALTER COLUMN account_id SET NOT NULL;

-- the foreign keys between an account's tables name the account
ALTER TABLE tracking_requests DROP CONSTRAINT tracking_requests_customer_id_fkey;
ALTER TABLE containers DROP CONSTRAINT containers_shipment_id_fkey;
ALTER TABLE transport_events DROP CONSTRAINT transport_events_container_id_fkey;
ALTER TABLE sandbox_runs DROP CONSTRAINT sandbox_runs_shipment_id_fkey;
ALTER TABLE raw_events DROP CONSTRAINT raw_events_container_id_fkey;
ALTER TABLE documents DROP CONSTRAINT documents_blob_id_fkey;
ALTER TABLE documents DROP CONSTRAINT documents_email_submission_id_fkey;
ALTER TABLE document_downloads DROP CONSTRAINT document_downloads_document_id_fkey;
ALTER TABLE custom_field_options DROP CONSTRAINT custom_field_options_definition_id_fkey;
ALTER TABLE custom_fields DROP CONSTRAINT custom_fields_definition_id_fkey;
ALTER TABLE container_views DROP CONSTRAINT container_views_container_id_fkey;
ALTER TABLE shipment_views DROP CONSTRAINT shipment_views_shipment_id_fkey;

-- keys lead with the account
ALTER TABLE api_keys DROP CONSTRAINT api_keys_pkey, ADD PRIMARY KEY (account_id, id);
ALTER TABLE api_keys DROP CONSTRAINT api_keys_digest_key, ADD CONSTRAINT api_keys_digest_key UNIQUE (account_id, digest);
CREATE INDEX api_keys_digest ON api_keys (digest);
ALTER TABLE blobs DROP CONSTRAINT blobs_pkey, ADD PRIMARY KEY (account_id, id);
ALTER TABLE blobs DROP CONSTRAINT blobs_upload_digest_key, ADD CONSTRAINT blobs_upload_digest_key UNIQUE (account_id, upload_digest);
ALTER TABLE blobs DROP CONSTRAINT blobs_signed_digest_key, ADD CONSTRAINT blobs_signed_digest_key UNIQUE (account_id, signed_digest);
CREATE INDEX blobs_upload_digest ON blobs (upload_digest);
CREATE INDEX blobs_signed_digest ON blobs (signed_digest);
ALTER TABLE calendars DROP CONSTRAINT calendars_pkey, ADD PRIMARY KEY (account_id, id);
ALTER TABLE container_entries DROP CONSTRAINT container_entries_pkey, ADD PRIMARY KEY (account_id, id);
ALTER TABLE container_views DROP CONSTRAINT container_views_pkey, ADD PRIMARY KEY (account_id, container_id);
ALTER TABLE containers DROP CONSTRAINT containers_pkey, ADD PRIMARY KEY (account_id, id);
ALTER TABLE custom_field_definitions DROP CONSTRAINT custom_field_definitions_pkey, ADD PRIMARY KEY (account_id, id);
ALTER TABLE custom_field_options DROP CONSTRAINT custom_field_options_pkey, ADD PRIMARY KEY (account_id, id);
DROP INDEX custom_field_options_value;
CREATE UNIQUE INDEX custom_field_options_value ON custom_field_options (account_id, definition_id, value);
ALTER TABLE custom_fields DROP CONSTRAINT custom_fields_pkey, ADD PRIMARY KEY (account_id, id);
DROP INDEX custom_fields_entity;
CREATE UNIQUE INDEX custom_fields_entity ON custom_fields (account_id, entity_id, definition_id);
ALTER TABLE document_downloads DROP CONSTRAINT document_downloads_pkey, ADD PRIMARY KEY (account_id, digest);
CREATE INDEX document_downloads_digest ON document_downloads (digest);
ALTER TABLE documents DROP CONSTRAINT documents_pkey, ADD PRIMARY KEY (account_id, id);
DROP INDEX documents_live_blob;
CREATE UNIQUE INDEX documents_live_blob ON documents (account_id, blob_id) WHERE deleted_us IS NULL;
ALTER TABLE email_submissions DROP CONSTRAINT email_submissions_pkey, ADD PRIMARY KEY (account_id, id);
ALTER TABLE oauth_codes DROP CONSTRAINT oauth_codes_pkey, ADD PRIMARY KEY (account_id, code_hash);
CREATE INDEX oauth_codes_hash ON oauth_codes (code_hash);
ALTER TABLE oauth_tokens DROP CONSTRAINT oauth_tokens_pkey, ADD PRIMARY KEY (account_id, token_hash);
CREATE INDEX oauth_tokens_hash ON oauth_tokens (token_hash);
ALTER TABLE parties DROP CONSTRAINT parties_pkey, ADD PRIMARY KEY (account_id, id);
ALTER TABLE publishable_keys DROP CONSTRAINT publishable_keys_pkey, ADD PRIMARY KEY (account_id, id);
ALTER TABLE publishable_keys DROP CONSTRAINT publishable_keys_digest_key, ADD CONSTRAINT publishable_keys_digest_key UNIQUE (account_id, digest);
CREATE INDEX publishable_keys_digest ON publishable_keys (digest);
ALTER TABLE raw_events DROP CONSTRAINT raw_events_pkey, ADD PRIMARY KEY (account_id, id);
DROP INDEX raw_events_once;
CREATE UNIQUE INDEX raw_events_once ON raw_events (account_id, container_id, observation_key);
ALTER TABLE sandbox_runs DROP CONSTRAINT sandbox_runs_pkey, ADD PRIMARY KEY (account_id, id);
ALTER TABLE shipment_views DROP CONSTRAINT shipment_views_pkey, ADD PRIMARY KEY (account_id, shipment_id);
ALTER TABLE shipments DROP CONSTRAINT shipments_pkey, ADD PRIMARY KEY (account_id, id);
ALTER TABLE tariffs DROP CONSTRAINT tariffs_pkey, ADD PRIMARY KEY (account_id, id);
ALTER TABLE tracking_requests DROP CONSTRAINT tracking_requests_pkey, ADD PRIMARY KEY (account_id, id);
ALTER TABLE transport_events DROP CONSTRAINT transport_events_pkey, ADD PRIMARY KEY (account_id, id);
ALTER TABLE web_sessions DROP CONSTRAINT web_sessions_pkey, ADD PRIMARY KEY (account_id, token_hash);
CREATE INDEX web_sessions_hash ON web_sessions (token_hash);
ALTER TABLE webhooks DROP CONSTRAINT webhooks_pkey, ADD PRIMARY KEY (account_id, id);
ALTER TABLE webhook_notifications DROP CONSTRAINT webhook_notifications_pkey, ADD PRIMARY KEY (account_id, id, created_us);
ALTER TABLE webhook_attempts DROP CONSTRAINT webhook_attempts_pkey, ADD PRIMARY KEY (account_id, id, notification_created_us);
ALTER TABLE webhook_bodies DROP CONSTRAINT webhook_bodies_pkey, ADD PRIMARY KEY (account_id, notification_id, notification_created_us);

ALTER TABLE tracking_requests ADD CONSTRAINT tracking_requests_customer_id_fkey FOREIGN KEY (account_id, customer_id) REFERENCES parties (account_id, id);
ALTER TABLE containers ADD CONSTRAINT containers_shipment_id_fkey FOREIGN KEY (account_id, shipment_id) REFERENCES shipments (account_id, id);
ALTER TABLE transport_events ADD CONSTRAINT transport_events_container_id_fkey FOREIGN KEY (account_id, container_id) REFERENCES containers (account_id, id);
ALTER TABLE sandbox_runs ADD CONSTRAINT sandbox_runs_shipment_id_fkey FOREIGN KEY (account_id, shipment_id) REFERENCES shipments (account_id, id);
ALTER TABLE raw_events ADD CONSTRAINT raw_events_container_id_fkey FOREIGN KEY (account_id, container_id) REFERENCES containers (account_id, id);
ALTER TABLE documents ADD CONSTRAINT documents_blob_id_fkey FOREIGN KEY (account_id, blob_id) REFERENCES blobs (account_id, id);
ALTER TABLE documents ADD CONSTRAINT documents_email_submission_id_fkey FOREIGN KEY (account_id, email_submission_id) REFERENCES email_submissions (account_id, id);
ALTER TABLE document_downloads ADD CONSTRAINT document_downloads_document_id_fkey FOREIGN KEY (account_id, document_id) REFERENCES documents (account_id, id);
ALTER TABLE custom_field_options ADD CONSTRAINT custom_field_options_definition_id_fkey FOREIGN KEY (account_id, definition_id) REFERENCES custom_field_definitions (account_id, id);
ALTER TABLE custom_fields ADD CONSTRAINT custom_fields_definition_id_fkey FOREIGN KEY (account_id, definition_id) REFERENCES custom_field_definitions (account_id, id);
ALTER TABLE container_views ADD CONSTRAINT container_views_container_id_fkey FOREIGN KEY (account_id, container_id) REFERENCES containers (account_id, id) ON DELETE CASCADE;
ALTER TABLE shipment_views ADD CONSTRAINT shipment_views_shipment_id_fkey FOREIGN KEY (account_id, shipment_id) REFERENCES shipments (account_id, id) ON DELETE CASCADE;

-- the deliverer claims, defers and records notifications by id across accounts (one array of
-- ids probed through this index, whatever the table's size)
CREATE INDEX webhook_notifications_id ON webhook_notifications (id);
