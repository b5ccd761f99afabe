-- Sandbox scenario playback: one row per shipment whose scripted journey plays on the
-- virtual clock; next_step is the index of the first step not yet applied.
CREATE TABLE sandbox_runs (
    id          BLOB PRIMARY KEY NOT NULL,
    account_id  BLOB NOT NULL REFERENCES accounts(id),
    shipment_id BLOB NOT NULL REFERENCES shipments(id),
    scenario    TEXT NOT NULL,
    started_us  INTEGER NOT NULL,
    next_step   INTEGER NOT NULL,
    done        INTEGER NOT NULL
) STRICT;
CREATE INDEX sandbox_runs_live ON sandbox_runs (done, started_us);
