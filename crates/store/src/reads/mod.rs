//! Reading shipments, containers and transport events for the API.

use boxtrack_core::paging::{Key, Page};
use boxtrack_core::tracking::{ContainerState, Route, ShipmentState};
use sqlx::types::Json;
use uuid::Uuid;

use crate::list::{Arg, Cond, Keyed, ListSpec, Listed};
use crate::sqlite_reader::{self, in_place};
use crate::{Db, Result, on_db};

mod events;
mod filter;
mod lists;
mod rendered;

pub use events::*;
pub use filter::*;
pub use lists::*;
pub use rendered::*;

/// A stored shipment.
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct ShipmentRow {
    /// Id.
    pub id: Uuid,
    /// Owner.
    pub account_id: Uuid,
    /// The request that created it.
    pub tracking_request_id: Option<Uuid>,
    /// Bill of lading (or booking) number.
    pub bill_of_lading_number: String,
    /// Carrier.
    pub scac: String,
    /// Client references.
    #[sqlx(json)]
    pub ref_numbers: Vec<String>,
    /// Tags.
    #[sqlx(json)]
    pub tags: Vec<String>,
    /// Ports.
    #[sqlx(json)]
    pub route: Route,
    /// Merged carrier view, as its resource shows it: without the voyage's milestone and
    /// estimate records ([`boxtrack_core::tracking::VoyageRecords`], empty here), which only
    /// the merge reads.
    #[sqlx(json)]
    pub state: ShipmentState,
    /// When tracking stopped.
    pub tracking_stopped_us: Option<i64>,
    /// Why.
    pub stopped_reason: Option<String>,
    /// Created.
    pub created_us: i64,
    /// Last change.
    pub updated_us: i64,
    /// The customer named on its tracking request (a party's `company_name`).
    pub customer_name: Option<String>,
    /// That party.
    pub customer_id: Option<Uuid>,
}

impl Keyed for ShipmentRow {
    fn key(&self) -> Key {
        Key {
            sort_us: self.updated_us,
            id: *self.id.as_bytes(),
        }
    }
}

/// A stored container.
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct ContainerRow {
    /// Id.
    pub id: Uuid,
    /// Owner.
    pub account_id: Uuid,
    /// Its shipment.
    pub shipment_id: Uuid,
    /// ISO 6346 number.
    pub number: String,
    /// Client references.
    #[sqlx(json)]
    pub ref_numbers: Vec<String>,
    /// Merged state, as its resource shows it: without the merge's records
    /// ([`boxtrack_core::tracking::MergeRecords`], empty here), which [`container_whole`] reads
    /// too.
    #[sqlx(json)]
    pub state: ContainerState,
    /// Derived status.
    pub current_status: String,
    /// Derived readiness.
    pub ready_for_pickup: bool,
    /// Coalesced LFD.
    pub pickup_lfd_us: Option<i64>,
    /// Still tracked.
    pub active: bool,
    /// Created.
    pub created_us: i64,
    /// Last change.
    pub updated_us: i64,
}

impl Keyed for ContainerRow {
    fn key(&self) -> Key {
        Key {
            sort_us: self.updated_us,
            id: *self.id.as_bytes(),
        }
    }
}

/// A stored transport event.
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct TransportEventRow {
    /// Id.
    pub id: Uuid,
    /// Container.
    pub container_id: Uuid,
    /// Shipment.
    pub shipment_id: Uuid,
    /// Event name.
    pub event: String,
    /// When it happened (or the estimate / new value).
    pub at_us: Option<i64>,
    /// UN/LOCODE.
    pub locode: Option<String>,
    /// IANA zone.
    pub timezone: Option<String>,
    /// Terminal code.
    pub terminal: Option<String>,
    /// Vessel name.
    pub vessel_name: Option<String>,
    /// Vessel IMO.
    pub vessel_imo: Option<String>,
    /// Voyage.
    pub voyage: Option<String>,
    /// Who reported it.
    pub data_source: String,
    /// Recorded at.
    pub created_us: i64,
    /// The value the list was ordered by (see [`EventOrder`]); 0 outside lists.
    #[sqlx(default)]
    pub sort_us: i64,
}

impl Keyed for TransportEventRow {
    fn key(&self) -> Key {
        Key {
            sort_us: self.sort_us,
            id: *self.id.as_bytes(),
        }
    }
}

