//! Citus: PostgreSQL distributed over worker nodes by one column. When the database boxtrack
//! migrates has the `citus` extension, [`lay_out`] distributes every table after the
//! migrations, by the roles below (`docs/scaling.md`, "Past one primary"):
//!
//! - **by account**: every table with an `account_id`, distributed by it and colocated with
//!   `accounts` (distributed by `id`), so an account's rows and the statements that name the
//!   account stay on one worker;
//! - **by their own key**: what every account shares and is written per message
//!   (`source_payloads` by `id`, the AIS tables by `mmsi`);
//! - **reference**: small tables read everywhere and rarely written (users, OAuth clients,
//!   the public tariffs and calendars, the renderer's passes): a copy on every node;
//! - **local**: the coordinator's own queues (`subjects`, `early_reports`, `worker_passes`).
//!
//! Laying out is idempotent: a table already distributed is left as it is, and a table a
//! later migration adds is distributed at the next start. A table with no role is an error
//! naming it, so a migration cannot add one silently.

use sqlx::PgPool;

use crate::{Result, StoreError};

/// How a table is placed on a Citus cluster.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// `accounts` itself: distributed by `id`, the anchor of the account group.
    Accounts,
    /// Distributed by `account_id`, colocated with `accounts`.
    ByAccount,
    /// Distributed by its own column, colocated with the table named (or in a group of its own).
    Own {
        /// The distribution column.
        column: &'static str,
        /// The table to colocate with, or `None` for a group of its own.
        with: Option<&'static str>,
    },
    /// A copy on every node.
    Reference,
    /// Kept on the coordinator only.
    Local,
}

/// Every table and its role, in the order they are distributed (a table after those its
/// foreign keys name). Tables with an `account_id` that are not named are [`Role::ByAccount`].
pub const ROLES: &[(&str, Role)] = &[
    ("accounts", Role::Accounts),
    (
        "source_payloads",
        Role::Own {
            column: "id",
            with: None,
        },
    ),
    (
        "ais_vessels",
        Role::Own {
            column: "mmsi",
            with: None,
        },
    ),
    (
        "ais_track",
        Role::Own {
            column: "mmsi",
            with: Some("ais_vessels"),
        },
    ),
    ("users", Role::Reference),
    ("oauth_clients", Role::Reference),
    ("shown_passes", Role::Reference),
    ("public_tariffs", Role::Reference),
    ("public_calendars", Role::Reference),
    ("subjects", Role::Local),
    // every request passes the coordinator, which keeps the rolling windows (a few rows an
    // account, unlogged); the limiter's one-statement check is an INSERT … SELECT with
    // parameters, which Citus forwards to a worker without them
    ("rate_limit_slots", Role::Local),
    ("early_reports", Role::Local),
    ("worker_passes", Role::Local),
];

/// The account tables in the order their foreign keys need (a referenced table first); the
/// others of the account group follow in name order.
const ACCOUNT_ORDER: &[&str] = &[
    // the row counts' triggers of the others write here: placed first, so that rows laid out
    // with their table (an install restored onto the coordinator) find it on the workers
    "account_counts",
    "parties",
    "email_submissions",
    "blobs",
    "documents",
    "document_downloads",
    "shipments",
    "containers",
    "custom_field_definitions",
    "custom_field_options",
    "custom_fields",
];

/// The foreign keys from account tables to reference tables: Citus cannot distribute a table
/// that references a local one, so they are dropped before and made again after.
const TO_REFERENCE: &[(&str, &str, &str)] = &[(
    "web_sessions",
    "web_sessions_user_id_fkey",
    "FOREIGN KEY (user_id) REFERENCES users(id)",
)];

/// Whether the database has the Citus extension (asked once per database a process
/// connects to; [`on_citus`] answers from that without asking again).
pub async fn is_citus(pool: &PgPool) -> Result<bool> {
    let found: bool =
        sqlx::query_scalar("SELECT EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'citus')")
            .fetch_one(pool)
            .await?;
    if let Ok(mut known) = KNOWN.lock() {
        known.insert(database_of(pool), found);
    }
    Ok(found)
}

