//! Merging observation batches into containers and shipments: state, transport events,
//! raw events and the event log written together, in one transaction.

use std::borrow::Cow;
use std::collections::{HashMap, HashSet};

use boxtrack_core::tracking::merge::{View, merge};
use boxtrack_core::tracking::rules::{
    ContainerStatus, coalesced_lfd, current_status, ready_for_pickup,
};
use boxtrack_core::tracking::{
    Change, ContainerState, MergeRecords, Observation, Route, ShipmentState, TransportEvent,
    VoyageRecords,
};
use serde_json::{Value, json};
use sqlx::types::Json;
use uuid::Uuid;

use super::texts::TextChange;
use crate::sql::Marks;
use crate::{Db, Result, StoreError, Tx, now_us, on_tx};

#[derive(sqlx::FromRow)]
struct StateRow {
    id: Uuid,
    shipment_id: Uuid,
    /// The whole state: the merge's records are put back into it as it is read.
    state: Json<ContainerState>,
    records: Json<MergeRecords>,
    /// The shipment's whole state, its records put back as it is read.
    shipment_state: Json<ShipmentState>,
    shipment_records: Json<VoyageRecords>,
    route: Json<Route>,
    scac: String,
    /// Still tracked.
    active: bool,
    /// Why its shipment stopped tracking, if it did.
    stopped_reason: Option<String>,
}

impl StateRow {
    /// Whether its journey ended (every container of the shipment back empty): it then takes
    /// only reports that refine the milestones it has (`milestones::refinements`).
    fn journey_ended(&self) -> bool {
        !self.active && self.stopped_reason.as_deref() == Some(JOURNEY_ENDED)
    }
}

/// The reason a shipment stops when every container is back empty.
pub(super) const JOURNEY_ENDED: &str = "all_containers_terminated";

/// The condition, on containers `c` of shipments `s`, of those that take reports: tracked,
/// or whose journey ended since `since` (a bound parameter, e.g. `$4`: they take only
/// refinements, `milestones::REFINE_AFTER_END_US`).
pub(crate) fn takes_reports(since: &str) -> String {
    format!(
        "(c.active = TRUE OR (s.stopped_reason = '{JOURNEY_ENDED}' AND s.tracking_stopped_us >= {since}))"
    )
}

/// The earliest end of a journey whose containers still take refinements, at `now`.
pub(crate) fn refine_since(now: i64) -> i64 {
    now.saturating_sub(boxtrack_core::tracking::milestones::REFINE_AFTER_END_US)
}

/// The derived columns written with a container's merged state.
pub(super) struct ContainerUpdate {
    pub(super) id: Uuid,
    /// The whole state while the batch merges; its records are taken out into
    /// [`ContainerUpdate::records`] before it is written.
    pub(super) state: ContainerState,
    pub(super) records: MergeRecords,
    pub(super) status: &'static str,
    pub(super) ready: bool,
    pub(super) on_hold: bool,
    /// The release gates held and released ([`boxtrack_core::tracking::release::GateSet`]).
    pub(super) gates: (i64, i64),
    pub(super) lfd: Option<i64>,
    pub(super) active: bool,
    /// What the container's resource shows of the state (`crate::rendered`), made once the
    /// records are taken out.
    pub(super) view: Option<String>,
}

/// Rows per multi-row statement (well under both backends' parameter limits).
pub(super) const CHUNK: usize = 200;

/// Merges observations into one container (and its shipment) inside a transaction: state,
/// transport events and event-log entries are written together.
pub async fn apply_in(
    tx: &mut Tx,
    account_id: Uuid,
    container_id: Uuid,
    batch: &[Observation],
    now: i64,
) -> Result<Vec<Change>> {
    let mut out = apply_batch_in(tx, account_id, &[(container_id, batch.to_vec())], now).await?;
    Ok(out.pop().map(|(_, c)| c).unwrap_or_default())
}

/// Merges observation batches into many containers of one account with set-based statements,
/// in named steps: one locked read of every state ([`read_states`]); a journey that ended
/// hears only refinements ([`refine_ended`]); what the sources said is kept verbatim
/// ([`keep_raw`]); the pure merge per container, containers of one shipment seeing each
/// other's shipment changes in batch order ([`merge_all`]); then one update of the containers,
/// one of the shipments, multi-row inserts of the transport events ([`write_transport`]) and
/// one event-log append. Returns the changes per container (containers with no change are left
/// out). Unknown containers are [`StoreError::NotFound`].
pub async fn apply_batch_in(
    tx: &mut Tx,
    account_id: Uuid,
    batches: &[(Uuid, Vec<Observation>)],
    now: i64,
) -> Result<Vec<(Uuid, Vec<Change>)>> {
    apply_refs_in(tx, account_id, batches.iter().collect(), now).await
}

