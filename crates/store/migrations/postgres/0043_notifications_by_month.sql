-- Webhook notifications, their bodies and their earlier attempts are partitioned by month of
-- the notification's creation, like the event log (0041). Bodies and attempts carry their
-- notification's creation time (`notification_created_us`), so a notification and what it
-- owns sit in the same month: retention (`boxtrack_store::retention`) drops a month of all
-- three at once when none of its notifications is still pending, and deletes the finished
-- ones of a month that still holds a pending one in batches (a pending notification outlives
-- its month until it is delivered or fails).

-- A month made later takes the storage settings of its table's DEFAULT partition: a
-- notification row is rewritten by every claim and attempt, and fillfactor 50 (0016) keeps
-- those rewrites on their page.
CREATE OR REPLACE FUNCTION boxtrack_month_partition(parent TEXT, key TEXT, name TEXT, lo BIGINT, hi BIGINT)
RETURNS BOOLEAN LANGUAGE plpgsql AS $$
DECLARE
    opts TEXT[];
BEGIN
    -- one maker at a time, whichever process runs the worker
    PERFORM pg_advisory_xact_lock(hashtext('boxtrack_month_partition'));
    IF to_regclass(name) IS NOT NULL THEN
        RETURN FALSE;
    END IF;
    EXECUTE format('CREATE TABLE %I (LIKE %I INCLUDING DEFAULTS)', name, parent);
    SELECT reloptions INTO opts FROM pg_class WHERE oid = to_regclass(parent || '_default');
    IF opts IS NOT NULL THEN
        EXECUTE format('ALTER TABLE %I SET (%s)', name, array_to_string(opts, ', '));
    END IF;
    EXECUTE format(
        'WITH moved AS (DELETE FROM %I WHERE %I >= %s AND %I < %s RETURNING *) INSERT INTO %I SELECT * FROM moved',
        parent || '_default', key, lo, key, hi, name);
    EXECUTE format('ALTER TABLE %I ATTACH PARTITION %I FOR VALUES FROM (%s) TO (%s)', parent, name, lo, hi);
    RETURN TRUE;
END $$;

-- the tables as they were, out of the way of the new ones' names
ALTER TABLE webhook_attempts RENAME TO webhook_attempts_before_0043;
ALTER TABLE webhook_attempts_before_0043 DROP CONSTRAINT webhook_attempts_notification_id_fkey;
ALTER TABLE webhook_attempts_before_0043 RENAME CONSTRAINT webhook_attempts_pkey TO webhook_attempts_before_0043_pkey;
DROP INDEX webhook_attempts_notification;
ALTER TABLE webhook_bodies RENAME TO webhook_bodies_before_0043;
ALTER TABLE webhook_bodies_before_0043 RENAME CONSTRAINT webhook_bodies_pkey TO webhook_bodies_before_0043_pkey;
ALTER TABLE webhook_notifications RENAME TO webhook_notifications_before_0043;
ALTER TABLE webhook_notifications_before_0043 RENAME CONSTRAINT webhook_notifications_pkey TO webhook_notifications_before_0043_pkey;
DROP INDEX webhook_notifications_account_created;
DROP INDEX webhook_notifications_due;
DROP INDEX webhook_notifications_created;

CREATE TABLE webhook_notifications (
    id                  UUID NOT NULL,
    account_id          UUID NOT NULL REFERENCES accounts(id),
    webhook_id          UUID NOT NULL,
    event_id            UUID NOT NULL,
    seq                 BIGINT NOT NULL,
    event               TEXT NOT NULL,
    reference_type      TEXT NOT NULL,
    reference_id        UUID NOT NULL,
    delivery_status     TEXT NOT NULL,
    attempts            BIGINT NOT NULL,
    next_attempt_us     BIGINT,
    locked_until_us     BIGINT,
    last_status_code    BIGINT,
    last_error          TEXT,
    created_us          BIGINT NOT NULL,
    updated_us          BIGINT NOT NULL,
    replay_of           UUID,
    last_attempt_us     BIGINT,
    last_duration_ms    BIGINT,
    last_response_body  TEXT,
    -- a partitioned table's keys include its partition column; ids are made unique (v7)
    PRIMARY KEY (id, created_us)
) PARTITION BY RANGE (created_us);
CREATE INDEX webhook_notifications_account_created ON webhook_notifications (account_id, created_us DESC, id DESC);
CREATE INDEX webhook_notifications_due ON webhook_notifications (next_attempt_us, id) WHERE delivery_status = 'pending';
CREATE TABLE webhook_notifications_default PARTITION OF webhook_notifications DEFAULT WITH (fillfactor = 50);

