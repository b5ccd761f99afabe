//! Point reads on SQLite run in place: a few rusqlite connections used on the calling thread,
//! not through sqlx.
//!
//! sqlx runs each SQLite connection on a thread of its own, and every statement is a message
//! to that thread and every row a message back, each waking the other side. A read by id
//! takes SQLite a few microseconds once its pages are cached; the hand-offs cost several
//! times that (see `BENCHMARKS.md`, "Rendered reads in place"). The reads here — a container,
//! a shipment, the containers of a shipment, by key — are answered on the task's own thread
//! instead. A reader in WAL mode never waits for the writer; when SQLite answers busy all
//! the same (a connection recovering the log), the read goes through the pool, which waits.

use std::path::PathBuf;
use std::sync::{LazyLock, Mutex};

use boxtrack_core::tracking::{ContainerState, Route, ShipmentState};
use rusqlite::types::Type;
use rusqlite::{Connection, ErrorCode, OpenFlags, OptionalExtension, Row};
use serde::de::DeserializeOwned;
use uuid::Uuid;

use crate::reads::{
    CONTAINER_COLUMNS, ContainerRef, ContainerRow, ContainerView, RenderedContainer,
    RenderedShipment, SHIPMENT_COLUMNS, ShipmentRow, ShipmentView,
};
use crate::{Result, StoreError};

/// Idle connections kept for the next read (one per runtime thread is enough).
const KEEP_IDLE: usize = 8;

/// How much of the file a reading connection maps (`PRAGMA mmap_size`): 256 MiB.
const MAPPED_BYTES: i64 = 256 << 20;

/// Read-only connections to one SQLite file, used in place by whoever reads.
pub struct SqliteReader {
    /// The file; `None` for an in-memory database, which only the pool can see.
    path: Option<PathBuf>,
    idle: Mutex<Vec<Connection>>,
}

impl std::fmt::Debug for SqliteReader {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SqliteReader")
            .field("path", &self.path)
            .finish_non_exhaustive()
    }
}

impl SqliteReader {
    /// Readers of the file at `path` (`:memory:` and empty paths read through the pool).
    pub(crate) fn new(path: PathBuf) -> SqliteReader {
        let in_memory = path.as_os_str().is_empty() || path.as_os_str() == ":memory:";
        SqliteReader {
            path: (!in_memory).then_some(path),
            idle: Mutex::new(Vec::new()),
        }
    }

    /// Runs `read` on an idle connection (opened when none is idle). `None` when this
    /// database cannot be read in place or SQLite answered busy: the caller reads through the
    /// pool instead.
    pub(crate) fn read<T>(
        &self,
        read: impl FnOnce(&Connection) -> rusqlite::Result<T>,
    ) -> Option<Result<T>> {
        let path = self.path.as_ref()?;
        let taken = self.idle.lock().ok().and_then(|mut idle| idle.pop());
        let conn = match taken {
            Some(c) => c,
            None => match open(path) {
                Ok(c) => c,
                Err(e) if busy(&e) => return None,
                Err(e) => return Some(Err(e.into())),
            },
        };
        let answer = read(&conn);
        // a connection left inside a transaction (its end failed) is not used again
        if conn.is_autocommit()
            && let Ok(mut idle) = self.idle.lock()
            && idle.len() < KEEP_IDLE
        {
            idle.push(conn);
        }
        match answer {
            Err(e) if busy(&e) => None,
            other => Some(other.map_err(StoreError::from)),
        }
    }
}

/// Runs `read` in place when `db` is SQLite (see [`SqliteReader::read`]); `None` on
/// PostgreSQL, or when the caller must read through the pool.
pub(crate) fn in_place<T>(
    db: &crate::Db,
    read: impl FnOnce(&Connection) -> rusqlite::Result<T>,
) -> Option<Result<T>> {
    match db {
        crate::Db::Sqlite(_, side) => side.reader.read(read),
        crate::Db::Postgres(_) => None,
    }
}

fn busy(e: &rusqlite::Error) -> bool {
    matches!(
        e.sqlite_error_code(),
        Some(ErrorCode::DatabaseBusy | ErrorCode::DatabaseLocked)
    )
}

