-- Citus readiness check for boxtrack's PostgreSQL schema (issue 45 part 5).
--
-- Read-only: it reads the catalog of the current schema (current_schema()) and changes
-- nothing. Runs on plain PostgreSQL 15 (no Citus needed):
--
--     psql -h HOST -U USER -d DB -f scripts/citus-check.sql
--
-- It applies the proposal of docs/scaling.md ("Past one primary: Citus by account_id"):
--   * every table with an account_id column is distributed by account_id, and `accounts` by
--     id, all in one colocation group (the "account" group);
--   * webhook_attempts, webhook_bodies, custom_field_options and document_downloads hold one
--     account's rows without an account_id column: they are distributed by account_id too,
--     once the column is added (until then every key of theirs is reported);
--   * the exceptions below (PROPOSAL), which hold rows shared by every account.
-- and Citus's rules for them:
--   1. a PRIMARY KEY or UNIQUE constraint/index of a distributed table must include its
--      distribution column (Citus: "Distributed relations cannot have UNIQUE, EXCLUDE, or
--      PRIMARY KEY constraints that do not include the partition column");
--   2. a foreign key between two distributed tables needs them in the same colocation group
--      and must include the distribution column of both, at the same position;
--   3. a distributed table may reference a reference table; a reference or local table may
--      not reference a distributed table, and a reference table may not reference a local one;
--      a distributed table may not reference a local one.
-- Partitions (pg_class.relispartition) are left out: they follow their parent.
--
-- Two result sets: one row per table (its role and how many findings it has), then one row
-- per finding (the constraint or index, its definition, and what is wrong with it).

\echo '== Tables: proposed Citus role =='

WITH proposal(table_name, role, dist_col, colocation, why) AS (
    VALUES
    -- the account row itself: its id is the account id
    ('accounts',        'distributed', 'id',   'account',  'the account: colocated with its rows; written by every event append (event_seq)'),
    -- shared by every account, small, rarely written: a copy on every node
    ('users',           'reference',   NULL,   NULL,       'sign-in by e-mail across accounts: users_email stays globally unique'),
    ('oauth_clients',   'reference',   NULL,   NULL,       'OAuth clients are not of an account'),
    ('shown_passes',    'reference',   NULL,   NULL,       'two rows: the last start pass over every account''s shown texts'),
    -- shared work queues and caches, kept on the coordinator only
    ('subjects',        'local',       NULL,   NULL,       'the polling queue of every account (FOR UPDATE SKIP LOCKED claims)'),
    ('early_reports',   'local',       NULL,   NULL,       'bounded; account_id NULL for operator files; read by number across accounts'),
    -- large, shared, keyed by something else: distributed by that key in a group of their own
    ('source_payloads', 'distributed', 'id',   'payloads', 'partitioned (no reference table can be); polls have no account'),
    ('ais_vessels',     'distributed', 'mmsi', 'ais',      'vessel data of every account, written per AIS message'),
    ('ais_track',       'distributed', 'mmsi', 'ais',      'vessel data of every account, written per AIS message')
),
-- the rows of one account that reach their account through another table
owned(table_name, through) AS (
    VALUES ('webhook_attempts', 'webhook_notifications'),
           ('webhook_bodies', 'webhook_notifications'),
           ('custom_field_options', 'custom_field_definitions'),
           ('document_downloads', 'documents')
),
tbl AS (
    SELECT c.oid, c.relname::text AS table_name, c.relkind,
           a.attnum AS account_attnum, a.attnotnull AS account_not_null
    FROM pg_class c
    JOIN pg_namespace n ON n.oid = c.relnamespace
    LEFT JOIN pg_attribute a ON a.attrelid = c.oid AND a.attname = 'account_id' AND NOT a.attisdropped
    WHERE n.nspname = current_schema()
      AND c.relkind IN ('r', 'p')
      AND NOT c.relispartition
      AND c.relname NOT LIKE '\_sqlx%'
),
roles AS (
    SELECT t.oid, t.table_name, t.relkind, t.account_attnum, t.account_not_null,
           COALESCE(p.role,
                    CASE WHEN t.account_attnum IS NOT NULL OR o.table_name IS NOT NULL
                         THEN 'distributed' ELSE 'undecided' END) AS role,
           COALESCE(p.dist_col,
                    CASE WHEN t.account_attnum IS NOT NULL OR o.table_name IS NOT NULL
                         THEN 'account_id' END) AS dist_col,
           COALESCE(p.colocation,
                    CASE WHEN t.account_attnum IS NOT NULL OR o.table_name IS NOT NULL
                         THEN 'account' END) AS colocation,
           COALESCE(p.why,
                    CASE WHEN o.table_name IS NOT NULL THEN 'one account''s rows (through ' || o.through || '): add account_id'
                         WHEN t.account_attnum IS NOT NULL THEN 'one account''s rows'
                         ELSE 'no account_id and not in the proposal: decide' END) AS why
    FROM tbl t
    LEFT JOIN proposal p ON p.table_name = t.table_name
    LEFT JOIN owned o ON o.table_name = t.table_name
),
-- the distribution column's number in its table (NULL when the column does not exist yet)
dist AS (
    SELECT r.*, a.attnum AS dist_attnum
    FROM roles r
    LEFT JOIN pg_attribute a ON a.attrelid = r.oid AND a.attname = r.dist_col AND NOT a.attisdropped
),
-- rule 1: PRIMARY KEY / UNIQUE (constraints and unique indexes) without the distribution column
bad_unique AS (
    SELECT d.table_name,
           i.relname::text AS name,
           CASE WHEN ix.indisprimary THEN 'PRIMARY KEY'
                WHEN k.oid IS NOT NULL THEN 'UNIQUE constraint'
                ELSE 'UNIQUE index' END AS kind,
           pg_get_indexdef(ix.indexrelid) AS definition,
           CASE WHEN d.dist_attnum IS NULL THEN 'no ' || d.dist_col || ' column yet'
                ELSE 'lacks ' || d.dist_col END AS problem
    FROM dist d
    JOIN pg_index ix ON ix.indrelid = d.oid AND ix.indisunique
    JOIN pg_class i ON i.oid = ix.indexrelid
    LEFT JOIN pg_constraint k ON k.conindid = ix.indexrelid AND k.contype IN ('p', 'u')
    WHERE d.role = 'distributed'
      AND (d.dist_attnum IS NULL OR NOT (d.dist_attnum = ANY (ix.indkey::int2[])))
),
-- rules 2 and 3: foreign keys that Citus would refuse
fk AS (
    SELECT k.oid, k.conname::text AS name, pg_get_constraintdef(k.oid) AS definition,
           src.table_name, src.role AS src_role, src.colocation AS src_group, src.dist_attnum AS src_attnum,
           src.dist_col AS src_col,
           dst.table_name AS ref_table, dst.role AS dst_role, dst.colocation AS dst_group, dst.dist_attnum AS dst_attnum,
           dst.dist_col AS dst_col,
           k.conkey, k.confkey
    FROM pg_constraint k
    JOIN dist src ON src.oid = k.conrelid
    JOIN dist dst ON dst.oid = k.confrelid
    WHERE k.contype = 'f' AND k.conparentid = 0
),
bad_fk AS (
    SELECT f.table_name, f.name, 'FOREIGN KEY' AS kind, f.definition,
           CASE
             WHEN f.src_role IN ('reference', 'local') AND f.dst_role = 'distributed'
               THEN f.src_role || ' table -> distributed table ' || f.ref_table || ': not allowed'
             WHEN f.src_role = 'reference' AND f.dst_role = 'local'
               THEN 'reference table -> local table ' || f.ref_table || ': not allowed'
             WHEN f.src_role = 'distributed' AND f.dst_role = 'local'
               THEN 'distributed table -> local table ' || f.ref_table || ': not allowed'
             WHEN f.src_role = 'distributed' AND f.dst_role = 'distributed'
                  AND f.src_group IS DISTINCT FROM f.dst_group
               THEN 'not colocated: ' || f.src_group || ' group -> ' || f.dst_group || ' group'
             WHEN f.src_attnum IS NULL
               THEN 'not colocated: ' || f.table_name || ' has no ' || f.src_col || ' column yet'
             ELSE 'not colocated: does not pair ' || f.src_col || ' with ' || f.ref_table || '.' || f.dst_col
           END AS problem
    FROM fk f
    WHERE (f.src_role IN ('reference', 'local') AND f.dst_role = 'distributed')
       OR (f.src_role = 'reference' AND f.dst_role = 'local')
       OR (f.src_role = 'distributed' AND f.dst_role = 'local')
       OR (f.src_role = 'distributed' AND f.dst_role = 'distributed' AND (
              f.src_group IS DISTINCT FROM f.dst_group
              OR f.src_attnum IS NULL OR f.dst_attnum IS NULL
              -- the distribution columns must sit at the same position of the key on both sides
              OR NOT EXISTS (
                  SELECT 1 FROM generate_subscripts(f.conkey, 1) AS s(i)
                  WHERE f.conkey[s.i] = f.src_attnum AND f.confkey[s.i] = f.dst_attnum)))
),
findings AS (
    SELECT * FROM bad_unique
    UNION ALL
    SELECT * FROM bad_fk
)
SELECT d.table_name AS "table",
       CASE d.relkind WHEN 'p' THEN 'partitioned' ELSE 'table' END AS kind,
       CASE WHEN d.account_attnum IS NULL THEN 'no'
            WHEN d.account_not_null THEN 'yes'
            ELSE 'yes (nullable)' END AS account_id,
       CASE WHEN d.role = 'distributed'
            THEN 'distributed by ' || d.dist_col || ' (' || d.colocation || ' group)'
            ELSE d.role END AS citus_role,
       (SELECT COUNT(*) FROM bad_unique b WHERE b.table_name = d.table_name) AS unique_without_dist_col,
       (SELECT COUNT(*) FROM bad_fk b WHERE b.table_name = d.table_name) AS bad_foreign_keys,
       d.why
FROM dist d
ORDER BY CASE d.role WHEN 'distributed' THEN 0 WHEN 'reference' THEN 1 WHEN 'local' THEN 2 ELSE 3 END,
         d.colocation, d.table_name;

\echo '== Findings: keys and foreign keys Citus would refuse under that proposal =='

-- The same proposal and rules as above, repeated so that each statement stands alone.
WITH proposal(table_name, role, dist_col, colocation) AS (
    VALUES ('accounts', 'distributed', 'id', 'account'),
           ('users', 'reference', NULL, NULL),
           ('oauth_clients', 'reference', NULL, NULL),
           ('subjects', 'local', NULL, NULL),
           ('early_reports', 'local', NULL, NULL),
           ('source_payloads', 'distributed', 'id', 'payloads'),
           ('ais_vessels', 'distributed', 'mmsi', 'ais'),
           ('ais_track', 'distributed', 'mmsi', 'ais')
),
owned(table_name) AS (
    VALUES ('webhook_attempts'), ('webhook_bodies'), ('custom_field_options'), ('document_downloads')
),
roles AS (
    SELECT c.oid, c.relname::text AS table_name,
           COALESCE(p.role, CASE WHEN a.attnum IS NOT NULL OR o.table_name IS NOT NULL THEN 'distributed' ELSE 'undecided' END) AS role,
           COALESCE(p.dist_col, CASE WHEN a.attnum IS NOT NULL OR o.table_name IS NOT NULL THEN 'account_id' END) AS dist_col,
           COALESCE(p.colocation, CASE WHEN a.attnum IS NOT NULL OR o.table_name IS NOT NULL THEN 'account' END) AS colocation
    FROM pg_class c
    JOIN pg_namespace n ON n.oid = c.relnamespace
    LEFT JOIN pg_attribute a ON a.attrelid = c.oid AND a.attname = 'account_id' AND NOT a.attisdropped
    LEFT JOIN proposal p ON p.table_name = c.relname
    LEFT JOIN owned o ON o.table_name = c.relname
    WHERE n.nspname = current_schema() AND c.relkind IN ('r', 'p') AND NOT c.relispartition
      AND c.relname NOT LIKE '\_sqlx%'
),
dist AS (
    SELECT r.*, a.attnum AS dist_attnum
    FROM roles r
    LEFT JOIN pg_attribute a ON a.attrelid = r.oid AND a.attname = r.dist_col AND NOT a.attisdropped
),
bad_unique AS (
    SELECT d.table_name, i.relname::text AS name,
           CASE WHEN ix.indisprimary THEN 'PRIMARY KEY'
                WHEN k.oid IS NOT NULL THEN 'UNIQUE constraint'
                ELSE 'UNIQUE index' END AS kind,
           regexp_replace(pg_get_indexdef(ix.indexrelid), '^.* USING btree ', '') AS definition,
           CASE WHEN d.dist_attnum IS NULL THEN 'no ' || d.dist_col || ' column yet'
                ELSE 'lacks ' || d.dist_col END AS problem
    FROM dist d
    JOIN pg_index ix ON ix.indrelid = d.oid AND ix.indisunique
    JOIN pg_class i ON i.oid = ix.indexrelid
    LEFT JOIN pg_constraint k ON k.conindid = ix.indexrelid AND k.contype IN ('p', 'u')
    WHERE d.role = 'distributed'
      AND (d.dist_attnum IS NULL OR NOT (d.dist_attnum = ANY (ix.indkey::int2[])))
),
fk AS (
    SELECT k.conname::text AS name, pg_get_constraintdef(k.oid) AS definition,
           src.table_name, src.role AS src_role, src.colocation AS src_group, src.dist_attnum AS src_attnum,
           src.dist_col AS src_col,
           dst.table_name AS ref_table, dst.role AS dst_role, dst.colocation AS dst_group, dst.dist_attnum AS dst_attnum,
           dst.dist_col AS dst_col, k.conkey, k.confkey
    FROM pg_constraint k
    JOIN dist src ON src.oid = k.conrelid
    JOIN dist dst ON dst.oid = k.confrelid
    WHERE k.contype = 'f' AND k.conparentid = 0
),
bad_fk AS (
    SELECT f.table_name, f.name, 'FOREIGN KEY' AS kind, f.definition,
           CASE
             WHEN f.src_role IN ('reference', 'local') AND f.dst_role = 'distributed'
               THEN f.src_role || ' -> distributed: not allowed'
             WHEN f.src_role = 'reference' AND f.dst_role = 'local'
               THEN 'reference -> local: not allowed'
             WHEN f.src_role = 'distributed' AND f.dst_role = 'local'
               THEN 'distributed -> local: not allowed'
             WHEN f.src_group IS DISTINCT FROM f.dst_group
               THEN 'not colocated (' || f.src_group || ' -> ' || f.dst_group || ')'
             WHEN f.src_attnum IS NULL
               THEN 'not colocated: no ' || f.src_col || ' column yet'
             ELSE 'not colocated: lacks ' || f.src_col || ' -> ' || f.dst_col
           END AS problem
    FROM fk f
    WHERE (f.src_role IN ('reference', 'local') AND f.dst_role = 'distributed')
       OR (f.src_role = 'reference' AND f.dst_role = 'local')
       OR (f.src_role = 'distributed' AND f.dst_role = 'local')
       OR (f.src_role = 'distributed' AND f.dst_role = 'distributed' AND (
              f.src_group IS DISTINCT FROM f.dst_group
              OR f.src_attnum IS NULL OR f.dst_attnum IS NULL
              OR NOT EXISTS (
                  SELECT 1 FROM generate_subscripts(f.conkey, 1) AS s(i)
                  WHERE f.conkey[s.i] = f.src_attnum AND f.confkey[s.i] = f.dst_attnum)))
)
SELECT table_name AS "table", name, kind, definition, problem
FROM (SELECT * FROM bad_unique UNION ALL SELECT * FROM bad_fk) AS x
ORDER BY kind = 'FOREIGN KEY', table_name, name;
