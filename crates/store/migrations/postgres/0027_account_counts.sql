-- How many shipments, containers and tracking requests each account holds, kept by triggers
-- on every insert and delete, so an unfiltered list's total is one row read, not a count of
-- every row of the account (issue 25, target 2). An insert holds its account's counter row
-- until it commits: concurrent creations in one account take turns on that row (creations
-- are rare next to updates, which do not touch it).
CREATE TABLE account_counts (
    account_id UUID NOT NULL,
    resource TEXT NOT NULL,
    n BIGINT NOT NULL,
    PRIMARY KEY (account_id, resource)
);

INSERT INTO account_counts (account_id, resource, n)
    SELECT account_id, 'containers', COUNT(*) FROM containers GROUP BY account_id;
INSERT INTO account_counts (account_id, resource, n)
    SELECT account_id, 'shipments', COUNT(*) FROM shipments GROUP BY account_id;
INSERT INTO account_counts (account_id, resource, n)
    SELECT account_id, 'tracking_requests', COUNT(*) FROM tracking_requests GROUP BY account_id;

CREATE FUNCTION count_account_rows() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN
        INSERT INTO account_counts (account_id, resource, n) VALUES (NEW.account_id, TG_ARGV[0], 1)
            ON CONFLICT (account_id, resource) DO UPDATE SET n = account_counts.n + 1;
    ELSE
        UPDATE account_counts SET n = n - 1
            WHERE account_id = OLD.account_id AND resource = TG_ARGV[0];
    END IF;
    RETURN NULL;
END
$$;

CREATE TRIGGER containers_counted AFTER INSERT OR DELETE ON containers
    FOR EACH ROW EXECUTE FUNCTION count_account_rows('containers');
CREATE TRIGGER shipments_counted AFTER INSERT OR DELETE ON shipments
    FOR EACH ROW EXECUTE FUNCTION count_account_rows('shipments');
CREATE TRIGGER tracking_requests_counted AFTER INSERT OR DELETE ON tracking_requests
    FOR EACH ROW EXECUTE FUNCTION count_account_rows('tracking_requests');
