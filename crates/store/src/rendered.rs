//! What a container's or a shipment's resource shows of its merged state, written beside the
//! state by the merge that writes the state, so that a read shows it without parsing the
//! state again.
//!
//! The text is made by the front end's renderer (`boxtrack_views`, which this crate cannot
//! name: it depends on this one), installed once per process with [`install`]. A process
//! without one writes no text, and a read finds none; a text written by another renderer (an
//! older or newer build) is not current for this one. Either way the read parses the state
//! and renders it as before: the text is a shortcut, never the only copy of anything.

use std::sync::OnceLock;

use boxtrack_core::tracking::{ContainerState, Route, ShipmentState};

/// How a container's or a shipment's merged state becomes the text stored beside it.
#[derive(Debug, Clone, Copy)]
pub struct Renderer {
    /// The text of a container's state, its derived status and readiness.
    pub render: fn(&ContainerState, &str, bool) -> String,
    /// Whether a stored container's text is this renderer's (its version and shape).
    pub current: fn(&str) -> bool,
    /// The text of a shipment's route and voyage state.
    pub render_shipment: fn(&Route, &ShipmentState) -> String,
    /// Whether a stored shipment's text is this renderer's.
    pub shipment_current: fn(&str) -> bool,
    /// What every container text `render` writes begins with (its version): [`refresh`]
    /// takes a stored text that begins so as this renderer's without reading it, and reads
    /// a state only where the text does not.
    pub tag: &'static str,
    /// What every shipment text `render_shipment` writes begins with.
    pub shipment_tag: &'static str,
}

static RENDERER: OnceLock<Renderer> = OnceLock::new();

/// Makes `renderer` this process's (the first installed stays: every caller installs the
/// same one).
pub fn install(renderer: Renderer) {
    let _ = RENDERER.set(renderer);
}

/// The text to store beside `state`, when a renderer is installed.
pub(crate) fn container(state: &ContainerState, status: &str, ready: bool) -> Option<String> {
    RENDERER.get().map(|r| (r.render)(state, status, ready))
}

/// The text to store beside a shipment's `route` and `state`, when a renderer is installed.
pub(crate) fn shipment(route: &Route, state: &ShipmentState) -> Option<String> {
    RENDERER.get().map(|r| (r.render_shipment)(route, state))
}

/// Whether `stored` was written by this process's renderer: a read may show it as it is.
pub(crate) fn is_current(stored: &str) -> bool {
    RENDERER.get().is_some_and(|r| (r.current)(stored))
}

/// Whether a shipment's `stored` text was written by this process's renderer.
pub(crate) fn is_current_shipment(stored: &str) -> bool {
    RENDERER.get().is_some_and(|r| (r.shipment_current)(stored))
}

/// Which rows [`refresh`] writes the texts of.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shown {
    /// Containers (`container_views`).
    Containers,
    /// Shipments (`shipment_views`).
    Shipments,
}

/// Writes the text of the containers or shipments after `after` (by id, `batch` of them
/// read) whose stored text is missing or not current: rows written before this version of
/// the renderer, or by a process without one. A text is taken as current when it begins with
/// the renderer's tag (a text that does yet fails the renderer's whole check is shown from
/// the state by every read, as before, and left to the row's next merge); the states of
/// current rows are not read. A row whose state a merge changed meanwhile is
/// left to that merge's text. Returns how many texts it wrote, and the last id read (`None`
/// once no row is left after `after`).
pub async fn refresh(
    db: &crate::Db,
    shown: Shown,
    after: Option<uuid::Uuid>,
    batch: i64,
) -> crate::Result<(usize, Option<uuid::Uuid>)> {
    let Some(renderer) = RENDERER.get() else {
        return Ok((0, None));
    };
    let tag = match shown {
        Shown::Containers => renderer.tag,
        Shown::Shipments => renderer.shipment_tag,
    };
    let after = after.unwrap_or(uuid::Uuid::nil());
    let rows = stale(db, shown, after, batch, tag).await?;
    let last = rows.last().map(|r| r.id);
    let mut wrote = 0;
    for row in rows {
        let (Some(text), Some(state)) = (row.text(shown), row.state.as_deref()) else {
            continue;
        };
        wrote += write_if_same(db, shown, row.id, state, text).await?;
    }
    Ok((wrote, last))
}

/// A row [`refresh`] reads: its state as stored and what else its text is made of, where its
/// stored text is missing or does not begin with the renderer's tag (none where it does: the
/// database compares the tag, so a current row's state and text are not read out).
#[derive(sqlx::FromRow)]
struct Stale {
    id: uuid::Uuid,
    state: Option<String>,
    /// A container's status, or a shipment's route.
    other: Option<String>,
    ready: bool,
}