/// A connection that only reads, with the pool's page cache; it never waits on a lock (busy
/// goes to the pool, see [`SqliteReader::read`]).
fn open(path: &std::path::Path) -> rusqlite::Result<Connection> {
    let conn = Connection::open_with_flags(
        path,
        OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )?;
    conn.pragma_update(None, "query_only", "ON")?;
    conn.pragma_update(None, "cache_size", -8192)?;
    // the file's first pages read through a mapping: every commit of another connection (the
    // worker's, a lease's) empties this connection's page cache, and the pages a read takes
    // again then cost a memory read rather than a system call and a copy each (10% more
    // rendered reads a second: BENCHMARKS.md, "Reads in place through a mapping"). The
    // mapped pages are the operating system's file cache, shared, but counted in the
    // process's resident size once per connection that touched them.
    conn.pragma_update(None, "mmap_size", MAPPED_BYTES)?;
    // the reads by key (a handful of statements) and the lists read in place, whose text
    // differs with their filters and page: room for both, so that varied lists do not push
    // the reads by key out
    conn.set_prepared_statement_cache_capacity(64);
    Ok(conn)
}

/// Runs `reads` in one read transaction on `conn`: they see one snapshot of the database,
/// and SQLite takes and drops its shared lock once rather than once a statement.
pub(crate) fn snapshot<T>(
    conn: &Connection,
    reads: impl FnOnce() -> rusqlite::Result<T>,
) -> rusqlite::Result<T> {
    conn.prepare_cached("BEGIN")?.execute([])?;
    let answer = reads();
    // ending a read transaction cannot lose anything; a connection whose end failed is not
    // kept (`SqliteReader::read`)
    let ended = conn
        .prepare_cached("COMMIT")
        .and_then(|mut s| s.execute([]));
    let answer = answer?;
    ended?;
    Ok(answer)
}

/// A JSON text column.
fn json<T: DeserializeOwned>(row: &Row<'_>, i: usize) -> rusqlite::Result<T> {
    let text = row.get_ref(i)?.as_str()?;
    serde_json::from_str(text)
        .map_err(|e| rusqlite::Error::FromSqlConversionFailure(i, Type::Text, Box::new(e)))
}

/// A container row, columns as [`CONTAINER_COLUMNS`].
pub(crate) fn container_row(r: &Row<'_>) -> rusqlite::Result<ContainerRow> {
    Ok(ContainerRow {
        id: r.get(0)?,
        account_id: r.get(1)?,
        shipment_id: r.get(2)?,
        number: r.get(3)?,
        ref_numbers: json(r, 4)?,
        state: json::<ContainerState>(r, 5)?,
        current_status: r.get(6)?,
        ready_for_pickup: r.get(7)?,
        pickup_lfd_us: r.get(8)?,
        active: r.get(9)?,
        created_us: r.get(10)?,
        updated_us: r.get(11)?,
    })
}

/// A shipment row, columns as [`SHIPMENT_COLUMNS`].
pub(crate) fn shipment_row(r: &Row<'_>) -> rusqlite::Result<ShipmentRow> {
    Ok(ShipmentRow {
        id: r.get(0)?,
        account_id: r.get(1)?,
        tracking_request_id: r.get(2)?,
        bill_of_lading_number: r.get(3)?,
        scac: r.get(4)?,
        ref_numbers: json(r, 5)?,
        tags: json(r, 6)?,
        route: json::<Route>(r, 7)?,
        state: json::<ShipmentState>(r, 8)?,
        tracking_stopped_us: r.get(9)?,
        stopped_reason: r.get(10)?,
        created_us: r.get(11)?,
        updated_us: r.get(12)?,
        customer_name: r.get(13)?,
        customer_id: r.get(14)?,
    })
}

/// `SELECT {columns} FROM {table} WHERE id = ?1 AND account_id = ?2`, made once.
static CONTAINER_BY_ID: LazyLock<String> =
    LazyLock::new(|| select_by_id(CONTAINER_COLUMNS, "containers"));
/// A container as rendered where its text is current: the columns its resource shows beside the
/// text (not its state, which SQLite would otherwise copy out of the row for nothing).
const CONTAINER_RENDERED_BY_ID: &str = "SELECT c.id, c.account_id, c.shipment_id, c.number, c.ref_numbers, c.created_us, c.updated_us, v.view, c.pod_terminal FROM containers c LEFT JOIN container_views v ON v.container_id = c.id WHERE c.id = ?1 AND c.account_id = ?2";
static SHIPMENT_BY_ID: LazyLock<String> =
    LazyLock::new(|| select_by_id(SHIPMENT_COLUMNS, "shipments"));
/// A shipment as rendered where its text is current: the columns its resource shows beside the
/// text (not its route and state), its customer read with one lookup of its request.
const SHIPMENT_RENDERED_BY_ID: &str = "SELECT s.id, s.account_id, s.tracking_request_id, s.bill_of_lading_number, s.scac, s.ref_numbers, s.tags, s.tracking_stopped_us, s.stopped_reason, s.created_us, s.updated_us, p.company_name, t.customer_id, v.view FROM shipments s LEFT JOIN tracking_requests t ON t.id = s.tracking_request_id LEFT JOIN parties p ON p.id = t.customer_id LEFT JOIN shipment_views v ON v.shipment_id = s.id WHERE s.id = ?1 AND s.account_id = ?2";

