//! Reading shipments, containers and transport events for the API.

use boxtrack_core::paging::{Key, Page};
use boxtrack_core::tracking::{ContainerState, Route, ShipmentState};
use sqlx::types::Json;
use uuid::Uuid;

use crate::list::{Arg, Cond, Keyed, ListSpec, Listed};
use crate::{Db, Result, on_db};

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
    pub ref_numbers: Json<Vec<String>>,
    /// Tags.
    pub tags: Json<Vec<String>>,
    /// Ports.
    pub route: Json<Route>,
    /// Merged carrier view.
    pub state: Json<ShipmentState>,
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
    pub ref_numbers: Json<Vec<String>>,
    /// Merged state.
    pub state: Json<ContainerState>,
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

const SHIPMENT_COLUMNS: &str = "id, account_id, tracking_request_id, bill_of_lading_number, scac, ref_numbers, tags, route, state, tracking_stopped_us, stopped_reason, created_us, updated_us, (SELECT p.company_name FROM tracking_requests t JOIN parties p ON p.id = t.customer_id WHERE t.id = shipments.tracking_request_id) AS customer_name, (SELECT t.customer_id FROM tracking_requests t WHERE t.id = shipments.tracking_request_id) AS customer_id";
const CONTAINER_COLUMNS: &str = "id, account_id, shipment_id, number, ref_numbers, state, current_status, ready_for_pickup, pickup_lfd_us, active, created_us, updated_us";

/// One shipment of an account.
pub async fn shipment(db: &Db, account_id: Uuid, id: Uuid) -> Result<Option<ShipmentRow>> {
    const SQL: &str = "SELECT id, account_id, tracking_request_id, bill_of_lading_number, scac, ref_numbers, tags, route, state, tracking_stopped_us, stopped_reason, created_us, updated_us, (SELECT p.company_name FROM tracking_requests t JOIN parties p ON p.id = t.customer_id WHERE t.id = shipments.tracking_request_id) AS customer_name, (SELECT t.customer_id FROM tracking_requests t WHERE t.id = shipments.tracking_request_id) AS customer_id FROM shipments WHERE id = $1 AND account_id = $2";
    Ok(on_db!(db, p => sqlx::query_as(SQL).bind(id).bind(account_id).fetch_optional(p).await?))
}

/// One container of an account.
pub async fn container(db: &Db, account_id: Uuid, id: Uuid) -> Result<Option<ContainerRow>> {
    const SQL: &str = "SELECT id, account_id, shipment_id, number, ref_numbers, state, current_status, ready_for_pickup, pickup_lfd_us, active, created_us, updated_us FROM containers WHERE id = $1 AND account_id = $2";
    Ok(on_db!(db, p => sqlx::query_as(SQL).bind(id).bind(account_id).fetch_optional(p).await?))
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
    let sql =
        format!("SELECT {SHIPMENT_COLUMNS} FROM shipments WHERE account_id = {{account}} AND id");
    let rows: Vec<ShipmentRow> = rows_in(db, account_id, ids, &sql, "").await?;
    Ok(rows.into_iter().map(|r| (r.id, r)).collect())
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
        self.state.0.pod_terminal.as_deref()
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
    let terminal = match db.backend() {
        crate::Backend::Sqlite => "json_extract(state, '$.pod_terminal')",
        crate::Backend::Postgres => "state->>'pod_terminal'",
    };
    let sql = format!(
        "SELECT id, shipment_id, {terminal} AS pod_terminal FROM containers WHERE account_id = {{account}} AND shipment_id"
    );
    let rows: Vec<ContainerRef> = rows_in(
        db,
        account_id,
        shipment_ids,
        &sql,
        " ORDER BY shipment_id, created_us, id",
    )
    .await?;
    Ok(by_shipment(rows, |r| r.shipment_id))
}

/// Rows grouped by their shipment, in the order read.
fn by_shipment<T>(
    rows: Vec<T>,
    shipment_of: impl Fn(&T) -> Uuid,
) -> std::collections::HashMap<Uuid, Vec<T>> {
    let mut out: std::collections::HashMap<Uuid, Vec<T>> = std::collections::HashMap::new();
    for r in rows {
        out.entry(shipment_of(&r)).or_default().push(r);
    }
    out
}

/// Filters shared by the shipment and container lists.
#[derive(Debug, Clone, Default)]
pub struct Filter {
    /// Bill of lading, ref number or container number (substring, case-insensitive).
    pub q: Option<String>,
    /// Exact bill of lading / booking number (shipments).
    pub number: Option<String>,
    /// Exact container number (containers).
    pub container_number: Option<String>,
    /// Stopped or not.
    pub tracking_stopped: Option<bool>,
    /// Carrier SCAC.
    pub carrier: Option<String>,
    /// POD UN/LOCODE.
    pub port: Option<String>,
    /// Container status.
    pub current_status: Option<String>,
    /// Ready for pickup.
    pub ready_for_pickup: Option<bool>,
    /// LFD range.
    pub lfd_start_us: Option<i64>,
    /// LFD range end.
    pub lfd_end_us: Option<i64>,
    /// Updated range.
    pub updated_start_us: Option<i64>,
    /// Updated range end.
    pub updated_end_us: Option<i64>,
    /// The customer (party) named on the tracking request.
    pub customer_id: Option<Uuid>,
    /// The customer's name (substring, case-insensitive).
    pub customer_name: Option<String>,
    /// With an active terminal hold, or without one (containers).
    pub on_hold: Option<bool>,
    /// Any of these container statuses (containers; with `current_status`, both hold).
    pub statuses: Vec<String>,
    /// With a last free day, or without one (containers).
    pub lfd_known: Option<bool>,
    /// The order of the list.
    pub sort: ListSort,
    /// Date bounds and presence tests on milestone and voyage dates (all hold).
    pub dates: Vec<DateCond>,
    /// Shipment tags: any of them (or all with `tags_all`), exact and case-sensitive.
    pub tags: Vec<String>,
    /// Every tag of `tags`, not any.
    pub tags_all: bool,
    /// Whether the tracking request names a customer, or names none.
    pub customer_known: Option<bool>,
    /// Exact values of the voyage's texts (any of each list), or whether they are known.
    pub texts: Vec<TextCond>,
    /// With terminal fees, or with none (containers).
    pub has_fees: Option<bool>,
    /// With terminal fees or an active hold, or with neither (containers).
    pub has_fees_or_holds: Option<bool>,
    /// Custom field values on the container or its shipment (containers; all hold).
    pub custom: Vec<CustomCond>,
}

