-- The console's live pages ask "has anything of this account changed?" by the newest
-- updated_us of its containers, shipments and tracking requests: one index probe each
-- (containers and shipments have theirs since 0001).
CREATE INDEX tracking_requests_account_updated ON tracking_requests (account_id, updated_us);