CREATE TABLE webhook_bodies (
    notification_id          UUID NOT NULL,
    notification_created_us  BIGINT NOT NULL,
    body                     TEXT NOT NULL,
    PRIMARY KEY (notification_id, notification_created_us)
) PARTITION BY RANGE (notification_created_us);
CREATE TABLE webhook_bodies_default PARTITION OF webhook_bodies DEFAULT;

CREATE TABLE webhook_attempts (
    id                       UUID NOT NULL,
    notification_id          UUID NOT NULL,
    notification_created_us  BIGINT NOT NULL,
    attempted_us             BIGINT NOT NULL,
    status_code              BIGINT,
    duration_ms              BIGINT NOT NULL,
    error                    TEXT,
    response_body            TEXT,
    -- no foreign key to the notification, as on SQLite since 0014: an attempt is only ever
    -- written from the notification row it belongs to (`INSERT … SELECT … FROM
    -- webhook_notifications`), and a key would stop a month of notifications from moving
    -- out of the DEFAULT partition (`boxtrack_month_partition`) ahead of its attempts
    PRIMARY KEY (id, notification_created_us)
) PARTITION BY RANGE (notification_created_us);
CREATE INDEX webhook_attempts_notification ON webhook_attempts (notification_id, attempted_us);
CREATE TABLE webhook_attempts_default PARTITION OF webhook_attempts DEFAULT;

-- the months from the oldest notification to two months ahead, for all three
SELECT boxtrack_month_partitions(t, k,
    COALESCE((SELECT MIN(created_us) FROM webhook_notifications_before_0043), (extract(epoch FROM now()) * 1000000)::BIGINT),
    (extract(epoch FROM now()) * 1000000)::BIGINT)
FROM (VALUES ('webhook_notifications', 'created_us'),
             ('webhook_bodies', 'notification_created_us'),
             ('webhook_attempts', 'notification_created_us')) AS p(t, k);

INSERT INTO webhook_notifications (id, account_id, webhook_id, event_id, seq, event, reference_type, reference_id,
        delivery_status, attempts, next_attempt_us, locked_until_us, last_status_code, last_error, created_us,
        updated_us, replay_of, last_attempt_us, last_duration_ms, last_response_body)
    SELECT id, account_id, webhook_id, event_id, seq, event, reference_type, reference_id,
        delivery_status, attempts, next_attempt_us, locked_until_us, last_status_code, last_error, created_us,
        updated_us, replay_of, last_attempt_us, last_duration_ms, last_response_body
    FROM webhook_notifications_before_0043;
-- a body or attempt whose notification is gone has nothing to belong to and is left behind
INSERT INTO webhook_bodies (notification_id, notification_created_us, body)
    SELECT b.notification_id, n.created_us, b.body
    FROM webhook_bodies_before_0043 b JOIN webhook_notifications_before_0043 n ON n.id = b.notification_id;
INSERT INTO webhook_attempts (id, notification_id, notification_created_us, attempted_us, status_code, duration_ms, error, response_body)
    SELECT a.id, a.notification_id, n.created_us, a.attempted_us, a.status_code, a.duration_ms, a.error, a.response_body
    FROM webhook_attempts_before_0043 a JOIN webhook_notifications_before_0043 n ON n.id = a.notification_id;
DROP TABLE webhook_attempts_before_0043;
DROP TABLE webhook_bodies_before_0043;
DROP TABLE webhook_notifications_before_0043;