/// A custom field's value on a container or its shipment: any of some texts, or whether it is
/// set.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CustomCond {
    /// The field's definitions (one per entity type the name matches).
    pub definitions: Vec<Uuid>,
    /// Any of these: a part of a text value, or an option's value (case-insensitive).
    pub any_of: Vec<String>,
    /// The values are options (matched whole), not text (matched in part).
    pub options: bool,
    /// Set (`Some(true)`) or not set (`Some(false)`).
    pub known: Option<bool>,
}

impl CustomCond {
    /// The condition on a container row: the value is on the container or on its shipment.
    fn on_containers(&self, account_id: Uuid) -> Option<Cond> {
        if self.definitions.is_empty() {
            return None;
        }
        let defs = vec!["?"; self.definitions.len()].join(", ");
        let mut matched = String::new();
        let mut match_args = Vec::new();
        if self.known.is_none() && !self.any_of.is_empty() {
            let ors = vec!["UPPER(CAST(value AS TEXT)) LIKE ?"; self.any_of.len()].join(" OR ");
            matched = format!(" AND ({ors})");
            for v in &self.any_of {
                let clean = v.to_uppercase().replace(['%', '_'], "");
                // JSON text: an option is a whole quoted string, text a part of one
                match_args.push(Arg::Text(if self.options {
                    format!("%{}%", serde_json::Value::String(clean))
                } else {
                    format!("%{clean}%")
                }));
            }
        }
        let sub = format!(
            "SELECT entity_id FROM custom_fields WHERE account_id = ? AND definition_id IN ({defs}){matched}"
        );
        let one = || {
            let mut a = vec![Arg::Uuid(account_id)];
            a.extend(self.definitions.iter().map(|d| Arg::Uuid(*d)));
            a.extend(match_args.iter().cloned());
            a
        };
        let mut args = one();
        args.extend(one());
        let either = format!("(id IN ({sub}) OR shipment_id IN ({sub}))");
        Some(Cond::assembled(
            if self.known == Some(false) {
                format!("NOT {either}")
            } else {
                either
            },
            args,
        ))
    }
}

/// A text of the shipment's voyage the list filters match exactly. A closed set, as
/// [`DateField`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TextField {
    /// The port of lading's UN/LOCODE.
    PolCode,
    /// The inland destination's UN/LOCODE.
    DestinationCode,
    /// The vessel at the port of discharge.
    VesselName,
}

impl TextField {
    fn expr(self) -> &'static str {
        match self {
            TextField::PolCode => "route->>'pol_locode'",
            TextField::DestinationCode => "route->>'destination_locode'",
            TextField::VesselName => "state->>'pod_vessel_name'",
        }
    }
}

/// One of several values of a text, or whether it is known.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TextCond {
    /// Which text.
    pub field: TextField,
    /// Any of these values (exact); empty with `known`.
    pub any_of: Vec<String>,
    /// Known (`Some(true)`) or unknown (`Some(false)`).
    pub known: Option<bool>,
}

impl TextCond {
    /// The condition on a shipment row.
    fn on_shipment(&self) -> Option<Cond> {
        let e = self.field.expr();
        match self.known {
            Some(true) => Some(Cond::assembled(format!("{e} IS NOT NULL"), vec![])),
            Some(false) => Some(Cond::assembled(format!("{e} IS NULL"), vec![])),
            None if self.any_of.is_empty() => None,
            None => Some(Cond::assembled(
                format!("{e} IN ({})", vec!["?"; self.any_of.len()].join(", ")),
                self.any_of.iter().map(|v| Arg::Text(v.clone())).collect(),
            )),
        }
    }
}

/// A date the list filters bound: a container milestone or a date of the shipment's voyage.
/// A closed set: each names its own SQL, so no input reaches a statement's text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DateField {
    /// Marked delivered.
    Delivered,
    /// Discharged at the POD.
    PodDischarged,
    /// The container arrived at the POD.
    PodArrived,
    /// Empty picked up at origin.
    EmptyOut,
    /// Full in at the port of lading.
    PolFullIn,
    /// Loaded at the port of lading.
    PolVesselLoaded,
    /// Departed the port of lading (the container's milestone).
    PolVesselDeparted,
    /// Picked up: full out at the final destination, else at the POD.
    PickedUp,
    /// Empty returned.
    EmptyReturned,
    /// Unloaded from rail inland.
    IndRailUnloaded,
    /// Full out at the inland destination.
    FinalFullOut,
    /// Rail ETA at the inland destination.
    IndEta,
    /// Rail ATA at the inland destination.
    IndAta,
    /// Rail departed from the POD.
    PodRailDeparted,
    /// The record's creation.
    Created,
    /// The voyage's estimated departure from the port of lading.
    PolEtd,
    /// The voyage's actual departure from the port of lading.
    PolAtd,
    /// The voyage's actual arrival at the POD.
    PodAta,
    /// The voyage's arrival at the POD: actual, else estimated.
    Arrival,
}

