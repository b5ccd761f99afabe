-- Reports about containers that no account tracked when they came (an X12 315 or 322, an
-- EDIFACT status, sent before the customer registered the bill): kept, bounded by age and
-- count (settings early_report_days, early_report_max), and applied when a tracking request
-- makes the container known (store/src/early.rs). `account_id`: the sending account's scope,
-- NULL for an operator's file (every account's containers).
CREATE TABLE early_reports (
    id           UUID PRIMARY KEY NOT NULL,
    account_id   UUID,
    number       TEXT NOT NULL,
    observations JSONB NOT NULL,
    payload_id   UUID,
    received_us  BIGINT NOT NULL
);
CREATE INDEX early_reports_number ON early_reports (number, received_us);
CREATE INDEX early_reports_received ON early_reports (received_us);
