-- Publishable keys (`btp_…`) for the embeddable map and widget: a kind of their own, in a table
-- of their own, so no lookup of a secret API key can ever find one. Only the digest is kept;
-- `allowed_origins` is a JSON array of normalized origins (empty: every origin).
CREATE TABLE publishable_keys (
    id               UUID PRIMARY KEY NOT NULL,
    account_id       UUID NOT NULL REFERENCES accounts(id),
    name             TEXT,
    digest           TEXT NOT NULL UNIQUE,
    hint             TEXT NOT NULL,
    allowed_origins  JSONB NOT NULL DEFAULT '[]',
    created_us       BIGINT NOT NULL,
    revoked_us       BIGINT
);
CREATE INDEX publishable_keys_account_created ON publishable_keys (account_id, created_us DESC, id DESC);
