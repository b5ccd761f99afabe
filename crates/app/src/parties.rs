//! An account's parties (its customers): `/v2/parties`, MCP's `list_parties` and the
//! customer a tracking request names read and change them here, by the same rules (a
//! company's name is 1 to 200 characters, once per account).

use boxtrack_core::paging::{Cursor, MAX_SIZE, Page};
use boxtrack_store::list::{Keyed, Listed};
use boxtrack_store::parties::{self as store, PartyRow};
use boxtrack_store::{Db, StoreError};
use uuid::Uuid;

use crate::ctx::Ctx;
use crate::error::AppError;

/// The longest company name, in characters.
pub const NAME_MAX: usize = 200;

/// A page of the account's parties, newest first.
pub async fn list(ctx: &Ctx, account_id: Uuid, page: &Page) -> Result<Listed<PartyRow>, AppError> {
    Ok(store::list(&ctx.db, account_id, page).await?)
}

/// The account's parties, newest first, at most `max` of them (reads page after page).
pub async fn all(ctx: &Ctx, account_id: Uuid, max: usize) -> Result<Vec<PartyRow>, AppError> {
    let mut all = Vec::new();
    let mut cursor = None;
    loop {
        let page = Page {
            number: 1,
            size: MAX_SIZE,
            cursor,
        };
        let listed = store::list(&ctx.db, account_id, &page).await?;
        let last = listed.rows.last().map(Keyed::key);
        all.extend(listed.rows);
        match last {
            Some(k) if listed.has_next && all.len() < max => cursor = Some(Cursor::After(k)),
            _ => break,
        }
    }
    all.truncate(max);
    Ok(all)
}

/// One of the account's parties.
pub async fn get(ctx: &Ctx, account_id: Uuid, id: Uuid) -> Result<Option<PartyRow>, AppError> {
    Ok(store::get(&ctx.db, account_id, id).await?)
}

/// The account's parties with these ids (read from `db`: a replica, or the primary), by id.
pub async fn get_many(
    db: &Db,
    account_id: Uuid,
    ids: &[Uuid],
) -> Result<std::collections::HashMap<Uuid, PartyRow>, AppError> {
    Ok(store::get_many(db, account_id, ids).await?)
}

/// A company's name as kept: trimmed, 1 to [`NAME_MAX`] characters as given.
fn company_name(given: &str) -> Result<String, AppError> {
    let name = given.trim();
    if name.is_empty() || given.chars().count() > NAME_MAX {
        return Err(AppError::unprocessable(
            "company_name",
            "invalid",
            "company_name must be 1 to 200 characters",
        ));
    }
    Ok(name.to_string())
}

fn duplicate(name: &str) -> AppError {
    AppError::unprocessable(
        "company_name",
        "duplicate",
        format!("The account already has a party named {name:?}"),
    )
}

/// Makes a party named `company_name` for the account.
pub async fn create(ctx: &Ctx, account_id: Uuid, company_name: &str) -> Result<PartyRow, AppError> {
    let name = self::company_name(company_name)?;
    match store::create(&ctx.db, account_id, &name).await {
        Err(StoreError::Duplicate(_)) => Err(duplicate(&name)),
        other => Ok(other?),
    }
}

/// Renames one of the account's parties (its shipments show the new name).
pub async fn rename(
    ctx: &Ctx,
    account_id: Uuid,
    id: Uuid,
    company_name: &str,
) -> Result<PartyRow, AppError> {
    let name = self::company_name(company_name)?;
    match store::rename(&ctx.db, account_id, id, &name).await {
        Err(StoreError::Duplicate(_)) => Err(duplicate(&name)),
        Err(StoreError::NotFound(_)) => Err(AppError::NotFound("Party")),
        other => Ok(other?),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_company_name_is_trimmed_and_bounded() {
        assert_eq!(company_name("  Acme  ").ok().as_deref(), Some("Acme"));
        assert!(company_name("   ").is_err());
        assert!(company_name(&"x".repeat(NAME_MAX)).is_ok());
        // the length as given counts, spaces included
        assert!(company_name(&format!(" {}", "x".repeat(NAME_MAX))).is_err());
    }
}
