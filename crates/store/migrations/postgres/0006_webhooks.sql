-- Webhook subscriptions. The secret is kept (it signs deliveries), never shown after creation.
CREATE TABLE webhooks (
    id                    UUID PRIMARY KEY NOT NULL,
    account_id            UUID NOT NULL REFERENCES accounts(id),
    url                   TEXT NOT NULL,
    active                BOOLEAN NOT NULL,
    events                JSONB NOT NULL,
    headers               JSONB NOT NULL,
    secret                TEXT NOT NULL,
    consecutive_failures  BIGINT NOT NULL,
    deactivated_reason    TEXT,
    created_us            BIGINT NOT NULL,
    updated_us            BIGINT NOT NULL
);
CREATE INDEX webhooks_account_created ON webhooks (account_id, created_us DESC, id DESC);
