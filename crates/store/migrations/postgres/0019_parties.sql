-- Parties: an account's customers, named on tracking requests (relationships.customer) so
-- that shipments and containers can be read and filtered per customer.
CREATE TABLE parties (
    id            UUID PRIMARY KEY NOT NULL,
    account_id    UUID NOT NULL REFERENCES accounts(id),
    company_name  TEXT NOT NULL,
    created_us    BIGINT NOT NULL,
    updated_us    BIGINT NOT NULL
);
CREATE INDEX parties_account ON parties (account_id, created_us DESC, id DESC);
CREATE UNIQUE INDEX parties_account_name ON parties (account_id, LOWER(company_name));
ALTER TABLE tracking_requests ADD COLUMN customer_id UUID REFERENCES parties(id);
CREATE INDEX tracking_requests_customer ON tracking_requests (customer_id) WHERE customer_id IS NOT NULL;