/// How a container's transport events are listed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum EventOrder {
    /// In the order they happened (their timestamp; an event without one at the time it was
    /// recorded), oldest first: the default.
    #[default]
    Timestamp,
    /// Timestamp, newest first.
    TimestampDesc,
    /// In the order they were recorded, oldest first.
    CreatedAt,
    /// Recorded, newest first.
    CreatedAtDesc,
}

impl EventOrder {
    /// Reads a JSON:API `sort` value: `timestamp`, `-timestamp`, `created_at`, `-created_at`.
    pub fn parse(s: &str) -> Option<EventOrder> {
        Some(match s.trim() {
            "timestamp" => EventOrder::Timestamp,
            "-timestamp" => EventOrder::TimestampDesc,
            "created_at" => EventOrder::CreatedAt,
            "-created_at" => EventOrder::CreatedAtDesc,
            _ => return None,
        })
    }
}

/// A shipment's columns with its customer. The subqueries name the account as `{account}`,
/// which each statement replaces with its account parameter: on Citus a correlated subquery
/// stays on the account's shard only when it names the account itself.
pub(crate) const SHIPMENT_COLUMNS: &str = "id, account_id, tracking_request_id, bill_of_lading_number, scac, ref_numbers, tags, route, state, tracking_stopped_us, stopped_reason, created_us, updated_us, (SELECT p.company_name FROM tracking_requests t JOIN parties p ON p.account_id = t.account_id AND p.id = t.customer_id WHERE t.account_id = {account} AND t.id = shipments.tracking_request_id) AS customer_name, (SELECT t.customer_id FROM tracking_requests t WHERE t.account_id = {account} AND t.id = shipments.tracking_request_id) AS customer_id";
pub(crate) const CONTAINER_COLUMNS: &str = "id, account_id, shipment_id, number, ref_numbers, state, current_status, ready_for_pickup, pickup_lfd_us, active, created_us, updated_us";

/// One shipment of an account.
pub async fn shipment(db: &Db, account_id: Uuid, id: Uuid) -> Result<Option<ShipmentRow>> {
    if let Some(read) = in_place(db, |c| sqlite_reader::shipment(c, account_id, id)) {
        return read;
    }
    static SQL: std::sync::LazyLock<String> = std::sync::LazyLock::new(|| {
        format!(
            "SELECT {} FROM shipments WHERE id = $1 AND account_id = $2",
            SHIPMENT_COLUMNS.replace("{account}", "$2")
        )
    });
    Ok(
        on_db!(db, p => sqlx::query_as(sqlx::AssertSqlSafe(SQL.as_str())).bind(id).bind(account_id).fetch_optional(p).await?),
    )
}

/// One container of an account.
pub async fn container(db: &Db, account_id: Uuid, id: Uuid) -> Result<Option<ContainerRow>> {
    if let Some(read) = in_place(db, |c| sqlite_reader::container(c, account_id, id)) {
        return read;
    }
    const SQL: &str = "SELECT id, account_id, shipment_id, number, ref_numbers, state, current_status, ready_for_pickup, pickup_lfd_us, active, created_us, updated_us FROM containers WHERE id = $1 AND account_id = $2";
    Ok(on_db!(db, p => sqlx::query_as(SQL).bind(id).bind(account_id).fetch_optional(p).await?))
}

/// One container of an account with its whole state: the merge's records put back, for what
/// shows where each value came from (`field_sources`, the console's page of a container).
pub async fn container_whole(db: &Db, account_id: Uuid, id: Uuid) -> Result<Option<ContainerRow>> {
    #[derive(sqlx::FromRow)]
    struct Whole {
        #[sqlx(flatten)]
        row: ContainerRow,
        records: Json<boxtrack_core::tracking::MergeRecords>,
    }
    const SQL: &str = "SELECT id, account_id, shipment_id, number, ref_numbers, state, records, current_status, ready_for_pickup, pickup_lfd_us, active, created_us, updated_us FROM containers WHERE id = $1 AND account_id = $2";
    let found: Option<Whole> =
        on_db!(db, p => sqlx::query_as(SQL).bind(id).bind(account_id).fetch_optional(p).await?);
    Ok(found.map(|Whole { mut row, records }| {
        row.state.put_records(records.0);
        row
    }))
}

/// One container of an account with its shipment, read together.
#[derive(Debug)]
pub struct ContainerAndShipment<C: ContainerRead = ContainerRow> {
    /// The container.
    pub container: C,
    /// Its shipment (`None` only if it went away since).
    pub shipment: Option<C::Shipment>,
    /// What the shipment's resource shows of its containers (oldest first), where asked.
    pub siblings: Option<Vec<ContainerRef>>,
}

