//! Parties: an account's customers (`company_name`), named on tracking requests.

use boxtrack_core::paging::{Key, Page};
use uuid::Uuid;

use crate::list::{Arg, Cond, Keyed, ListSpec, Listed};
use crate::{Db, Result, StoreError, now_us, on_db};

/// A stored party.
#[derive(Debug, Clone, PartialEq, Eq, sqlx::FromRow)]
pub struct PartyRow {
    /// Id.
    pub id: Uuid,
    /// Owner.
    pub account_id: Uuid,
    /// Company name, unique in the account (case-insensitive).
    pub company_name: String,
    /// Created.
    pub created_us: i64,
    /// Last change.
    pub updated_us: i64,
}

impl Keyed for PartyRow {
    fn key(&self) -> Key {
        Key {
            sort_us: self.created_us,
            id: *self.id.as_bytes(),
        }
    }
}

/// Creates a party; [`StoreError::Duplicate`] when the account has one of that name.
pub async fn create(db: &Db, account_id: Uuid, company_name: &str) -> Result<PartyRow> {
    let now = now_us();
    let row = PartyRow {
        id: Uuid::now_v7(),
        account_id,
        company_name: company_name.to_string(),
        created_us: now,
        updated_us: now,
    };
    let done = on_db!(db, p => sqlx::query("INSERT INTO parties (id, account_id, company_name, created_us, updated_us) VALUES ($1, $2, $3, $4, $4)")
        .bind(row.id).bind(account_id).bind(company_name).bind(now).execute(p).await.map(|_| ()));
    match done {
        Err(e) if crate::unique_violation(&e) => Err(StoreError::Duplicate("party")),
        other => Ok(other.map(|()| row)?),
    }
}

/// One party of the account.
pub async fn get(db: &Db, account_id: Uuid, id: Uuid) -> Result<Option<PartyRow>> {
    const SQL: &str = "SELECT id, account_id, company_name, created_us, updated_us FROM parties WHERE id = $1 AND account_id = $2";
    Ok(on_db!(db, p => sqlx::query_as(SQL).bind(id).bind(account_id).fetch_optional(p).await?))
}

/// Parties of an account by id, in one query (a page's customers).
pub async fn get_many(
    db: &Db,
    account_id: Uuid,
    ids: &[Uuid],
) -> Result<std::collections::HashMap<Uuid, PartyRow>> {
    let rows: Vec<PartyRow> = crate::reads::rows_in(
        db,
        account_id,
        ids,
        "SELECT id, account_id, company_name, created_us, updated_us FROM parties WHERE account_id = {account} AND id",
        "",
    )
    .await?;
    Ok(rows.into_iter().map(|r| (r.id, r)).collect())
}

/// Renames a party; [`StoreError::NotFound`] or [`StoreError::Duplicate`].
pub async fn rename(db: &Db, account_id: Uuid, id: Uuid, company_name: &str) -> Result<PartyRow> {
    let done = on_db!(db, p => sqlx::query("UPDATE parties SET company_name = $3, updated_us = $4 WHERE id = $1 AND account_id = $2")
        .bind(id).bind(account_id).bind(company_name).bind(now_us()).execute(p).await.map(|r| r.rows_affected()));
    match done {
        Err(e) if crate::unique_violation(&e) => return Err(StoreError::Duplicate("party")),
        Ok(0) => return Err(StoreError::NotFound("party")),
        other => {
            other?;
        }
    }
    get(db, account_id, id)
        .await?
        .ok_or(StoreError::NotFound("party"))
}

/// A page of the account's parties, newest first.
pub async fn list(db: &Db, account_id: Uuid, page: &Page) -> Result<Listed<PartyRow>> {
    let spec = ListSpec {
        from: "parties",
        columns: "id, account_id, company_name, created_us, updated_us",
        sort_col: "created_us",
        ascending: false,
        id_col: "id",
        conds: vec![Cond::new("account_id = ?", vec![Arg::Uuid(account_id)])],
    };
    crate::list::list(db, &spec, page).await
}
