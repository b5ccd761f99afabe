//! What a container's resource shows of its merged state, written beside the state by the
//! merge that writes the state, so that a read shows it without parsing the state again.
//!
//! The text is made by the front end's renderer (`boxtrack_views`, which this crate cannot
//! name: it depends on this one), installed once per process with [`install`]. A process
//! without one writes no text, and a read finds none; a text written by another renderer (an
//! older or newer build) is not current for this one. Either way the read parses the state
//! and renders it as before: the text is a shortcut, never the only copy of anything.

use std::sync::OnceLock;

use boxtrack_core::tracking::ContainerState;

/// How a container's merged state becomes the text stored beside it.
#[derive(Debug, Clone, Copy)]
pub struct Renderer {
    /// The text of the state, its derived status and readiness.
    pub render: fn(&ContainerState, &str, bool) -> String,
    /// Whether a stored text is this renderer's (its version and shape).
    pub current: fn(&str) -> bool,
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

/// Whether `stored` was written by this process's renderer: a read may show it as it is.
pub(crate) fn is_current(stored: &str) -> bool {
    RENDERER.get().is_some_and(|r| (r.current)(stored))
}

/// Writes the text of the containers after `after` (by id, `batch` of them read) whose
/// stored text is missing or not current: rows written before this version of the
/// renderer, or by a process without one. A row whose state a merge changed meanwhile is
/// left to that merge's text. Returns how many texts it wrote, and the last id read (`None`
/// once no container is left after `after`).
pub async fn refresh(
    db: &crate::Db,
    after: Option<uuid::Uuid>,
    batch: i64,
) -> crate::Result<(usize, Option<uuid::Uuid>)> {
    type Row = (uuid::Uuid, String, String, bool, Option<String>);
    if RENDERER.get().is_none() {
        return Ok((0, None));
    }
    let after = after.unwrap_or(uuid::Uuid::nil());
    let rows: Vec<Row> = crate::on_db!(db, p => sqlx::query_as(match db.backend() {
        crate::Backend::Postgres => "SELECT c.id, c.state::text, c.current_status, c.ready_for_pickup, v.view FROM containers c LEFT JOIN container_views v ON v.container_id = c.id WHERE c.id > $1 ORDER BY c.id LIMIT $2",
        crate::Backend::Sqlite => "SELECT c.id, c.state, c.current_status, c.ready_for_pickup, v.view FROM containers c LEFT JOIN container_views v ON v.container_id = c.id WHERE c.id > $1 ORDER BY c.id LIMIT $2",
    })
    .bind(after)
    .bind(batch)
    .fetch_all(p)
    .await?);
    let last = rows.last().map(|r| r.0);
    let mut wrote = 0;
    for (id, state, status, ready, view) in rows {
        if view.as_deref().is_some_and(is_current) {
            continue;
        }
        // a state this version cannot read is left as it is: its reads parse it, and fail
        // as they would have
        let Ok(parsed) = serde_json::from_str::<ContainerState>(&state) else {
            continue;
        };
        let Some(text) = container(&parsed, &status, ready) else {
            continue;
        };
        // only while the state is the one it was rendered from (on PostgreSQL the row locked,
        // so that a merge committing meanwhile is waited for and then seen)
        let done = crate::on_db!(db, p => sqlx::query(match db.backend() {
            crate::Backend::Postgres => "WITH same AS (SELECT id, account_id FROM containers WHERE id = $2 AND state = $3::jsonb FOR UPDATE) \
                INSERT INTO container_views (container_id, account_id, view) SELECT id, account_id, $1 FROM same \
                ON CONFLICT (container_id) DO UPDATE SET view = excluded.view",
            crate::Backend::Sqlite => "INSERT INTO container_views (container_id, account_id, view) SELECT id, account_id, $1 FROM containers WHERE id = $2 AND state = $3 \
                ON CONFLICT (container_id) DO UPDATE SET view = excluded.view",
        })
        .bind(text)
        .bind(id)
        .bind(state)
        .execute(p)
        .await?
        .rows_affected());
        wrote += usize::try_from(done).unwrap_or(0);
    }
    Ok((wrote, last))
}
