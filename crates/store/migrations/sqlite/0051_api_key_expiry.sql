-- An API key may carry an expiry: past it the key authenticates no more, as if revoked.
ALTER TABLE api_keys ADD COLUMN expires_us INTEGER;
