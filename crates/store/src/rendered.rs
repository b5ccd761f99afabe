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

/// What every text of `kind` this process's renderer writes begins with, when it has one.
pub(crate) fn tag_of(kind: RenderedKind) -> Option<&'static str> {
    RENDERER.get().map(|r| match kind {
        RenderedKind::Containers => r.tag,
        RenderedKind::Shipments => r.shipment_tag,
    })
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
pub enum RenderedKind {
    /// Containers (`container_views`).
    Containers,
    /// Shipments (`shipment_views`).
    Shipments,
}

impl RenderedKind {
    /// Its name in `shown_passes`.
    fn name(self) -> &'static str {
        match self {
            RenderedKind::Containers => "containers",
            RenderedKind::Shipments => "shipments",
        }
    }
}

/// How far before the start of the last completed pass a later pass looks for changed rows:
/// a merge takes its time when it begins and may commit after the pass went by, and the
/// processes' clocks may differ by a little.
pub const CHANGED_SLACK_US: i64 = 10 * 60 * 1_000_000;

/// Where a pass over the stored rendered texts stands ([`begin`], [`refresh`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cursor {
    /// Every row after this one (account, id): on PostgreSQL in `(account_id, id)` order, its
    /// key; on SQLite in id order, its key (the account is then only carried along).
    Every(uuid::Uuid, uuid::Uuid),
    /// The rows changed at or after `since_us`, account by account (by id), and in an
    /// account by `(updated_us, id)` after `after`.
    Changed {
        /// The earliest change the pass looks at.
        since_us: i64,
        /// The account it is in.
        account: uuid::Uuid,
        /// The last row it read in that account.
        after: (i64, uuid::Uuid),
    },
}

impl Cursor {
    /// A pass over the rows changed at or after `since_us`, from the first account.
    pub fn changed_since(since_us: i64) -> Self {
        Cursor::Changed {
            since_us,
            account: uuid::Uuid::nil(),
            after: (since_us, uuid::Uuid::nil()),
        }
    }
}

/// A pass [`begin`] began: where it starts, and what [`passed`] records once it went to the
/// end.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Pass {
    /// The kind of row it passes over.
    pub kind: RenderedKind,
    /// Where it starts: every row where the last completed pass wrote another tag (or none
    /// did), else the rows changed since that pass began.
    pub from: Cursor,
    /// When it began.
    pub started_us: i64,
    /// The generation of its `shown_passes` row when it began.
    generation: i64,
}

/// Begins a pass over the rendered texts of `kind` at `now_us`: `None` when this process has
/// no renderer. Where the last completed pass wrote this renderer's tag, the pass looks only
/// at rows changed since that pass began (less [`CHANGED_SLACK_US`]): the others' texts are
/// this renderer's or were rewritten by a merge since. Where it wrote another tag, that
/// record is withdrawn before this pass writes anything, so that a pass of the other tag
/// that later goes to the end cannot take this one's texts for its own.
pub async fn begin(db: &crate::Db, kind: RenderedKind, now_us: i64) -> crate::Result<Option<Pass>> {
    let Some(tag) = tag_of(kind) else {
        return Ok(None);
    };
    let last: Option<(Option<String>, Option<i64>, i64)> = crate::on_db!(db, p => sqlx::query_as(
        "SELECT tag, started_us, generation FROM shown_passes WHERE shown = $1",
    )
    .bind(kind.name())
    .fetch_optional(p)
    .await?);
    let (from, generation) = match last {
        Some((Some(last), Some(started), generation)) if last == tag => (
            Cursor::changed_since(started.saturating_sub(CHANGED_SLACK_US)),
            generation,
        ),
        Some((Some(_), _, _)) => (
            Cursor::Every(uuid::Uuid::nil(), uuid::Uuid::nil()),
            forget(db, kind).await?,
        ),
        Some((None, _, generation)) => (
            Cursor::Every(uuid::Uuid::nil(), uuid::Uuid::nil()),
            generation,
        ),
        None => (Cursor::Every(uuid::Uuid::nil(), uuid::Uuid::nil()), 0),
    };
    Ok(Some(Pass {
        kind,
        from,
        started_us: now_us,
        generation,
    }))
}

