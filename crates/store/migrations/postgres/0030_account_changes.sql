-- Tells every process which account changed, when the change commits, for the read cache
-- (crates/store/src/changes.rs): a notification on `boxtrack_changes` whose payload is the
-- account's id, from every table a cached response is rendered from. PostgreSQL sends a
-- transaction's notifications at its commit and only once per distinct payload.
CREATE FUNCTION boxtrack_account_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'DELETE' THEN
        PERFORM pg_notify('boxtrack_changes', OLD.account_id::text);
        RETURN OLD;
    END IF;
    PERFORM pg_notify('boxtrack_changes', NEW.account_id::text);
    RETURN NEW;
END
$$;

CREATE FUNCTION boxtrack_account_row_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'DELETE' THEN
        PERFORM pg_notify('boxtrack_changes', OLD.id::text);
        RETURN OLD;
    END IF;
    PERFORM pg_notify('boxtrack_changes', NEW.id::text);
    RETURN NEW;
END
$$;

CREATE TRIGGER accounts_changed AFTER INSERT OR UPDATE OR DELETE ON accounts
    FOR EACH ROW EXECUTE FUNCTION boxtrack_account_row_changed();
CREATE TRIGGER shipments_changed AFTER INSERT OR UPDATE OR DELETE ON shipments
    FOR EACH ROW EXECUTE FUNCTION boxtrack_account_changed();
CREATE TRIGGER containers_changed AFTER INSERT OR UPDATE OR DELETE ON containers
    FOR EACH ROW EXECUTE FUNCTION boxtrack_account_changed();
CREATE TRIGGER transport_events_changed AFTER INSERT OR UPDATE OR DELETE ON transport_events
    FOR EACH ROW EXECUTE FUNCTION boxtrack_account_changed();
CREATE TRIGGER tracking_requests_changed AFTER INSERT OR UPDATE OR DELETE ON tracking_requests
    FOR EACH ROW EXECUTE FUNCTION boxtrack_account_changed();
CREATE TRIGGER parties_changed AFTER INSERT OR UPDATE OR DELETE ON parties
    FOR EACH ROW EXECUTE FUNCTION boxtrack_account_changed();
