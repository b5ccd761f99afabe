-- How many shipments, containers and tracking requests each account holds, kept by triggers
-- on every insert and delete, so an unfiltered list's total is one row read, not a count of
-- every row of the account (issue 25, target 2).
CREATE TABLE account_counts (
    account_id BLOB NOT NULL,
    resource TEXT NOT NULL,
    n INTEGER NOT NULL,
    PRIMARY KEY (account_id, resource)
) STRICT;

INSERT INTO account_counts (account_id, resource, n)
    SELECT account_id, 'containers', COUNT(*) FROM containers GROUP BY account_id;
INSERT INTO account_counts (account_id, resource, n)
    SELECT account_id, 'shipments', COUNT(*) FROM shipments GROUP BY account_id;
INSERT INTO account_counts (account_id, resource, n)
    SELECT account_id, 'tracking_requests', COUNT(*) FROM tracking_requests GROUP BY account_id;

CREATE TRIGGER containers_counted_in AFTER INSERT ON containers BEGIN
    INSERT INTO account_counts (account_id, resource, n) VALUES (NEW.account_id, 'containers', 1)
        ON CONFLICT (account_id, resource) DO UPDATE SET n = n + 1;
END;
CREATE TRIGGER containers_counted_out AFTER DELETE ON containers BEGIN
    UPDATE account_counts SET n = n - 1 WHERE account_id = OLD.account_id AND resource = 'containers';
END;
CREATE TRIGGER shipments_counted_in AFTER INSERT ON shipments BEGIN
    INSERT INTO account_counts (account_id, resource, n) VALUES (NEW.account_id, 'shipments', 1)
        ON CONFLICT (account_id, resource) DO UPDATE SET n = n + 1;
END;
CREATE TRIGGER shipments_counted_out AFTER DELETE ON shipments BEGIN
    UPDATE account_counts SET n = n - 1 WHERE account_id = OLD.account_id AND resource = 'shipments';
END;
CREATE TRIGGER tracking_requests_counted_in AFTER INSERT ON tracking_requests BEGIN
    INSERT INTO account_counts (account_id, resource, n) VALUES (NEW.account_id, 'tracking_requests', 1)
        ON CONFLICT (account_id, resource) DO UPDATE SET n = n + 1;
END;
CREATE TRIGGER tracking_requests_counted_out AFTER DELETE ON tracking_requests BEGIN
    UPDATE account_counts SET n = n - 1 WHERE account_id = OLD.account_id AND resource = 'tracking_requests';
END;