/// The databases this process found to be Citus or not, by host, port and name.
static KNOWN: std::sync::Mutex<std::collections::BTreeMap<String, bool>> =
    std::sync::Mutex::new(std::collections::BTreeMap::new());

/// The database a pool connects to, as [`KNOWN`] names it.
fn database_of(pool: &PgPool) -> String {
    let o = pool.connect_options();
    format!(
        "{}:{}/{}",
        o.get_host(),
        o.get_port(),
        o.get_database().unwrap_or_default()
    )
}

/// Whether the pool's database was found to be Citus by [`is_citus`] (which
/// [`crate::Db::migrate`] asks): statements that Citus plans otherwise choose by it.
pub fn on_citus(pool: &PgPool) -> bool {
    KNOWN
        .lock()
        .ok()
        .and_then(|k| k.get(&database_of(pool)).copied())
        .unwrap_or(false)
}

/// A worker node of a Citus cluster, as the coordinator sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WorkerNode {
    /// `host:port`, as the coordinator knows it.
    pub node: String,
    /// Whether the coordinator could connect to it just now.
    pub reachable: bool,
}

/// The coordinator's active primary workers, each checked with a connection from the
/// coordinator (`citus_check_connection_to_node`); empty where the database is not Citus.
pub async fn workers(db: &crate::Db) -> Result<Vec<WorkerNode>> {
    let crate::Db::Postgres(pool) = db else {
        return Ok(Vec::new());
    };
    if !on_citus(pool) {
        return Ok(Vec::new());
    }
    let mut tx = pool.begin().await?;
    // a worker that accepts and then says nothing is out of reach after 2 s, not Citus's 30
    sqlx::query("SET LOCAL citus.node_connection_timeout = 2000")
        .execute(&mut *tx)
        .await?;
    let rows: Vec<(String, i32, bool)> = sqlx::query_as(
        "SELECT n.nodename::text, n.nodeport, citus_check_connection_to_node(n.nodename, n.nodeport) \
         FROM pg_dist_node n WHERE n.groupid <> 0 AND n.noderole = 'primary' AND n.isactive \
         ORDER BY n.nodename, n.nodeport",
    )
    .fetch_all(&mut *tx)
    .await?;
    tx.commit().await?;
    Ok(rows
        .into_iter()
        .map(|(host, port, reachable)| WorkerNode {
            node: format!("{host}:{port}"),
            reachable,
        })
        .collect())
}

/// Marks the rest of a transaction as allowed to ask every shard: what finds an account by a
/// secret alone (an API key's digest). Every other statement of an account's request names
/// its account and runs on one shard, which a test holds by refusing any other multi-shard
/// statement (`citus.multi_task_query_log_level = error`, `api/tests/it/citus.rs`).
pub async fn across_shards(tx: &mut sqlx::PgConnection) -> Result<()> {
    sqlx::query("SET LOCAL citus.multi_task_query_log_level = 'off'")
        .execute(tx)
        .await?;
    Ok(())
}

/// The role of `table`, given whether it has an `account_id` column.
pub fn role_of(table: &str, has_account: bool) -> Option<Role> {
    ROLES
        .iter()
        .find(|(t, _)| *t == table)
        .map(|(_, r)| *r)
        .or(has_account.then_some(Role::ByAccount))
}

/// The tables of the current schema not distributed yet (partitions follow their parent),
/// with whether each has an `account_id`.
async fn undistributed(pool: &PgPool) -> Result<Vec<(String, bool)>> {
    Ok(sqlx::query_as(
        "SELECT c.relname::text, EXISTS (SELECT 1 FROM pg_attribute a WHERE a.attrelid = c.oid AND a.attname = 'account_id' AND NOT a.attisdropped) \
         FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace \
         WHERE n.nspname = current_schema() AND c.relkind IN ('r', 'p') AND NOT c.relispartition \
           AND c.relname NOT LIKE '\\_sqlx%' \
           AND NOT EXISTS (SELECT 1 FROM pg_dist_partition d WHERE d.logicalrelid = c.oid)",
    )
    .fetch_all(pool)
    .await?)
}