/// One container of an account with its shipment and, with `siblings`, what the shipment's
/// resource shows of its containers: one statement on PostgreSQL, one read transaction on a
/// connection in place on SQLite. The container is read as `C`: its whole row
/// ([`ContainerRow`]) or as rendered ([`RenderedContainer`]).
pub async fn container_and_shipment<C: ContainerRead>(
    db: &Db,
    account_id: Uuid,
    id: Uuid,
    siblings: bool,
) -> Result<Option<ContainerAndShipment<C>>> {
    match db {
        Db::Sqlite(..) => {
            // all in one read transaction: one snapshot, and one lock taken instead of three
            let read = in_place(db, |c| {
                sqlite_reader::snapshot(c, || {
                    let Some(container) = C::sqlite(c, account_id, id)? else {
                        return Ok(None);
                    };
                    let of = container.shipment_of();
                    let shipment = C::Shipment::sqlite(c, account_id, of)?;
                    let siblings = match siblings {
                        true => Some(sqlite_reader::container_refs(c, account_id, &[of])?),
                        false => None,
                    };
                    Ok(Some(ContainerAndShipment {
                        container,
                        shipment,
                        siblings,
                    }))
                })
            });
            if let Some(read) = read {
                return read;
            }
            // SQLite was busy: each read again, through the pool while it stays busy
            let Some(container) = container(db, account_id, id).await? else {
                return Ok(None);
            };
            let of = container.shipment_id;
            let shipment = shipment(db, account_id, of).await?.map(C::Shipment::whole);
            let siblings = match siblings {
                true => Some(
                    container_refs_of_many(db, account_id, &[of])
                        .await?
                        .remove(&of)
                        .unwrap_or_default(),
                ),
                false => None,
            };
            Ok(Some(ContainerAndShipment {
                container: C::whole(container),
                shipment,
                siblings,
            }))
        }
        Db::Postgres(p) => {
            if C::RENDERED_ON_POSTGRES {
                // the rendered texts and the columns beside them; the whole rows only where
                // a text is not current (another build's, or none yet)
                let row = sqlx::query(PG_RENDERED)
                    .bind(id)
                    .bind(account_id)
                    .bind(siblings)
                    .fetch_optional(p)
                    .await?;
                let Some(row) = row else {
                    return Ok(None);
                };
                if let Some((container, shipment)) = C::rendered_postgres(&row)? {
                    let siblings = joined_siblings(&row, container.shipment_of())?;
                    return Ok(Some(ContainerAndShipment {
                        container,
                        shipment,
                        siblings,
                    }));
                }
            }
            let Some(row) = sqlx::query(PG_WHOLE)
                .bind(id)
                .bind(account_id)
                .bind(siblings)
                .fetch_optional(p)
                .await?
            else {
                return Ok(None);
            };
            let container = <C as sqlx::FromRow<_>>::from_row(&row)?;
            let shipment = C::Shipment::postgres(&row)?;
            let siblings = joined_siblings(&row, container.shipment_of())?;
            Ok(Some(ContainerAndShipment {
                container,
                shipment,
                siblings,
            }))
        }
    }
}

/// What [`container_and_shipment`]'s statements on PostgreSQL read beside their columns: the
/// container's shipment, that shipment's customer, and, when `$3`, the shipment's containers
/// as two arrays in the same order (ids and POD terminals, oldest first), aggregated in one
/// pass over the covering index on `shipment_id` (migration 46). `$1` is the container, `$2`
/// its account.
macro_rules! pg_joined_from {
    () => {
        " FROM containers c \
        LEFT JOIN container_views cv ON cv.container_id = c.id AND cv.account_id = c.account_id \
        LEFT JOIN shipments s ON s.id = c.shipment_id AND s.account_id = c.account_id \
        LEFT JOIN shipment_views sv ON sv.shipment_id = s.id AND sv.account_id = s.account_id \
        LEFT JOIN tracking_requests t ON t.account_id = s.account_id AND t.id = s.tracking_request_id \
        LEFT JOIN parties p ON p.account_id = t.account_id AND p.id = t.customer_id \
        LEFT JOIN LATERAL (SELECT array_agg(r.id ORDER BY r.created_us, r.id) AS ids, array_agg(r.pod_terminal ORDER BY r.created_us, r.id) AS terminals \
            FROM containers r WHERE r.shipment_id = c.shipment_id AND r.account_id = $2) sib ON $3 \
        WHERE c.id = $1 AND c.account_id = $2"
    };
}

