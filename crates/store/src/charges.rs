//! The tariffs and calendars charges are counted with: an account's own (`tariffs`,
//! `calendars`) and the public ones the operator loads (`public_tariffs`,
//! `public_calendars`). Each keeps its document as written (JSON text) beside the columns a
//! selection filters on; what a document means is `boxtrack_core::charges`'.

use std::collections::BTreeMap;

use boxtrack_core::charges::HoldSpan;
use boxtrack_core::paging::{Key, Page};
use boxtrack_core::tracking::times::TimeKey;
use boxtrack_core::tracking::{ContainerState, Equipment, LfdKind, Route};
use sqlx::types::Json;
use uuid::Uuid;

use crate::list::{Arg, Cond, Keyed, ListSpec, Listed};
use crate::{Db, Result, StoreError, now_us, on_db};

/// A stored tariff or calendar: whose it is, and its document.
#[derive(Debug, Clone, PartialEq, Eq, sqlx::FromRow)]
pub struct DocRow {
    /// Id.
    pub id: Uuid,
    /// The owner, or none for a public one.
    pub account_id: Option<Uuid>,
    /// The document as written (JSON).
    pub doc: String,
    /// When it was stored.
    pub created_us: i64,
}

impl Keyed for DocRow {
    fn key(&self) -> Key {
        Key {
            sort_us: self.created_us,
            id: *self.id.as_bytes(),
        }
    }
}

/// What a tariff is selected by.
#[derive(Debug, Clone, Copy)]
pub struct TariffKeys<'a> {
    /// Its kind (`demurrage`, …).
    pub kind: &'a str,
    /// Its issuer (a SCAC or a terminal's code), upper case.
    pub issuer: &'a str,
    /// Its first valid date (`YYYY-MM-DD`).
    pub valid_from: &'a str,
}

/// Stores a tariff of `account` (none: a public one); its row.
pub async fn add_tariff(
    db: &Db,
    account_id: Option<Uuid>,
    keys: TariffKeys<'_>,
    doc: &str,
) -> Result<DocRow> {
    let row = DocRow {
        id: Uuid::now_v7(),
        account_id,
        doc: doc.to_string(),
        created_us: now_us(),
    };
    match account_id {
        Some(a) => {
            on_db!(db, p => sqlx::query("INSERT INTO tariffs (id, account_id, kind, issuer, valid_from, doc, created_us) VALUES ($1, $2, $3, $4, $5, $6, $7)")
            .bind(row.id).bind(a).bind(keys.kind).bind(keys.issuer).bind(keys.valid_from).bind(doc).bind(row.created_us)
            .execute(p).await.map(|_| ())?)
        }
        None => {
            on_db!(db, p => sqlx::query("INSERT INTO public_tariffs (id, kind, issuer, valid_from, doc, created_us) VALUES ($1, $2, $3, $4, $5, $6)")
            .bind(row.id).bind(keys.kind).bind(keys.issuer).bind(keys.valid_from).bind(doc).bind(row.created_us)
            .execute(p).await.map(|_| ())?)
        }
    }
    Ok(row)
}

/// A page of the account's own tariffs (or, with none, the public ones), newest first.
pub async fn tariffs(db: &Db, account_id: Option<Uuid>, page: &Page) -> Result<Listed<DocRow>> {
    list(db, account_id, "tariffs", "public_tariffs", page).await
}

/// A page of the account's own calendars (or, with none, the public ones), newest first.
pub async fn calendars(db: &Db, account_id: Option<Uuid>, page: &Page) -> Result<Listed<DocRow>> {
    list(db, account_id, "calendars", "public_calendars", page).await
}

async fn list(
    db: &Db,
    account_id: Option<Uuid>,
    own: &'static str,
    public: &'static str,
    page: &Page,
) -> Result<Listed<DocRow>> {
    let spec = match account_id {
        Some(a) => ListSpec {
            from: own,
            columns: "id, account_id, doc, created_us",
            sort_col: "created_us",
            ascending: false,
            id_col: "id",
            conds: vec![Cond::new("account_id = ?", vec![Arg::Uuid(a)])],
        },
        None => ListSpec {
            from: public,
            columns: "id, NULL AS account_id, doc, created_us",
            sort_col: "created_us",
            ascending: false,
            id_col: "id",
            conds: vec![],
        },
    };
    crate::list::list(db, &spec, page).await
}

