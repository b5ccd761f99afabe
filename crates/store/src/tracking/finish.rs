//! Finishing a claimed tracking request: a shipment with its containers, a failure, a wait
//! for the manifest or a retry, with the request's event, in one transaction.

use boxtrack_core::requests::Status;
use boxtrack_core::tracking::{ContainerState, Route, ShipmentState};
use serde_json::json;
use sqlx::types::Json;
use uuid::Uuid;

use super::{
    NewContainer, Outcome, TrackingRequestRow, append, apply_in, get_in, set_initial_fields,
    set_status, tr_payload, within_plan_limit,
};
use crate::{Db, Result, Tx, now_us, on_tx};

/// The request's event to log and its row after the change (`None`: nothing a client sees
/// changed, as when a retry is scheduled).
type Logged = Option<(&'static str, TrackingRequestRow)>;

/// Records the outcome of processing a claimed request, with its events, in one transaction.
/// Returns the ids of the created shipment's containers (empty otherwise).
pub async fn finish(db: &Db, request: &TrackingRequestRow, outcome: Outcome) -> Result<Vec<Uuid>> {
    let now = now_us();
    let mut tx = db.begin().await?;
    let current = get_in(&mut tx, request.account_id, request.id).await?;
    if current.status != Status::Pending.as_str()
        && current.status != Status::AwaitingManifest.as_str()
    {
        // Someone else finished it (an expired lease raced); nothing to do.
        tx.commit().await?;
        return Ok(vec![]);
    }
    let attempts = current.retry_count.unwrap_or(0) + 1;
    let outcome = within_plan_limit(&mut tx, request.account_id, outcome).await?;
    let step = Step {
        request,
        current: &current,
        attempts,
        now,
    };
    let mut created = Vec::new();
    let logged = match outcome {
        Outcome::Created {
            scac,
            bill_of_lading_number,
            route,
            containers,
            scenario,
        } => {
            let shipment = NewShipment {
                scac: &scac,
                bill_of_lading_number: &bill_of_lading_number,
                route: &route,
                containers: &containers,
                scenario: scenario.as_deref(),
            };
            created = step.create(&mut tx, &shipment).await?;
            Some((
                "tracking_request.succeeded",
                get_in(&mut tx, request.account_id, request.id).await?,
            ))
        }
        Outcome::Failed { reason } => step.fail(&mut tx, &reason).await?,
        Outcome::AwaitingManifest { expired: true, .. } => step.fail(&mut tx, "expired").await?,
        Outcome::AwaitingManifest { next_us, .. } => step.await_manifest(&mut tx, next_us).await?,
        Outcome::Retry { last: true, .. } => step.fail(&mut tx, "retries_exhausted").await?,
        Outcome::Retry {
            reason, next_us, ..
        } => step.retry(&mut tx, &reason, next_us).await?,
    };
    if let Some((event, row)) = logged {
        append(
            &mut tx,
            request.account_id,
            event,
            "tracking_request",
            request.id,
            &tr_payload(&row),
            now,
        )
        .await?;
    }
    tx.commit().await?;
    Ok(created)
}

/// The shipment a carrier confirmed.
struct NewShipment<'a> {
    scac: &'a str,
    bill_of_lading_number: &'a str,
    route: &'a Route,
    containers: &'a [NewContainer],
    scenario: Option<&'a str>,
}

/// The request being finished, as read in this transaction.
struct Step<'a> {
    request: &'a TrackingRequestRow,
    current: &'a TrackingRequestRow,
    attempts: i64,
    now: i64,
}