/// [`apply_batch_in`] of batches borrowed one by one (a part of a bulk apply).
async fn apply_refs_in(
    tx: &mut Tx,
    account_id: Uuid,
    batches: Vec<&(Uuid, Vec<Observation>)>,
    now: i64,
) -> Result<Vec<(Uuid, Vec<Change>)>> {
    let batches: Vec<&(Uuid, Vec<Observation>)> =
        batches.into_iter().filter(|(_, b)| !b.is_empty()).collect();
    if batches.is_empty() {
        return Ok(vec![]);
    }
    let rows = read_states(tx, account_id, &batches).await?;
    let batches = refine_ended(batches, &rows);
    if batches.is_empty() {
        return Ok(vec![]);
    }
    if let Tx::Postgres(t) = tx {
        super::columns::announce(t, account_id).await?;
    }
    let labels = Labels::of(&rows);
    keep_raw(tx, account_id, &batches, &rows, &labels, now).await?;
    let rail_lfd = rail_lfd(tx, account_id).await?;
    let plan = merge_all(&batches, &rows, rail_lfd)?;
    write_containers(tx, account_id, &plan.containers, now).await?;
    super::texts::write_views(tx, account_id, &plan.containers).await?;
    write_shipments(tx, account_id, &plan.shipments, now).await?;
    let rendered: Vec<_> = plan.shipments.iter().map(|s| (s.0, &s.3)).collect();
    super::texts::write_changes(tx, account_id, super::texts::Texts::SHIPMENTS, &rendered).await?;
    write_transport(tx, account_id, &plan, &labels, now).await?;
    crate::events::append_many(tx, account_id, &plan.entries, now).await?;
    for shipment_id in &plan.terminated {
        super::stop_if_terminated(tx, account_id, *shipment_id, now).await?;
    }
    Ok(plan.result)
}

/// A container's batch, as given or cut down to refinements.
type Batch<'a> = (Uuid, Cow<'a, [Observation]>);

/// Reads the state of every container of `batches` (and of its shipment), locked.
async fn read_states(
    tx: &mut Tx,
    account_id: Uuid,
    batches: &[&(Uuid, Vec<Observation>)],
) -> Result<HashMap<Uuid, StateRow>> {
    let mut rows: HashMap<Uuid, StateRow> = HashMap::new();
    for chunk in batches.chunks(CHUNK) {
        let mut marks = Marks::new(tx.backend());
        let account = marks.one();
        let mut sql = format!(
            "SELECT c.id, c.shipment_id, c.state, c.records, s.state AS shipment_state, s.records AS shipment_records, s.route, s.scac, c.active, s.stopped_reason FROM containers c JOIN shipments s ON s.account_id = c.account_id AND s.id = c.shipment_id WHERE c.account_id = {account} AND c.id IN ({})",
            marks.list(chunk.len())
        );
        if matches!(tx, Tx::Postgres(_)) {
            sql.push_str(" ORDER BY c.id FOR UPDATE OF c, s");
        }
        let found: Vec<StateRow> = on_tx!(tx, c => {
            let mut q = sqlx::query_as(sqlx::AssertSqlSafe(sql));
            q = q.bind(account_id);
            for (id, _) in chunk.iter().copied() {
                q = q.bind(*id);
            }
            q.fetch_all(c).await?
        });
        rows.extend(found.into_iter().map(|mut r| {
            let records = std::mem::take(&mut r.records.0);
            r.state.0.put_records(records);
            let voyage = std::mem::take(&mut r.shipment_records.0);
            r.shipment_state.0.put_records(voyage);
            (r.id, r)
        }));
    }
    for (id, _) in batches {
        if !rows.contains_key(id) {
            return Err(StoreError::NotFound("container"));
        }
    }
    Ok(rows)
}

/// The batches as they apply: a container whose journey ended hears only what refines the
/// milestones it has (`milestones::refinements`); empty batches are left out.
fn refine_ended<'a>(
    batches: Vec<&'a (Uuid, Vec<Observation>)>,
    rows: &HashMap<Uuid, StateRow>,
) -> Vec<Batch<'a>> {
    batches
        .into_iter()
        .map(|(id, batch)| match rows.get(id) {
            Some(row) if row.journey_ended() => (
                *id,
                Cow::Owned(boxtrack_core::tracking::milestones::refinements(
                    &row.state.0,
                    batch,
                )),
            ),
            _ => (*id, Cow::Borrowed(batch.as_slice())),
        })
        .filter(|(_, b)| !b.is_empty())
        .collect()
}

/// The data source a row names: what a sandbox journey reports is the sandbox's, whatever
/// party its script plays.
pub(super) struct Labels {
    sandbox: HashSet<Uuid>,
}

