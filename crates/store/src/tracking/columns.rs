//! The merge's writes on PostgreSQL as one statement per table: every column travels as one
//! array parameter and `unnest` turns the arrays back into rows.
//!
//! A multi-row `VALUES` list costs PostgreSQL a parse and a plan per distinct row count and
//! a bound parameter per cell (17 × 100 for a chunk of raw events); the arrays are a fixed
//! statement, prepared once per connection, whatever the batch's size, and each decodes in
//! one pass. SQLite has no arrays and keeps the multi-row form (`apply.rs`).

use boxtrack_core::tracking::Observation;
use sqlx::PgConnection;
use sqlx::types::Json;
use uuid::Uuid;

use super::apply::{ContainerUpdate, Labels, NewTransport};
use crate::Result;

/// Tells the change feed (`changes.rs`) once that this transaction changes `account_id`, and
/// marks the transaction so that the row triggers of the tables the merge writes skip that
/// account's rows (migration 0047) instead of queuing a call per row.
pub(super) async fn announce(conn: &mut PgConnection, account_id: Uuid) -> Result<()> {
    sqlx::query(
        "SELECT set_config('boxtrack.notified_account', $1::text, true), pg_notify($2, $1::text)",
    )
    .bind(account_id)
    .bind(crate::changes::CHANNEL)
    .execute(conn)
    .await?;
    Ok(())
}

/// Keeps what the sources said verbatim, once per container and report (`raw` is the
/// container, its shipment and the observation).
pub(super) async fn raw_events(
    conn: &mut PgConnection,
    account_id: Uuid,
    raw: &[(Uuid, Uuid, &Observation)],
    labels: &Labels,
    now: i64,
) -> Result<()> {
    let n = raw.len();
    let mut ids = Vec::with_capacity(n);
    let mut containers = Vec::with_capacity(n);
    let mut shipments = Vec::with_capacity(n);
    let mut sources = Vec::with_capacity(n);
    let mut events = Vec::with_capacity(n);
    let mut estimated = Vec::with_capacity(n);
    let mut at = Vec::with_capacity(n);
    let mut locodes = Vec::with_capacity(n);
    let mut zones = Vec::with_capacity(n);
    let mut vessels = Vec::with_capacity(n);
    let mut imos = Vec::with_capacity(n);
    let mut voyages = Vec::with_capacity(n);
    let mut originals = Vec::with_capacity(n);
    let mut observed = Vec::with_capacity(n);
    let mut keys = Vec::with_capacity(n);
    for (container_id, shipment_id, o) in raw {
        let r = boxtrack_core::tracking::raw_view(o);
        ids.push(Uuid::now_v7());
        containers.push(*container_id);
        shipments.push(*shipment_id);
        sources.push(labels.label(container_id, r.data_source));
        events.push(r.event);
        estimated.push(r.estimated);
        at.push(r.at_us);
        locodes.push(r.locode);
        zones.push(r.timezone);
        vessels.push(r.vessel_name);
        imos.push(r.vessel_imo);
        voyages.push(r.voyage);
        originals.push(Json(*o));
        observed.push(o.observed_us);
        keys.push(boxtrack_core::tracking::observation_key(o));
    }
    sqlx::query(
        "INSERT INTO raw_events (id, account_id, container_id, shipment_id, data_source, event, estimated, at_us, locode, timezone, vessel_name, vessel_imo, voyage, original, observed_us, created_us, observation_key) \
         SELECT id, $1, container_id, shipment_id, data_source, event, estimated, at_us, locode, timezone, vessel_name, vessel_imo, voyage, original, observed_us, $2, observation_key \
         FROM unnest($3::uuid[], $4::uuid[], $5::uuid[], $6::text[], $7::text[], $8::bool[], $9::int8[], $10::text[], $11::text[], $12::text[], $13::text[], $14::text[], $15::jsonb[], $16::int8[], $17::int8[]) \
           AS t(id, container_id, shipment_id, data_source, event, estimated, at_us, locode, timezone, vessel_name, vessel_imo, voyage, original, observed_us, observation_key) \
         ON CONFLICT (account_id, container_id, observation_key) DO NOTHING",
    )
    .bind(account_id)
    .bind(now)
    .bind(ids)
    .bind(containers)
    .bind(shipments)
    .bind(sources)
    .bind(events)
    .bind(estimated)
    .bind(at)
    .bind(locodes)
    .bind(zones)
    .bind(vessels)
    .bind(imos)
    .bind(voyages)
    .bind(originals)
    .bind(observed)
    .bind(keys)
    .execute(conn)
    .await?;
    Ok(())
}