/// Records that `pass` went to the end, where no other pass wrote its record since it
/// began. Where one did and that one's tag is not this renderer's (or it withdrew the
/// record), the record is withdrawn: which texts are whose is no longer known, and the next
/// start passes over every row. Returns whether the pass was recorded.
pub async fn passed(db: &crate::Db, pass: &Pass) -> crate::Result<bool> {
    let Some(tag) = tag_of(pass.kind) else {
        return Ok(false);
    };
    let name = pass.kind.name();
    let recorded = crate::on_db!(db, p => sqlx::query(
        "INSERT INTO shown_passes (shown, tag, started_us, generation) VALUES ($1, $2, $3, 1) \
         ON CONFLICT (shown) DO UPDATE SET tag = excluded.tag, started_us = excluded.started_us, \
         generation = shown_passes.generation + 1 WHERE shown_passes.generation = $4",
    )
    .bind(name)
    .bind(tag)
    .bind(pass.started_us)
    .bind(pass.generation)
    .execute(p)
    .await?
    .rows_affected());
    if recorded > 0 {
        return Ok(true);
    }
    let now: Option<String> = crate::on_db!(db, p => sqlx::query_scalar(
        "SELECT tag FROM shown_passes WHERE shown = $1",
    )
    .bind(name)
    .fetch_optional(p)
    .await?
    .flatten());
    if now.as_deref() != Some(tag) {
        forget(db, pass.kind).await?;
    }
    Ok(false)
}

/// Withdraws the record of the last completed pass over `kind`; returns its new generation.
async fn forget(db: &crate::Db, kind: RenderedKind) -> crate::Result<i64> {
    Ok(crate::on_db!(db, p => sqlx::query_scalar(
        "INSERT INTO shown_passes (shown, tag, started_us, generation) VALUES ($1, NULL, NULL, 1) \
         ON CONFLICT (shown) DO UPDATE SET tag = NULL, started_us = NULL, \
         generation = shown_passes.generation + 1 RETURNING generation",
    )
    .bind(kind.name())
    .fetch_one(p)
    .await?))
}

/// Writes the text of the next `batch` containers or shipments at `at` whose stored text is
/// missing or not current: rows written before this version of the renderer, or by a
/// process without one. A text is taken as current when it begins with the renderer's tag
/// (a text that does yet fails the renderer's whole check is shown from the state by every
/// read, as before, and left to the row's next merge); the states of current rows are not
/// read. A row whose state a merge changed meanwhile is left to that merge's text. Returns
/// how many texts it wrote, and where the pass goes on (`None` once no row is left).
pub async fn refresh(
    db: &crate::Db,
    kind: RenderedKind,
    at: Cursor,
    batch: i64,
) -> crate::Result<(usize, Option<Cursor>)> {
    let Some(tag) = tag_of(kind) else {
        return Ok((0, None));
    };
    let rows = stale(db, kind, at, batch, tag).await?;
    let next = match (at, rows.last()) {
        (Cursor::Every(..), last) => last.map(|r| Cursor::Every(r.account_id, r.id)),
        (
            Cursor::Changed {
                since_us, account, ..
            },
            Some(last),
        ) if i64::try_from(rows.len()).unwrap_or(i64::MAX) >= batch => Some(Cursor::Changed {
            since_us,
            account,
            after: (last.updated_us, last.id),
        }),
        (
            Cursor::Changed {
                since_us, account, ..
            },
            _,
        ) => next_account(db, account)
            .await?
            .map(|account| Cursor::Changed {
                since_us,
                account,
                after: (since_us, uuid::Uuid::nil()),
            }),
    };
    let mut wrote = 0;
    for row in rows {
        let (Some(text), Some(state)) = (row.text(kind), row.state.as_deref()) else {
            continue;
        };
        wrote += write_if_same(db, kind, row.account_id, row.id, state, text).await?;
        if kind == RenderedKind::Containers
            && let Some(status) = row.other.as_deref()
        {
            write_gates(db, row.account_id, row.id, state, status).await?;
        }
    }
    Ok((wrote, next))
}