impl Labels {
    fn of(rows: &HashMap<Uuid, StateRow>) -> Labels {
        Labels {
            sandbox: rows
                .values()
                .filter(|r| r.scac == boxtrack_core::carriers::SANDBOX_SCAC)
                .map(|r| r.id)
                .collect(),
        }
    }

    pub(super) fn label(&self, container_id: &Uuid, source: &'static str) -> &'static str {
        if self.sandbox.contains(container_id) {
            "sandbox"
        } else {
            source
        }
    }
}

/// Keeps what the sources said, verbatim, per container (once per observation).
async fn keep_raw(
    tx: &mut Tx,
    account_id: Uuid,
    batches: &[Batch<'_>],
    rows: &HashMap<Uuid, StateRow>,
    labels: &Labels,
    now: i64,
) -> Result<()> {
    let mut raw: Vec<(Uuid, Uuid, &Observation)> = Vec::new();
    for (container_id, batch) in batches {
        let row = rows
            .get(container_id)
            .ok_or(StoreError::NotFound("container"))?;
        raw.extend(batch.iter().map(|o| (*container_id, row.shipment_id, o)));
    }
    if let Tx::Postgres(t) = tx {
        return super::columns::raw_events(t, account_id, &raw, labels, now).await;
    }
    for chunk in raw.chunks(CHUNK / 2) {
        let sql = format!(
            "INSERT INTO raw_events (id, account_id, container_id, shipment_id, data_source, event, estimated, at_us, locode, timezone, vessel_name, vessel_imo, voyage, original, observed_us, created_us, observation_key) VALUES {} \
             ON CONFLICT (container_id, observation_key) DO NOTHING",
            Marks::new(tx.backend()).rows(chunk.len(), 17)
        );
        on_tx!(tx, x => {
            let mut q = sqlx::query(sqlx::AssertSqlSafe(sql));
            for (container_id, shipment_id, o) in chunk {
                let r = boxtrack_core::tracking::raw_view(o);
                q = q.bind(Uuid::now_v7()).bind(account_id).bind(*container_id).bind(*shipment_id)
                    .bind(labels.label(container_id, r.data_source)).bind(r.event).bind(r.estimated).bind(r.at_us)
                    .bind(r.locode).bind(r.timezone).bind(r.vessel_name).bind(r.vessel_imo).bind(r.voyage)
                    .bind(Json(*o)).bind(o.observed_us).bind(now)
                    .bind(boxtrack_core::tracking::observation_key(o));
            }
            q.execute(x).await.map(|_| ())?
        });
    }
    Ok(())
}

/// Whether the account sees rail last free days (its events, webhooks and filter columns).
async fn rail_lfd(tx: &mut Tx, account_id: Uuid) -> Result<bool> {
    let entitlements: Option<Json<Vec<boxtrack_core::plan::Entitlement>>> = on_tx!(tx, c => sqlx::query_scalar("SELECT entitlements FROM accounts WHERE id = $1")
        .bind(account_id).fetch_optional(c).await?);
    Ok(entitlements.is_some_and(|e| e.0.contains(&boxtrack_core::plan::Entitlement::RailLfd)))
}

/// A transport event to insert.
pub(super) struct NewTransport {
    pub(super) id: Uuid,
    pub(super) container_id: Uuid,
    pub(super) shipment_id: Uuid,
    pub(super) event: TransportEvent,
}

/// What the merge decided, to be written.
#[derive(Default)]
struct Plan {
    /// The last state of each changed container.
    containers: Vec<ContainerUpdate>,
    /// Each shipment whose state changed: its state, apart its records, and its rendered text
    /// (`crate::rendered`).
    shipments: Vec<(Uuid, ShipmentState, VoyageRecords, TextChange)>,
    /// New transport events.
    transport: Vec<NewTransport>,
    /// Transport events updated in place.
    revised: Vec<(Uuid, TransportEvent)>,
    /// Transport events whose sources withdrew every report (container, milestone key).
    withdrawn: Vec<(Uuid, String)>,
    /// Event-log entries.
    entries: Vec<crate::events::NewEvent>,
    /// Shipments with a container that came back empty.
    terminated: Vec<Uuid>,
    /// The changes per container.
    result: Vec<(Uuid, Vec<Change>)>,
}

/// The pure merge of every batch, as the account may see it.
fn merge_all(
    batches: &[Batch<'_>],
    rows: &HashMap<Uuid, StateRow>,
    rail_lfd: bool,
) -> Result<Plan> {
    let mut plan = Plan::default();
    // each shipment's state before and now, and its route
    let mut shipments: HashMap<Uuid, (ShipmentState, ShipmentState, Route)> = HashMap::new();
    let mut updates: Vec<ContainerUpdate> = Vec::new();
    for (container_id, batch) in batches {
        let row = rows
            .get(container_id)
            .ok_or(StoreError::NotFound("container"))?;
        let (_, ship_now, route) = shipments.entry(row.shipment_id).or_insert_with(|| {
            (
                row.shipment_state.0.clone(),
                row.shipment_state.0.clone(),
                row.route.0.clone(),
            )
        });
        let before = updates
            .iter()
            .rev()
            .find(|u| u.id == *container_id)
            .map(|u| u.state.clone())
            .unwrap_or_else(|| row.state.0.clone());
        let view = View {
            inland: route.inland(),
            rail_lfd,
        };
        let merged = merge(&before, ship_now, batch.as_ref(), view);
        if merged.changes.is_empty() && merged.container == before && merged.shipment == *ship_now {
            continue;
        }
        *ship_now = merged.shipment.clone();
        let update = container_update(row, merged.container, route.inland(), rail_lfd);
        if update.status == ContainerStatus::EmptyReturned.as_str()
            && !plan.terminated.contains(&row.shipment_id)
        {
            plan.terminated.push(row.shipment_id);
        }
        updates.push(update);
        for change in &merged.changes {
            record_change(&mut plan, row, change);
        }
        plan.result.push((*container_id, merged.changes));
    }
    // the last state of each container, its records apart as they are stored
    for mut u in updates.into_iter().rev() {
        if !plan.containers.iter().any(|l| l.id == u.id) {
            u.records = u.state.take_records();
            u.view = crate::rendered::container(&u.state, u.status, u.ready);
            plan.containers.push(u);
        }
    }
    plan.shipments = shipments
        .into_iter()
        .filter(|(_, (before, after, _))| before != after)
        .map(|(id, (before, mut after, route))| {
            let records = after.take_records();
            let text = TextChange::of(crate::rendered::shipment(&route, &after), || {
                crate::rendered::shipment(&route, &before)
            });
            (id, after, records, text)
        })
        .collect();
    Ok(plan)
}

/// A container's merged state with the columns derived from it.
fn container_update(
    row: &StateRow,
    c: ContainerState,
    inland: bool,
    rail_lfd: bool,
) -> ContainerUpdate {
    let status = current_status(&c, inland);
    let ended = status == ContainerStatus::EmptyReturned;
    let on_hold = boxtrack_core::tracking::rules::active_holds(&c.holds)
        .next()
        .is_some();
    let gates = boxtrack_core::tracking::release::gates(
        &c,
        boxtrack_core::tracking::release::left(&c, inland),
    );
    ContainerUpdate {
        id: row.id,
        status: status.as_str(),
        ready: ready_for_pickup(&c, inland),
        on_hold,
        gates: boxtrack_core::tracking::release::gate_sets(&gates),
        lfd: coalesced_lfd(&c.lfd, rail_lfd),
        active: !ended && !row.journey_ended(),
        state: c,
        records: MergeRecords::default(),
        view: None,
    }
}

/// What one change writes: a new transport event and its log entry, a revised or withdrawn one
/// (updated in place, no entry of its own), or a log entry on the container or the shipment.
fn record_change(plan: &mut Plan, row: &StateRow, change: &Change) {
    let mut payload = json!({"container_id": row.id, "shipment_id": row.shipment_id});
    let (object_type, object_id) = match change {
        Change::TransportRevised(t) => {
            plan.revised.push((row.id, t.clone()));
            return;
        }
        Change::TransportWithdrawn { key } => {
            plan.withdrawn.push((row.id, key.clone()));
            return;
        }
        Change::Transport(t) => {
            let id = Uuid::now_v7();
            plan.transport.push(NewTransport {
                id,
                container_id: row.id,
                shipment_id: row.shipment_id,
                event: t.clone(),
            });
            payload["transport_event_id"] = json!(id);
            ("transport_event", id)
        }
        Change::ShipmentEstimatedArrival { .. } => {
            payload["change"] = serde_json::to_value(change).unwrap_or(Value::Null);
            ("shipment", row.shipment_id)
        }
        other => {
            payload["change"] = serde_json::to_value(other).unwrap_or(Value::Null);
            ("container", row.id)
        }
    };
    plan.entries.push(crate::events::NewEvent {
        event: change.event_name(),
        object_type,
        object_id,
        payload,
    });
}

/// Writes each container's last state and the columns derived from it.
async fn write_containers(
    tx: &mut Tx,
    account_id: Uuid,
    updates: &[ContainerUpdate],
    now: i64,
) -> Result<()> {
    if let Tx::Postgres(t) = tx {
        return super::columns::containers(t, account_id, updates, now).await;
    }
    for chunk in updates.chunks(CHUNK) {
        let mut marks = Marks::new(tx.backend());
        let at = marks.one();
        let sql = format!(
            "UPDATE containers SET state = v.state, records = v.records, current_status = v.status, ready_for_pickup = v.ready, pickup_lfd_us = v.lfd, active = v.active, on_hold = v.on_hold, pod_terminal = v.pod_terminal, gates_held = v.held, gates_released = v.released, updated_us = {at} \
             FROM (SELECT column1 AS id, column2 AS state, column3 AS records, column4 AS status, column5 AS ready, column6 AS lfd, column7 AS active, column8 AS on_hold, column9 AS pod_terminal, column10 AS held, column11 AS released FROM (VALUES {}) AS t) AS v \
             WHERE containers.id = v.id AND containers.account_id = {acct}",
            marks.rows(chunk.len(), 11),
            acct = marks.one()
        );
        on_tx!(tx, x => {
            let mut q = sqlx::query(sqlx::AssertSqlSafe(sql));
            q = q.bind(now);
            for u in chunk {
                q = q.bind(u.id).bind(Json(&u.state)).bind(Json(&u.records)).bind(u.status).bind(u.ready).bind(u.lfd).bind(u.active).bind(u.on_hold).bind(u.state.pod_terminal.as_deref()).bind(u.gates.0).bind(u.gates.1);
            }
            q = q.bind(account_id);
            q.execute(x).await.map(|_| ())?
        });
    }
    Ok(())
}

/// Writes the shipments whose state changed.
async fn write_shipments(
    tx: &mut Tx,
    account_id: Uuid,
    changed: &[(Uuid, ShipmentState, VoyageRecords, TextChange)],
    now: i64,
) -> Result<()> {
    for chunk in changed.chunks(CHUNK) {
        let mut marks = Marks::new(tx.backend());
        let at = marks.one();
        let sql = format!(
            "UPDATE shipments SET state = v.state, records = v.records, arrived_us = v.arrived, updated_us = {at} \
             FROM (SELECT column1 AS id, column2 AS state, column3 AS records, column4 AS arrived FROM (VALUES {}) AS t) AS v WHERE shipments.id = v.id AND shipments.account_id = {acct}",
            marks.rows(chunk.len(), 4),
            acct = marks.one()
        );
        on_tx!(tx, x => {
            let mut q = sqlx::query(sqlx::AssertSqlSafe(sql));
            q = q.bind(now);
            for (id, st, records, _) in chunk {
                q = q.bind(*id).bind(Json(st)).bind(Json(records)).bind(st.pod_ata_us);
            }
            q = q.bind(account_id);
            q.execute(x).await.map(|_| ())?
        });
    }
    Ok(())
}

/// Inserts the new transport events, marks what they supersede and updates the revised ones
/// in place.
async fn write_transport(
    tx: &mut Tx,
    account_id: Uuid,
    plan: &Plan,
    labels: &Labels,
    now: i64,
) -> Result<()> {
    insert_transport(tx, account_id, &plan.transport, labels, now).await?;
    supersede(tx, account_id, &plan.transport, now).await?;
    for (container_id, t) in &plan.revised {
        const SQL: &str = "UPDATE transport_events SET at_us = $1, timezone = $2, terminal = $3, vessel_name = $4, vessel_imo = $5, voyage = $6, data_source = $7 \
            WHERE container_id = $8 AND account_id = $9 AND milestone_key = $10";
        on_tx!(tx, x => sqlx::query(SQL)
            .bind(t.at_us).bind(&t.timezone).bind(&t.terminal).bind(&t.vessel_name).bind(&t.vessel_imo).bind(&t.voyage)
            .bind(labels.label(container_id, boxtrack_core::tracking::source_name(t.source)))
            .bind(*container_id).bind(account_id).bind(&t.key)
            .execute(x).await.map(|_| ())?);
    }
    // withdrawn by their sources: off every timeline, as a superseded estimate is
    for (container_id, key) in &plan.withdrawn {
        const SQL: &str = "UPDATE transport_events SET superseded_us = $1 \
            WHERE container_id = $2 AND account_id = $3 AND milestone_key = $4 AND superseded_us IS NULL";
        on_tx!(tx, x => sqlx::query(SQL)
            .bind(now).bind(*container_id).bind(account_id).bind(key)
            .execute(x).await.map(|_| ())?);
    }
    Ok(())
}

/// Inserts the merge's new transport events.
async fn insert_transport(
    tx: &mut Tx,
    account_id: Uuid,
    new: &[NewTransport],
    labels: &Labels,
    now: i64,
) -> Result<()> {
    if let Tx::Postgres(t) = tx {
        return super::columns::transport_events(t, account_id, new, labels, now).await;
    }
    for chunk in new.chunks(CHUNK) {
        let sql = format!(
            "INSERT INTO transport_events (id, account_id, container_id, shipment_id, event, at_us, locode, timezone, terminal, vessel_name, vessel_imo, voyage, data_source, created_us, milestone_key) VALUES {}",
            Marks::new(tx.backend()).rows(chunk.len(), 15)
        );
        on_tx!(tx, x => {
            let mut q = sqlx::query(sqlx::AssertSqlSafe(sql));
            for NewTransport { id, container_id, shipment_id, event: t } in chunk {
                q = q.bind(*id).bind(account_id).bind(*container_id).bind(*shipment_id).bind(&t.event).bind(t.at_us)
                    .bind(&t.locode).bind(&t.timezone).bind(&t.terminal).bind(&t.vessel_name).bind(&t.vessel_imo).bind(&t.voyage)
                    .bind(labels.label(container_id, boxtrack_core::tracking::source_name(t.source)))
                    .bind(now).bind(&t.key);
            }
            q.execute(x).await.map(|_| ())?
        });
    }
    Ok(())
}

/// Marks the events that the new ones (already inserted) supersede
/// (`TransportEvent::supersedes`): earlier estimates of a milestone that was estimated again
/// or has happened leave the timeline, one statement per [`CHUNK`] of containers and names.
async fn supersede(tx: &mut Tx, account_id: Uuid, new: &[NewTransport], now: i64) -> Result<()> {
    let marks = superseding(new);
    for chunk in marks.chunks(CHUNK) {
        let mut m = Marks::new(tx.backend());
        let at = m.one();
        let values = m.rows(chunk.len(), 3);
        let account = m.one();
        // driven by the list, each row an index lookup by container: a join the planner is
        // free to shape scanned the whole table once per row of the list while the table's
        // statistics still called it small (a new install, a bulk load). SQLite keeps the
        // order of a CROSS JOIN as written. (On SQLite a statement per row cost a round trip
        // to sqlx's connection thread each, two thread switches: BENCHMARKS.md, "Superseded
        // estimates a chunk at a time".)
        let sql = match tx {
            Tx::Postgres(_) => format!(
                "UPDATE transport_events SET superseded_us = {at} WHERE account_id = {account} AND id = ANY(ARRAY(\
                 SELECT t.id FROM (VALUES {values}) AS v(container_id, event, keep) CROSS JOIN LATERAL (\
                 SELECT te.id FROM transport_events te WHERE te.container_id = v.container_id AND te.account_id = {account} \
                 AND te.event = v.event AND te.superseded_us IS NULL AND te.id <> v.keep OFFSET 0) AS t))"
            ),
            Tx::Sqlite(_) => format!(
                "UPDATE transport_events SET superseded_us = {at} WHERE id IN (\
                 SELECT te.id FROM (VALUES {values}) AS v CROSS JOIN transport_events te \
                 WHERE te.container_id = v.column1 AND te.account_id = {account} AND te.event = v.column2 \
                 AND te.superseded_us IS NULL AND te.id <> v.column3)"
            ),
        };
        on_tx!(tx, x => {
            let mut q = sqlx::query(sqlx::AssertSqlSafe(sql));
            q = q.bind(now);
            for (container_id, event, keep) in chunk {
                q = q.bind(*container_id).bind(event).bind(*keep);
            }
            q = q.bind(account_id);
            q.execute(x).await.map(|_| ())?
        });
    }
    Ok(())
}

/// What the new events supersede, once per container and event name: (container, the name
/// whose open events leave the timeline, the new event that stays). The newest of each name on
/// a container decides (an estimate keeps itself).
fn superseding(new: &[NewTransport]) -> Vec<(Uuid, String, Uuid)> {
    let mut out: Vec<(Uuid, String, Uuid)> = Vec::new();
    let mut seen: HashSet<(Uuid, String)> = HashSet::new();
    for n in new.iter().rev() {
        let Some(event) = n.event.supersedes() else {
            continue;
        };
        if seen.insert((n.container_id, event.clone())) {
            out.push((n.container_id, event, n.id));
        }
    }
    out
}

/// Merges observations into one container in a transaction of its own.
pub async fn apply(
    db: &Db,
    account_id: Uuid,
    container_id: Uuid,
    batch: &[Observation],
) -> Result<Vec<Change>> {
    let mut tx = db.begin().await?;
    let changes = apply_in(&mut tx, account_id, container_id, batch, now_us()).await?;
    tx.commit().await?;
    Ok(changes)
}

/// The most transactions at once a bulk apply spreads over on PostgreSQL.
const PARTS: usize = 3;

/// The fewest containers a part of a bulk apply gets: a smaller bulk is cut into fewer parts,
/// below `2 × PART_MIN` containers none.
const PART_MIN: usize = 100;

/// Merges observations into many containers of one account (for bulk ingest); returns how
/// many changes were recorded. On SQLite, and for fewer than `2 × PART_MIN` containers, in
/// one transaction. On PostgreSQL a larger bulk is cut by shipment into up to [`PARTS`] parts
/// applied at once, each in its own transaction on its own connection: while one part's
/// statements run in the database another's merge runs here, and the database works on
/// several. A shipment's containers stay in one part, in their order, so the parts lock
/// disjoint rows and wait for each other only at the account's event-log counter, which each
/// takes last; each part commits all of its containers or none (when one fails another may
/// have committed: applying the bulk again changes nothing already applied, raw events being
/// kept once and the merge taking a report once).
pub async fn apply_many(
    db: &Db,
    account_id: Uuid,
    batches: &[(Uuid, Vec<Observation>)],
) -> Result<usize> {
    let now = now_us();
    let parts = match db {
        Db::Postgres(p) if batches.len() >= 2 * PART_MIN => {
            let ids: Vec<Uuid> = batches.iter().map(|(id, _)| *id).collect();
            let shipment_of: HashMap<Uuid, Uuid> = sqlx::query_as(
                "SELECT id, shipment_id FROM containers WHERE account_id = $1 AND id = ANY($2)",
            )
            .bind(account_id)
            .bind(&ids)
            .fetch_all(p)
            .await?
            .into_iter()
            .collect();
            // an unknown container fails the bulk before any part commits, as one
            // transaction would
            if batches.iter().any(|(id, _)| !shipment_of.contains_key(id)) {
                return Err(StoreError::NotFound("container"));
            }
            let n = (batches.len() / PART_MIN).clamp(1, PARTS);
            parts_by_shipment(batches, &shipment_of, n)
        }
        _ => vec![batches.iter().collect()],
    };
    apply_parts(db, account_id, parts, now).await
}

/// A bulk apply's future (boxed: [`apply_parts`] awaits itself for the rest of its parts).
type Applying<'a> = std::pin::Pin<Box<dyn std::future::Future<Output = Result<usize>> + Send + 'a>>;

/// Applies `parts` at once, each in a transaction of its own; the changes made.
fn apply_parts<'a>(
    db: &'a Db,
    account_id: Uuid,
    mut parts: Vec<Vec<&'a (Uuid, Vec<Observation>)>>,
    now: i64,
) -> Applying<'a> {
    Box::pin(async move {
        let Some(part) = parts.pop() else {
            return Ok(0);
        };
        let (this, rest) = tokio::try_join!(
            apply_part(db, account_id, part, now),
            apply_parts(db, account_id, parts, now)
        )?;
        Ok(this + rest)
    })
}

/// One part of a bulk apply in a transaction of its own; the changes made.
async fn apply_part(
    db: &Db,
    account_id: Uuid,
    part: Vec<&(Uuid, Vec<Observation>)>,
    now: i64,
) -> Result<usize> {
    let mut tx = db.begin().await?;
    let changes = apply_refs_in(&mut tx, account_id, part, now).await?;
    tx.commit().await?;
    Ok(changes.iter().map(|(_, c)| c.len()).sum())
}

/// `batches` cut into at most `n` parts, a shipment's containers (by `shipment_of`) in one
/// part and in their order, each shipment going to the part with the fewest observations so
/// far; containers `shipment_of` does not know go to the first part (which then reports them
/// unknown). Parts left empty are left out.
fn parts_by_shipment<'a>(
    batches: &'a [(Uuid, Vec<Observation>)],
    shipment_of: &HashMap<Uuid, Uuid>,
    n: usize,
) -> Vec<Vec<&'a (Uuid, Vec<Observation>)>> {
    let n = n.max(1);
    let mut parts: Vec<Vec<&(Uuid, Vec<Observation>)>> = vec![Vec::new(); n];
    let mut weight = vec![0usize; n];
    let mut part_of: HashMap<Uuid, usize> = HashMap::new();
    for b in batches {
        let part = match shipment_of.get(&b.0) {
            None => 0,
            Some(shipment) => *part_of
                .entry(*shipment)
                .or_insert_with(|| (0..n).min_by_key(|i| (weight[*i], *i)).unwrap_or(0)),
        };
        weight[part] += b.1.len().max(1);
        parts[part].push(b);
    }
    parts.retain(|p| !p.is_empty());
    parts
}

