-- Operator accounts may feed upstream data (X12, DCSA, ...) for every account.
ALTER TABLE accounts ADD COLUMN operator BOOLEAN NOT NULL DEFAULT FALSE;

-- Every upstream payload as received, verbatim, with what reading it found.
CREATE TABLE source_payloads (
    id           UUID PRIMARY KEY NOT NULL,
    account_id   UUID,
    format       TEXT NOT NULL,
    origin       TEXT NOT NULL,
    body         TEXT NOT NULL,
    status       TEXT NOT NULL,
    summary      JSONB NOT NULL,
    received_us  BIGINT NOT NULL
);
CREATE INDEX source_payloads_received ON source_payloads (received_us DESC, id DESC);
