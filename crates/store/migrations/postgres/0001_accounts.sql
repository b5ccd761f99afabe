-- Accounts, API keys and shared rate-limit state.
-- Times are integer Unix microseconds; ids are UUIDs (BLOB on SQLite, uuid on PostgreSQL).
CREATE TABLE accounts (
    id            UUID PRIMARY KEY NOT NULL,
    name          TEXT NOT NULL,
    plan          TEXT NOT NULL,
    entitlements  JSONB NOT NULL,
    rate_limits   JSONB NOT NULL,
    created_us    BIGINT NOT NULL,
    updated_us    BIGINT NOT NULL
);

CREATE TABLE api_keys (
    id            UUID PRIMARY KEY NOT NULL,
    account_id    UUID NOT NULL REFERENCES accounts(id),
    name          TEXT,
    digest        TEXT NOT NULL UNIQUE,
    hint          TEXT NOT NULL,
    created_us    BIGINT NOT NULL,
    last_used_us  BIGINT,
    revoked_us    BIGINT
);
CREATE INDEX api_keys_account_created ON api_keys (account_id, created_us DESC, id DESC);

CREATE TABLE rate_limit_logs (
    account_id    UUID NOT NULL,
    bucket        TEXT NOT NULL,
    hits          JSONB NOT NULL,
    PRIMARY KEY (account_id, bucket)
);