#[cfg(test)]
mod tests {
    use super::*;

    fn new(container: u128, id: u128, event: &str) -> NewTransport {
        NewTransport {
            id: Uuid::from_u128(id),
            container_id: Uuid::from_u128(container),
            shipment_id: Uuid::nil(),
            event: serde_json::from_value(json!({"event": event, "source": "shipping_line"}))
                .unwrap_or_else(|e| panic!("a transport event: {e}")),
        }
    }

    fn obs(n: usize) -> Vec<Observation> {
        let one: Observation = serde_json::from_value(json!({
            "observed_us": 1,
            "source": "terminal",
            "fact": {"kind": "holds", "holds": []}
        }))
        .unwrap_or_else(|e| panic!("an observation: {e}"));
        vec![one; n]
    }

    #[test]
    fn a_bulk_is_cut_by_shipment_into_parts_of_like_weight() {
        let c = Uuid::from_u128;
        // containers 1-3 of shipment 100 (heavy), 4 of 200, 5-6 of 300, 7 of nobody known
        let batches = vec![
            (c(1), obs(5)),
            (c(4), obs(2)),
            (c(2), obs(5)),
            (c(5), obs(1)),
            (c(3), obs(1)),
            (c(6), obs(2)),
            (c(7), obs(1)),
        ];
        let shipment_of = HashMap::from([
            (c(1), c(100)),
            (c(2), c(100)),
            (c(3), c(100)),
            (c(4), c(200)),
            (c(5), c(300)),
            (c(6), c(300)),
        ]);
        let parts = parts_by_shipment(&batches, &shipment_of, 2);
        let ids = |p: &Vec<&(Uuid, Vec<Observation>)>| p.iter().map(|b| b.0).collect::<Vec<_>>();
        // shipment 100 to the first part, 200 and 300 to the lighter second, in batch order;
        // the unknown container to the first part, which reports it
        assert_eq!(ids(&parts[0]), vec![c(1), c(2), c(3), c(7)]);
        assert_eq!(ids(&parts[1]), vec![c(4), c(5), c(6)]);
        // one part: everything, in order
        let one = parts_by_shipment(&batches, &shipment_of, 1);
        assert_eq!(one.len(), 1);
        assert_eq!(
            ids(&one[0]),
            batches.iter().map(|b| b.0).collect::<Vec<_>>()
        );
        // one shipment: one part, the empty one left out
        let single = parts_by_shipment(&batches[..1], &shipment_of, 2);
        assert_eq!(single.len(), 1);
    }