/// Where a [`DateField`] lives.
enum DateAt {
    /// An expression over the container row.
    Container(&'static str),
    /// An expression over the shipment row.
    Shipment(&'static str),
}

impl DateField {
    fn at(self) -> DateAt {
        use DateAt::{Container as C, Shipment as S};
        match self {
            DateField::Delivered => C("CAST(state->'times'->>'delivered_at' AS BIGINT)"),
            DateField::PodDischarged => C("CAST(state->'times'->>'pod_discharged_at' AS BIGINT)"),
            DateField::PodArrived => C("CAST(state->'times'->>'pod_arrived_at' AS BIGINT)"),
            DateField::EmptyOut => C("CAST(state->'times'->>'empty_out_at' AS BIGINT)"),
            DateField::PolFullIn => C("CAST(state->'times'->>'pol_full_in_at' AS BIGINT)"),
            DateField::PolVesselLoaded => {
                C("CAST(state->'times'->>'pol_vessel_loaded_at' AS BIGINT)")
            }
            DateField::PolVesselDeparted => {
                C("CAST(state->'times'->>'pol_vessel_departed_at' AS BIGINT)")
            }
            DateField::PickedUp => C(
                "CAST(COALESCE(state->'times'->>'final_destination_full_out_at', state->'times'->>'pod_full_out_at') AS BIGINT)",
            ),
            DateField::EmptyReturned => C("CAST(state->'times'->>'empty_terminated_at' AS BIGINT)"),
            DateField::IndRailUnloaded => {
                C("CAST(state->'times'->>'ind_rail_unloaded_at' AS BIGINT)")
            }
            DateField::FinalFullOut => {
                C("CAST(state->'times'->>'final_destination_full_out_at' AS BIGINT)")
            }
            DateField::IndEta => C("CAST(state->'times'->>'ind_eta_at' AS BIGINT)"),
            DateField::IndAta => C("CAST(state->'times'->>'ind_ata_at' AS BIGINT)"),
            DateField::PodRailDeparted => {
                C("CAST(state->'times'->>'pod_rail_departed_at' AS BIGINT)")
            }
            DateField::Created => C("created_us"),
            DateField::PolEtd => S("CAST(state->>'pol_etd_us' AS BIGINT)"),
            DateField::PolAtd => S("CAST(state->>'pol_atd_us' AS BIGINT)"),
            DateField::PodAta => S("CAST(state->>'pod_ata_us' AS BIGINT)"),
            DateField::Arrival => {
                S("CAST(COALESCE(state->>'pod_ata_us', state->>'pod_eta_us') AS BIGINT)")
            }
        }
    }

    /// The expression over a shipment row, where the field is the shipment's own.
    fn on_shipment(self) -> Option<&'static str> {
        match (self, self.at()) {
            (DateField::Created, _) => Some("created_us"),
            (_, DateAt::Shipment(e)) => Some(e),
            (_, DateAt::Container(_)) => None,
        }
    }
}

/// Bounds on one date, or a test of whether it is known.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DateCond {
    /// Which date.
    pub field: DateField,
    /// From (inclusive).
    pub start_us: Option<i64>,
    /// To (inclusive).
    pub end_us: Option<i64>,
    /// Known (`Some(true)`) or unknown (`Some(false)`).
    pub known: Option<bool>,
}

impl DateCond {
    /// The condition over an expression of the row.
    fn cond_on(&self, expr: &str) -> Vec<Cond> {
        let mut out = Vec::new();
        match self.known {
            Some(true) => out.push(Cond::assembled(format!("{expr} IS NOT NULL"), vec![])),
            Some(false) => out.push(Cond::assembled(format!("{expr} IS NULL"), vec![])),
            None => {}
        }
        if let Some(s) = self.start_us {
            out.push(Cond::assembled(format!("{expr} >= ?"), vec![Arg::I64(s)]));
        }
        if let Some(e) = self.end_us {
            out.push(Cond::assembled(format!("{expr} <= ?"), vec![Arg::I64(e)]));
        }
        out
    }

    /// The conditions on a container row (shipment dates through the container's shipment).
    fn on_containers(&self, account_id: Uuid) -> Vec<Cond> {
        match self.field.at() {
            DateAt::Container(e) => self.cond_on(e),
            DateAt::Shipment(e) => self
                .cond_on(e)
                .into_iter()
                .map(|c| {
                    let mut args = vec![Arg::Uuid(account_id)];
                    args.extend(c.args);
                    Cond::assembled(
                        format!(
                            "shipment_id IN (SELECT id FROM shipments WHERE account_id = ? AND {})",
                            c.sql
                        ),
                        args,
                    )
                })
                .collect(),
        }
    }
}

/// The conditions of shipment tags (any or all), on a row with a `tags` JSON column.
fn tag_conds(tags: &[String], all: bool) -> Vec<Cond> {
    // a JSON array of strings: the tag in quotes, as serialised (both backends quote it so)
    let pattern = |t: &str| {
        let quoted = serde_json::Value::String(t.to_string()).to_string();
        format!("%{}%", quoted.replace(['%', '_'], ""))
    };
    if tags.is_empty() {
        return Vec::new();
    }
    if all {
        tags.iter()
            .map(|t| Cond::new("CAST(tags AS TEXT) LIKE ?", vec![Arg::Text(pattern(t))]))
            .collect()
    } else {
        let ors = vec!["CAST(tags AS TEXT) LIKE ?"; tags.len()].join(" OR ");
        vec![Cond::assembled(
            format!("({ors})"),
            tags.iter().map(|t| Arg::Text(pattern(t))).collect(),
        )]
    }
}

