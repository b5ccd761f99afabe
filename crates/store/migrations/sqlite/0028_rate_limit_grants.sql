-- A check may grant a process several admissions at once (boxtrack_core::ratelimit::lease_grant),
-- taken one per request in that process without asking again; the statement that adds them to
-- the slot's count records how many it added, so the process reads back what it was granted.
ALTER TABLE rate_limit_slots ADD COLUMN granted INTEGER NOT NULL DEFAULT 1;