/// The columns of a container and its shipment as rendered ([`RenderedContainer`], with its
/// shipment's view), and their texts: neither state nor route, which PostgreSQL would
/// otherwise turn from `jsonb` into text on every read.
const PG_RENDERED: &str = concat!(
    "SELECT c.id, c.account_id, c.shipment_id, c.number, c.ref_numbers, c.created_us, c.updated_us, c.pod_terminal, cv.view AS rendered, \
    s.id AS s_id, s.account_id AS s_account_id, s.tracking_request_id AS s_tracking_request_id, s.bill_of_lading_number AS s_bill_of_lading_number, s.scac AS s_scac, s.ref_numbers AS s_ref_numbers, s.tags AS s_tags, s.tracking_stopped_us AS s_tracking_stopped_us, s.stopped_reason AS s_stopped_reason, s.created_us AS s_created_us, s.updated_us AS s_updated_us, sv.view AS s_view, \
    p.company_name AS s_customer_name, t.customer_id AS s_customer_id, sib.ids AS sibling_ids, sib.terminals AS sibling_terminals",
    pg_joined_from!()
);

/// The whole rows of a container and its shipment, with their texts.
const PG_WHOLE: &str = concat!(
    "SELECT c.id, c.account_id, c.shipment_id, c.number, c.ref_numbers, c.state, c.current_status, c.ready_for_pickup, c.pickup_lfd_us, c.active, c.created_us, c.updated_us, cv.view AS rendered, c.pod_terminal, \
    s.id AS s_id, s.account_id AS s_account_id, s.tracking_request_id AS s_tracking_request_id, s.bill_of_lading_number AS s_bill_of_lading_number, s.scac AS s_scac, s.ref_numbers AS s_ref_numbers, s.tags AS s_tags, s.route AS s_route, s.state AS s_state, s.tracking_stopped_us AS s_tracking_stopped_us, s.stopped_reason AS s_stopped_reason, s.created_us AS s_created_us, s.updated_us AS s_updated_us, sv.view AS s_view, \
    p.company_name AS s_customer_name, t.customer_id AS s_customer_id, sib.ids AS sibling_ids, sib.terminals AS sibling_terminals",
    pg_joined_from!()
);

/// The siblings of [`container_and_shipment`]'s row (`sibling_ids` and `sibling_terminals`,
/// in the same order), if they were asked.
fn joined_siblings(
    row: &sqlx::postgres::PgRow,
    shipment_id: Uuid,
) -> Result<Option<Vec<ContainerRef>>> {
    use sqlx::Row;
    let Some(ids) = row.try_get::<Option<Vec<Uuid>>, _>("sibling_ids")? else {
        return Ok(None);
    };
    let terminals: Vec<Option<String>> = row
        .try_get::<Option<Vec<Option<String>>>, _>("sibling_terminals")?
        .unwrap_or_default();
    let mut terminals = terminals.into_iter();
    Ok(Some(
        ids.into_iter()
            .map(|id| ContainerRef {
                id,
                shipment_id,
                pod_terminal: terminals.next().flatten(),
            })
            .collect(),
    ))
}

/// The shipment's columns of [`container_and_shipment`]'s row (named `s_…`), if it joined.
pub(super) fn joined_shipment(row: &sqlx::postgres::PgRow) -> Result<Option<ShipmentRow>> {
    use sqlx::Row;
    let Some(id) = row.try_get::<Option<Uuid>, _>("s_id")? else {
        return Ok(None);
    };
    Ok(Some(ShipmentRow {
        id,
        account_id: row.try_get("s_account_id")?,
        tracking_request_id: row.try_get("s_tracking_request_id")?,
        bill_of_lading_number: row.try_get("s_bill_of_lading_number")?,
        scac: row.try_get("s_scac")?,
        ref_numbers: row.try_get::<Json<_>, _>("s_ref_numbers")?.0,
        tags: row.try_get::<Json<_>, _>("s_tags")?.0,
        route: row.try_get::<Json<_>, _>("s_route")?.0,
        state: row.try_get::<Json<_>, _>("s_state")?.0,
        tracking_stopped_us: row.try_get("s_tracking_stopped_us")?,
        stopped_reason: row.try_get("s_stopped_reason")?,
        created_us: row.try_get("s_created_us")?,
        updated_us: row.try_get("s_updated_us")?,
        customer_name: row.try_get("s_customer_name")?,
        customer_id: row.try_get("s_customer_id")?,
    }))
}

