-- Shared rate limits in constant space: per (account, bucket), one row per 5-second slot of
-- the rolling window (at most 13 live; see boxtrack_core::ratelimit::SlotWindow) instead of
-- one row holding every admission time.
CREATE TABLE rate_limit_slots (
    account_id BLOB NOT NULL,
    bucket TEXT NOT NULL,
    slot INTEGER NOT NULL,
    count INTEGER NOT NULL,
    PRIMARY KEY (account_id, bucket, slot)
);
DROP TABLE rate_limit_logs;
