-- Signed-in sessions of the web console (crates/web): the cookie carries a random token, the
-- row only its digest; the form token (`csrf`) every signed-in form must carry; signing out
-- (`ended_us`) or the expiry ends a session.
CREATE TABLE web_sessions (
    token_hash  TEXT PRIMARY KEY NOT NULL,
    user_id     UUID NOT NULL REFERENCES users(id),
    account_id  UUID NOT NULL REFERENCES accounts(id),
    csrf        TEXT NOT NULL,
    created_us  BIGINT NOT NULL,
    expires_us  BIGINT NOT NULL,
    ended_us    BIGINT
);