/// One of the account's tariffs, or a public one (`public`: the id names a public tariff the
/// account can read).
pub async fn tariff(db: &Db, account_id: Uuid, id: Uuid) -> Result<Option<DocRow>> {
    one(db, account_id, id, "tariffs", "public_tariffs").await
}

/// One of the account's calendars, or a public one.
pub async fn calendar(db: &Db, account_id: Uuid, id: Uuid) -> Result<Option<DocRow>> {
    one(db, account_id, id, "calendars", "public_calendars").await
}

async fn one(
    db: &Db,
    account_id: Uuid,
    id: Uuid,
    own: &'static str,
    public: &'static str,
) -> Result<Option<DocRow>> {
    let mine = format!(
        "SELECT id, account_id, doc, created_us FROM {own} WHERE id = $1 AND account_id = $2"
    );
    let found: Option<DocRow> = on_db!(db, p => sqlx::query_as(sqlx::AssertSqlSafe(mine)).bind(id).bind(account_id).fetch_optional(p).await?);
    if found.is_some() {
        return Ok(found);
    }
    let theirs =
        format!("SELECT id, NULL AS account_id, doc, created_us FROM {public} WHERE id = $1");
    Ok(
        on_db!(db, p => sqlx::query_as(sqlx::AssertSqlSafe(theirs)).bind(id).fetch_optional(p).await?),
    )
}

/// Deletes one of the account's own tariffs; whether it was there.
pub async fn delete_tariff(db: &Db, account_id: Uuid, id: Uuid) -> Result<bool> {
    Ok(
        on_db!(db, p => sqlx::query("DELETE FROM tariffs WHERE id = $1 AND account_id = $2")
        .bind(id).bind(account_id).execute(p).await?.rows_affected())
            > 0,
    )
}

/// Deletes one of the account's own calendars; whether it was there.
pub async fn delete_calendar(db: &Db, account_id: Uuid, id: Uuid) -> Result<bool> {
    Ok(
        on_db!(db, p => sqlx::query("DELETE FROM calendars WHERE id = $1 AND account_id = $2")
        .bind(id).bind(account_id).execute(p).await?.rows_affected())
            > 0,
    )
}

/// The tariffs a selection chooses among: the account's own and the public ones of `kind` by
/// `issuer` (upper case).
pub async fn candidates(
    db: &Db,
    account_id: Uuid,
    kind: &str,
    issuer: &str,
) -> Result<Vec<DocRow>> {
    const SQL: &str = "SELECT id, account_id, doc, created_us FROM tariffs WHERE account_id = $1 AND kind = $2 AND issuer = $3 \
        UNION ALL SELECT id, NULL, doc, created_us FROM public_tariffs WHERE kind = $2 AND issuer = $3";
    Ok(
        on_db!(db, p => sqlx::query_as(SQL).bind(account_id).bind(kind).bind(issuer).fetch_all(p).await?),
    )
}

/// Stores a calendar of `account` (none: a public one) for a port and a facility (`""`: the
/// whole port); [`StoreError::Duplicate`] when one is there already. A public one replaces
/// the one there (the operator loads files again as they change).
pub async fn add_calendar(
    db: &Db,
    account_id: Option<Uuid>,
    port: &str,
    facility: &str,
    doc: &str,
) -> Result<DocRow> {
    let row = DocRow {
        id: Uuid::now_v7(),
        account_id,
        doc: doc.to_string(),
        created_us: now_us(),
    };
    let done = match account_id {
        Some(a) => {
            on_db!(db, p => sqlx::query("INSERT INTO calendars (id, account_id, port, facility, doc, created_us) VALUES ($1, $2, $3, $4, $5, $6)")
            .bind(row.id).bind(a).bind(port).bind(facility).bind(doc).bind(row.created_us)
            .execute(p).await.map(|_| ()))
        }
        None => {
            on_db!(db, p => sqlx::query("INSERT INTO public_calendars (id, port, facility, doc, created_us) VALUES ($1, $2, $3, $4, $5) \
            ON CONFLICT (port, facility) DO UPDATE SET doc = excluded.doc, created_us = excluded.created_us")
            .bind(row.id).bind(port).bind(facility).bind(doc).bind(row.created_us)
            .execute(p).await.map(|_| ()))
        }
    };
    match done {
        Err(e) if crate::unique_violation(&e) => Err(StoreError::Duplicate("calendar")),
        other => Ok(other.map(|()| row)?),
    }
}

