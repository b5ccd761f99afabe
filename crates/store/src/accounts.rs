//! Accounts: plan, entitlements and rate-limit overrides.

use boxtrack_core::apikey::ApiKey;
use boxtrack_core::plan::{Entitlement, Plan};
use boxtrack_core::ratelimit::Limits;
use sqlx::AssertSqlSafe;
use sqlx::types::Json;
use uuid::Uuid;

use crate::keys::{self, ApiKeyRecord};
use crate::{Db, Result, StoreError, now_us, on_db, on_tx};

/// A customer account; every tracked object belongs to exactly one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Account {
    /// Account id.
    pub id: Uuid,
    /// Display name.
    pub name: String,
    /// Commercial plan.
    pub plan: Plan,
    /// Enabled features.
    pub entitlements: Vec<Entitlement>,
    /// Rate-limit overrides.
    pub rate_limits: Limits,
    /// An operator account may feed upstream data for every account.
    pub operator: bool,
    /// Creation time, Unix microseconds.
    pub created_us: i64,
    /// Last change, Unix microseconds.
    pub updated_us: i64,
}

impl Account {
    /// Whether a feature is enabled.
    pub fn has(&self, e: Entitlement) -> bool {
        self.entitlements.contains(&e)
    }
}

#[derive(sqlx::FromRow)]
pub(crate) struct AccountRow {
    pub(crate) id: Uuid,
    pub(crate) name: String,
    pub(crate) plan: String,
    pub(crate) entitlements: Json<Vec<Entitlement>>,
    pub(crate) rate_limits: Json<Limits>,
    pub(crate) operator: bool,
    pub(crate) created_us: i64,
    pub(crate) updated_us: i64,
}

impl TryFrom<AccountRow> for Account {
    type Error = StoreError;
    fn try_from(r: AccountRow) -> Result<Account> {
        Ok(Account {
            id: r.id,
            name: r.name,
            plan: r
                .plan
                .parse()
                .map_err(|e: boxtrack_core::plan::UnknownName| StoreError::Corrupt {
                    what: "accounts.plan",
                    detail: e.to_string(),
                })?,
            entitlements: r.entitlements.0,
            rate_limits: r.rate_limits.0,
            operator: r.operator,
            created_us: r.created_us,
            updated_us: r.updated_us,
        })
    }
}

/// What is needed to open an account.
#[derive(Debug, Clone)]
pub struct NewAccount {
    /// Display name (non-blank).
    pub name: String,
    /// Plan.
    pub plan: Plan,
    /// Enabled features.
    pub entitlements: Vec<Entitlement>,
    /// Rate-limit overrides.
    pub rate_limits: Limits,
}

/// Changes to an account; `None` leaves a field as it is.
#[derive(Debug, Clone, Default)]
pub struct AccountChanges {
    /// New name.
    pub name: Option<String>,
    /// New plan.
    pub plan: Option<Plan>,
    /// New entitlement set (replaces the old one).
    pub entitlements: Option<Vec<Entitlement>>,
    /// Overrides to add or change (merged into the old ones).
    pub rate_limits: Option<Limits>,
    /// Operator (may feed upstream data for every account) or not.
    pub operator: Option<bool>,
}

/// Opens an account and issues its first API key, in one transaction.
pub async fn create(db: &Db, new: NewAccount) -> Result<(Account, ApiKeyRecord, ApiKey)> {
    let now = now_us();
    let account = Account {
        id: Uuid::now_v7(),
        name: new.name,
        plan: new.plan,
        entitlements: new.entitlements,
        rate_limits: new.rate_limits,
        operator: false,
        created_us: now,
        updated_us: now,
    };
    let mut tx = db.begin().await?;
    on_tx!(&mut tx, c => sqlx::query(
        "INSERT INTO accounts (id, name, plan, entitlements, rate_limits, created_us, updated_us) \
         VALUES ($1, $2, $3, $4, $5, $6, $7)",
    )
    .bind(account.id)
    .bind(&account.name)
    .bind(account.plan.as_str())
    .bind(Json(&account.entitlements))
    .bind(Json(&account.rate_limits))
    .bind(now)
    .bind(now)
    .execute(c)
    .await
    .map(|_| ())?);
    let (record, key) = keys::create_in(&mut tx, account.id, Some("default")).await?;
    tx.commit().await?;
    Ok((account, record, key))
}

