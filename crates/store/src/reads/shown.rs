//! A container or a shipment read to be shown: where the merge's rendered text of its state
//! is current (`crate::rendered`), the row without its state parsed.

use rusqlite::Connection;
use sqlx::types::Json;
use uuid::Uuid;

use super::{ContainerRow, ShipmentRow};
use crate::Result;

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
    pub ref_numbers: Json<Vec<String>>,
    /// The POD terminal's code (the state's, kept in a column of its own).
    pub pod_terminal: Option<String>,
    /// Created.
    pub created_us: i64,
    /// Last change.
    pub updated_us: i64,
    /// The state as the merge rendered it (current for this process's renderer).
    pub view: String,
}

/// A container read to be shown.
#[derive(Debug, Clone)]
pub enum ShownContainer {
    /// Its state as rendered when it was written.
    View(ContainerView),
    /// Its whole row, the state parsed (no current rendered text).
    Row(Box<ContainerRow>),
}

impl ShownContainer {
    /// Its id.
    pub fn id(&self) -> Uuid {
        match self {
            ShownContainer::View(v) => v.id,
            ShownContainer::Row(r) => r.id,
        }
    }

    /// Its shipment.
    pub fn shipment_id(&self) -> Uuid {
        match self {
            ShownContainer::View(v) => v.shipment_id,
            ShownContainer::Row(r) => r.shipment_id,
        }
    }

    /// Its POD terminal's code.
    pub fn pod_terminal(&self) -> Option<&str> {
        match self {
            ShownContainer::View(v) => v.pod_terminal.as_deref(),
            ShownContainer::Row(r) => r.state.0.pod_terminal.as_deref(),
        }
    }
}

/// What [`super::container_and_shipment`] reads a container as.
pub trait ContainerRead: Sized {
    /// What it reads the container's shipment as.
    type Shipment: ShipmentRead;
    /// The container by id on a SQLite connection in place.
    fn sqlite(conn: &Connection, account_id: Uuid, id: Uuid) -> rusqlite::Result<Option<Self>>;
    /// The container's columns of a PostgreSQL row (`c.*` of the joined statement, with
    /// `state_view`, its shown state, and `pod_terminal`).
    fn postgres(row: &sqlx::postgres::PgRow) -> Result<Self>;
    /// The container from its whole row.
    fn from_row(row: ContainerRow) -> Self;
    /// Its shipment.
    fn shipment_of(&self) -> Uuid;
}

impl ContainerRead for ContainerRow {
    type Shipment = ShipmentRow;
    fn sqlite(conn: &Connection, account_id: Uuid, id: Uuid) -> rusqlite::Result<Option<Self>> {
        crate::sqlite_reader::container(conn, account_id, id)
    }
    fn postgres(row: &sqlx::postgres::PgRow) -> Result<Self> {
        Ok(<ContainerRow as sqlx::FromRow<_>>::from_row(row)?)
    }
    fn from_row(row: ContainerRow) -> Self {
        row
    }
    fn shipment_of(&self) -> Uuid {
        self.shipment_id
    }
}

