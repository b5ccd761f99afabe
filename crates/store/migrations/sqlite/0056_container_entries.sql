-- What a person of the account entered on a container (a last free day, an appointment, a
-- pickup, a delivery, an empty return), who and when, the value before and after (null: none,
-- or cleared): written in the transaction that merges the entry, read by
-- `GET /v2/containers/{id}/entries` and the console ("entered by NAME").
CREATE TABLE container_entries (
    id            BLOB PRIMARY KEY NOT NULL,
    account_id    BLOB NOT NULL REFERENCES accounts(id),
    container_id  BLOB NOT NULL,
    attribute     TEXT NOT NULL,
    before_us     INTEGER,
    after_us      INTEGER,
    entered_by    TEXT NOT NULL,
    entered_us    INTEGER NOT NULL
) STRICT;
CREATE INDEX container_entries_by_container ON container_entries (account_id, container_id, entered_us);