/// The orders the shipment and container lists offer. Cursors in `links` follow the default
/// order only, so the other orders page by page number.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum ListSort {
    /// Most recently updated first (the API's order).
    #[default]
    UpdatedDesc,
    /// Least recently updated first.
    UpdatedAsc,
    /// Newest first.
    CreatedDesc,
    /// Oldest first.
    CreatedAsc,
    /// Soonest last free day first, containers without one last (containers).
    LfdAsc,
    /// Latest last free day first, containers without one last (containers).
    LfdDesc,
}

impl ListSort {
    /// Every order, in the order a form lists them.
    pub const ALL: [ListSort; 6] = [
        ListSort::UpdatedDesc,
        ListSort::UpdatedAsc,
        ListSort::CreatedDesc,
        ListSort::CreatedAsc,
        ListSort::LfdAsc,
        ListSort::LfdDesc,
    ];

    /// The JSON:API spelling (`-updated_at`, `pickup_lfd`, ...).
    pub fn as_str(self) -> &'static str {
        match self {
            ListSort::UpdatedDesc => "-updated_at",
            ListSort::UpdatedAsc => "updated_at",
            ListSort::CreatedDesc => "-created_at",
            ListSort::CreatedAsc => "created_at",
            ListSort::LfdAsc => "pickup_lfd",
            ListSort::LfdDesc => "-pickup_lfd",
        }
    }

    /// Parses the JSON:API spelling.
    pub fn parse(s: &str) -> Option<ListSort> {
        ListSort::ALL.into_iter().find(|o| o.as_str() == s)
    }

    /// Whether the order applies to containers only.
    pub fn containers_only(self) -> bool {
        matches!(self, ListSort::LfdAsc | ListSort::LfdDesc)
    }

    /// The ordering expression and whether it ascends. Missing last free days sort after
    /// every date in both directions.
    fn spec(self) -> (&'static str, bool) {
        match self {
            ListSort::UpdatedDesc => ("updated_us", false),
            ListSort::UpdatedAsc => ("updated_us", true),
            ListSort::CreatedDesc => ("created_us", false),
            ListSort::CreatedAsc => ("created_us", true),
            ListSort::LfdAsc => ("COALESCE(pickup_lfd_us, 9223372036854775807)", true),
            ListSort::LfdDesc => ("COALESCE(pickup_lfd_us, -9223372036854775807)", false),
        }
    }
}

fn like(q: &str) -> String {
    format!("%{}%", q.to_ascii_uppercase().replace(['%', '_'], ""))
}

/// A page of shipments, most recently updated first.
pub async fn shipments(
    db: &Db,
    account_id: Uuid,
    f: &Filter,
    page: &Page,
) -> Result<Listed<ShipmentRow>> {
    let mut conds = vec![Cond::new("account_id = ?", vec![Arg::Uuid(account_id)])];
    if let Some(q) = &f.q {
        let l = like(q);
        conds.push(Cond::new(
            "(UPPER(bill_of_lading_number) LIKE ? OR UPPER(CAST(ref_numbers AS TEXT)) LIKE ? OR id IN (SELECT shipment_id FROM containers WHERE account_id = ? AND number LIKE ?))",
            vec![Arg::Text(l.clone()), Arg::Text(l.clone()), Arg::Uuid(account_id), Arg::Text(l)],
        ));
    }
    if let Some(n) = &f.number {
        conds.push(Cond::new(
            "bill_of_lading_number = ?",
            vec![Arg::Text(n.clone())],
        ));
    }
    if let Some(stopped) = f.tracking_stopped {
        conds.push(Cond::new(
            if stopped {
                "tracking_stopped_us IS NOT NULL"
            } else {
                "tracking_stopped_us IS NULL"
            },
            vec![],
        ));
    }
    if let Some(c) = &f.carrier {
        conds.push(Cond::new("scac = ?", vec![Arg::Text(c.clone())]));
    }
    if let Some(c) = f.customer_id {
        conds.push(Cond::new(
            "tracking_request_id IN (SELECT id FROM tracking_requests WHERE account_id = ? AND customer_id = ?)",
            vec![Arg::Uuid(account_id), Arg::Uuid(c)],
        ));
    }
    if let Some(n) = &f.customer_name {
        conds.push(Cond::new(
            "tracking_request_id IN (SELECT t.id FROM tracking_requests t JOIN parties p ON p.id = t.customer_id WHERE t.account_id = ? AND UPPER(p.company_name) LIKE ?)",
            vec![Arg::Uuid(account_id), Arg::Text(like(n))],
        ));
    }
    if let Some(p) = &f.port {
        conds.push(Cond::new(
            "pod_locode = ?",
            vec![Arg::Text(p.to_ascii_uppercase())],
        ));
    }
    for (v, sql) in [
        (f.updated_start_us, "updated_us >= ?"),
        (f.updated_end_us, "updated_us <= ?"),
    ] {
        if let Some(v) = v {
            conds.push(Cond::new(sql, vec![Arg::I64(v)]));
        }
    }
    for d in &f.dates {
        if let Some(e) = d.field.on_shipment() {
            conds.extend(d.cond_on(e));
        }
    }
    conds.extend(tag_conds(&f.tags, f.tags_all));
    conds.extend(f.texts.iter().filter_map(TextCond::on_shipment));
    if let Some(known) = f.customer_known {
        conds.push(Cond::new(
            if known {
                "tracking_request_id IN (SELECT id FROM tracking_requests WHERE account_id = ? AND customer_id IS NOT NULL)"
            } else {
                "(tracking_request_id IS NULL OR tracking_request_id NOT IN (SELECT id FROM tracking_requests WHERE account_id = ? AND customer_id IS NOT NULL))"
            },
            vec![Arg::Uuid(account_id)],
        ));
    }
    let (sort_col, ascending) = match f.sort {
        o if o.containers_only() => ListSort::UpdatedDesc.spec(),
        o => o.spec(),
    };
    let spec = ListSpec {
        from: "shipments",
        columns: SHIPMENT_COLUMNS,
        sort_col,
        ascending,
        id_col: "id",
        conds,
    };
    // no filter: the account's maintained count is the total
    let counted = (spec.conds.len() == 1).then_some(("shipments", account_id));
    crate::list::list_counted(db, &spec, page, counted).await
}