impl Step<'_> {
    /// Creates the shipment (and the carrier's subject to poll), its containers with their
    /// first observations, the sandbox run of a scenario, and marks the request created.
    async fn create(&self, tx: &mut Tx, new: &NewShipment<'_>) -> Result<Vec<Uuid>> {
        let (request, now) = (self.request, self.now);
        let shipment_id = Uuid::now_v7();
        if new.scac != boxtrack_core::carriers::SANDBOX_SCAC {
            crate::subjects::ensure_in(
                tx,
                new.scac,
                &request.request_type,
                &request.request_number,
                now,
                now,
            )
            .await?;
        }
        on_tx!(tx, c => sqlx::query(
            "INSERT INTO shipments (id, account_id, tracking_request_id, bill_of_lading_number, scac, pod_locode, ref_numbers, tags, route, state, tracking_stopped_us, stopped_reason, created_us, updated_us) \
             VALUES ($1, $2, $3, $4, $5, $11, $6, $7, $8, $9, NULL, NULL, $10, $10)")
            .bind(shipment_id).bind(request.account_id).bind(request.id).bind(new.bill_of_lading_number).bind(new.scac)
            .bind(Json(&self.current.ref_numbers)).bind(Json(&self.current.shipment_tags)).bind(Json(new.route))
            .bind(Json(ShipmentState::default())).bind(now).bind(&new.route.pod_locode)
            .execute(c).await.map(|_| ())?);
        let view = crate::rendered::shipment(new.route, &ShipmentState::default());
        if view.is_some() {
            use super::texts::{Texts, write_texts};
            let rendered = [(shipment_id, view.as_deref())];
            write_texts(tx, request.account_id, Texts::SHIPMENTS, &rendered).await?;
        }
        let mut created = Vec::new();
        let mut numbered: Vec<(Uuid, String)> = Vec::new();
        for nc in new.containers {
            let id = create_container_in(tx, request.account_id, shipment_id, nc, now).await?;
            created.push(id);
            numbered.push((id, nc.number.clone()));
        }
        set_initial_fields(
            tx,
            request.id,
            request.account_id,
            Some(shipment_id),
            &numbered,
            now,
        )
        .await?;
        if let Some(name) = new.scenario {
            on_tx!(tx, c => sqlx::query(
                "INSERT INTO sandbox_runs (id, account_id, shipment_id, scenario, started_us, next_step, done) VALUES ($1, $2, $3, $4, $5, 0, FALSE)")
                .bind(Uuid::now_v7()).bind(request.account_id).bind(shipment_id).bind(name).bind(now)
                .execute(c).await.map(|_| ())?);
        }
        on_tx!(tx, c => sqlx::query(
            "UPDATE tracking_requests SET status = 'created', scac = $2, shipment_id = $3, failed_reason = NULL, is_retrying = FALSE, retry_count = $4, next_attempt_us = NULL, locked_until_us = NULL, updated_us = $5 WHERE account_id = $6 AND id = $1")
            .bind(request.id).bind(new.scac).bind(shipment_id).bind(self.attempts).bind(now).bind(request.account_id)
            .execute(c).await.map(|_| ())?);
        Ok(created)
    }

    /// Fails the request for `reason`.
    async fn fail(&self, tx: &mut Tx, reason: &str) -> Result<Logged> {
        let id = self.request.id;
        set_status(
            tx,
            self.request.account_id,
            id,
            Status::Failed,
            Some(reason),
            false,
            self.attempts,
            None,
            self.now,
        )
        .await?;
        Ok(Some((
            "tracking_request.failed",
            get_in(tx, self.request.account_id, id).await?,
        )))
    }

    /// Waits for the manifest until `next_us`; logged the first time only.
    async fn await_manifest(&self, tx: &mut Tx, next_us: i64) -> Result<Logged> {
        let id = self.request.id;
        let first = self.current.status != Status::AwaitingManifest.as_str();
        set_status(
            tx,
            self.request.account_id,
            id,
            Status::AwaitingManifest,
            None,
            false,
            self.attempts,
            Some(next_us),
            self.now,
        )
        .await?;
        let row = get_in(tx, self.request.account_id, id).await?;
        Ok(first.then_some(("tracking_request.awaiting_manifest", row)))
    }

    /// Tries again at `next_us` (nothing logged).
    async fn retry(&self, tx: &mut Tx, reason: &str, next_us: i64) -> Result<Logged> {
        set_status(
            tx,
            self.request.account_id,
            self.request.id,
            Status::Pending,
            Some(reason),
            true,
            self.attempts,
            Some(next_us),
            self.now,
        )
        .await?;
        Ok(None)
    }
}

/// One container of a shipment (new, or joined by a box its carrier named later), with what
/// the carrier said of it and what EDI files said of the box before it was tracked; logged as
/// `container.created`.
pub(super) async fn create_container_in(
    tx: &mut Tx,
    account_id: Uuid,
    shipment_id: Uuid,
    nc: &NewContainer,
    now: i64,
) -> Result<Uuid> {
    let container_id = Uuid::now_v7();
    on_tx!(tx, c => sqlx::query(
        "INSERT INTO containers (id, account_id, shipment_id, number, ref_numbers, state, current_status, ready_for_pickup, pickup_lfd_us, active, created_us, updated_us) \
         VALUES ($1, $2, $3, $4, $5, $6, 'new', FALSE, NULL, TRUE, $7, $7)")
        .bind(container_id).bind(account_id).bind(shipment_id).bind(&nc.number)
        .bind(Json(Vec::<String>::new())).bind(Json(ContainerState::default())).bind(now)
        .execute(c).await.map(|_| ())?);
    append(
        tx,
        account_id,
        "container.created",
        "container",
        container_id,
        &json!({"container_id": container_id, "shipment_id": shipment_id, "number": nc.number}),
        now,
    )
    .await?;
    // what EDI files said of the box before it was tracked (taken under the number's
    // lock, so that a file kept meanwhile is either read here or finds this container)
    crate::early::lock_number(tx, &nc.number).await?;
    let mut observations = nc.observations.clone();
    observations.extend(crate::early::for_new_container_in(tx, account_id, &nc.number).await?);
    apply_in(tx, account_id, container_id, &observations, now).await?;
    Ok(container_id)
}
