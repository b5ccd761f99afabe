-- Sandbox scenario playback: one row per shipment whose scripted journey plays on the
-- virtual clock; next_step is the index of the first step not yet applied.
CREATE TABLE sandbox_runs (
    id          UUID PRIMARY KEY NOT NULL,
    account_id  UUID NOT NULL REFERENCES accounts(id),
    shipment_id UUID NOT NULL REFERENCES shipments(id),
    scenario    TEXT NOT NULL,
    started_us  BIGINT NOT NULL,
    next_step   BIGINT NOT NULL,
    done        BOOLEAN NOT NULL
);
CREATE INDEX sandbox_runs_live ON sandbox_runs (done, started_us);
