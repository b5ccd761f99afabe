-- Custom fields: definitions an account makes per entity type, their options (enums), and
-- the values set on shipments, containers and tracking requests.
CREATE TABLE custom_field_definitions (
    id              BLOB PRIMARY KEY NOT NULL,
    account_id      BLOB NOT NULL REFERENCES accounts(id),
    entity_type     TEXT NOT NULL,
    api_slug        TEXT NOT NULL,
    display_name    TEXT NOT NULL,
    description     TEXT,
    data_type       TEXT NOT NULL,
    reference_type  TEXT,
    validation      TEXT NOT NULL,
    default_format  TEXT,
    default_value   TEXT NOT NULL,
    created_us      INTEGER NOT NULL,
    updated_us      INTEGER NOT NULL
) STRICT;
CREATE UNIQUE INDEX custom_field_definitions_slug ON custom_field_definitions (account_id, entity_type, api_slug);
CREATE INDEX custom_field_definitions_account ON custom_field_definitions (account_id, created_us DESC, id DESC);
CREATE TABLE custom_field_options (
    id             BLOB PRIMARY KEY NOT NULL,
    definition_id  BLOB NOT NULL REFERENCES custom_field_definitions(id),
    label          TEXT NOT NULL,
    value          TEXT NOT NULL,
    position       INTEGER,
    created_us     INTEGER NOT NULL,
    updated_us     INTEGER NOT NULL
) STRICT;
CREATE UNIQUE INDEX custom_field_options_value ON custom_field_options (definition_id, value);
CREATE TABLE custom_fields (
    id             BLOB PRIMARY KEY NOT NULL,
    account_id     BLOB NOT NULL REFERENCES accounts(id),
    definition_id  BLOB NOT NULL REFERENCES custom_field_definitions(id),
    entity_type    TEXT NOT NULL,
    entity_id      BLOB NOT NULL,
    value          TEXT NOT NULL,
    created_us     INTEGER NOT NULL,
    updated_us     INTEGER NOT NULL
) STRICT;
CREATE UNIQUE INDEX custom_fields_entity ON custom_fields (entity_id, definition_id);
CREATE INDEX custom_fields_account ON custom_fields (account_id, created_us DESC, id DESC);
CREATE INDEX custom_fields_definition ON custom_fields (definition_id);
