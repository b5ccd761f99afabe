-- Accounts, API keys and shared rate-limit state.
-- Times are integer Unix microseconds; ids are UUIDs (BLOB on SQLite, uuid on PostgreSQL).
CREATE TABLE accounts (
    id            BLOB PRIMARY KEY NOT NULL,
    name          TEXT NOT NULL,
    plan          TEXT NOT NULL,
    entitlements  TEXT NOT NULL,
    rate_limits   TEXT NOT NULL,
    created_us    INTEGER NOT NULL,
    updated_us    INTEGER NOT NULL
) STRICT;

CREATE TABLE api_keys (
    id            BLOB PRIMARY KEY NOT NULL,
    account_id    BLOB NOT NULL REFERENCES accounts(id),
    name          TEXT,
    digest        TEXT NOT NULL UNIQUE,
    hint          TEXT NOT NULL,
    created_us    INTEGER NOT NULL,
    last_used_us  INTEGER,
    revoked_us    INTEGER
) STRICT;
CREATE INDEX api_keys_account_created ON api_keys (account_id, created_us DESC, id DESC);

CREATE TABLE rate_limit_logs (
    account_id    BLOB NOT NULL,
    bucket        TEXT NOT NULL,
    hits          TEXT NOT NULL,
    PRIMARY KEY (account_id, bucket)
) STRICT;