/// The containers of a shipment, oldest first.
pub async fn containers_of(
    db: &Db,
    account_id: Uuid,
    shipment_id: Uuid,
) -> Result<Vec<ContainerRow>> {
    const SQL: &str = "SELECT id, account_id, shipment_id, number, ref_numbers, state, current_status, ready_for_pickup, pickup_lfd_us, active, created_us, updated_us FROM containers WHERE shipment_id = $1 AND account_id = $2 ORDER BY created_us, id";
    Ok(on_db!(db, p => sqlx::query_as(SQL).bind(shipment_id).bind(account_id).fetch_all(p).await?))
}

/// Rows of an account whose `column` is one of `ids`: one query per 500 ids (a page's related
/// rows, instead of one query per row). `sql` is the statement up to its `IN` list, with the
/// account placeholder written `{account}`; `order` follows the list.
pub(crate) async fn rows_in<T>(
    db: &Db,
    account_id: Uuid,
    ids: &[Uuid],
    sql: &str,
    order: &str,
) -> Result<Vec<T>>
where
    T: for<'r> sqlx::FromRow<'r, sqlx::sqlite::SqliteRow>
        + for<'r> sqlx::FromRow<'r, sqlx::postgres::PgRow>
        + Send
        + Unpin,
{
    let mut ids: Vec<Uuid> = ids.to_vec();
    ids.sort();
    ids.dedup();
    let mut out = Vec::new();
    for chunk in ids.chunks(500) {
        let mut marks = crate::sql::Marks::new(db.backend());
        let account = marks.one();
        let sql = format!(
            "{} IN ({}){order}",
            sql.replace("{account}", &account),
            marks.list(chunk.len())
        );
        let rows: Vec<T> = on_db!(db, p => {
            let mut q = sqlx::query_as(sqlx::AssertSqlSafe(sql)).bind(account_id);
            for id in chunk {
                q = q.bind(*id);
            }
            q.fetch_all(p).await?
        });
        out.extend(rows);
    }
    Ok(out)
}

/// Shipments of an account by id, in one query (a page's related shipments).
pub async fn shipments_by_id(
    db: &Db,
    account_id: Uuid,
    ids: &[Uuid],
) -> Result<std::collections::HashMap<Uuid, ShipmentRow>> {
    shipments_as(db, account_id, ids).await
}

/// Shipments of an account by id, in one query, read as `S`: whole rows ([`ShipmentRow`]) or
/// as rendered ([`RenderedShipment`]).
pub async fn shipments_as<S: ShipmentRead>(
    db: &Db,
    account_id: Uuid,
    ids: &[Uuid],
) -> Result<std::collections::HashMap<Uuid, S>> {
    // on SQLite each by its key, in place in one read transaction
    let read = in_place(db, |c| {
        sqlite_reader::snapshot(c, || {
            let mut ids = ids.to_vec();
            ids.sort_unstable();
            ids.dedup();
            let mut found = std::collections::HashMap::with_capacity(ids.len());
            for id in ids {
                if let Some(s) = S::sqlite(c, account_id, id)? {
                    found.insert(id, s);
                }
            }
            Ok(found)
        })
    });
    if let Some(read) = read {
        return read;
    }
    let sql = format!(
        "SELECT {} FROM shipments WHERE account_id = {{account}} AND id",
        S::COLUMNS
    );
    let rows: Vec<S> = rows_in(db, account_id, ids, &sql, "").await?;
    Ok(rows.into_iter().map(|r| (r.id_of(), r)).collect())
}

/// Containers of an account by id, in one query (a page's related containers).
pub async fn containers_by_id(
    db: &Db,
    account_id: Uuid,
    ids: &[Uuid],
) -> Result<std::collections::HashMap<Uuid, ContainerRow>> {
    let sql =
        format!("SELECT {CONTAINER_COLUMNS} FROM containers WHERE account_id = {{account}} AND id");
    let rows: Vec<ContainerRow> = rows_in(db, account_id, ids, &sql, "").await?;
    Ok(rows.into_iter().map(|r| (r.id, r)).collect())
}

