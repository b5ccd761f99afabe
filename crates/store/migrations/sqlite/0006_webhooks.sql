-- Webhook subscriptions. The secret is kept (it signs deliveries), never shown after creation.
CREATE TABLE webhooks (
    id                    BLOB PRIMARY KEY NOT NULL,
    account_id            BLOB NOT NULL REFERENCES accounts(id),
    url                   TEXT NOT NULL,
    active                INTEGER NOT NULL,
    events                TEXT NOT NULL,
    headers               TEXT NOT NULL,
    secret                TEXT NOT NULL,
    consecutive_failures  INTEGER NOT NULL,
    deactivated_reason    TEXT,
    created_us            INTEGER NOT NULL,
    updated_us            INTEGER NOT NULL
) STRICT;
CREATE INDEX webhooks_account_created ON webhooks (account_id, created_us DESC, id DESC);