/// The order in which `tables` are distributed: `accounts`, the account group (those with
/// foreign keys after what they name), the tables with their own key, then reference tables
/// (a reference table may be named by an account table's foreign key, which is made again
/// once both are placed). Local tables are left out.
pub fn order(tables: &[(String, bool)]) -> std::result::Result<Vec<(String, Role)>, String> {
    let mut out: Vec<(String, Role)> = Vec::new();
    for (t, has) in tables {
        let role = role_of(t, *has).ok_or_else(|| t.clone())?;
        if role != Role::Local {
            out.push((t.clone(), role));
        }
    }
    let rank = |(t, r): &(String, Role)| -> (u8, usize, String) {
        match r {
            Role::Accounts => (0, 0, t.clone()),
            Role::ByAccount => (
                1,
                ACCOUNT_ORDER
                    .iter()
                    .position(|o| o == t)
                    .unwrap_or(ACCOUNT_ORDER.len()),
                t.clone(),
            ),
            Role::Own { with, .. } => (2, usize::from(with.is_some()), t.clone()),
            Role::Reference => (3, 0, t.clone()),
            Role::Local => (4, 0, t.clone()),
        }
    };
    out.sort_by_key(rank);
    Ok(out)
}

/// Places one table by its role. A table that holds rows (an install restored onto the
/// coordinator) is placed with its triggers off: copying its rows onto the shards would
/// otherwise count each row a second time in `account_counts`, restored with them.
async fn distribute(c: &mut sqlx::PgConnection, table: &str, role: Role) -> Result<()> {
    let sql = match role {
        Role::Accounts => "SELECT create_distributed_table('accounts', 'id')".to_string(),
        Role::ByAccount => format!(
            "SELECT create_distributed_table('{table}', 'account_id', colocate_with => 'accounts')"
        ),
        Role::Own { column, with } => format!(
            "SELECT create_distributed_table('{table}', '{column}', colocate_with => '{}')",
            with.unwrap_or("none")
        ),
        Role::Reference => format!("SELECT create_reference_table('{table}')"),
        Role::Local => return Ok(()),
    };
    let held: bool = sqlx::query_scalar(sqlx::AssertSqlSafe(format!(
        "SELECT EXISTS (SELECT 1 FROM {table})"
    )))
    .fetch_one(&mut *c)
    .await?;
    let triggers = |on: bool| {
        let verb = if on { "ENABLE" } else { "DISABLE" };
        format!("ALTER TABLE {table} {verb} TRIGGER USER")
    };
    if held {
        sqlx::query(sqlx::AssertSqlSafe(triggers(false)))
            .execute(&mut *c)
            .await?;
    }
    sqlx::query(sqlx::AssertSqlSafe(sql))
        .execute(&mut *c)
        .await
        .map_err(|e| StoreError::Citus(format!("distributing {table}: {e}")))?;
    if held {
        sqlx::query(sqlx::AssertSqlSafe(triggers(true)))
            .execute(&mut *c)
            .await?;
    }
    Ok(())
}