    proptest::proptest! {
        /// Whatever the bulk: every batch lands in exactly one part, once; a shipment's
        /// containers share a part; each part keeps the bulk's order; at most `n` parts, none
        /// empty.
        #[test]
        fn a_cut_keeps_every_batch_once_and_shipments_whole(
            // (container, its shipment or none, observations) with repeats allowed
            rows in proptest::collection::vec((0u128..40, proptest::option::of(0u128..8), 0usize..4), 0..60),
            n in 1usize..5,
        ) {
            let batches: Vec<(Uuid, Vec<Observation>)> =
                rows.iter().map(|(c, _, k)| (Uuid::from_u128(*c), obs(*k))).collect();
            let mut shipment_of = HashMap::new();
            for (c, s, _) in &rows {
                if let Some(s) = s {
                    shipment_of.entry(Uuid::from_u128(*c)).or_insert(Uuid::from_u128(1_000 + s));
                }
            }
            let parts = parts_by_shipment(&batches, &shipment_of, n);
            proptest::prop_assert!(parts.len() <= n);
            proptest::prop_assert!(parts.iter().all(|p| !p.is_empty()));
            // each batch once, by address, in the bulk's order within its part
            let mut seen = vec![0usize; batches.len()];
            for part in &parts {
                let mut last = None;
                for b in part {
                    let at = batches.iter().position(|x| std::ptr::eq(x, *b));
                    proptest::prop_assert!(at.is_some());
                    let at = at.unwrap_or_default();
                    proptest::prop_assert!(last.is_none_or(|l| l < at));
                    last = Some(at);
                    seen[at] += 1;
                }
            }
            proptest::prop_assert!(seen.iter().all(|k| *k == 1));
            // a shipment in one part only
            let mut part_of_shipment: HashMap<Uuid, usize> = HashMap::new();
            for (i, part) in parts.iter().enumerate() {
                for b in part {
                    if let Some(s) = shipment_of.get(&b.0) {
                        let first = *part_of_shipment.entry(*s).or_insert(i);
                        proptest::prop_assert_eq!(first, i);
                    }
                }
            }
        }
    }

    #[test]
    fn the_newest_event_of_each_name_on_a_container_decides_what_leaves() {
        let est = "container.transport.estimated.vessel_arrived";
        let new = [
            new(1, 10, est),
            new(1, 11, "container.transport.vessel_arrived"),
            new(1, 12, est),
            new(2, 20, est),
            new(2, 21, "container.transport.vessel_loaded"),
        ];
        // container 1: the newest estimate keeps itself and retires every other open
        // estimate (the actual arrival retires the same name: decided once); container 2: its
        // estimate (a loading has no estimate to retire)
        assert_eq!(
            superseding(&new),
            vec![
                (Uuid::from_u128(2), est.to_string(), Uuid::from_u128(20)),
                (Uuid::from_u128(1), est.to_string(), Uuid::from_u128(12)),
            ]
        );
    }
}