/// The first account after `account`, by id.
async fn next_account(db: &crate::Db, account: uuid::Uuid) -> crate::Result<Option<uuid::Uuid>> {
    Ok(crate::on_db!(db, p => sqlx::query_scalar(
        "SELECT id FROM accounts WHERE id > $1 ORDER BY id LIMIT 1",
    )
    .bind(account)
    .fetch_optional(p)
    .await?))
}

/// Writes the release gate columns of a container whose state is still `state` (rows written
/// before the columns were kept are filled so, by the pass their new text starts).
async fn write_gates(
    db: &crate::Db,
    account_id: uuid::Uuid,
    id: uuid::Uuid,
    state: &str,
    status: &str,
) -> crate::Result<()> {
    use boxtrack_core::tracking::release;
    let Ok(st) = serde_json::from_str::<ContainerState>(state) else {
        return Ok(());
    };
    let (held, released) =
        release::gate_sets(&release::gates(&st, release::left_by_status(status)));
    let sql = match db.backend() {
        crate::Backend::Postgres => {
            "UPDATE containers SET gates_held = $1, gates_released = $2 WHERE account_id = $5 AND id = $3 AND state = $4::jsonb"
        }
        crate::Backend::Sqlite => {
            "UPDATE containers SET gates_held = $1, gates_released = $2 WHERE account_id = $5 AND id = $3 AND state = $4"
        }
    };
    crate::on_db!(db, p => sqlx::query(sql)
        .bind(held)
        .bind(released)
        .bind(id)
        .bind(state)
        .bind(account_id)
        .execute(p)
        .await?
        .rows_affected());
    Ok(())
}

/// A row [`refresh`] reads: its state as stored and what else its text is made of, where its
/// stored text is missing or does not begin with the renderer's tag (none where it does: the
/// database compares the tag, so a current row's state and text are not read out).
#[derive(sqlx::FromRow)]
struct Stale {
    account_id: uuid::Uuid,
    id: uuid::Uuid,
    state: Option<String>,
    /// A container's status, or a shipment's route.
    other: Option<String>,
    ready: bool,
    updated_us: i64,
}

impl Stale {
    /// The text to write, or `None` where the stored one is current or a state this
    /// version cannot read (its reads parse it, and fail as they would have).
    fn text(&self, kind: RenderedKind) -> Option<String> {
        let state = self.state.as_deref()?;
        let other = self.other.as_deref()?;
        match kind {
            RenderedKind::Containers => {
                let state = serde_json::from_str::<ContainerState>(state).ok()?;
                container(&state, other, self.ready)
            }
            RenderedKind::Shipments => {
                let state = serde_json::from_str::<ShipmentState>(state).ok()?;
                let route = serde_json::from_str::<Route>(other).ok()?;
                shipment(&route, &state)
            }
        }
    }
}