/// A page of containers, most recently updated first.
pub async fn containers(
    db: &Db,
    account_id: Uuid,
    f: &Filter,
    page: &Page,
) -> Result<Listed<ContainerRow>> {
    let mut conds = vec![Cond::new("account_id = ?", vec![Arg::Uuid(account_id)])];
    if let Some(q) = &f.q {
        let l = like(q);
        conds.push(Cond::new(
            "(number LIKE ? OR UPPER(CAST(ref_numbers AS TEXT)) LIKE ? OR shipment_id IN (SELECT id FROM shipments WHERE account_id = ? AND UPPER(bill_of_lading_number) LIKE ?))",
            vec![Arg::Text(l.clone()), Arg::Text(l.clone()), Arg::Uuid(account_id), Arg::Text(l)],
        ));
    }
    if let Some(n) = &f.container_number {
        conds.push(Cond::new("number = ?", vec![Arg::Text(n.clone())]));
    }
    if let Some(s) = &f.current_status {
        conds.push(Cond::new("current_status = ?", vec![Arg::Text(s.clone())]));
    }
    if let Some(r) = f.ready_for_pickup {
        conds.push(Cond::new("ready_for_pickup = ?", vec![Arg::Bool(r)]));
    }
    if let Some(h) = f.on_hold {
        conds.push(Cond::new("on_hold = ?", vec![Arg::Bool(h)]));
    }
    if !f.statuses.is_empty() {
        // the status is one of the comma-separated list (statuses hold no commas)
        conds.push(Cond::new(
            "(',' || ? || ',') LIKE ('%,' || current_status || ',%')",
            vec![Arg::Text(f.statuses.join(","))],
        ));
    }
    if let Some(known) = f.lfd_known {
        conds.push(Cond::new(
            if known {
                "pickup_lfd_us IS NOT NULL"
            } else {
                "pickup_lfd_us IS NULL"
            },
            vec![],
        ));
    }
    if let Some(stopped) = f.tracking_stopped {
        // scoped to the account: its shipments only, not every account's
        conds.push(Cond::new(
            if stopped {
                "shipment_id IN (SELECT id FROM shipments WHERE account_id = ? AND tracking_stopped_us IS NOT NULL)"
            } else {
                "shipment_id IN (SELECT id FROM shipments WHERE account_id = ? AND tracking_stopped_us IS NULL)"
            },
            vec![Arg::Uuid(account_id)],
        ));
    }
    if let Some(c) = &f.carrier {
        conds.push(Cond::new(
            "shipment_id IN (SELECT id FROM shipments WHERE account_id = ? AND scac = ?)",
            vec![Arg::Uuid(account_id), Arg::Text(c.clone())],
        ));
    }
    if let Some(c) = f.customer_id {
        conds.push(Cond::new(
            "shipment_id IN (SELECT s.id FROM shipments s JOIN tracking_requests t ON t.id = s.tracking_request_id WHERE s.account_id = ? AND t.customer_id = ?)",
            vec![Arg::Uuid(account_id), Arg::Uuid(c)],
        ));
    }
    if let Some(n) = &f.customer_name {
        conds.push(Cond::new(
            "shipment_id IN (SELECT s.id FROM shipments s JOIN tracking_requests t ON t.id = s.tracking_request_id JOIN parties p ON p.id = t.customer_id WHERE s.account_id = ? AND UPPER(p.company_name) LIKE ?)",
            vec![Arg::Uuid(account_id), Arg::Text(like(n))],
        ));
    }
    if let Some(p) = &f.port {
        conds.push(Cond::new(
            "shipment_id IN (SELECT id FROM shipments WHERE account_id = ? AND pod_locode = ?)",
            vec![Arg::Uuid(account_id), Arg::Text(p.to_ascii_uppercase())],
        ));
    }
    for (v, sql) in [
        (f.lfd_start_us, "pickup_lfd_us >= ?"),
        (f.lfd_end_us, "pickup_lfd_us <= ?"),
        (f.updated_start_us, "updated_us >= ?"),
        (f.updated_end_us, "updated_us <= ?"),
    ] {
        if let Some(v) = v {
            conds.push(Cond::new(sql, vec![Arg::I64(v)]));
        }
    }
    for d in &f.dates {
        conds.extend(d.on_containers(account_id));
    }
    // fees: a non-empty list (both backends write an empty one as `[]`)
    const FEES: &str = "CAST(state->'fees' AS TEXT) NOT IN ('[]', 'null')";
    match f.has_fees {
        Some(true) => conds.push(Cond::new(FEES, vec![])),
        Some(false) => conds.push(Cond::assembled(format!("NOT ({FEES})"), vec![])),
        None => {}
    }
    match f.has_fees_or_holds {
        Some(true) => conds.push(Cond::assembled(
            format!("({FEES} OR on_hold = ?)"),
            vec![Arg::Bool(true)],
        )),
        Some(false) => conds.push(Cond::assembled(
            format!("(NOT ({FEES}) AND on_hold = ?)"),
            vec![Arg::Bool(false)],
        )),
        None => {}
    }
    conds.extend(f.custom.iter().filter_map(|c| c.on_containers(account_id)));
    let shipment_texts: Vec<Cond> = f
        .tags
        .is_empty()
        .then(Vec::new)
        .unwrap_or_else(|| tag_conds(&f.tags, f.tags_all))
        .into_iter()
        .chain(f.texts.iter().filter_map(TextCond::on_shipment))
        .collect();
    if !shipment_texts.is_empty() {
        for c in shipment_texts {
            let mut args = vec![Arg::Uuid(account_id)];
            args.extend(c.args);
            conds.push(Cond::assembled(
                format!(
                    "shipment_id IN (SELECT id FROM shipments WHERE account_id = ? AND {})",
                    c.sql
                ),
                args,
            ));
        }
    }
    if let Some(known) = f.customer_known {
        conds.push(Cond::new(
            if known {
                "shipment_id IN (SELECT s.id FROM shipments s JOIN tracking_requests t ON t.id = s.tracking_request_id WHERE s.account_id = ? AND t.customer_id IS NOT NULL)"
            } else {
                "shipment_id NOT IN (SELECT s.id FROM shipments s JOIN tracking_requests t ON t.id = s.tracking_request_id WHERE s.account_id = ? AND t.customer_id IS NOT NULL)"
            },
            vec![Arg::Uuid(account_id)],
        ));
    }
    let (sort_col, ascending) = f.sort.spec();
    let spec = ListSpec {
        from: "containers",
        columns: CONTAINER_COLUMNS,
        sort_col,
        ascending,
        id_col: "id",
        conds,
    };
    // no filter: the account's maintained count is the total
    let counted = (spec.conds.len() == 1).then_some(("containers", account_id));
    crate::list::list_counted(db, &spec, page, counted).await
}

