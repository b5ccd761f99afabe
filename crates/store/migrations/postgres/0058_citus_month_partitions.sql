-- A month's partition made on Citus: the parent is distributed (store::citus), so the new
-- month is distributed the same way and colocated with it before the rows of its month move
-- out of the DEFAULT partition (Citus cannot attach a local table to a distributed parent).
-- On plain PostgreSQL the function does what 0043's did.
CREATE OR REPLACE FUNCTION boxtrack_month_partition(parent TEXT, key TEXT, name TEXT, lo BIGINT, hi BIGINT)
RETURNS BOOLEAN LANGUAGE plpgsql AS $$
DECLARE
    opts TEXT[];
    dist TEXT;
BEGIN
    -- one maker at a time, whichever process runs the worker
    PERFORM pg_advisory_xact_lock(hashtext('boxtrack_month_partition'));
    IF to_regclass(name) IS NOT NULL THEN
        RETURN FALSE;
    END IF;
    IF to_regclass('pg_catalog.pg_dist_partition') IS NOT NULL THEN
        EXECUTE 'SELECT column_to_column_name(logicalrelid, partkey) FROM pg_dist_partition WHERE logicalrelid = to_regclass($1)'
            INTO dist USING parent;
    END IF;
    EXECUTE format('CREATE TABLE %I (LIKE %I INCLUDING DEFAULTS)', name, parent);
    SELECT reloptions INTO opts FROM pg_class WHERE oid = to_regclass(parent || '_default');
    IF opts IS NOT NULL THEN
        EXECUTE format('ALTER TABLE %I SET (%s)', name, array_to_string(opts, ', '));
    END IF;
    IF dist IS NULL THEN
        EXECUTE format(
            'WITH moved AS (DELETE FROM %I WHERE %I >= %s AND %I < %s RETURNING *) INSERT INTO %I SELECT * FROM moved',
            parent || '_default', key, lo, key, hi, name);
    ELSE
        SET LOCAL citus.multi_shard_modify_mode TO 'sequential';
        EXECUTE format('SELECT create_distributed_table(%L, %L, colocate_with => %L)', name, dist, parent);
        EXECUTE format('INSERT INTO %I SELECT * FROM %I WHERE %I >= %s AND %I < %s',
            name, parent || '_default', key, lo, key, hi);
        EXECUTE format('DELETE FROM %I WHERE %I >= %s AND %I < %s', parent || '_default', key, lo, key, hi);
    END IF;
    EXECUTE format('ALTER TABLE %I ATTACH PARTITION %I FOR VALUES FROM (%s) TO (%s)', parent, name, lo, hi);
    RETURN TRUE;
END $$;
