-- History that only grows — the accounts' event log and the upstream payloads as received — is
-- partitioned by month of its time column, so that retention (`boxtrack_store::retention`)
-- drops a whole month at once instead of deleting row by row. A row whose time falls outside
-- every month made lands in the table's DEFAULT partition; the worker makes the months ahead
-- with boxtrack_month_partition, which first moves any such rows of that month in.
-- Webhook notifications are not partitioned: a notification still pending must outlive its
-- month, and their bodies and attempts are keyed by the notification alone.

CREATE FUNCTION boxtrack_month_partition(parent TEXT, key TEXT, name TEXT, lo BIGINT, hi BIGINT)
RETURNS BOOLEAN LANGUAGE plpgsql AS $$
BEGIN
    -- one maker at a time, whichever process runs the worker
    PERFORM pg_advisory_xact_lock(hashtext('boxtrack_month_partition'));
    IF to_regclass(name) IS NOT NULL THEN
        RETURN FALSE;
    END IF;
    EXECUTE format('CREATE TABLE %I (LIKE %I INCLUDING DEFAULTS)', name, parent);
    EXECUTE format(
        'WITH moved AS (DELETE FROM %I WHERE %I >= %s AND %I < %s RETURNING *) INSERT INTO %I SELECT * FROM moved',
        parent || '_default', key, lo, key, hi, name);
    EXECUTE format('ALTER TABLE %I ATTACH PARTITION %I FOR VALUES FROM (%s) TO (%s)', parent, name, lo, hi);
    RETURN TRUE;
END $$;

-- The months from the oldest row (at most three years back) to two months ahead, in UTC.
CREATE FUNCTION boxtrack_month_partitions(parent TEXT, key TEXT, oldest_us BIGINT, now_us BIGINT)
RETURNS VOID LANGUAGE plpgsql AS $$
DECLARE
    m TIMESTAMP;
    last TIMESTAMP;
BEGIN
    last := date_trunc('month', to_timestamp(now_us / 1000000.0) AT TIME ZONE 'UTC') + INTERVAL '2 months';
    m := date_trunc('month', to_timestamp(GREATEST(LEAST(oldest_us, now_us), now_us - 1096::BIGINT * 86400000000) / 1000000.0) AT TIME ZONE 'UTC');
    WHILE m <= last LOOP
        PERFORM boxtrack_month_partition(parent, key, parent || '_p' || to_char(m, 'YYYYMM'),
            (extract(epoch FROM m AT TIME ZONE 'UTC') * 1000000)::BIGINT,
            (extract(epoch FROM (m + INTERVAL '1 month') AT TIME ZONE 'UTC') * 1000000)::BIGINT);
        m := m + INTERVAL '1 month';
    END LOOP;
END $$;

ALTER TABLE events RENAME TO events_before_0041;
ALTER TABLE events_before_0041 RENAME CONSTRAINT events_pkey TO events_before_0041_pkey;
ALTER TABLE events_before_0041 RENAME CONSTRAINT events_id_key TO events_before_0041_id_key;
CREATE TABLE events (
    account_id    UUID NOT NULL,
    seq           BIGINT NOT NULL,
    id            UUID NOT NULL,
    event         TEXT NOT NULL,
    object_type   TEXT NOT NULL,
    object_id     UUID NOT NULL,
    payload       JSONB NOT NULL,
    created_us    BIGINT NOT NULL,
    -- a partitioned table's keys include its partition column; the sequence stays unique per
    -- account by construction (`accounts.event_seq`, raised in the appending transaction)
    PRIMARY KEY (account_id, seq, created_us)
) PARTITION BY RANGE (created_us);
CREATE INDEX events_id ON events (id);
CREATE INDEX events_created ON events USING brin (created_us);
CREATE TABLE events_default PARTITION OF events DEFAULT;
SELECT boxtrack_month_partitions('events', 'created_us',
    COALESCE((SELECT MIN(created_us) FROM events_before_0041), (extract(epoch FROM now()) * 1000000)::BIGINT),
    (extract(epoch FROM now()) * 1000000)::BIGINT);
INSERT INTO events (account_id, seq, id, event, object_type, object_id, payload, created_us)
    SELECT account_id, seq, id, event, object_type, object_id, payload, created_us FROM events_before_0041;
DROP TABLE events_before_0041;

ALTER TABLE source_payloads RENAME TO source_payloads_before_0041;
ALTER TABLE source_payloads_before_0041 RENAME CONSTRAINT source_payloads_pkey TO source_payloads_before_0041_pkey;
ALTER INDEX source_payloads_received RENAME TO source_payloads_before_0041_received;
CREATE TABLE source_payloads (
    id           UUID NOT NULL,
    account_id   UUID,
    format       TEXT NOT NULL,
    origin       TEXT NOT NULL,
    body         TEXT NOT NULL,
    status       TEXT NOT NULL,
    summary      JSONB NOT NULL,
    received_us  BIGINT NOT NULL,
    PRIMARY KEY (id, received_us)
) PARTITION BY RANGE (received_us);
CREATE INDEX source_payloads_received ON source_payloads (received_us DESC, id DESC);
CREATE TABLE source_payloads_default PARTITION OF source_payloads DEFAULT;
SELECT boxtrack_month_partitions('source_payloads', 'received_us',
    COALESCE((SELECT MIN(received_us) FROM source_payloads_before_0041), (extract(epoch FROM now()) * 1000000)::BIGINT),
    (extract(epoch FROM now()) * 1000000)::BIGINT);
INSERT INTO source_payloads (id, account_id, format, origin, body, status, summary, received_us)
    SELECT id, account_id, format, origin, body, status, summary, received_us FROM source_payloads_before_0041;
DROP TABLE source_payloads_before_0041;

-- retention finds finished notifications by age
CREATE INDEX webhook_notifications_created ON webhook_notifications USING brin (created_us);
