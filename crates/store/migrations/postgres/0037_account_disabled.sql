-- An operator can disable an account (boxtrack accounts disable): every credential of a disabled
-- account is refused (API keys, publishable keys, OAuth tokens, console sessions); its data stays.
ALTER TABLE accounts ADD COLUMN disabled_us BIGINT;
