//! A container or a shipment read as rendered: where the merge's rendered text of its state
//! is current (`crate::rendered`), the row without its state parsed.

use boxtrack_core::paging::Key;
use rusqlite::Connection;
use sqlx::postgres::PgRow;
use sqlx::sqlite::SqliteRow;
use sqlx::types::Json;
use sqlx::{ColumnIndex, Decode, FromRow, Row, Type};
use uuid::Uuid;

use super::{ContainerRow, ShipmentRow};
use crate::Result;
use crate::list::Keyed;

/// A container whose resource shows its state as the merge rendered it: the columns a
/// resource shows beside the state, and that text.
#[derive(Debug, Clone)]
pub struct ContainerView {
    /// Id.
    pub id: Uuid,
    /// Owner.
    pub account_id: Uuid,
    /// Its shipment.
    pub shipment_id: Uuid,
    /// ISO 6346 number.
    pub number: String,
    /// Client references.
    pub ref_numbers: Vec<String>,
    /// The POD terminal's code (the state's, kept in a column of its own).
    pub pod_terminal: Option<String>,
    /// Created.
    pub created_us: i64,
    /// Last change.
    pub updated_us: i64,
    /// The state as the merge rendered it (current for this process's renderer).
    pub view: String,
}

/// A container read as rendered: its rendered text where that is current, else its whole row.
#[derive(Debug, Clone)]
pub enum RenderedContainer {
    /// Its state as rendered when it was written.
    View(ContainerView),
    /// Its whole row, the state parsed (no current rendered text).
    Row(Box<ContainerRow>),
}

impl RenderedContainer {
    /// Its id.
    pub fn id(&self) -> Uuid {
        match self {
            RenderedContainer::View(v) => v.id,
            RenderedContainer::Row(r) => r.id,
        }
    }

    /// Its shipment.
    pub fn shipment_id(&self) -> Uuid {
        match self {
            RenderedContainer::View(v) => v.shipment_id,
            RenderedContainer::Row(r) => r.shipment_id,
        }
    }

    /// Its POD terminal's code.
    pub fn pod_terminal(&self) -> Option<&str> {
        match self {
            RenderedContainer::View(v) => v.pod_terminal.as_deref(),
            RenderedContainer::Row(r) => r.state.pod_terminal.as_deref(),
        }
    }
}

impl Keyed for RenderedContainer {
    fn key(&self) -> Key {
        let (updated_us, id) = match self {
            RenderedContainer::View(v) => (v.updated_us, v.id),
            RenderedContainer::Row(r) => (r.updated_us, r.id),
        };
        Key {
            sort_us: updated_us,
            id: *id.as_bytes(),
        }
    }
}

/// A container's columns of a row (`c.*` of a joined statement or a list's columns, with
/// `rendered`, its rendered state, and `pod_terminal`): the state's column is decoded only
/// where the rendered state is not current.
impl<'r, R: Row> FromRow<'r, R> for RenderedContainer
where
    &'r str: ColumnIndex<R>,
    ContainerRow: FromRow<'r, R>,
    Uuid: Decode<'r, R::Database> + Type<R::Database>,
    String: Decode<'r, R::Database> + Type<R::Database>,
    Json<Vec<String>>: Decode<'r, R::Database> + Type<R::Database>,
    i64: Decode<'r, R::Database> + Type<R::Database>,
{
    fn from_row(row: &'r R) -> sqlx::Result<Self> {
        let view: Option<String> = row.try_get("rendered")?;
        Ok(match view.filter(|v| crate::rendered::is_current(v)) {
            Some(view) => RenderedContainer::View(container_view(row, view)?),
            None => RenderedContainer::Row(Box::new(ContainerRow::from_row(row)?)),
        })
    }
}