/// Distributes every table of the current schema that is not yet, by its role. Runs after the
/// migrations on a database with Citus; does nothing when every table is placed.
pub async fn lay_out(pool: &PgPool) -> Result<()> {
    let tables = undistributed(pool).await?;
    let plan = order(&tables).map_err(|t| {
        StoreError::Citus(format!(
            "table {t} has no Citus role: name it in store::citus::ROLES"
        ))
    })?;
    if plan.is_empty() {
        return Ok(());
    }
    let mut c = pool.acquire().await?;
    // the row counts' triggers run on the shards, on the workers
    sqlx::query("SET citus.enable_unsafe_triggers = on")
        .execute(&mut *c)
        .await?;
    // a worker cannot send a notification inside Citus's two-phase commit: the change feed's
    // triggers go, and on Citus the response cache is off (`changes`)
    let notifying: Vec<(String, String)> = sqlx::query_as(
        "SELECT t.tgname::text, c.relname::text FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid \
         JOIN pg_proc p ON p.oid = t.tgfoid \
         WHERE c.relnamespace = current_schema()::regnamespace AND NOT t.tgisinternal \
           AND p.proname IN ('boxtrack_account_changed', 'boxtrack_account_row_changed')",
    )
    .fetch_all(&mut *c)
    .await?;
    for (trigger, table) in notifying {
        let sql = format!("DROP TRIGGER IF EXISTS {trigger} ON {table}");
        sqlx::query(sqlx::AssertSqlSafe(sql))
            .execute(&mut *c)
            .await?;
    }
    // a trigger's function runs on a worker, whose search path does not name this schema
    let functions: Vec<String> = sqlx::query_scalar(
        "SELECT p.oid::regprocedure::text FROM pg_proc p WHERE p.pronamespace = current_schema()::regnamespace \
           AND NOT EXISTS (SELECT 1 FROM pg_depend d WHERE d.objid = p.oid AND d.deptype = 'e')",
    )
    .fetch_all(&mut *c)
    .await?;
    for f in functions {
        let sql = format!(
            "DO $$ BEGIN EXECUTE format('ALTER FUNCTION %s SET search_path = %I', '{f}', current_schema()); END $$"
        );
        sqlx::query(sqlx::AssertSqlSafe(sql))
            .execute(&mut *c)
            .await?;
    }
    // a reference table may not reference a distributed one; the account's users are
    // deleted with the account by the statement that deletes it
    sqlx::query("ALTER TABLE users DROP CONSTRAINT IF EXISTS users_account_id_fkey")
        .execute(&mut *c)
        .await?;
    for (table, name, _) in TO_REFERENCE {
        let sql = format!("ALTER TABLE {table} DROP CONSTRAINT IF EXISTS {name}");
        sqlx::query(sqlx::AssertSqlSafe(sql))
            .execute(&mut *c)
            .await?;
    }
    for (table, role) in &plan {
        distribute(&mut c, table, *role).await?;
    }
    // distributing a table that holds rows copies them onto the shards and leaves the
    // coordinator's own copy on disk, unseen; a partition attached later checks the DEFAULT
    // partition's local rows, so they go (an install moved onto Citus, `docs/operations.md`)
    for (table, role) in &plan {
        if *role == Role::Local {
            continue;
        }
        let sql = format!("SELECT truncate_local_data_after_distributing_table('{table}')");
        sqlx::query(sqlx::AssertSqlSafe(sql))
            .execute(&mut *c)
            .await
            .map_err(|e| {
                StoreError::Citus(format!("dropping the coordinator's copy of {table}: {e}"))
            })?;
    }
    for (table, name, def) in TO_REFERENCE {
        let exists: bool = sqlx::query_scalar(
            "SELECT EXISTS (SELECT 1 FROM pg_constraint WHERE conname = $1 AND conrelid = to_regclass($2))",
        )
        .bind(name)
        .bind(table)
        .fetch_one(&mut *c)
        .await?;
        if !exists {
            let sql = format!("ALTER TABLE {table} ADD CONSTRAINT {name} {def}");
            sqlx::query(sqlx::AssertSqlSafe(sql))
                .execute(&mut *c)
                .await?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(name: &str, has: bool) -> (String, bool) {
        (name.to_string(), has)
    }

    #[test]
    fn accounts_first_then_what_foreign_keys_name_then_reference_tables() {
        let got = order(&[
            t("users", true),
            t("containers", true),
            t("webhooks", true),
            t("subjects", false),
            t("shipments", true),
            t("ais_track", false),
            t("accounts", false),
            t("ais_vessels", false),
        ])
        .unwrap();
        let names: Vec<&str> = got.iter().map(|(t, _)| t.as_str()).collect();
        assert_eq!(
            names,
            [
                "accounts",
                "shipments",
                "containers",
                "webhooks",
                "ais_vessels",
                "ais_track",
                "users"
            ]
        );
        assert_eq!(got[6].1, Role::Reference);
    }

    #[test]
    fn a_table_without_a_role_is_named() {
        assert_eq!(order(&[t("mystery", false)]), Err("mystery".to_string()));
        assert_eq!(role_of("tariffs", true), Some(Role::ByAccount));
        assert_eq!(role_of("subjects", false), Some(Role::Local));
    }
}