impl ContainerRead for ShownContainer {
    type Shipment = ShownShipment;
    fn sqlite(conn: &Connection, account_id: Uuid, id: Uuid) -> rusqlite::Result<Option<Self>> {
        crate::sqlite_reader::container_shown(conn, account_id, id)
    }
    fn postgres(row: &sqlx::postgres::PgRow) -> Result<Self> {
        use sqlx::Row;
        let view: Option<String> = row.try_get("state_view")?;
        Ok(match view.filter(|v| crate::rendered::is_current(v)) {
            // the state's column is not decoded
            Some(view) => ShownContainer::View(ContainerView {
                id: row.try_get("id")?,
                account_id: row.try_get("account_id")?,
                shipment_id: row.try_get("shipment_id")?,
                number: row.try_get("number")?,
                ref_numbers: row.try_get("ref_numbers")?,
                pod_terminal: row.try_get("pod_terminal")?,
                created_us: row.try_get("created_us")?,
                updated_us: row.try_get("updated_us")?,
                view,
            }),
            None => ShownContainer::Row(Box::new(ContainerRow::postgres(row)?)),
        })
    }
    fn from_row(row: ContainerRow) -> Self {
        ShownContainer::Row(Box::new(row))
    }
    fn shipment_of(&self) -> Uuid {
        self.shipment_id()
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
    pub ref_numbers: Json<Vec<String>>,
    /// Tags.
    pub tags: Json<Vec<String>>,
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

/// A shipment read to be shown.
#[derive(Debug, Clone)]
pub enum ShownShipment {
    /// Its route and state as rendered when they were written.
    View(Box<ShipmentView>),
    /// Its whole row, route and state parsed (no current rendered text).
    Row(Box<ShipmentRow>),
}

impl ShownShipment {
    /// Its id.
    pub fn id(&self) -> Uuid {
        match self {
            ShownShipment::View(v) => v.id,
            ShownShipment::Row(r) => r.id,
        }
    }
}

/// What [`super::container_and_shipment`] reads a container's shipment as.
pub trait ShipmentRead: Sized {
    /// The shipment by id on a SQLite connection in place.
    fn sqlite(conn: &Connection, account_id: Uuid, id: Uuid) -> rusqlite::Result<Option<Self>>;
    /// The shipment's columns of the joined PostgreSQL row (`s_*`, with `s_view`, its shown
    /// route and state), `None` where the join found none.
    fn postgres(row: &sqlx::postgres::PgRow) -> Result<Option<Self>>;
    /// The shipment from its whole row.
    fn from_row(row: ShipmentRow) -> Self;
}

impl ShipmentRead for ShipmentRow {
    fn sqlite(conn: &Connection, account_id: Uuid, id: Uuid) -> rusqlite::Result<Option<Self>> {
        crate::sqlite_reader::shipment(conn, account_id, id)
    }
    fn postgres(row: &sqlx::postgres::PgRow) -> Result<Option<Self>> {
        super::joined_shipment(row)
    }
    fn from_row(row: ShipmentRow) -> Self {
        row
    }
}

impl ShipmentRead for ShownShipment {
    fn sqlite(conn: &Connection, account_id: Uuid, id: Uuid) -> rusqlite::Result<Option<Self>> {
        crate::sqlite_reader::shipment_shown(conn, account_id, id)
    }
    fn postgres(row: &sqlx::postgres::PgRow) -> Result<Option<Self>> {
        use sqlx::Row;
        let view: Option<String> = row.try_get("s_view")?;
        let Some(view) = view.filter(|v| crate::rendered::is_current_shipment(v)) else {
            return Ok(super::joined_shipment(row)?.map(|s| ShownShipment::Row(Box::new(s))));
        };
        let Some(id) = row.try_get::<Option<Uuid>, _>("s_id")? else {
            return Ok(None);
        };
        // the route's and the state's columns are not decoded
        Ok(Some(ShownShipment::View(Box::new(ShipmentView {
            id,
            account_id: row.try_get("s_account_id")?,
            tracking_request_id: row.try_get("s_tracking_request_id")?,
            bill_of_lading_number: row.try_get("s_bill_of_lading_number")?,
            scac: row.try_get("s_scac")?,
            ref_numbers: row.try_get("s_ref_numbers")?,
            tags: row.try_get("s_tags")?,
            tracking_stopped_us: row.try_get("s_tracking_stopped_us")?,
            stopped_reason: row.try_get("s_stopped_reason")?,
            created_us: row.try_get("s_created_us")?,
            updated_us: row.try_get("s_updated_us")?,
            customer_name: row.try_get("s_customer_name")?,
            customer_id: row.try_get("s_customer_id")?,
            view,
        }))))
    }
    fn from_row(row: ShipmentRow) -> Self {
        ShownShipment::Row(Box::new(row))
    }
}
