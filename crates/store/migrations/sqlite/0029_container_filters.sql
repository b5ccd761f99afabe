-- Filtered container lists in large accounts (issue 25, target 2): the filters users page
-- through most (status, ready for pickup, last free day) read their own index range in list
-- order instead of walking every container of the account to find a few that match.
CREATE INDEX containers_account_status ON containers (account_id, current_status, updated_us DESC, id DESC);
CREATE INDEX containers_account_ready ON containers (account_id, ready_for_pickup, updated_us DESC, id DESC);
CREATE INDEX containers_account_lfd ON containers (account_id, pickup_lfd_us);