/// Reads one account that is not disabled (a disabled account is `None` to everything that
/// acts for it; [`get_any`] reads it for administration).
pub async fn get(db: &Db, id: Uuid) -> Result<Option<Account>> {
    const SQL: &str = "SELECT id, name, plan, entitlements, rate_limits, operator, created_us, updated_us FROM accounts WHERE id = $1 AND disabled_us IS NULL";
    let row: Option<AccountRow> =
        on_db!(db, p => sqlx::query_as(SQL).bind(id).fetch_optional(p).await?);
    row.map(Account::try_from).transpose()
}

/// Reads one account, disabled or not (administration).
pub async fn get_any(db: &Db, id: Uuid) -> Result<Option<Account>> {
    const SQL: &str = "SELECT id, name, plan, entitlements, rate_limits, operator, created_us, updated_us FROM accounts WHERE id = $1";
    let row: Option<AccountRow> =
        on_db!(db, p => sqlx::query_as(SQL).bind(id).fetch_optional(p).await?);
    row.map(Account::try_from).transpose()
}

/// Every account, oldest first (administration).
pub async fn list_all(db: &Db) -> Result<Vec<Account>> {
    const SQL: &str = "SELECT id, name, plan, entitlements, rate_limits, operator, created_us, updated_us FROM accounts ORDER BY created_us, id";
    let rows: Vec<AccountRow> = on_db!(db, p => sqlx::query_as(SQL).fetch_all(p).await?);
    rows.into_iter().map(Account::try_from).collect()
}

/// Applies changes to an account and returns it as it now is.
pub async fn update(db: &Db, id: Uuid, changes: AccountChanges) -> Result<Account> {
    let mut account = get_any(db, id)
        .await?
        .ok_or(StoreError::NotFound("account"))?;
    if let Some(n) = changes.name {
        account.name = n;
    }
    if let Some(p) = changes.plan {
        account.plan = p;
    }
    if let Some(e) = changes.entitlements {
        account.entitlements = e;
    }
    if let Some(l) = changes.rate_limits {
        account.rate_limits.0.extend(l.0);
    }
    if let Some(o) = changes.operator {
        account.operator = o;
    }
    account.updated_us = now_us();
    on_db!(db, p => sqlx::query(
        "UPDATE accounts SET name = $2, plan = $3, entitlements = $4, rate_limits = $5, updated_us = $6, operator = $7 WHERE id = $1",
    )
    .bind(id)
    .bind(&account.name)
    .bind(account.plan.as_str())
    .bind(Json(&account.entitlements))
    .bind(Json(&account.rate_limits))
    .bind(account.updated_us)
    .bind(account.operator)
    .execute(p)
    .await
    .map(|_| ())?);
    Ok(account)
}

/// When each disabled account was disabled (Unix microseconds), by id.
pub async fn disabled(db: &Db) -> Result<std::collections::HashMap<Uuid, i64>> {
    const SQL: &str = "SELECT id, disabled_us FROM accounts WHERE disabled_us IS NOT NULL";
    let rows: Vec<(Uuid, i64)> = on_db!(db, p => sqlx::query_as(SQL).fetch_all(p).await?);
    Ok(rows.into_iter().collect())
}

/// Disables an account (every credential of it is refused from the next request on, in every
/// process within the key cache's second) or enables it again. Its data stays either way.
pub async fn set_disabled(db: &Db, id: Uuid, disabled: bool) -> Result<()> {
    let at = disabled.then(now_us);
    let n = on_db!(db, p => sqlx::query(
        "UPDATE accounts SET disabled_us = CASE WHEN $2 THEN COALESCE(disabled_us, $3) ELSE NULL END, updated_us = $3 WHERE id = $1",
    )
    .bind(id)
    .bind(disabled)
    .bind(at.unwrap_or_else(now_us))
    .execute(p)
    .await?
    .rows_affected());
    if n == 0 {
        return Err(StoreError::NotFound("account"));
    }
    Ok(())
}

/// Rows an account deletion removed, by table.
pub type Deleted = Vec<(String, u64)>;

