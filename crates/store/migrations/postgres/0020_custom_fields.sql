-- Custom fields: definitions an account makes per entity type, their options (enums), and
-- the values set on shipments, containers and tracking requests.
CREATE TABLE custom_field_definitions (
    id              UUID PRIMARY KEY NOT NULL,
    account_id      UUID NOT NULL REFERENCES accounts(id),
    entity_type     TEXT NOT NULL,
    api_slug        TEXT NOT NULL,
    display_name    TEXT NOT NULL,
    description     TEXT,
    data_type       TEXT NOT NULL,
    reference_type  TEXT,
    validation      JSONB NOT NULL,
    default_format  TEXT,
    default_value   JSONB NOT NULL,
    created_us      BIGINT NOT NULL,
    updated_us      BIGINT NOT NULL
);
CREATE UNIQUE INDEX custom_field_definitions_slug ON custom_field_definitions (account_id, entity_type, api_slug);
CREATE INDEX custom_field_definitions_account ON custom_field_definitions (account_id, created_us DESC, id DESC);
CREATE TABLE custom_field_options (
    id             UUID PRIMARY KEY NOT NULL,
    definition_id  UUID NOT NULL REFERENCES custom_field_definitions(id),
    label          TEXT NOT NULL,
    value          TEXT NOT NULL,
    position       BIGINT,
    created_us     BIGINT NOT NULL,
    updated_us     BIGINT NOT NULL
);
CREATE UNIQUE INDEX custom_field_options_value ON custom_field_options (definition_id, value);
CREATE TABLE custom_fields (
    id             UUID PRIMARY KEY NOT NULL,
    account_id     UUID NOT NULL REFERENCES accounts(id),
    definition_id  UUID NOT NULL REFERENCES custom_field_definitions(id),
    entity_type    TEXT NOT NULL,
    entity_id      UUID NOT NULL,
    value          JSONB NOT NULL,
    created_us     BIGINT NOT NULL,
    updated_us     BIGINT NOT NULL
);
CREATE UNIQUE INDEX custom_fields_entity ON custom_fields (entity_id, definition_id);
CREATE INDEX custom_fields_account ON custom_fields (account_id, created_us DESC, id DESC);
CREATE INDEX custom_fields_definition ON custom_fields (definition_id);