/// The containers of many shipments of an account, in one query, each shipment's oldest first.
pub async fn containers_of_many(
    db: &Db,
    account_id: Uuid,
    shipment_ids: &[Uuid],
) -> Result<std::collections::HashMap<Uuid, Vec<ContainerRow>>> {
    let sql = format!(
        "SELECT {CONTAINER_COLUMNS} FROM containers WHERE account_id = {{account}} AND shipment_id"
    );
    let rows: Vec<ContainerRow> = rows_in(
        db,
        account_id,
        shipment_ids,
        &sql,
        " ORDER BY shipment_id, created_us, id",
    )
    .await?;
    Ok(by_shipment(rows, |r| r.shipment_id))
}

/// What a shipment's resource needs of each of its containers: its id and the POD terminal
/// it reports.
pub trait ContainerOnShipment {
    /// The container's id.
    fn id(&self) -> Uuid;
    /// The terminal at the port of discharge, as the container's state names it.
    fn pod_terminal(&self) -> Option<&str>;
}

impl ContainerOnShipment for ContainerRow {
    fn id(&self) -> Uuid {
        self.id
    }
    fn pod_terminal(&self) -> Option<&str> {
        self.state.pod_terminal.as_deref()
    }
}

/// What a page of shipments reads of their containers ([`containers_of_many`] whole, or
/// [`container_refs_of_many`] as the shipments' resources show them).
pub trait OfShipments: ContainerOnShipment + Sized + Send {
    /// The containers of each of `shipment_ids`, each shipment's oldest first.
    fn of_many(
        db: &Db,
        account_id: Uuid,
        shipment_ids: &[Uuid],
    ) -> impl std::future::Future<Output = Result<std::collections::HashMap<Uuid, Vec<Self>>>> + Send;
}

impl OfShipments for ContainerRow {
    fn of_many(
        db: &Db,
        account_id: Uuid,
        shipment_ids: &[Uuid],
    ) -> impl std::future::Future<Output = Result<std::collections::HashMap<Uuid, Vec<Self>>>> + Send
    {
        containers_of_many(db, account_id, shipment_ids)
    }
}

impl OfShipments for ContainerRef {
    fn of_many(
        db: &Db,
        account_id: Uuid,
        shipment_ids: &[Uuid],
    ) -> impl std::future::Future<Output = Result<std::collections::HashMap<Uuid, Vec<Self>>>> + Send
    {
        container_refs_of_many(db, account_id, shipment_ids)
    }
}

/// A container as its shipment's resource shows it, read without its state.
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct ContainerRef {
    /// Id.
    pub id: Uuid,
    /// Its shipment.
    pub shipment_id: Uuid,
    /// The POD terminal of its state.
    pub pod_terminal: Option<String>,
}

impl ContainerOnShipment for ContainerRef {
    fn id(&self) -> Uuid {
        self.id
    }
    fn pod_terminal(&self) -> Option<&str> {
        self.pod_terminal.as_deref()
    }
}

/// The containers of many shipments by shipment, as their shipments' resources show them
/// (ids and POD terminals, not the whole state), in one query.
pub async fn container_refs_of_many(
    db: &Db,
    account_id: Uuid,
    shipment_ids: &[Uuid],
) -> Result<std::collections::HashMap<Uuid, Vec<ContainerRef>>> {
    if let Some(read) = in_place(db, |c| {
        sqlite_reader::container_refs(c, account_id, shipment_ids)
    }) {
        return Ok(by_shipment(read?, |r| r.shipment_id));
    }
    // the column kept beside the state (migration 42), not the state's JSON read per row
    let sql = "SELECT id, shipment_id, pod_terminal FROM containers WHERE account_id = {account} AND shipment_id";
    let rows: Vec<ContainerRef> = rows_in(
        db,
        account_id,
        shipment_ids,
        sql,
        " ORDER BY shipment_id, created_us, id",
    )
    .await?;
    Ok(by_shipment(rows, |r| r.shipment_id))
}

/// Rows grouped by their shipment, in the order read.
pub(super) fn by_shipment<T>(
    rows: Vec<T>,
    shipment_of: impl Fn(&T) -> Uuid,
) -> std::collections::HashMap<Uuid, Vec<T>> {
    let mut out: std::collections::HashMap<Uuid, Vec<T>> = std::collections::HashMap::new();
    for r in rows {
        out.entry(shipment_of(&r)).or_default().push(r);
    }
    out
}
