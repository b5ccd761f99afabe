-- Users who sign in on the OAuth pages (MCP clients), and the OAuth 2.1 authorization server's
-- clients, codes and tokens. Only digests of codes and tokens are stored.
CREATE TABLE users (
    id             UUID PRIMARY KEY NOT NULL,
    account_id     UUID NOT NULL REFERENCES accounts(id),
    email          TEXT NOT NULL,
    password_hash  TEXT NOT NULL,
    created_us     BIGINT NOT NULL
);
CREATE UNIQUE INDEX users_email ON users (email);

CREATE TABLE oauth_clients (
    client_id      TEXT PRIMARY KEY NOT NULL,
    name           TEXT NOT NULL,
    redirect_uris  TEXT NOT NULL,
    created_us     BIGINT NOT NULL
);

CREATE TABLE oauth_codes (
    code_hash       TEXT PRIMARY KEY NOT NULL,
    client_id       TEXT NOT NULL,
    user_id         UUID NOT NULL,
    account_id      UUID NOT NULL,
    redirect_uri    TEXT NOT NULL,
    code_challenge  TEXT NOT NULL,
    resource        TEXT NOT NULL,
    expires_us      BIGINT NOT NULL,
    used_us         BIGINT
);

CREATE TABLE oauth_tokens (
    token_hash   TEXT PRIMARY KEY NOT NULL,
    kind         TEXT NOT NULL,
    client_id    TEXT NOT NULL,
    user_id      UUID NOT NULL,
    account_id   UUID NOT NULL,
    resource     TEXT NOT NULL,
    family       UUID NOT NULL,
    expires_us   BIGINT NOT NULL,
    used_us      BIGINT,
    revoked_us   BIGINT,
    created_us   BIGINT NOT NULL
);
CREATE INDEX oauth_tokens_family ON oauth_tokens (family);