/// A container's view from the columns of a row beside its state (the state's column is not
/// decoded).
fn container_view<'r, R: Row>(row: &'r R, view: String) -> sqlx::Result<ContainerView>
where
    &'r str: ColumnIndex<R>,
    Uuid: Decode<'r, R::Database> + Type<R::Database>,
    String: Decode<'r, R::Database> + Type<R::Database>,
    Json<Vec<String>>: Decode<'r, R::Database> + Type<R::Database>,
    i64: Decode<'r, R::Database> + Type<R::Database>,
{
    Ok(ContainerView {
        id: row.try_get("id")?,
        account_id: row.try_get("account_id")?,
        shipment_id: row.try_get("shipment_id")?,
        number: row.try_get("number")?,
        ref_numbers: row.try_get::<Json<_>, _>("ref_numbers")?.0,
        pod_terminal: row.try_get("pod_terminal")?,
        created_us: row.try_get("created_us")?,
        updated_us: row.try_get("updated_us")?,
        view,
    })
}

/// What [`super::container_and_shipment`] and the container lists ([`super::containers_as`])
/// read a container as: decoded from a row of either backend.
pub trait ContainerRead:
    Sized + Send + Unpin + Keyed + for<'r> FromRow<'r, SqliteRow> + for<'r> FromRow<'r, PgRow>
{
    /// What it reads the container's shipment as.
    type Shipment: ShipmentRead;
    /// The columns of `containers` (unqualified) a list reads it from; a subquery names the
    /// account as `{account}` (see `SHIPMENT_COLUMNS`).
    const COLUMNS: &'static str;
    /// The columns of `containers` (unqualified) a list reads it from in place on SQLite.
    const IN_PLACE_COLUMNS: &'static str;
    /// The container from a row of [`ContainerRead::IN_PLACE_COLUMNS`] read on `conn` (which
    /// it may read more with).
    fn in_place_row(conn: &Connection, row: &rusqlite::Row<'_>) -> rusqlite::Result<Self>;
    /// The container by id on a SQLite connection in place.
    fn sqlite(conn: &Connection, account_id: Uuid, id: Uuid) -> rusqlite::Result<Option<Self>>;
    /// The container from its whole row.
    fn whole(row: ContainerRow) -> Self;
    /// Its shipment.
    fn shipment_of(&self) -> Uuid;
    /// Whether [`super::container_and_shipment`] reads it on PostgreSQL as rendered first (the
    /// columns beside the states and the rendered texts), and the whole rows only where a text
    /// is not current.
    const RENDERED_ON_POSTGRES: bool = false;
    /// The container and its shipment from a row of that rendered statement, `None` where a
    /// text is not current for this process's renderer (the whole rows are read then).
    fn rendered_postgres(_row: &PgRow) -> Result<Option<(Self, Option<Self::Shipment>)>> {
        Ok(None)
    }
}

impl ContainerRead for ContainerRow {
    type Shipment = ShipmentRow;
    const COLUMNS: &'static str = super::CONTAINER_COLUMNS;
    const IN_PLACE_COLUMNS: &'static str = super::CONTAINER_COLUMNS;
    fn in_place_row(_: &Connection, row: &rusqlite::Row<'_>) -> rusqlite::Result<Self> {
        crate::sqlite_reader::container_row(row)
    }
    fn sqlite(conn: &Connection, account_id: Uuid, id: Uuid) -> rusqlite::Result<Option<Self>> {
        crate::sqlite_reader::container(conn, account_id, id)
    }
    fn whole(row: ContainerRow) -> Self {
        row
    }
    fn shipment_of(&self) -> Uuid {
        self.shipment_id
    }
}

impl ContainerRead for RenderedContainer {
    type Shipment = RenderedShipment;
    const COLUMNS: &'static str = "id, account_id, shipment_id, number, ref_numbers, state, current_status, ready_for_pickup, pickup_lfd_us, active, created_us, updated_us, (SELECT v.view FROM container_views v WHERE v.container_id = containers.id AND v.account_id = {account}) AS rendered, pod_terminal";
    // not the state: where the text is not current, the whole row is read by id
    const IN_PLACE_COLUMNS: &'static str = crate::sqlite_reader::CONTAINER_RENDERED_COLUMNS;
    fn in_place_row(conn: &Connection, row: &rusqlite::Row<'_>) -> rusqlite::Result<Self> {
        crate::sqlite_reader::rendered_container_row(conn, row)
    }
    fn sqlite(conn: &Connection, account_id: Uuid, id: Uuid) -> rusqlite::Result<Option<Self>> {
        crate::sqlite_reader::container_rendered(conn, account_id, id)
    }
    fn whole(row: ContainerRow) -> Self {
        RenderedContainer::Row(Box::new(row))
    }
    fn shipment_of(&self) -> Uuid {
        self.shipment_id()
    }
    const RENDERED_ON_POSTGRES: bool = true;
    fn rendered_postgres(row: &PgRow) -> Result<Option<(Self, Option<RenderedShipment>)>> {
        let view: Option<String> = row.try_get("rendered")?;
        let Some(view) = view.filter(|v| crate::rendered::is_current(v)) else {
            return Ok(None);
        };
        let shipment = match joined_shipment_view(row)? {
            Some(v) => Some(RenderedShipment::View(Box::new(v))),
            None if row.try_get::<Option<Uuid>, _>("s_id")?.is_none() => None,
            None => return Ok(None),
        };
        Ok(Some((
            RenderedContainer::View(container_view(row, view)?),
            shipment,
        )))
    }
}

/// A shipment whose resource shows its route and voyage state as the merge rendered them:
/// the columns a resource shows beside them, and that text.
#[derive(Debug, Clone)]
pub struct ShipmentView {
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
    pub ref_numbers: Vec<String>,
    /// Tags.
    pub tags: Vec<String>,
    /// When tracking stopped.
    pub tracking_stopped_us: Option<i64>,
    /// Why.
    pub stopped_reason: Option<String>,
    /// Created.
    pub created_us: i64,
    /// Last change.
    pub updated_us: i64,
    /// The customer named on its tracking request.
    pub customer_name: Option<String>,
    /// That party.
    pub customer_id: Option<Uuid>,
    /// The route and voyage state as the merge rendered them (current for this process's
    /// renderer).
    pub view: String,
}

/// A shipment read as rendered: its rendered text where that is current, else its whole row.
#[derive(Debug, Clone)]
pub enum RenderedShipment {
    /// Its route and state as rendered when they were written.
    View(Box<ShipmentView>),
    /// Its whole row, route and state parsed (no current rendered text).
    Row(Box<ShipmentRow>),
}

impl RenderedShipment {
    /// Its id.
    pub fn id(&self) -> Uuid {
        match self {
            RenderedShipment::View(v) => v.id,
            RenderedShipment::Row(r) => r.id,
        }
    }
}

/// The names of a shipment's columns a [`ShipmentView`] is read from, in its fields' order
/// (`id` … `customer_id`): as `shipments` names them, or prefixed `s_` in a statement that
/// joins its container.
const PLAIN: [&str; 13] = [
    "id",
    "account_id",
    "tracking_request_id",
    "bill_of_lading_number",
    "scac",
    "ref_numbers",
    "tags",
    "tracking_stopped_us",
    "stopped_reason",
    "created_us",
    "updated_us",
    "customer_name",
    "customer_id",
];
const PREFIXED: [&str; 13] = [
    "s_id",
    "s_account_id",
    "s_tracking_request_id",
    "s_bill_of_lading_number",
    "s_scac",
    "s_ref_numbers",
    "s_tags",
    "s_tracking_stopped_us",
    "s_stopped_reason",
    "s_created_us",
    "s_updated_us",
    "s_customer_name",
    "s_customer_id",
];

/// A shipment's view from the columns `n` names (the route's and the state's columns are not
/// decoded).
fn shipment_view<'r, R: Row>(
    row: &'r R,
    n: &[&'static str; 13],
    view: String,
) -> sqlx::Result<ShipmentView>
where
    &'r str: ColumnIndex<R>,
    Uuid: Decode<'r, R::Database> + Type<R::Database>,
    String: Decode<'r, R::Database> + Type<R::Database>,
    Json<Vec<String>>: Decode<'r, R::Database> + Type<R::Database>,
    i64: Decode<'r, R::Database> + Type<R::Database>,
{
    Ok(ShipmentView {
        id: row.try_get(n[0])?,
        account_id: row.try_get(n[1])?,
        tracking_request_id: row.try_get(n[2])?,
        bill_of_lading_number: row.try_get(n[3])?,
        scac: row.try_get(n[4])?,
        ref_numbers: row.try_get::<Json<_>, _>(n[5])?.0,
        tags: row.try_get::<Json<_>, _>(n[6])?.0,
        tracking_stopped_us: row.try_get(n[7])?,
        stopped_reason: row.try_get(n[8])?,
        created_us: row.try_get(n[9])?,
        updated_us: row.try_get(n[10])?,
        customer_name: row.try_get(n[11])?,
        customer_id: row.try_get(n[12])?,
        view,
    })
}

/// A shipment's columns of a row ([`RenderedShipment::COLUMNS`]: a list's, with `view`, its
/// rendered route and state): the route and the state are decoded only where that text is not
/// current.
impl<'r, R: Row> FromRow<'r, R> for RenderedShipment
where
    &'r str: ColumnIndex<R>,
    ShipmentRow: FromRow<'r, R>,
    Uuid: Decode<'r, R::Database> + Type<R::Database>,
    String: Decode<'r, R::Database> + Type<R::Database>,
    Json<Vec<String>>: Decode<'r, R::Database> + Type<R::Database>,
    i64: Decode<'r, R::Database> + Type<R::Database>,
{
    fn from_row(row: &'r R) -> sqlx::Result<Self> {
        let view: Option<String> = row.try_get("view")?;
        Ok(
            match view.filter(|v| crate::rendered::is_current_shipment(v)) {
                Some(view) => RenderedShipment::View(Box::new(shipment_view(row, &PLAIN, view)?)),
                None => RenderedShipment::Row(Box::new(ShipmentRow::from_row(row)?)),
            },
        )
    }
}

impl Keyed for RenderedShipment {
    fn key(&self) -> Key {
        let (updated_us, id) = match self {
            RenderedShipment::View(v) => (v.updated_us, v.id),
            RenderedShipment::Row(r) => (r.updated_us, r.id),
        };
        Key {
            sort_us: updated_us,
            id: *id.as_bytes(),
        }
    }
}

/// What [`super::container_and_shipment`] reads a container's shipment as, and a page's
/// shipments by id ([`super::shipments_as`]).
pub trait ShipmentRead:
    Sized + Send + Unpin + Keyed + for<'r> FromRow<'r, SqliteRow> + for<'r> FromRow<'r, PgRow>
{
    /// The columns of `shipments` (unqualified) a page's shipments, or a list of them, are
    /// read with; a subquery names the account as `{account}` (see `SHIPMENT_COLUMNS`).
    const COLUMNS: &'static str;
    /// The columns of `shipments` (unqualified) a list reads it from in place on SQLite.
    const IN_PLACE_COLUMNS: &'static str;
    /// The shipment from a row of [`ShipmentRead::IN_PLACE_COLUMNS`] read on `conn` (which it
    /// may read more with).
    fn in_place_row(conn: &Connection, row: &rusqlite::Row<'_>) -> rusqlite::Result<Self>;
    /// The shipment by id on a SQLite connection in place.
    fn sqlite(conn: &Connection, account_id: Uuid, id: Uuid) -> rusqlite::Result<Option<Self>>;
    /// The shipment's columns of the joined PostgreSQL row (`s_*`, with `s_view`, its rendered
    /// route and state), `None` where the join found none.
    fn postgres(row: &PgRow) -> Result<Option<Self>>;
    /// The shipment from its whole row.
    fn whole(row: ShipmentRow) -> Self;
    /// Its id.
    fn id_of(&self) -> Uuid;
}

impl ShipmentRead for ShipmentRow {
    const COLUMNS: &'static str = super::SHIPMENT_COLUMNS;
    const IN_PLACE_COLUMNS: &'static str = super::SHIPMENT_COLUMNS;
    fn in_place_row(_: &Connection, row: &rusqlite::Row<'_>) -> rusqlite::Result<Self> {
        crate::sqlite_reader::shipment_row(row)
    }
    fn sqlite(conn: &Connection, account_id: Uuid, id: Uuid) -> rusqlite::Result<Option<Self>> {
        crate::sqlite_reader::shipment(conn, account_id, id)
    }
    fn postgres(row: &PgRow) -> Result<Option<Self>> {
        super::joined_shipment(row)
    }
    fn whole(row: ShipmentRow) -> Self {
        row
    }
    fn id_of(&self) -> Uuid {
        self.id
    }
}

impl ShipmentRead for RenderedShipment {
    const COLUMNS: &'static str = "id, account_id, tracking_request_id, bill_of_lading_number, scac, ref_numbers, tags, route, state, tracking_stopped_us, stopped_reason, created_us, updated_us, (SELECT p.company_name FROM tracking_requests t JOIN parties p ON p.id = t.customer_id AND p.account_id = t.account_id WHERE t.id = shipments.tracking_request_id AND t.account_id = {account}) AS customer_name, (SELECT t.customer_id FROM tracking_requests t WHERE t.id = shipments.tracking_request_id AND t.account_id = {account}) AS customer_id, (SELECT v.view FROM shipment_views v WHERE v.shipment_id = shipments.id AND v.account_id = {account}) AS view";
    // not the route and the state: where the text is not current, the whole row is read by id
    const IN_PLACE_COLUMNS: &'static str = crate::sqlite_reader::SHIPMENT_RENDERED_COLUMNS;
    fn in_place_row(conn: &Connection, row: &rusqlite::Row<'_>) -> rusqlite::Result<Self> {
        crate::sqlite_reader::rendered_shipment_row(conn, row)
    }
    fn sqlite(conn: &Connection, account_id: Uuid, id: Uuid) -> rusqlite::Result<Option<Self>> {
        crate::sqlite_reader::shipment_rendered(conn, account_id, id)
    }
    fn postgres(row: &PgRow) -> Result<Option<Self>> {
        Ok(match joined_shipment_view(row)? {
            Some(v) => Some(RenderedShipment::View(Box::new(v))),
            None => super::joined_shipment(row)?.map(|s| RenderedShipment::Row(Box::new(s))),
        })
    }
    fn whole(row: ShipmentRow) -> Self {
        RenderedShipment::Row(Box::new(row))
    }
    fn id_of(&self) -> Uuid {
        self.id()
    }
}

/// The view of the shipment a joined PostgreSQL row carries (`s_*`, with `s_view`), where it
/// joined one and its text is current for this process's renderer.
fn joined_shipment_view(row: &PgRow) -> Result<Option<ShipmentView>> {
    let view: Option<String> = row.try_get("s_view")?;
    let Some(view) = view.filter(|v| crate::rendered::is_current_shipment(v)) else {
        return Ok(None);
    };
    if row.try_get::<Option<Uuid>, _>("s_id")?.is_none() {
        return Ok(None);
    }
    Ok(Some(shipment_view(row, &PREFIXED, view)?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_rendered_container_list_reads_the_whole_rows_columns_and_its_text() {
        // the text not current, the row is decoded from the same columns a whole row's list reads
        let extra = <RenderedContainer as ContainerRead>::COLUMNS
            .strip_prefix(super::super::CONTAINER_COLUMNS)
            .unwrap_or_default();
        assert!(
            extra.starts_with(", (SELECT v.view FROM container_views"),
            "{extra}"
        );
        assert!(extra.ends_with("AS rendered, pod_terminal"), "{extra}");
    }
}