/// Inserts the merge's new transport events.
pub(super) async fn transport_events(
    conn: &mut PgConnection,
    account_id: Uuid,
    new: &[NewTransport],
    labels: &Labels,
    now: i64,
) -> Result<()> {
    if new.is_empty() {
        return Ok(());
    }
    let n = new.len();
    let mut ids = Vec::with_capacity(n);
    let mut containers = Vec::with_capacity(n);
    let mut shipments = Vec::with_capacity(n);
    let mut events = Vec::with_capacity(n);
    let mut at = Vec::with_capacity(n);
    let mut locodes = Vec::with_capacity(n);
    let mut zones = Vec::with_capacity(n);
    let mut terminals = Vec::with_capacity(n);
    let mut vessels = Vec::with_capacity(n);
    let mut imos = Vec::with_capacity(n);
    let mut voyages = Vec::with_capacity(n);
    let mut sources = Vec::with_capacity(n);
    let mut keys = Vec::with_capacity(n);
    for NewTransport {
        id,
        container_id,
        shipment_id,
        event: t,
    } in new
    {
        ids.push(*id);
        containers.push(*container_id);
        shipments.push(*shipment_id);
        events.push(t.event.as_str());
        at.push(t.at_us);
        locodes.push(t.locode.as_deref());
        zones.push(t.timezone.as_deref());
        terminals.push(t.terminal.as_deref());
        vessels.push(t.vessel_name.as_deref());
        imos.push(t.vessel_imo.as_deref());
        voyages.push(t.voyage.as_deref());
        sources.push(labels.label(container_id, boxtrack_core::tracking::source_name(t.source)));
        keys.push(t.key.as_deref());
    }
    sqlx::query(
        "INSERT INTO transport_events (id, account_id, container_id, shipment_id, event, at_us, locode, timezone, terminal, vessel_name, vessel_imo, voyage, data_source, created_us, milestone_key) \
         SELECT id, $1, container_id, shipment_id, event, at_us, locode, timezone, terminal, vessel_name, vessel_imo, voyage, data_source, $2, milestone_key \
         FROM unnest($3::uuid[], $4::uuid[], $5::uuid[], $6::text[], $7::int8[], $8::text[], $9::text[], $10::text[], $11::text[], $12::text[], $13::text[], $14::text[], $15::text[]) \
           AS t(id, container_id, shipment_id, event, at_us, locode, timezone, terminal, vessel_name, vessel_imo, voyage, data_source, milestone_key)",
    )
    .bind(account_id)
    .bind(now)
    .bind(ids)
    .bind(containers)
    .bind(shipments)
    .bind(events)
    .bind(at)
    .bind(locodes)
    .bind(zones)
    .bind(terminals)
    .bind(vessels)
    .bind(imos)
    .bind(voyages)
    .bind(sources)
    .bind(keys)
    .execute(conn)
    .await?;
    Ok(())
}

/// Writes the merged containers.
pub(super) async fn containers(
    conn: &mut PgConnection,
    account_id: Uuid,
    updates: &[ContainerUpdate],
    now: i64,
) -> Result<()> {
    if updates.is_empty() {
        return Ok(());
    }
    let n = updates.len();
    let mut ids = Vec::with_capacity(n);
    let mut states = Vec::with_capacity(n);
    let mut records = Vec::with_capacity(n);
    let mut statuses = Vec::with_capacity(n);
    let mut ready = Vec::with_capacity(n);
    let mut lfds = Vec::with_capacity(n);
    let mut active = Vec::with_capacity(n);
    let mut holds = Vec::with_capacity(n);
    let mut terminals = Vec::with_capacity(n);
    let mut held = Vec::with_capacity(n);
    let mut released = Vec::with_capacity(n);
    for u in updates {
        ids.push(u.id);
        states.push(Json(&u.state));
        records.push(Json(&u.records));
        statuses.push(u.status);
        ready.push(u.ready);
        lfds.push(u.lfd);
        active.push(u.active);
        holds.push(u.on_hold);
        terminals.push(u.state.pod_terminal.as_deref());
        held.push(u.gates.0);
        released.push(u.gates.1);
    }
    sqlx::query(
        "UPDATE containers SET state = v.state, records = v.records, current_status = v.status, ready_for_pickup = v.ready, pickup_lfd_us = v.lfd, active = v.active, on_hold = v.on_hold, pod_terminal = v.pod_terminal, gates_held = v.held, gates_released = v.released, updated_us = $1 \
         FROM unnest($2::uuid[], $3::jsonb[], $4::jsonb[], $5::text[], $6::bool[], $7::int8[], $8::bool[], $9::bool[], $10::text[], $11::int8[], $12::int8[]) \
           AS v(id, state, records, status, ready, lfd, active, on_hold, pod_terminal, held, released) \
         WHERE containers.id = v.id AND containers.account_id = $13",
    )
    .bind(now)
    .bind(ids)
    .bind(states)
    .bind(records)
    .bind(statuses)
    .bind(ready)
    .bind(lfds)
    .bind(active)
    .bind(holds)
    .bind(terminals)
    .bind(held)
    .bind(released)
    .bind(account_id)
    .execute(conn)
    .await?;
    Ok(())
}

/// Writes the containers' rendered states (`crate::rendered`), and removes those of containers
/// merged without a renderer.
pub(super) async fn views(
    conn: &mut PgConnection,
    account_id: Uuid,
    updates: &[ContainerUpdate],
) -> Result<()> {
    let (mut ids, mut views, mut gone) = (Vec::new(), Vec::new(), Vec::new());
    for u in updates {
        match &u.view {
            Some(v) => {
                ids.push(u.id);
                views.push(v.as_str());
            }
            None => gone.push(u.id),
        }
    }
    if !ids.is_empty() {
        sqlx::query(
            "INSERT INTO container_views (container_id, account_id, view) \
             SELECT id, $1, view FROM unnest($2::uuid[], $3::text[]) AS v(id, view) \
             ON CONFLICT (account_id, container_id) DO UPDATE SET view = excluded.view",
        )
        .bind(account_id)
        .bind(ids)
        .bind(views)
        .execute(&mut *conn)
        .await?;
    }
    if !gone.is_empty() {
        sqlx::query("DELETE FROM container_views WHERE account_id = $2 AND container_id = ANY($1)")
            .bind(gone)
            .bind(account_id)
            .execute(&mut *conn)
            .await?;
    }
    Ok(())
}
