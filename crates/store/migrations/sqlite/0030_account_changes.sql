-- Which accounts changed, in commit order, for the read cache (crates/store/src/changes.rs).
-- Whenever `PRAGMA data_version` says another connection committed, the cache reads the rows
-- past the last `seq` it saw and forgets what it had rendered for those accounts. One row per
-- account; triggers on every table a cached response is rendered from raise its `seq`.
CREATE TABLE account_changes (
    account_id BLOB PRIMARY KEY NOT NULL,
    seq INTEGER NOT NULL
) STRICT;
CREATE INDEX account_changes_by_seq ON account_changes (seq);

CREATE TRIGGER accounts_changed_insert AFTER INSERT ON accounts BEGIN
    INSERT INTO account_changes (account_id, seq)
        VALUES (NEW.id, (SELECT COALESCE(MAX(seq), 0) + 1 FROM account_changes))
        ON CONFLICT (account_id) DO UPDATE SET seq = excluded.seq;
END;
CREATE TRIGGER accounts_changed_update AFTER UPDATE ON accounts BEGIN
    INSERT INTO account_changes (account_id, seq)
        VALUES (NEW.id, (SELECT COALESCE(MAX(seq), 0) + 1 FROM account_changes))
        ON CONFLICT (account_id) DO UPDATE SET seq = excluded.seq;
END;
CREATE TRIGGER accounts_changed_delete AFTER DELETE ON accounts BEGIN
    INSERT INTO account_changes (account_id, seq)
        VALUES (OLD.id, (SELECT COALESCE(MAX(seq), 0) + 1 FROM account_changes))
        ON CONFLICT (account_id) DO UPDATE SET seq = excluded.seq;
END;
CREATE TRIGGER shipments_changed_insert AFTER INSERT ON shipments BEGIN
    INSERT INTO account_changes (account_id, seq)
        VALUES (NEW.account_id, (SELECT COALESCE(MAX(seq), 0) + 1 FROM account_changes))
        ON CONFLICT (account_id) DO UPDATE SET seq = excluded.seq;
END;
CREATE TRIGGER shipments_changed_update AFTER UPDATE ON shipments BEGIN
    INSERT INTO account_changes (account_id, seq)
        VALUES (NEW.account_id, (SELECT COALESCE(MAX(seq), 0) + 1 FROM account_changes))
        ON CONFLICT (account_id) DO UPDATE SET seq = excluded.seq;
END;
CREATE TRIGGER shipments_changed_delete AFTER DELETE ON shipments BEGIN
    INSERT INTO account_changes (account_id, seq)
        VALUES (OLD.account_id, (SELECT COALESCE(MAX(seq), 0) + 1 FROM account_changes))
        ON CONFLICT (account_id) DO UPDATE SET seq = excluded.seq;
END;
CREATE TRIGGER containers_changed_insert AFTER INSERT ON containers BEGIN
    INSERT INTO account_changes (account_id, seq)
        VALUES (NEW.account_id, (SELECT COALESCE(MAX(seq), 0) + 1 FROM account_changes))
        ON CONFLICT (account_id) DO UPDATE SET seq = excluded.seq;
END;
CREATE TRIGGER containers_changed_update AFTER UPDATE ON containers BEGIN
    INSERT INTO account_changes (account_id, seq)
        VALUES (NEW.account_id, (SELECT COALESCE(MAX(seq), 0) + 1 FROM account_changes))
        ON CONFLICT (account_id) DO UPDATE SET seq = excluded.seq;
END;
CREATE TRIGGER containers_changed_delete AFTER DELETE ON containers BEGIN
    INSERT INTO account_changes (account_id, seq)
        VALUES (OLD.account_id, (SELECT COALESCE(MAX(seq), 0) + 1 FROM account_changes))
        ON CONFLICT (account_id) DO UPDATE SET seq = excluded.seq;
END;
CREATE TRIGGER transport_events_changed_insert AFTER INSERT ON transport_events BEGIN
    INSERT INTO account_changes (account_id, seq)
        VALUES (NEW.account_id, (SELECT COALESCE(MAX(seq), 0) + 1 FROM account_changes))
        ON CONFLICT (account_id) DO UPDATE SET seq = excluded.seq;
END;
CREATE TRIGGER transport_events_changed_update AFTER UPDATE ON transport_events BEGIN
    INSERT INTO account_changes (account_id, seq)
        VALUES (NEW.account_id, (SELECT COALESCE(MAX(seq), 0) + 1 FROM account_changes))
        ON CONFLICT (account_id) DO UPDATE SET seq = excluded.seq;
END;
CREATE TRIGGER transport_events_changed_delete AFTER DELETE ON transport_events BEGIN
    INSERT INTO account_changes (account_id, seq)
        VALUES (OLD.account_id, (SELECT COALESCE(MAX(seq), 0) + 1 FROM account_changes))
        ON CONFLICT (account_id) DO UPDATE SET seq = excluded.seq;
END;
CREATE TRIGGER tracking_requests_changed_insert AFTER INSERT ON tracking_requests BEGIN
    INSERT INTO account_changes (account_id, seq)
        VALUES (NEW.account_id, (SELECT COALESCE(MAX(seq), 0) + 1 FROM account_changes))
        ON CONFLICT (account_id) DO UPDATE SET seq = excluded.seq;
END;
CREATE TRIGGER tracking_requests_changed_update AFTER UPDATE ON tracking_requests BEGIN
    INSERT INTO account_changes (account_id, seq)
        VALUES (NEW.account_id, (SELECT COALESCE(MAX(seq), 0) + 1 FROM account_changes))
        ON CONFLICT (account_id) DO UPDATE SET seq = excluded.seq;
END;
CREATE TRIGGER tracking_requests_changed_delete AFTER DELETE ON tracking_requests BEGIN
    INSERT INTO account_changes (account_id, seq)
        VALUES (OLD.account_id, (SELECT COALESCE(MAX(seq), 0) + 1 FROM account_changes))
        ON CONFLICT (account_id) DO UPDATE SET seq = excluded.seq;
END;
CREATE TRIGGER parties_changed_insert AFTER INSERT ON parties BEGIN
    INSERT INTO account_changes (account_id, seq)
        VALUES (NEW.account_id, (SELECT COALESCE(MAX(seq), 0) + 1 FROM account_changes))
        ON CONFLICT (account_id) DO UPDATE SET seq = excluded.seq;
END;
CREATE TRIGGER parties_changed_update AFTER UPDATE ON parties BEGIN
    INSERT INTO account_changes (account_id, seq)
        VALUES (NEW.account_id, (SELECT COALESCE(MAX(seq), 0) + 1 FROM account_changes))
        ON CONFLICT (account_id) DO UPDATE SET seq = excluded.seq;
END;
CREATE TRIGGER parties_changed_delete AFTER DELETE ON parties BEGIN
    INSERT INTO account_changes (account_id, seq)
        VALUES (OLD.account_id, (SELECT COALESCE(MAX(seq), 0) + 1 FROM account_changes))
        ON CONFLICT (account_id) DO UPDATE SET seq = excluded.seq;
END;