/// The calendars of a port and of one of its facilities (`""`: none) the account reads: its own
/// where it has one, else the public one; `(port's, facility's)`.
pub async fn calendars_for(
    db: &Db,
    account_id: Uuid,
    port: &str,
    facility: &str,
) -> Result<(Option<String>, Option<String>)> {
    let port_doc = calendar_doc(db, account_id, port, "").await?;
    let facility_doc = if facility.is_empty() {
        None
    } else {
        calendar_doc(db, account_id, port, facility).await?
    };
    Ok((port_doc, facility_doc))
}

/// The account's own calendar of a place, else the public one.
async fn calendar_doc(
    db: &Db,
    account_id: Uuid,
    port: &str,
    facility: &str,
) -> Result<Option<String>> {
    const MINE: &str =
        "SELECT doc FROM calendars WHERE account_id = $1 AND port = $2 AND facility = $3";
    const PUBLIC: &str = "SELECT doc FROM public_calendars WHERE port = $1 AND facility = $2";
    let mine: Option<String> = on_db!(db, p => sqlx::query_scalar(MINE).bind(account_id).bind(port).bind(facility).fetch_optional(p).await?);
    if mine.is_some() {
        return Ok(mine);
    }
    Ok(
        on_db!(db, p => sqlx::query_scalar(PUBLIC).bind(port).bind(facility).fetch_optional(p).await?),
    )
}

/// What a box's charges are counted from of its merged state (the rest of the stored state is
/// skipped when it is read, not kept): a whole account's boxes are read at once.
#[derive(Debug, Clone, Default, serde::Deserialize)]
#[serde(default)]
pub struct PricedState {
    /// Equipment.
    pub equipment: Equipment,
    /// Milestone times.
    #[serde(deserialize_with = "boxtrack_core::tracking::times::lenient")]
    pub times: BTreeMap<TimeKey, i64>,
    /// First available for pickup.
    pub first_available_us: Option<i64>,
    /// Holds as the reports followed them.
    pub hold_spans: Vec<HoldSpan>,
    /// The terminal at the port of discharge.
    pub pod_terminal: Option<String>,
    /// Last free days by source.
    pub lfd: BTreeMap<LfdKind, i64>,
}

impl PricedState {
    /// As a container's state (what it does not hold left empty).
    pub fn into_state(self) -> ContainerState {
        ContainerState {
            equipment: self.equipment,
            times: self.times,
            first_available_us: self.first_available_us,
            hold_spans: self.hold_spans,
            pod_terminal: self.pod_terminal,
            lfd: self.lfd,
            ..Default::default()
        }
    }
}

/// One of an account's tracked boxes as its charges are counted: its state, and its
/// shipment's line and route.
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct PricedBox {
    /// The container.
    pub id: Uuid,
    /// Its number.
    pub number: String,
    /// Its shipment.
    pub shipment_id: Uuid,
    /// What its charges are counted from of its merged state.
    #[sqlx(json)]
    pub state: PricedState,
    /// The shipment's line.
    pub scac: String,
    /// The shipment's route.
    #[sqlx(json)]
    pub route: Route,
    /// Its sandbox run's start, if it plays one.
    pub started_us: Option<i64>,
    /// The reading of the clock of its source (see [`crate::sandbox::DataClockRow`]).
    pub clock_wall_us: Option<i64>,
    /// Likewise.
    pub clock_source_us: Option<i64>,
    /// Likewise.
    pub clock_speed: Option<f64>,
}

impl PricedBox {
    /// The clock of the box's data, as [`crate::sandbox::data_clocks`] reads it.
    pub fn clock(&self) -> crate::sandbox::DataClockRow {
        crate::sandbox::DataClockRow {
            id: self.shipment_id,
            started_us: self.started_us,
            clock_wall_us: self.clock_wall_us,
            clock_source_us: self.clock_source_us,
            clock_speed: self.clock_speed,
        }
    }
}