/// The first `per_container` transport events of each of many containers (oldest first, as
/// the default order of a container's events), in one query per 500 containers: what
/// `include=transport_events` embeds for a page.
pub async fn transport_events_of_many(
    db: &Db,
    account_id: Uuid,
    container_ids: &[Uuid],
    per_container: i64,
) -> Result<std::collections::HashMap<Uuid, Vec<TransportEventRow>>> {
    const COLUMNS: &str = "id, container_id, shipment_id, event, at_us, locode, timezone, terminal, vessel_name, vessel_imo, voyage, data_source, created_us";
    let sql = format!(
        "SELECT {COLUMNS}, sort_us FROM (SELECT {COLUMNS}, COALESCE(at_us, created_us) AS sort_us, ROW_NUMBER() OVER (PARTITION BY container_id ORDER BY COALESCE(at_us, created_us), id) AS n FROM transport_events WHERE superseded_us IS NULL AND account_id = {{account}} AND container_id"
    );
    let order = format!(") ranked WHERE n <= {per_container} ORDER BY container_id, sort_us, id");
    let rows: Vec<TransportEventRow> = rows_in(db, account_id, container_ids, &sql, &order).await?;
    let mut out: std::collections::HashMap<Uuid, Vec<TransportEventRow>> =
        std::collections::HashMap::new();
    for r in rows {
        out.entry(r.container_id).or_default().push(r);
    }
    Ok(out)
}

/// A page of a container's transport events in `order`.
pub async fn transport_events(
    db: &Db,
    account_id: Uuid,
    container_id: Uuid,
    page: &Page,
    order: EventOrder,
) -> Result<Listed<TransportEventRow>> {
    const HAPPENED: &str = "COALESCE(at_us, created_us)";
    let (sort_col, columns, ascending) = match order {
        EventOrder::Timestamp | EventOrder::TimestampDesc => (
            HAPPENED,
            "id, container_id, shipment_id, event, at_us, locode, timezone, terminal, vessel_name, vessel_imo, voyage, data_source, created_us, COALESCE(at_us, created_us) AS sort_us",
            order == EventOrder::Timestamp,
        ),
        EventOrder::CreatedAt | EventOrder::CreatedAtDesc => (
            "created_us",
            "id, container_id, shipment_id, event, at_us, locode, timezone, terminal, vessel_name, vessel_imo, voyage, data_source, created_us, created_us AS sort_us",
            order == EventOrder::CreatedAt,
        ),
    };
    let spec = ListSpec {
        from: "transport_events",
        columns,
        sort_col,
        ascending,
        id_col: "id",
        conds: vec![Cond::new(
            "container_id = ? AND account_id = ? AND superseded_us IS NULL",
            vec![Arg::Uuid(container_id), Arg::Uuid(account_id)],
        )],
    };
    crate::list::list(db, &spec, page).await
}

/// The raw events of a container by their observation keys (the report behind each value:
/// `core::tracking::provenance`).
pub async fn raw_event_ids_by_key(
    db: &Db,
    account_id: Uuid,
    container_id: Uuid,
) -> Result<std::collections::HashMap<i64, Uuid>> {
    const SQL: &str = "SELECT observation_key, id FROM raw_events \
        WHERE container_id = $1 AND account_id = $2 AND observation_key IS NOT NULL";
    let rows: Vec<(i64, Uuid)> = on_db!(db, p => sqlx::query_as(SQL)
        .bind(container_id).bind(account_id).fetch_all(p).await?);
    Ok(rows.into_iter().collect())
}