fn select_by_id(columns: &str, table: &str) -> String {
    // a column's subquery names the account as `{account}` (see `reads::SHIPMENT_COLUMNS`)
    let columns = columns.replace("{account}", "?2");
    format!("SELECT {columns} FROM {table} WHERE id = ?1 AND account_id = ?2")
}

/// One row of an account by its id, read with `sql` (`… WHERE id = ?1 AND account_id = ?2`).
fn by_id<T>(
    conn: &Connection,
    sql: &str,
    account_id: Uuid,
    id: Uuid,
    row: fn(&Row<'_>) -> rusqlite::Result<T>,
) -> rusqlite::Result<Option<T>> {
    conn.prepare_cached(sql)?
        .query_row((id, account_id), row)
        .optional()
}

/// One container of an account.
pub(crate) fn container(
    conn: &Connection,
    account_id: Uuid,
    id: Uuid,
) -> rusqlite::Result<Option<ContainerRow>> {
    by_id(conn, &CONTAINER_BY_ID, account_id, id, container_row)
}

/// One container of an account as rendered: its state as the merge rendered it where that
/// text is current, its state parsed only where it is not.
pub(crate) fn container_rendered(
    conn: &Connection,
    account_id: Uuid,
    id: Uuid,
) -> rusqlite::Result<Option<RenderedContainer>> {
    rendered_by_id(
        conn,
        CONTAINER_RENDERED_BY_ID,
        account_id,
        id,
        rendered_container_row,
    )
}

/// One row of an account by its id, read with `sql` and made by `row` on the same connection
/// (which it may read more with).
fn rendered_by_id<T>(
    conn: &Connection,
    sql: &str,
    account_id: Uuid,
    id: Uuid,
    row: fn(&Connection, &Row<'_>) -> rusqlite::Result<T>,
) -> rusqlite::Result<Option<T>> {
    conn.prepare_cached(sql)?
        .query_row((id, account_id), |r| row(conn, r))
        .optional()
}

/// The columns of [`CONTAINER_RENDERED_BY_ID`] in its order, as a list reads them in place.
pub(crate) const CONTAINER_RENDERED_COLUMNS: &str = "id, account_id, shipment_id, number, ref_numbers, created_us, updated_us, (SELECT v.view FROM container_views v WHERE v.container_id = containers.id AND v.account_id = containers.account_id), pod_terminal";

/// A container as rendered from a row of [`CONTAINER_RENDERED_COLUMNS`]: where its text is
/// not current (another build wrote it, or none yet), its whole row read on `conn`, parsed.
pub(crate) fn rendered_container_row(
    conn: &Connection,
    r: &Row<'_>,
) -> rusqlite::Result<RenderedContainer> {
    let view = r.get_ref(7)?.as_str_or_null()?;
    if let Some(view) = view.filter(|v| crate::rendered::is_current(v)) {
        return Ok(RenderedContainer::View(ContainerView {
            id: r.get(0)?,
            account_id: r.get(1)?,
            shipment_id: r.get(2)?,
            number: r.get(3)?,
            ref_numbers: json(r, 4)?,
            pod_terminal: r.get(8)?,
            created_us: r.get(5)?,
            updated_us: r.get(6)?,
            view: view.to_owned(),
        }));
    }
    let (id, account_id) = (r.get(0)?, r.get(1)?);
    match container(conn, account_id, id)? {
        Some(row) => Ok(RenderedContainer::Row(Box::new(row))),
        None => Err(rusqlite::Error::QueryReturnedNoRows),
    }
}

/// One shipment of an account.
pub(crate) fn shipment(
    conn: &Connection,
    account_id: Uuid,
    id: Uuid,
) -> rusqlite::Result<Option<ShipmentRow>> {
    by_id(conn, &SHIPMENT_BY_ID, account_id, id, shipment_row)
}

/// One shipment of an account as rendered: its route and state as the merge rendered them
/// where that text is current, parsed only where it is not.
pub(crate) fn shipment_rendered(
    conn: &Connection,
    account_id: Uuid,
    id: Uuid,
) -> rusqlite::Result<Option<RenderedShipment>> {
    rendered_by_id(
        conn,
        SHIPMENT_RENDERED_BY_ID,
        account_id,
        id,
        rendered_shipment_row,
    )
}

/// The columns of [`SHIPMENT_RENDERED_BY_ID`] in its order, as a list reads them in place.
pub(crate) const SHIPMENT_RENDERED_COLUMNS: &str = "id, account_id, tracking_request_id, bill_of_lading_number, scac, ref_numbers, tags, tracking_stopped_us, stopped_reason, created_us, updated_us, (SELECT p.company_name FROM tracking_requests t JOIN parties p ON p.id = t.customer_id AND p.account_id = t.account_id WHERE t.id = shipments.tracking_request_id AND t.account_id = shipments.account_id), (SELECT t.customer_id FROM tracking_requests t WHERE t.id = shipments.tracking_request_id AND t.account_id = shipments.account_id), (SELECT v.view FROM shipment_views v WHERE v.shipment_id = shipments.id AND v.account_id = shipments.account_id)";

/// A shipment as rendered from a row of [`SHIPMENT_RENDERED_COLUMNS`]: where its text is not
/// current, its whole row read on `conn`, its route and state parsed.
pub(crate) fn rendered_shipment_row(
    conn: &Connection,
    r: &Row<'_>,
) -> rusqlite::Result<RenderedShipment> {
    let view = r.get_ref(13)?.as_str_or_null()?;
    if let Some(view) = view.filter(|v| crate::rendered::is_current_shipment(v)) {
        return Ok(RenderedShipment::View(Box::new(ShipmentView {
            id: r.get(0)?,
            account_id: r.get(1)?,
            tracking_request_id: r.get(2)?,
            bill_of_lading_number: r.get(3)?,
            scac: r.get(4)?,
            ref_numbers: json(r, 5)?,
            tags: json(r, 6)?,
            tracking_stopped_us: r.get(7)?,
            stopped_reason: r.get(8)?,
            created_us: r.get(9)?,
            updated_us: r.get(10)?,
            customer_name: r.get(11)?,
            customer_id: r.get(12)?,
            view: view.to_owned(),
        })));
    }
    let (id, account_id) = (r.get(0)?, r.get(1)?);
    match shipment(conn, account_id, id)? {
        Some(row) => Ok(RenderedShipment::Row(Box::new(row))),
        None => Err(rusqlite::Error::QueryReturnedNoRows),
    }
}

/// The containers of each shipment in `shipment_ids` as its resource shows them, each
/// shipment's oldest first.
pub(crate) fn container_refs(
    conn: &Connection,
    account_id: Uuid,
    shipment_ids: &[Uuid],
) -> rusqlite::Result<Vec<ContainerRef>> {
    let mut stmt = conn.prepare_cached(
        "SELECT id, pod_terminal FROM containers WHERE account_id = ?1 AND shipment_id = ?2 ORDER BY created_us, id",
    )?;
    let mut ids = shipment_ids.to_vec();
    ids.sort_unstable();
    ids.dedup();
    let mut out = Vec::new();
    for &shipment_id in &ids {
        let rows = stmt.query_map((account_id, shipment_id), |r| {
            Ok(ContainerRef {
                id: r.get(0)?,
                shipment_id,
                pod_terminal: r.get(1)?,
            })
        })?;
        for r in rows {
            out.push(r?);
        }
    }
    Ok(out)
}

/// An account's tracked boxes as charges price them (see [`crate::charges::active_boxes`]),
/// read in place: a whole account's rows without a message per row.
pub(crate) fn priced_boxes(
    conn: &Connection,
    sql: &str,
    account_id: Uuid,
) -> rusqlite::Result<Vec<crate::charges::PricedBox>> {
    let mut st = conn.prepare_cached(sql)?;
    let rows = st.query_map([account_id], |r| {
        Ok(crate::charges::PricedBox {
            id: r.get(0)?,
            number: r.get(1)?,
            shipment_id: r.get(2)?,
            state: json(r, 3)?,
            scac: r.get(4)?,
            route: json(r, 5)?,
            started_us: r.get(6)?,
            clock_wall_us: r.get(7)?,
            clock_source_us: r.get(8)?,
            clock_speed: r.get(9)?,
        })
    })?;
    rows.collect()
}

#[cfg(test)]
mod tests {
    /// A reading connection maps the file's first pages (SQLite may be built without
    /// mapping, or with a lower ceiling: then this fails and says so).
    #[test]
    fn a_reading_connection_maps_the_file() {
        let path = std::env::temp_dir().join(format!("mapped-{}.db", uuid::Uuid::now_v7()));
        let made = rusqlite::Connection::open(&path)
            .and_then(|c| c.execute_batch("PRAGMA journal_mode = WAL; CREATE TABLE t (x INTEGER)"));
        assert!(made.is_ok(), "{made:?}");
        let mapped = super::open(&path)
            .and_then(|c| c.query_row("PRAGMA mmap_size", [], |r| r.get::<_, i64>(0)));
        for suffix in ["", "-wal", "-shm"] {
            let _ = std::fs::remove_file(format!("{}{suffix}", path.display()));
        }
        assert_eq!(mapped.ok(), Some(super::MAPPED_BYTES));
    }
}