/// Tables that hold no `account_id` column yet rows of one account, and how to find them:
/// (table, the column naming the owning row, the owning table).
const OWNED_THROUGH: [(&str, &str, &str); 4] = [
    (
        "webhook_attempts",
        "notification_id",
        "webhook_notifications",
    ),
    ("webhook_bodies", "notification_id", "webhook_notifications"),
    (
        "custom_field_options",
        "definition_id",
        "custom_field_definitions",
    ),
    ("document_downloads", "document_id", "documents"),
];

/// Tables with an `account_id` whose row outlives the account: its change feed entry
/// (`account_changes`: an id and a sequence number, no data), which the deletion itself
/// raises so that every process's read cache forgets what it rendered for the account.
const KEPT: [&str; 1] = ["account_changes"];

/// Tables shared by every account (nothing of one account to delete in them).
pub const SHARED_TABLES: [&str; 9] = [
    "accounts",
    "ais_track",
    "ais_vessels",
    "oauth_clients",
    "public_calendars",
    "public_tariffs",
    "shown_passes",
    "subjects",
    "worker_passes",
];

/// The tables with an `account_id` column, as the database's catalog lists them (so a table
/// added later is covered without a change here).
async fn account_tables(db: &Db) -> Result<Vec<String>> {
    Ok(match db {
        Db::Sqlite(p, _) => sqlx::query_scalar(
            "SELECT m.name FROM sqlite_master m, pragma_table_info(m.name) c \
             WHERE m.type = 'table' AND c.name = 'account_id' ORDER BY m.name",
        )
        .fetch_all(p)
        .await?,
        Db::Postgres(p) => sqlx::query_scalar(sqlx::AssertSqlSafe(format!(
            "SELECT table_name::text FROM information_schema.columns \
             WHERE column_name = 'account_id' AND table_schema = current_schema() AND {} ORDER BY table_name",
            crate::db::pg_not_a_partition("table_schema", "table_name")
        )))
        .fetch_all(p)
        .await?,
    })
}

/// Every table of the database and whether it has an `account_id` column (for the test that
/// keeps [`delete`] complete).
pub async fn tables(db: &Db) -> Result<Vec<(String, bool)>> {
    let with = account_tables(db).await?;
    let all: Vec<String> = match db {
        Db::Sqlite(p, _) => sqlx::query_scalar(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE '_sqlx%' ORDER BY name",
        )
        .fetch_all(p)
        .await?,
        Db::Postgres(p) => sqlx::query_scalar(sqlx::AssertSqlSafe(format!(
            "SELECT table_name::text FROM information_schema.tables WHERE table_schema = current_schema() \
             AND table_type = 'BASE TABLE' AND table_name NOT LIKE '_sqlx%' AND {} ORDER BY table_name",
            crate::db::pg_not_a_partition("table_schema", "table_name")
        )))
        .fetch_all(p)
        .await?,
    };
    Ok(all
        .into_iter()
        .map(|t| {
            let has = with.contains(&t);
            (t, has)
        })
        .collect())
}

/// Whether a table is covered by [`delete`]: it has `account_id`, hangs off a table that
/// has, or is shared by every account.
pub fn deletion_covers(table: &str, has_account_id: bool) -> bool {
    has_account_id
        || SHARED_TABLES.contains(&table)
        || OWNED_THROUGH.iter().any(|(t, _, _)| *t == table)
}

/// How many rows of each table belong to an account (tables with none left out).
pub async fn rows_of(db: &Db, id: Uuid) -> Result<Deleted> {
    let mut out: Deleted = Vec::new();
    for table in account_tables(db).await? {
        if KEPT.contains(&table.as_str()) {
            continue;
        }
        // the table names come from the database's own catalog, never from input
        let sql = format!("SELECT COUNT(*) FROM {table} WHERE account_id = $1");
        let n: i64 = on_db!(db, p => sqlx::query_scalar(AssertSqlSafe(sql.clone())).bind(id).fetch_one(p).await?);
        out.push((table, u64::try_from(n).unwrap_or(0)));
    }
    for (table, column, owner) in OWNED_THROUGH {
        let sql = format!(
            "SELECT COUNT(*) FROM {table} WHERE {column} IN (SELECT id FROM {owner} WHERE account_id = $1)"
        );
        let n: i64 = on_db!(db, p => sqlx::query_scalar(AssertSqlSafe(sql.clone())).bind(id).fetch_one(p).await?);
        out.push((table.to_string(), u64::try_from(n).unwrap_or(0)));
    }
    out.retain(|(_, n)| *n > 0);
    out.sort();
    Ok(out)
}