impl Stale {
    /// The text to write, or `None` where the stored one is current or a state this
    /// version cannot read (its reads parse it, and fail as they would have).
    fn text(&self, shown: Shown) -> Option<String> {
        let state = self.state.as_deref()?;
        let other = self.other.as_deref()?;
        match shown {
            Shown::Containers => {
                let state = serde_json::from_str::<ContainerState>(state).ok()?;
                container(&state, other, self.ready)
            }
            Shown::Shipments => {
                let state = serde_json::from_str::<ShipmentState>(state).ok()?;
                let route = serde_json::from_str::<Route>(other).ok()?;
                shipment(&route, &state)
            }
        }
    }
}

/// The next `batch` rows after `after`, with the states of those whose text does not begin
/// with `tag`.
async fn stale(
    db: &crate::Db,
    shown: Shown,
    after: uuid::Uuid,
    batch: i64,
    tag: &str,
) -> crate::Result<Vec<Stale>> {
    use crate::Backend::{Postgres, Sqlite};
    let sql = match (shown, db.backend()) {
        (Shown::Containers, Postgres) => {
            "SELECT c.id, CASE WHEN v.view IS NULL OR left(v.view, length($3)) <> $3 THEN c.state::text END AS state, c.current_status AS other, c.ready_for_pickup AS ready FROM containers c LEFT JOIN container_views v ON v.container_id = c.id WHERE c.id > $1 ORDER BY c.id LIMIT $2"
        }
        (Shown::Containers, Sqlite) => {
            "SELECT c.id, CASE WHEN v.view IS NULL OR substr(v.view, 1, length($3)) <> $3 THEN c.state END AS state, c.current_status AS other, c.ready_for_pickup AS ready FROM containers c LEFT JOIN container_views v ON v.container_id = c.id WHERE c.id > $1 ORDER BY c.id LIMIT $2"
        }
        (Shown::Shipments, Postgres) => {
            "SELECT s.id, CASE WHEN v.view IS NULL OR left(v.view, length($3)) <> $3 THEN s.state::text END AS state, CASE WHEN v.view IS NULL OR left(v.view, length($3)) <> $3 THEN s.route::text END AS other, FALSE AS ready FROM shipments s LEFT JOIN shipment_views v ON v.shipment_id = s.id WHERE s.id > $1 ORDER BY s.id LIMIT $2"
        }
        (Shown::Shipments, Sqlite) => {
            "SELECT s.id, CASE WHEN v.view IS NULL OR substr(v.view, 1, length($3)) <> $3 THEN s.state END AS state, CASE WHEN v.view IS NULL OR substr(v.view, 1, length($3)) <> $3 THEN s.route END AS other, FALSE AS ready FROM shipments s LEFT JOIN shipment_views v ON v.shipment_id = s.id WHERE s.id > $1 ORDER BY s.id LIMIT $2"
        }
    };
    Ok(
        crate::on_db!(db, p => sqlx::query_as(sql).bind(after).bind(batch).bind(tag).fetch_all(p).await?),
    )
}

/// Writes `text` as the row's, only while its state is the one it was rendered from (on
/// PostgreSQL the row locked, so that a merge committing meanwhile is waited for and then
/// seen). Returns how many rows it wrote (0 or 1).
async fn write_if_same(
    db: &crate::Db,
    shown: Shown,
    id: uuid::Uuid,
    state: &str,
    text: String,
) -> crate::Result<usize> {
    use crate::Backend::{Postgres, Sqlite};
    let sql = match (shown, db.backend()) {
        (Shown::Containers, Postgres) => {
            "WITH same AS (SELECT id, account_id FROM containers WHERE id = $2 AND state = $3::jsonb FOR UPDATE) \
            INSERT INTO container_views (container_id, account_id, view) SELECT id, account_id, $1 FROM same \
            ON CONFLICT (container_id) DO UPDATE SET view = excluded.view"
        }
        (Shown::Containers, Sqlite) => {
            "INSERT INTO container_views (container_id, account_id, view) SELECT id, account_id, $1 FROM containers WHERE id = $2 AND state = $3 \
            ON CONFLICT (container_id) DO UPDATE SET view = excluded.view"
        }
        (Shown::Shipments, Postgres) => {
            "WITH same AS (SELECT id, account_id FROM shipments WHERE id = $2 AND state = $3::jsonb FOR UPDATE) \
            INSERT INTO shipment_views (shipment_id, account_id, view) SELECT id, account_id, $1 FROM same \
            ON CONFLICT (shipment_id) DO UPDATE SET view = excluded.view"
        }
        (Shown::Shipments, Sqlite) => {
            "INSERT INTO shipment_views (shipment_id, account_id, view) SELECT id, account_id, $1 FROM shipments WHERE id = $2 AND state = $3 \
            ON CONFLICT (shipment_id) DO UPDATE SET view = excluded.view"
        }
    };
    let done = crate::on_db!(db, p => sqlx::query(sql)
        .bind(text)
        .bind(id)
        .bind(state)
        .execute(p)
        .await?
        .rows_affected());
    Ok(usize::try_from(done).unwrap_or(0))
}
