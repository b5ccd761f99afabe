//! What a person enters on a container (a last free day, an appointment, a pickup, a
//! delivery, an empty return): checked against the journey, merged as observations of
//! `user_input`, and audited, once for REST, the console and MCP (`core::tracking::entries`).

use boxtrack_core::tracking::ContainerState;
use boxtrack_core::tracking::entries::{self, Entry};
use boxtrack_core::tracking::rules::{self, t};
use boxtrack_store::entries::{self as stored, Entered, NewEntry};

pub use boxtrack_store::entries::EntryRow;
use boxtrack_store::reads;
use uuid::Uuid;

use crate::AppError;
use crate::clock;
use crate::ctx::Ctx;

/// Who enters: the name an entry is recorded "entered by".
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Author {
    /// An API key of the account (its label and hint are shown).
    Key(Uuid),
    /// A signed-in user (their e-mail is shown).
    User(Uuid),
    /// No credential: MCP opened to the account by the operator.
    Open,
}

/// The name `who` is shown under, e.g. `API key "ops-bot" (btk_3fa9c1…)` or the user's
/// e-mail; `via` ("MCP") is added when the entry came through another door than REST.
pub async fn author(ctx: &Ctx, account_id: Uuid, who: Author, via: Option<&str>) -> String {
    let name = match who {
        Author::Key(id) => match crate::keys::get(ctx, account_id, id).await {
            Ok(Some(k)) => match k.name.as_deref().map(str::trim).filter(|n| !n.is_empty()) {
                Some(n) => format!("API key \"{n}\" ({})", k.hint),
                None => format!("API key {}", k.hint),
            },
            _ => format!("API key {id}"),
        },
        Author::User(id) => match crate::oauth::user(ctx, account_id, id).await {
            Ok(Some(u)) => u.email,
            _ => format!("user {id}"),
        },
        Author::Open => "the operator's open MCP account".to_string(),
    };
    match via {
        Some(v) => format!("{name} via {v}"),
        None => name,
    }
}

/// The value `entry` shows on the container now.
pub fn shown(c: &ContainerState, entry: Entry) -> Option<i64> {
    match entry {
        Entry::PickupLfd => rules::coalesced_lfd(&c.lfd, true),
        Entry::PickupAppointment => rules::appointment(c),
        Entry::PodFullOut => c.times.get(&t::POD_FULL_OUT).copied(),
        Entry::Delivered => c.times.get(&t::DELIVERED).copied(),
        Entry::EmptyTerminated => c.times.get(&t::EMPTY_TERMINATED).copied(),
    }
}

/// Enters (`Some`) or clears (`None`) each attribute asked on the account's container, as
/// `by` (the person's or the API key's name), at the clock of the box's data: all or none.
/// An entry that contradicts the journey is refused naming its attribute, and nothing changes.
pub async fn enter(
    ctx: &Ctx,
    account_id: Uuid,
    container_id: Uuid,
    by: &str,
    asked: &[(Entry, Option<i64>)],
) -> Result<(), AppError> {
    if asked.is_empty() {
        return Ok(());
    }
    let planned = plan(ctx, account_id, container_id, by, asked).await?;
    write(ctx, account_id, vec![planned]).await
}

/// What a person enters on one container, checked against its journey and not yet written
/// ([`plan`], then [`write`] with the others of the same request).
#[derive(Debug, Clone)]
pub struct Planned(Entered);

/// Checks what `by` asks on the account's container against its journey and prepares it: the
/// person's observations at the clock of the box's data and the audit records. An entry that
/// contradicts the journey is refused naming its attribute.
pub async fn plan(
    ctx: &Ctx,
    account_id: Uuid,
    container_id: Uuid,
    by: &str,
    asked: &[(Entry, Option<i64>)],
) -> Result<Planned, AppError> {
    // the whole state: which milestone reports are a person's is in the merge's records
    let c = reads::container_whole(&ctx.db, account_id, container_id)
        .await?
        .ok_or(AppError::NotFound("container"))?;
    let shipment = reads::shipment(&ctx.db, account_id, c.shipment_id)
        .await?
        .ok_or(AppError::NotFound("container"))?;
    let now = clock::now(ctx, account_id, c.shipment_id).await;
    let st = &c.state;
    let mut planned = Entered {
        container_id,
        ..Entered::default()
    };
    for (entry, at) in asked {
        if let Some(at) = at {
            entries::check(st, *entry, *at, now).map_err(|e| AppError::Unprocessable {
                field: e.attribute,
                code: "contradicts_journey",
                detail: format!("{} {}", e.attribute, e.reason),
            })?;
        }
        planned
            .batch
            .extend(entries::observations(st, &shipment.route, *entry, *at, now));
        planned.entries.push(NewEntry {
            attribute: entry.name(),
            before_us: shown(st, *entry),
            after_us: *at,
            by: by.to_string(),
        });
    }
    Ok(Planned(planned))
}

/// Writes what was planned on the account's containers in one transaction: all or none.
pub async fn write(ctx: &Ctx, account_id: Uuid, planned: Vec<Planned>) -> Result<(), AppError> {
    let entered: Vec<Entered> = planned.into_iter().map(|p| p.0).collect();
    stored::apply(&ctx.db, account_id, &entered).await?;
    Ok(())
}

/// What people entered on the account's container, newest first (at most 500).
pub async fn history(
    ctx: &Ctx,
    account_id: Uuid,
    container_id: Uuid,
) -> Result<Vec<EntryRow>, AppError> {
    reads::container(&ctx.db, account_id, container_id)
        .await?
        .ok_or(AppError::NotFound("container"))?;
    Ok(stored::of_container(&ctx.db, account_id, container_id).await?)
}