/// The next `batch` rows at `at`, with the states of those whose text does not begin with
/// `tag`.
async fn stale(
    db: &crate::Db,
    kind: RenderedKind,
    at: Cursor,
    batch: i64,
    tag: &str,
) -> crate::Result<Vec<Stale>> {
    use crate::Backend::{Postgres, Sqlite};
    let (differs, text) = match db.backend() {
        Postgres => ("v.view IS NULL OR left(v.view, length($1)) <> $1", "::text"),
        Sqlite => ("v.view IS NULL OR substr(v.view, 1, length($1)) <> $1", ""),
    };
    let from = match kind {
        RenderedKind::Containers => format!(
            "SELECT r.account_id, r.id, CASE WHEN {differs} THEN r.state{text} END AS state, \
             r.current_status AS other, r.ready_for_pickup AS ready, r.updated_us \
             FROM containers r LEFT JOIN container_views v ON v.account_id = r.account_id AND v.container_id = r.id"
        ),
        RenderedKind::Shipments => format!(
            "SELECT r.account_id, r.id, CASE WHEN {differs} THEN r.state{text} END AS state, \
             CASE WHEN {differs} THEN r.route{text} END AS other, FALSE AS ready, r.updated_us \
             FROM shipments r LEFT JOIN shipment_views v ON v.account_id = r.account_id AND v.shipment_id = r.id"
        ),
    };
    let rows = match at {
        Cursor::Every(account, after) => match db.backend() {
            // each backend walks its own key: a sort of every row per batch otherwise
            Postgres => {
                let sql = format!(
                    "{from} WHERE (r.account_id, r.id) > ($2, $3) ORDER BY r.account_id, r.id LIMIT $4"
                );
                crate::on_db!(db, p => sqlx::query_as(sqlx::AssertSqlSafe(sql)).bind(tag).bind(account).bind(after).bind(batch).fetch_all(p).await?)
            }
            Sqlite => {
                let sql = format!("{from} WHERE r.id > $2 ORDER BY r.id LIMIT $3");
                crate::on_db!(db, p => sqlx::query_as(sqlx::AssertSqlSafe(sql)).bind(tag).bind(after).bind(batch).fetch_all(p).await?)
            }
        },
        Cursor::Changed { account, after, .. } => {
            let sql = format!(
                "{from} WHERE r.account_id = $2 AND (r.updated_us, r.id) > ($3, $4) \
                 ORDER BY r.updated_us, r.id LIMIT $5"
            );
            crate::on_db!(db, p => sqlx::query_as(sqlx::AssertSqlSafe(sql)).bind(tag).bind(account).bind(after.0).bind(after.1).bind(batch).fetch_all(p).await?)
        }
    };
    Ok(rows)
}

/// Writes `text` as the row's, only while its state is the one it was rendered from (on
/// PostgreSQL the row locked, so that a merge committing meanwhile is waited for and then
/// seen). Returns how many rows it wrote (0 or 1).
async fn write_if_same(
    db: &crate::Db,
    kind: RenderedKind,
    account_id: uuid::Uuid,
    id: uuid::Uuid,
    state: &str,
    text: String,
) -> crate::Result<usize> {
    use crate::Backend::{Postgres, Sqlite};
    let sql = match (kind, db.backend()) {
        (RenderedKind::Containers, Postgres) => {
            "WITH same AS (SELECT id, account_id FROM containers WHERE account_id = $4 AND id = $2 AND state = $3::jsonb FOR UPDATE) \
            INSERT INTO container_views (container_id, account_id, view) SELECT id, account_id, $1 FROM same \
            ON CONFLICT (account_id, container_id) DO UPDATE SET view = excluded.view"
        }
        (RenderedKind::Containers, Sqlite) => {
            "INSERT INTO container_views (container_id, account_id, view) SELECT id, account_id, $1 FROM containers WHERE account_id = $4 AND id = $2 AND state = $3 \
            ON CONFLICT (container_id) DO UPDATE SET view = excluded.view"
        }
        (RenderedKind::Shipments, Postgres) => {
            "WITH same AS (SELECT id, account_id FROM shipments WHERE account_id = $4 AND id = $2 AND state = $3::jsonb FOR UPDATE) \
            INSERT INTO shipment_views (shipment_id, account_id, view) SELECT id, account_id, $1 FROM same \
            ON CONFLICT (account_id, shipment_id) DO UPDATE SET view = excluded.view"
        }
        (RenderedKind::Shipments, Sqlite) => {
            "INSERT INTO shipment_views (shipment_id, account_id, view) SELECT id, account_id, $1 FROM shipments WHERE account_id = $4 AND id = $2 AND state = $3 \
            ON CONFLICT (shipment_id) DO UPDATE SET view = excluded.view"
        }
    };
    let done = crate::on_db!(db, p => sqlx::query(sql)
        .bind(text)
        .bind(id)
        .bind(state)
        .bind(account_id)
        .execute(p)
        .await?
        .rows_affected());
    Ok(usize::try_from(done).unwrap_or(0))
}