/// Every transport event of a container, oldest first (at most 2 000, the newest).
pub async fn all_transport_events(
    db: &Db,
    account_id: Uuid,
    container_id: Uuid,
) -> Result<Vec<TransportEventRow>> {
    const SQL: &str = "SELECT id, container_id, shipment_id, event, at_us, locode, timezone, terminal, vessel_name, vessel_imo, voyage, data_source, created_us \
        FROM transport_events WHERE container_id = $1 AND account_id = $2 AND superseded_us IS NULL ORDER BY created_us DESC, id DESC LIMIT 2000";
    let mut rows: Vec<TransportEventRow> = on_db!(db, p => sqlx::query_as(SQL)
        .bind(container_id).bind(account_id).fetch_all(p).await?);
    rows.reverse();
    Ok(rows)
}

/// What changes when anything the console shows of an account changes: the newest
/// `updated_us` of its containers, shipments and tracking requests (three index probes), as
/// text. Every process computes the same value, so a page can ask any of them.
pub async fn fingerprint(db: &Db, account_id: Uuid) -> Result<String> {
    const SQL: &str = "SELECT (SELECT MAX(updated_us) FROM containers WHERE account_id = $1), \
        (SELECT MAX(updated_us) FROM shipments WHERE account_id = $1), \
        (SELECT MAX(updated_us) FROM tracking_requests WHERE account_id = $1)";
    let (c, s, t): (Option<i64>, Option<i64>, Option<i64>) =
        on_db!(db, p => sqlx::query_as(SQL).bind(account_id).fetch_one(p).await?);
    Ok(format!(
        "{}-{}-{}",
        c.unwrap_or(0),
        s.unwrap_or(0),
        t.unwrap_or(0)
    ))
}

/// A search hit before ranking.
#[derive(Debug, Clone, PartialEq, Eq, sqlx::FromRow)]
pub struct SearchHit {
    /// `shipment`, `container` or `tracking_request`.
    pub entity_type: String,
    /// Its id.
    pub id: Uuid,
    /// The number that matched (bill of lading, container or request number).
    pub number: String,
    /// Ref numbers, JSON text.
    pub refs: String,
    /// Last change.
    pub updated_us: i64,
}

/// Candidates whose number or ref numbers contain `query` (case-insensitive), at most
/// `limit` of each kind; rank them with [`boxtrack_core::search::rank`].
pub async fn search(db: &Db, account_id: Uuid, query: &str, limit: i64) -> Result<Vec<SearchHit>> {
    const SQL: &str = "SELECT * FROM (SELECT 'shipment' AS entity_type, id, bill_of_lading_number AS number, CAST(ref_numbers AS TEXT) AS refs, updated_us FROM shipments \
          WHERE account_id = $1 AND (UPPER(bill_of_lading_number) LIKE $2 OR UPPER(CAST(ref_numbers AS TEXT)) LIKE $2) ORDER BY updated_us DESC LIMIT $3) s \
        UNION ALL SELECT * FROM (SELECT 'container' AS entity_type, id, number, CAST(ref_numbers AS TEXT) AS refs, updated_us FROM containers \
          WHERE account_id = $1 AND (number LIKE $2 OR UPPER(CAST(ref_numbers AS TEXT)) LIKE $2) ORDER BY updated_us DESC LIMIT $3) c \
        UNION ALL SELECT * FROM (SELECT 'tracking_request' AS entity_type, id, request_number AS number, CAST(ref_numbers AS TEXT) AS refs, updated_us FROM tracking_requests \
          WHERE account_id = $1 AND status IN ('pending', 'awaiting_manifest', 'failed') AND (UPPER(request_number) LIKE $2 OR UPPER(CAST(ref_numbers AS TEXT)) LIKE $2) ORDER BY updated_us DESC LIMIT $3) t";
    Ok(
        on_db!(db, p => sqlx::query_as(SQL).bind(account_id).bind(like(query)).bind(limit).fetch_all(p).await?),
    )
}

/// The matches for `query`, best first: [`search`]'s candidates scored by
/// [`boxtrack_core::search::rank`] (those scoring 0 left out), ties by the latest change, at
/// most `limit` (`GET /v2/search` and the MCP `search_container` both read them so).
pub async fn search_ranked(
    db: &Db,
    account_id: Uuid,
    query: &str,
    limit: usize,
) -> Result<Vec<(u8, SearchHit)>> {
    let hits = search(
        db,
        account_id,
        query,
        i64::try_from(limit).unwrap_or(i64::MAX),
    )
    .await?;
    let mut ranked: Vec<(u8, SearchHit)> = hits
        .into_iter()
        .map(|h| {
            let refs: Vec<String> = serde_json::from_str(&h.refs).unwrap_or_default();
            (boxtrack_core::search::rank(query, &h.number, &refs), h)
        })
        .filter(|(score, _)| *score > 0)
        .collect();
    ranked.sort_by(|a, b| b.0.cmp(&a.0).then(b.1.updated_us.cmp(&a.1.updated_us)));
    ranked.truncate(limit);
    Ok(ranked)
}

