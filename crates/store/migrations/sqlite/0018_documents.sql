-- Documents: files an account attaches (ActiveStorage-style direct uploads), stored in the
-- database so that every `serve` process on PostgreSQL can read them.
CREATE TABLE blobs (
    id             BLOB PRIMARY KEY NOT NULL,
    account_id     BLOB NOT NULL REFERENCES accounts(id),
    filename       TEXT NOT NULL,
    content_type   TEXT NOT NULL,
    byte_size      INTEGER NOT NULL,
    checksum       TEXT NOT NULL,
    upload_digest  TEXT NOT NULL UNIQUE,
    signed_digest  TEXT NOT NULL UNIQUE,
    data           BLOB,
    uploaded_us    INTEGER,
    created_us     INTEGER NOT NULL
) STRICT;
CREATE TABLE documents (
    id                    BLOB PRIMARY KEY NOT NULL,
    account_id            BLOB NOT NULL REFERENCES accounts(id),
    blob_id               BLOB NOT NULL REFERENCES blobs(id),
    name                  TEXT NOT NULL,
    document_type         TEXT NOT NULL,
    document_type_manual  TEXT,
    source                TEXT NOT NULL,
    shipment_ids          TEXT NOT NULL,
    container_ids         TEXT NOT NULL,
    deleted_us            INTEGER,
    created_us            INTEGER NOT NULL,
    updated_us            INTEGER NOT NULL
) STRICT;
CREATE INDEX documents_account ON documents (account_id, created_us DESC, id DESC);
CREATE UNIQUE INDEX documents_live_blob ON documents (blob_id) WHERE deleted_us IS NULL;
CREATE TABLE document_downloads (
    digest       TEXT PRIMARY KEY NOT NULL,
    document_id  BLOB NOT NULL REFERENCES documents(id),
    expires_us   INTEGER NOT NULL
) STRICT;
