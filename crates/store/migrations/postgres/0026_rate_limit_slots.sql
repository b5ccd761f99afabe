-- Shared rate limits in constant space: per (account, bucket), one row per 5-second slot of
-- the rolling window (at most 13 live; see boxtrack_core::ratelimit::SlotWindow) instead of
-- one row holding every admission time. A check is one statement that increments the current
-- slot's row only while the window holds fewer than the limit, so concurrent checks of one
-- account wait only for each other's increment of that row, never across round trips.
-- UNLOGGED: a check writes no WAL and waits for no flush; a crash of the database server
-- empties the table, which only forgets the last minute's counts.
CREATE UNLOGGED TABLE rate_limit_slots (
    account_id UUID NOT NULL,
    bucket TEXT NOT NULL,
    slot BIGINT NOT NULL,
    count BIGINT NOT NULL,
    PRIMARY KEY (account_id, bucket, slot)
);
DROP TABLE rate_limit_logs;