/// Deletes an account and everything of it, in one transaction: the rows that hang off its
/// rows first, then every table with its `account_id` (in an order its foreign keys accept,
/// found by trying: a delete a foreign key refuses is rolled back to a savepoint and tried
/// again after the others), then the account. Returns the rows removed per table.
pub async fn delete(db: &Db, id: Uuid) -> Result<Deleted> {
    if get_any(db, id).await?.is_none() {
        return Err(StoreError::NotFound("account"));
    }
    let tables: Vec<String> = account_tables(db)
        .await?
        .into_iter()
        .filter(|t| !KEPT.contains(&t.as_str()))
        .collect();
    let mut tx = db.begin().await?;
    if let Db::Postgres(pool) = db
        && crate::citus::on_citus(pool)
    {
        // the account's users are a reference table's rows, written in the same transaction
        // as the distributed tables: one connection a worker, as Citus asks
        on_tx!(&mut tx, c => sqlx::query("SET LOCAL citus.multi_shard_modify_mode TO 'sequential'").execute(c).await.map(|_| ())?);
    }
    let mut out: Deleted = Vec::new();
    for (table, column, owner) in OWNED_THROUGH {
        // naming the account keeps each statement on the account's shard on Citus, where a
        // multi-shard delete would keep the transaction from deleting the account's users
        let sql = format!(
            "DELETE FROM {table} WHERE account_id = $1 AND {column} IN (SELECT id FROM {owner} WHERE account_id = $1)"
        );
        // table and column names are the constants above, never input
        let n = on_tx!(&mut tx, c => sqlx::query(AssertSqlSafe(sql.clone())).bind(id).execute(c).await?.rows_affected());
        out.push((table.to_string(), n));
    }
    let mut left = tables;
    while !left.is_empty() {
        let mut refused = Vec::new();
        for table in &left {
            on_tx!(&mut tx, c => sqlx::query("SAVEPOINT account_delete").execute(c).await.map(|_| ())?);
            let sql = format!("DELETE FROM {table} WHERE account_id = $1");
            // the table names come from the database's own catalog, never from input
            let done = on_tx!(&mut tx, c => sqlx::query(AssertSqlSafe(sql.clone())).bind(id).execute(c).await.map(|r| r.rows_affected()));
            match done {
                Ok(r) => {
                    on_tx!(&mut tx, c => sqlx::query("RELEASE SAVEPOINT account_delete").execute(c).await.map(|_| ())?);
                    out.push((table.clone(), r));
                }
                Err(e) if is_foreign_key(&e) => {
                    on_tx!(&mut tx, c => sqlx::query("ROLLBACK TO SAVEPOINT account_delete").execute(c).await.map(|_| ())?);
                    on_tx!(&mut tx, c => sqlx::query("RELEASE SAVEPOINT account_delete").execute(c).await.map(|_| ())?);
                    refused.push(table.clone());
                }
                Err(e) => return Err(e.into()),
            }
        }
        if refused.len() == left.len() {
            return Err(StoreError::Delete(format!(
                "the foreign keys of {} keep refusing the account's deletion",
                refused.join(", ")
            )));
        }
        left = refused;
    }
    on_tx!(&mut tx, c => sqlx::query("DELETE FROM accounts WHERE id = $1").bind(id).execute(c).await.map(|_| ())?);
    tx.commit().await?;
    let mut merged: std::collections::BTreeMap<String, u64> = std::collections::BTreeMap::new();
    for (t, n) in out {
        *merged.entry(t).or_default() += n;
    }
    Ok(merged.into_iter().filter(|(_, n)| *n > 0).collect())
}

fn is_foreign_key(e: &sqlx::Error) -> bool {
    e.as_database_error()
        .is_some_and(|d| d.kind() == sqlx::error::ErrorKind::ForeignKeyViolation)
}
