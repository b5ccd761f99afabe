//! A container shown whole: the console's container page asks for everything a person reads
//! of one box at once — the container and its shipment, its transport events, a page of the
//! upstream records behind them, the documents linked to it or its shipment, the custom
//! fields of both, whose word decided each value, and the clock its data runs on.

use boxtrack_core::paging::{MAX_SIZE, Page};
use boxtrack_core::plan::Entitlement;
use boxtrack_core::tracking::provenance::{self, FieldSource};
use boxtrack_store::custom_fields::{self, FieldFilter, FieldRow};
use boxtrack_store::documents::{self, DocumentRow};
use boxtrack_store::list::Listed;
use boxtrack_store::reads::{self, ContainerRow, RawEventRow, ShipmentRow, TransportEventRow};
use boxtrack_store::{Db, accounts};
use uuid::Uuid;

use crate::charges::{self, container::ContainerCharges};
use crate::clock::{self, DataClock};
use crate::containers;
use crate::ctx::Ctx;
use crate::error::AppError;

/// Upstream records on a page of a container's detail.
pub const RAW_PAGE_SIZE: u32 = 20;

/// The transport events a detail shows at most.
const EVENTS_SHOWN: i64 = 500;

/// One of the account's containers with everything a page shows of it.
#[derive(Debug)]
pub struct ContainerDetail {
    /// The container (its whole row).
    pub container: ContainerRow,
    /// Its shipment (none only if it went away since the container was read).
    pub shipment: Option<ShipmentRow>,
    /// Its transport events, oldest first.
    pub events: Vec<TransportEventRow>,
    /// The page of upstream records asked for (newest first), with the rail ones only for an
    /// account with rail.
    pub raw: Listed<RawEventRow>,
    /// Documents linked to the container or its shipment.
    pub documents: Vec<DocumentRow>,
    /// Custom fields of the container, then of its shipment.
    pub fields: Vec<FieldRow>,
    /// Whose word decided each value (read with the merge's records).
    pub sources: Vec<FieldSource>,
    /// The clock of its data (a sandbox journey's, a fast source's, else the wall clock).
    pub clock: DataClock,
    /// The account has the routing entitlement (a map of the journey can be shown).
    pub routing: bool,
    /// The account has the rail entitlement (rail last free days are shown).
    pub rail: bool,
    /// What it owes by the tariffs the account reads, as of its data's clock (none without
    /// its shipment).
    pub charges: Option<ContainerCharges>,
    /// What people of the account entered on it, newest first.
    pub entries: Vec<crate::entries::EntryRow>,
}

/// The account's container `id` whole, with page `raw_page` (from 1) of its upstream records;
/// `None` when the account has no such container.
pub async fn detail(
    ctx: &Ctx,
    account_id: Uuid,
    id: Uuid,
    raw_page: u32,
) -> Result<Option<ContainerDetail>, AppError> {
    let db = &ctx.db;
    let Some(shown) = containers::show(db, account_id, id, false).await? else {
        return Ok(None);
    };
    let c = shown.container;
    let entitled = accounts::get(db, account_id)
        .await?
        .map(|a| a.entitlements)
        .unwrap_or_default();
    let rail = entitled.contains(&Entitlement::RailLfd);
    let raw_asked = Page {
        number: raw_page.max(1),
        size: RAW_PAGE_SIZE,
        cursor: None,
    };
    let raw = reads::raw_events(db, account_id, c.id, &raw_asked, rail).await?;
    let documents = linked_documents(db, account_id, &c).await?;
    let fields = fields_of(db, account_id, &c).await?;
    let events = reads::transport_events_of_many(db, account_id, &[c.id], EVENTS_SHOWN)
        .await?
        .remove(&c.id)
        .unwrap_or_default();
    let sources = reads::container_whole(db, account_id, c.id)
        .await?
        .map(|whole| provenance::field_sources(&whole.state, rail))
        .unwrap_or_default();
    let clock = match &shown.shipment {
        Some(s) => clock::clock(ctx, account_id, s.id).await,
        None => DataClock::wall(),
    };
    let charges = match &shown.shipment {
        Some(s) => Some(
            charges::container::priced(ctx, account_id, (&c, s), clock.at(ctx.now_us()), rail)
                .await?,
        ),
        None => None,
    };
    let entries = boxtrack_store::entries::of_container(db, account_id, c.id).await?;
    Ok(Some(ContainerDetail {
        entries,
        container: c,
        shipment: shown.shipment,
        events,
        raw,
        documents,
        fields,
        sources,
        clock,
        routing: entitled.contains(&Entitlement::Routing),
        rail,
        charges,
    }))
}

/// The documents linked to the container or to its shipment.
async fn linked_documents(
    db: &Db,
    account_id: Uuid,
    c: &ContainerRow,
) -> Result<Vec<DocumentRow>, AppError> {
    let linked = documents::Filter {
        linked_to: Some((c.id, c.shipment_id)),
        ..Default::default()
    };
    Ok(
        documents::list(db, account_id, &linked, &Page::first(MAX_SIZE))
            .await?
            .rows,
    )
}

/// The custom fields of the container, then of its shipment.
async fn fields_of(db: &Db, account_id: Uuid, c: &ContainerRow) -> Result<Vec<FieldRow>, AppError> {
    let mut fields = Vec::new();
    for (entity, entity_id) in [("Container", c.id), ("Shipment", c.shipment_id)] {
        let of = FieldFilter {
            entity_type: Some(entity.into()),
            entity_id: Some(entity_id),
            definition_id: None,
        };
        let listed = custom_fields::fields(db, account_id, &of, &Page::first(MAX_SIZE)).await?;
        fields.extend(listed.rows);
    }
    Ok(fields)
}
