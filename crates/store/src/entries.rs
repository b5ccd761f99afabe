//! What a person entered on a container, audited: the entry merged as an observation of
//! `user_input` and its record (who, when, before, after) written in one transaction
//! (`core::tracking::entries`).

use boxtrack_core::tracking::{Change, Observation};
use uuid::Uuid;

use crate::{Db, Result, now_us, on_db, on_tx};

/// One attribute a person set or cleared.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewEntry {
    /// The container attribute (`pod_full_out_at`).
    pub attribute: &'static str,
    /// Its value before (none: it had none).
    pub before_us: Option<i64>,
    /// Its value entered (none: cleared).
    pub after_us: Option<i64>,
    /// Who: the person's or the API key's name.
    pub by: String,
}

/// A recorded entry.
#[derive(Debug, Clone, PartialEq, Eq, sqlx::FromRow)]
pub struct EntryRow {
    /// Its id.
    pub id: Uuid,
    /// The container.
    pub container_id: Uuid,
    /// The attribute.
    pub attribute: String,
    /// The value before.
    pub before_us: Option<i64>,
    /// The value entered (none: cleared).
    pub after_us: Option<i64>,
    /// Who.
    pub entered_by: String,
    /// When.
    pub entered_us: i64,
}

/// What a person entered on one container: the observations to merge and the entries to
/// record.
#[derive(Debug, Clone, Default)]
pub struct Entered {
    /// The container.
    pub container_id: Uuid,
    /// The person's observations.
    pub batch: Vec<Observation>,
    /// Each attribute set or cleared.
    pub entries: Vec<NewEntry>,
}

/// Merges a person's observations into the account's containers and records each entry, all
/// in one transaction (all or none); the changes each merge made, in order.
pub async fn apply(db: &Db, account_id: Uuid, entered: &[Entered]) -> Result<Vec<Vec<Change>>> {
    let now = now_us();
    let mut tx = db.begin().await?;
    let mut all = Vec::with_capacity(entered.len());
    for one in entered {
        let container_id = one.container_id;
        all.push(
            crate::tracking::apply_in(&mut tx, account_id, container_id, &one.batch, now).await?,
        );
        for e in &one.entries {
            on_tx!(&mut tx, x => sqlx::query(
                "INSERT INTO container_entries (id, account_id, container_id, attribute, before_us, after_us, entered_by, entered_us) \
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8)",
            )
            .bind(Uuid::now_v7())
            .bind(account_id)
            .bind(container_id)
            .bind(e.attribute)
            .bind(e.before_us)
            .bind(e.after_us)
            .bind(&e.by)
            .bind(now)
            .execute(x)
            .await?
            .rows_affected());
        }
    }
    tx.commit().await?;
    Ok(all)
}

/// The entries made on the account's container, newest first.
pub async fn of_container(db: &Db, account_id: Uuid, container_id: Uuid) -> Result<Vec<EntryRow>> {
    Ok(on_db!(db, p => sqlx::query_as(
        "SELECT id, container_id, attribute, before_us, after_us, entered_by, entered_us FROM container_entries \
         WHERE account_id = $1 AND container_id = $2 ORDER BY entered_us DESC, id DESC LIMIT 500",
    )
    .bind(account_id)
    .bind(container_id)
    .fetch_all(p)
    .await?))
}
