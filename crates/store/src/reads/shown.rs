//! A container read to be shown: where the merge's rendered text of its state is current
//! (`crate::rendered`), the row without its state parsed.

use rusqlite::Connection;
use sqlx::types::Json;
use uuid::Uuid;

use super::ContainerRow;
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
