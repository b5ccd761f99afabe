//! Accounts: plan, entitlements and rate-limit overrides.

use boxtrack_core::apikey::ApiKey;
use boxtrack_core::plan::{Entitlement, Plan};
use boxtrack_core::ratelimit::Limits;
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

/// Reads one account.
pub async fn get(db: &Db, id: Uuid) -> Result<Option<Account>> {
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
    let mut account = get(db, id).await?.ok_or(StoreError::NotFound("account"))?;
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