/// A stored raw event (one observation as a source reported it).
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct RawEventRow {
    /// Id.
    pub id: Uuid,
    /// Container.
    pub container_id: Uuid,
    /// Shipment.
    pub shipment_id: Uuid,
    /// Source.
    pub data_source: String,
    /// Milestone or fact kind.
    pub event: String,
    /// An estimate.
    pub estimated: bool,
    /// When.
    pub at_us: Option<i64>,
    /// UN/LOCODE.
    pub locode: Option<String>,
    /// IANA zone.
    pub timezone: Option<String>,
    /// Vessel name.
    pub vessel_name: Option<String>,
    /// Vessel IMO.
    pub vessel_imo: Option<String>,
    /// Voyage.
    pub voyage: Option<String>,
    /// The observation verbatim.
    pub original: Json<serde_json::Value>,
    /// When the source produced it.
    pub observed_us: i64,
    /// When boxtrack received it.
    pub created_us: i64,
    /// Its place in the container's raw events, oldest first from 0 (set by [`raw_events`]).
    #[sqlx(skip)]
    pub index: i64,
}

impl Keyed for RawEventRow {
    fn key(&self) -> Key {
        Key {
            sort_us: self.created_us,
            id: *self.id.as_bytes(),
        }
    }
}

/// A page of a container's raw events, newest first.
pub async fn raw_events(
    db: &Db,
    account_id: Uuid,
    container_id: Uuid,
    page: &Page,
    rail_lfd: bool,
) -> Result<Listed<RawEventRow>> {
    let mut conds = vec![Cond::new(
        "container_id = ? AND account_id = ?",
        vec![Arg::Uuid(container_id), Arg::Uuid(account_id)],
    )];
    if !rail_lfd {
        // the rail carrier's LFD is for accounts with the rail_lfd entitlement only
        conds.push(Cond::new("event <> 'pickup_lfd_rail'", vec![]));
    }
    let spec = ListSpec {
        from: "raw_events",
        columns: "id, container_id, shipment_id, data_source, event, estimated, at_us, locode, timezone, vessel_name, vessel_imo, voyage, original, observed_us, created_us",
        sort_col: "created_us",
        ascending: false,
        id_col: "id",
        conds,
    };
    let mut listed: Listed<RawEventRow> = crate::list::list(db, &spec, page).await?;
    // each row's place oldest first: the rows newer than this page's newest come first in
    // the newest-first order, then this page's rows in their key order
    let Some(newest) = listed.rows.iter().map(Keyed::key).max() else {
        return Ok(listed);
    };
    let sql = if rail_lfd {
        "SELECT COUNT(*) FROM raw_events WHERE container_id = $1 AND account_id = $2 AND (created_us > $3 OR (created_us = $3 AND id > $4))"
    } else {
        "SELECT COUNT(*) FROM raw_events WHERE container_id = $1 AND account_id = $2 AND (created_us > $3 OR (created_us = $3 AND id > $4)) AND event <> 'pickup_lfd_rail'"
    };
    let newest_id = Uuid::from_bytes(newest.id);
    let newer: i64 = on_db!(db, p => sqlx::query_scalar(sqlx::AssertSqlSafe(sql)).bind(container_id).bind(account_id).bind(newest.sort_us).bind(newest_id).fetch_one(p).await?);
    let mut keys: Vec<Key> = listed.rows.iter().map(Keyed::key).collect();
    keys.sort_unstable_by(|a, b| b.cmp(a));
    let last = i64::try_from(listed.total).unwrap_or(i64::MAX) - 1;
    for row in &mut listed.rows {
        let rank = keys.iter().position(|k| *k == row.key()).unwrap_or(0);
        row.index = (last - newer - rank as i64).max(0);
    }
    Ok(listed)
}

/// The name last reported for a vessel IMO number in an account's events.
pub async fn vessel_name(db: &Db, account_id: Uuid, imo: &str) -> Result<Option<String>> {
    const SQL: &str = "SELECT vessel_name FROM transport_events WHERE account_id = $1 AND vessel_imo = $2 AND vessel_name IS NOT NULL ORDER BY created_us DESC LIMIT 1";
    Ok(on_db!(db, p => sqlx::query_scalar(SQL).bind(account_id).bind(imo).fetch_optional(p).await?))
}

/// Vessel IMO numbers seen in an account's events.
pub async fn vessel_imos(db: &Db, account_id: Uuid) -> Result<Vec<String>> {
    const SQL: &str = "SELECT DISTINCT vessel_imo FROM transport_events WHERE account_id = $1 AND vessel_imo IS NOT NULL";
    Ok(on_db!(db, p => sqlx::query_scalar(SQL).bind(account_id).fetch_all(p).await?))
}

/// Transport events of an account by id, in one query per 500.
pub async fn transport_events_by_id(
    db: &Db,
    account_id: Uuid,
    ids: &[Uuid],
) -> Result<std::collections::HashMap<Uuid, TransportEventRow>> {
    let rows: Vec<TransportEventRow> = rows_in(
        db,
        account_id,
        ids,
        "SELECT id, container_id, shipment_id, event, at_us, locode, timezone, terminal, vessel_name, vessel_imo, voyage, data_source, created_us FROM transport_events WHERE account_id = {account} AND id",
        "",
    )
    .await?;
    Ok(rows.into_iter().map(|r| (r.id, r)).collect())
}

/// One transport event of an account.
pub async fn transport_event(
    db: &Db,
    account_id: Uuid,
    id: Uuid,
) -> Result<Option<TransportEventRow>> {
    const SQL: &str = "SELECT id, container_id, shipment_id, event, at_us, locode, timezone, terminal, vessel_name, vessel_imo, voyage, data_source, created_us FROM transport_events WHERE id = $1 AND account_id = $2";
    Ok(on_db!(db, p => sqlx::query_as(SQL).bind(id).bind(account_id).fetch_optional(p).await?))
}
