-- Operator accounts may feed upstream data (X12, DCSA, ...) for every account.
ALTER TABLE accounts ADD COLUMN operator INTEGER NOT NULL DEFAULT 0;

-- Every upstream payload as received, verbatim, with what reading it found.
CREATE TABLE source_payloads (
    id           BLOB PRIMARY KEY NOT NULL,
    account_id   BLOB,
    format       TEXT NOT NULL,
    origin       TEXT NOT NULL,
    body         TEXT NOT NULL,
    status       TEXT NOT NULL,
    summary      TEXT NOT NULL,
    received_us  INTEGER NOT NULL
) STRICT;
CREATE INDEX source_payloads_received ON source_payloads (received_us DESC, id DESC);
