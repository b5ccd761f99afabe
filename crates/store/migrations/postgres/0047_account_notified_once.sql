-- A transaction that has told the change feed about its account itself (the merge of a
-- batch: `set_config('boxtrack.notified_account', <account id>, true)` and one `pg_notify`)
-- no longer queues a trigger call per row it writes for that account: the row triggers of
-- migration 0030 on the tables the merge writes skip such rows in their WHEN condition,
-- which PostgreSQL evaluates without queuing the after-trigger event. Every other write
-- (another account's rows in the same transaction, any other statement, any deletion)
-- notifies per row as before. The setting is local to the transaction.
DROP TRIGGER shipments_changed ON shipments;
DROP TRIGGER containers_changed ON containers;
DROP TRIGGER transport_events_changed ON transport_events;

CREATE TRIGGER shipments_changed AFTER INSERT OR UPDATE ON shipments
    FOR EACH ROW
    WHEN (current_setting('boxtrack.notified_account', true) IS DISTINCT FROM NEW.account_id::text)
    EXECUTE FUNCTION boxtrack_account_changed();
CREATE TRIGGER shipments_deleted AFTER DELETE ON shipments
    FOR EACH ROW EXECUTE FUNCTION boxtrack_account_changed();
CREATE TRIGGER containers_changed AFTER INSERT OR UPDATE ON containers
    FOR EACH ROW
    WHEN (current_setting('boxtrack.notified_account', true) IS DISTINCT FROM NEW.account_id::text)
    EXECUTE FUNCTION boxtrack_account_changed();
CREATE TRIGGER containers_deleted AFTER DELETE ON containers
    FOR EACH ROW EXECUTE FUNCTION boxtrack_account_changed();
CREATE TRIGGER transport_events_changed AFTER INSERT OR UPDATE ON transport_events
    FOR EACH ROW
    WHEN (current_setting('boxtrack.notified_account', true) IS DISTINCT FROM NEW.account_id::text)
    EXECUTE FUNCTION boxtrack_account_changed();
CREATE TRIGGER transport_events_deleted AFTER DELETE ON transport_events
    FOR EACH ROW EXECUTE FUNCTION boxtrack_account_changed();
