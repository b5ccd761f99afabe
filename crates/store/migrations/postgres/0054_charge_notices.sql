-- The charge webhooks sent (`container.charges.free_time_ending`, `container.charges.accruing`):
-- one row per container, kind and event, written in the transaction that appends the event, so
-- each is sent once however many processes look.
CREATE TABLE charge_notices (
    account_id    UUID NOT NULL REFERENCES accounts(id),
    container_id  UUID NOT NULL,
    kind          TEXT NOT NULL,
    event         TEXT NOT NULL,
    created_us    BIGINT NOT NULL,
    PRIMARY KEY (account_id, container_id, kind, event)
);