/// How many shares [`active_boxes`] reads an account's boxes in on this backend: two on
/// PostgreSQL (each share's states written out by a backend of its own and parsed on a
/// thread of their own, so both cores work), one on SQLite (read in place).
pub fn box_shares(db: &Db) -> u8 {
    match db {
        Db::Sqlite(..) => 1,
        Db::Postgres(_) => 2,
    }
}

/// Share `share` (from 0) of `shares` of the account's tracked (active) boxes (by the last
/// byte of their ids; all of them with one share) with their shipments' lines and routes, in
/// no particular order: what its exposure is summed over. Each box's state is read for what
/// its charges are counted from only (see [`PricedState`]).
pub async fn active_boxes(
    db: &Db,
    account_id: Uuid,
    (share, shares): (u8, u8),
) -> Result<Vec<PricedBox>> {
    const COLUMNS: &str = "SELECT c.id, c.number, c.shipment_id, c.state, s.scac, s.route, \
        r.started_us, s.clock_wall_us, s.clock_source_us, s.clock_speed \
        FROM containers c JOIN shipments s ON s.account_id = c.account_id AND s.id = c.shipment_id \
        LEFT JOIN sandbox_runs r ON r.shipment_id = s.id AND r.account_id = s.account_id \
        WHERE c.account_id = $1 AND c.active = TRUE";
    const SHARE: &str = " AND get_byte(uuid_send(c.id), 15) % $3 = $2";
    match db {
        Db::Sqlite(p, _) => {
            // a whole account's rows read in place (no message per row)
            if let Some(read) = crate::sqlite_reader::in_place(db, |c| {
                crate::sqlite_reader::priced_boxes(c, &COLUMNS.replace("$1", "?1"), account_id)
            }) {
                return read;
            }
            Ok(sqlx::query_as(COLUMNS)
                .bind(account_id)
                .fetch_all(p)
                .await?)
        }
        Db::Postgres(p) if shares > 1 => Ok(sqlx::query_as(sqlx::AssertSqlSafe(format!(
            "{COLUMNS}{SHARE}"
        )))
        .bind(account_id)
        .bind(i32::from(share))
        .bind(i32::from(shares))
        .fetch_all(p)
        .await?),
        Db::Postgres(p) => Ok(sqlx::query_as(COLUMNS)
            .bind(account_id)
            .fetch_all(p)
            .await?),
    }
}

/// Records that the charge webhook `event` for the account's container and `kind` is sent,
/// and appends the event (with `payload`, about the container) in the same transaction —
/// unless it was recorded before. Whether it was appended now.
pub async fn notice(
    db: &Db,
    account_id: Uuid,
    (container_id, kind): (Uuid, &str),
    event: &str,
    payload: &serde_json::Value,
    now_us: i64,
) -> Result<bool> {
    let mut tx = db.begin().await?;
    let inserted = crate::on_tx!(&mut tx, c => sqlx::query(
        "INSERT INTO charge_notices (account_id, container_id, kind, event, created_us) VALUES ($1, $2, $3, $4, $5) ON CONFLICT DO NOTHING")
        .bind(account_id).bind(container_id).bind(kind).bind(event).bind(now_us)
        .execute(c).await?.rows_affected());
    if inserted == 0 {
        return Ok(false);
    }
    crate::events::append(
        &mut tx,
        account_id,
        event,
        "container",
        container_id,
        payload,
        now_us,
    )
    .await?;
    tx.commit().await?;
    Ok(true)
}

/// The accounts with an active webhook that names one of `events`.
pub async fn accounts_listening(db: &Db, events: &[&str]) -> Result<Vec<Uuid>> {
    let hooks: Vec<(Uuid, Json<Vec<String>>)> = on_db!(db, p => sqlx::query_as(
        "SELECT account_id, events FROM webhooks WHERE active = TRUE")
        .fetch_all(p).await?);
    let mut out: Vec<Uuid> = hooks
        .into_iter()
        .filter(|(_, named)| named.0.iter().any(|e| events.contains(&e.as_str())))
        .map(|(a, _)| a)
        .collect();
    out.sort_unstable();
    out.dedup();
    Ok(out)
}
