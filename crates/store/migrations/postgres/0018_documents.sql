-- Documents: files an account attaches (ActiveStorage-style direct uploads), stored in the
-- database so that every `serve` process on PostgreSQL can read them.
CREATE TABLE blobs (
    id             UUID PRIMARY KEY NOT NULL,
    account_id     UUID NOT NULL REFERENCES accounts(id),
    filename       TEXT NOT NULL,
    content_type   TEXT NOT NULL,
    byte_size      BIGINT NOT NULL,
    checksum       TEXT NOT NULL,
    upload_digest  TEXT NOT NULL UNIQUE,
    signed_digest  TEXT NOT NULL UNIQUE,
    data           BYTEA,
    uploaded_us    BIGINT,
    created_us     BIGINT NOT NULL
);
CREATE TABLE documents (
    id                    UUID PRIMARY KEY NOT NULL,
    account_id            UUID NOT NULL REFERENCES accounts(id),
    blob_id               UUID NOT NULL REFERENCES blobs(id),
    name                  TEXT NOT NULL,
    document_type         TEXT NOT NULL,
    document_type_manual  TEXT,
    source                TEXT NOT NULL,
    shipment_ids          JSONB NOT NULL,
    container_ids         JSONB NOT NULL,
    deleted_us            BIGINT,
    created_us            BIGINT NOT NULL,
    updated_us            BIGINT NOT NULL
);
CREATE INDEX documents_account ON documents (account_id, created_us DESC, id DESC);
CREATE UNIQUE INDEX documents_live_blob ON documents (blob_id) WHERE deleted_us IS NULL;
CREATE TABLE document_downloads (
    digest       TEXT PRIMARY KEY NOT NULL,
    document_id  UUID NOT NULL REFERENCES documents(id),
    expires_us   BIGINT NOT NULL
);
