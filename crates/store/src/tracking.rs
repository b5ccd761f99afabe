//! Tracking requests (also the work queue), shipments, containers and transport events.

use boxtrack_core::paging::{Key, Page};
use boxtrack_core::plan::Plan;
use boxtrack_core::requests::{Status, ValidRequest};
use boxtrack_core::tracking::merge::{View, merge};
use boxtrack_core::tracking::rules::{coalesced_lfd, current_status, ready_for_pickup};
use boxtrack_core::tracking::{Change, ContainerState, Observation, Route, ShipmentState};
use serde_json::{Value, json};
use sqlx::types::Json;
use uuid::Uuid;

use crate::events::append;
use crate::list::{Arg, Cond, Keyed, ListSpec, Listed};
use crate::sql::Marks;
use crate::{Db, Result, StoreError, Tx, now_us, on_db, on_tx};

/// A stored tracking request.
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct TrackingRequestRow {
    /// Id.
    pub id: Uuid,
    /// Owner.
    pub account_id: Uuid,
    /// Normalised number.
    pub request_number: String,
    /// `container`, `bill_of_lading` or `booking_number`.
    pub request_type: String,
    /// Carrier (null while auto-detecting).
    pub scac: Option<String>,
    /// Whether the carrier is inferred.
    pub auto_detect: bool,
    /// `pending`, `awaiting_manifest`, `created`, `failed`, `tracking_stopped`.
    pub status: String,
    /// Last failure reason.
    pub failed_reason: Option<String>,
    /// Whether a transient failure is being retried.
    pub is_retrying: bool,
    /// Attempts so far.
    pub retry_count: Option<i64>,
    /// Client references.
    pub ref_numbers: Json<Vec<String>>,
    /// Shipment tags.
    pub shipment_tags: Json<Vec<String>>,
    /// The shipment once created.
    pub shipment_id: Option<Uuid>,
    /// The customer (a party of the account) it is tracked for.
    pub customer_id: Option<Uuid>,
    /// Next processing attempt.
    pub next_attempt_us: Option<i64>,
    /// Creation time.
    pub created_us: i64,
    /// Last change.
    pub updated_us: i64,
}

impl Keyed for TrackingRequestRow {
    fn key(&self) -> Key {
        Key {
            sort_us: self.created_us,
            id: *self.id.as_bytes(),
        }
    }
}

const TR_COLUMNS: &str = "id, account_id, request_number, request_type, scac, auto_detect, status, failed_reason, is_retrying, retry_count, ref_numbers, shipment_tags, shipment_id, customer_id, next_attempt_us, created_us, updated_us";

/// What a tracking request may carry beyond its number.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RequestExtras {
    /// The customer (a party of the account).
    pub customer_id: Option<Uuid>,
    /// Custom field values to set when the shipment and its containers are created.
    pub initial_custom_fields: Vec<InitialField>,
}

/// A custom field value to set on the shipment or containers a request creates (checked
/// against its definition when the request was made).
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct InitialField {
    /// The definition.
    pub definition_id: Uuid,
    /// `Shipment` or `Container`.
    pub entity_type: String,
    /// For containers: which one (every container when absent).
    pub number: Option<String>,
    /// The value.
    pub value: serde_json::Value,
}

/// Active containers of an account (on shipments still tracked).
pub async fn active_containers(db: &Db, account_id: Uuid) -> Result<i64> {
    Ok(
        on_db!(db, p => sqlx::query_scalar("SELECT COUNT(*) FROM containers WHERE account_id = $1 AND active = TRUE")
        .bind(account_id)
        .fetch_one(p)
        .await?),
    )
}

/// Records a new pending request (due for processing now). A live request for the same
/// number, type and carrier is [`StoreError::Duplicate`]; a free account at its container
/// limit is [`StoreError::PlanLimit`].
pub async fn create_request(
    db: &Db,
    account_id: Uuid,
    plan: Plan,
    v: &ValidRequest,
    extras: &RequestExtras,
) -> Result<TrackingRequestRow> {
    if let Some(limit) = plan.active_container_limit()
        && active_containers(db, account_id).await? >= i64::from(limit)
    {
        return Err(StoreError::PlanLimit { limit });
    }
    let now = now_us();
    let id = Uuid::now_v7();
    let mut tx = db.begin().await?;
    let sql = "INSERT INTO tracking_requests (id, account_id, request_number, request_type, scac, auto_detect, status, failed_reason, is_retrying, retry_count, ref_numbers, shipment_tags, shipment_id, customer_id, initial_custom_fields, next_attempt_us, locked_until_us, created_us, updated_us) \
               VALUES ($1, $2, $3, $4, $5, $6, 'pending', NULL, FALSE, NULL, $7, $8, NULL, $10, $11, $9, NULL, $9, $9)";
    let initial =
        (!extras.initial_custom_fields.is_empty()).then_some(Json(&extras.initial_custom_fields));
    let inserted = on_tx!(&mut tx, c => sqlx::query(sql)
        .bind(id)
        .bind(account_id)
        .bind(&v.number)
        .bind(v.request_type.as_str())
        .bind(&v.scac)
        .bind(v.auto_detect)
        .bind(Json(&v.ref_numbers))
        .bind(Json(&v.shipment_tags))
        .bind(now)
        .bind(extras.customer_id)
        .bind(initial)
        .execute(c)
        .await
        .map(|_| ()));
    match inserted {
        Err(e) if crate::unique_violation(&e) => {
            return Err(StoreError::Duplicate("tracking request"));
        }
        other => other?,
    }
    let row = get_in(&mut tx, id).await?;
    tx.commit().await?;
    Ok(row)
}

/// Sets the custom field values a request carried on the shipment and containers it has
/// just created (a definition deleted since is skipped).
async fn set_initial_fields(
    tx: &mut Tx,
    request: &TrackingRequestRow,
    shipment_id: Uuid,
    containers: &[(Uuid, String)],
    now: i64,
) -> Result<()> {
    let stored: Option<Option<Json<Vec<InitialField>>>> = on_tx!(tx, c => sqlx::query_scalar(
        "SELECT initial_custom_fields FROM tracking_requests WHERE id = $1")
        .bind(request.id).fetch_optional(c).await?);
    let Some(Some(Json(fields))) = stored else {
        return Ok(());
    };
    for f in &fields {
        let targets: Vec<Uuid> = if f.entity_type == "Shipment" {
            vec![shipment_id]
        } else {
            containers
                .iter()
                .filter(|(_, n)| f.number.as_ref().is_none_or(|want| want == n))
                .map(|(id, _)| *id)
                .collect()
        };
        for entity_id in targets {
            on_tx!(tx, c => sqlx::query(
                "INSERT INTO custom_fields (id, account_id, definition_id, entity_type, entity_id, value, created_us, updated_us) \
                 SELECT $1, $2, $3, $4, $5, $6, $7, $7 WHERE EXISTS (SELECT 1 FROM custom_field_definitions WHERE id = $3) \
                 ON CONFLICT (entity_id, definition_id) DO NOTHING")
                .bind(Uuid::now_v7()).bind(request.account_id).bind(f.definition_id).bind(&f.entity_type)
                .bind(entity_id).bind(Json(&f.value)).bind(now)
                .execute(c).await.map(|_| ())?);
        }
    }
    Ok(())
}

async fn get_in(tx: &mut Tx, id: Uuid) -> Result<TrackingRequestRow> {
    const SQL: &str = "SELECT id, account_id, request_number, request_type, scac, auto_detect, status, failed_reason, is_retrying, retry_count, ref_numbers, shipment_tags, shipment_id, customer_id, next_attempt_us, created_us, updated_us FROM tracking_requests WHERE id = $1";
    Ok(on_tx!(tx, c => sqlx::query_as(SQL).bind(id).fetch_one(c).await?))
}

/// Tracking requests of an account by id, in one query per 500.
pub async fn get_requests(
    db: &Db,
    account_id: Uuid,
    ids: &[Uuid],
) -> Result<std::collections::HashMap<Uuid, TrackingRequestRow>> {
    let rows: Vec<TrackingRequestRow> = crate::reads::rows_in(
        db,
        account_id,
        ids,
        "SELECT id, account_id, request_number, request_type, scac, auto_detect, status, failed_reason, is_retrying, retry_count, ref_numbers, shipment_tags, shipment_id, customer_id, next_attempt_us, created_us, updated_us FROM tracking_requests WHERE account_id = {account} AND id",
        "",
    )
    .await?;
    Ok(rows.into_iter().map(|r| (r.id, r)).collect())
}

/// One tracking request of an account.
pub async fn get_request(
    db: &Db,
    account_id: Uuid,
    id: Uuid,
) -> Result<Option<TrackingRequestRow>> {
    const SQL: &str = "SELECT id, account_id, request_number, request_type, scac, auto_detect, status, failed_reason, is_retrying, retry_count, ref_numbers, shipment_tags, shipment_id, customer_id, next_attempt_us, created_us, updated_us FROM tracking_requests WHERE id = $1 AND account_id = $2";
    Ok(on_db!(db, p => sqlx::query_as(SQL).bind(id).bind(account_id).fetch_optional(p).await?))
}

/// Filters of `GET /v2/tracking_requests`.
#[derive(Debug, Clone, Default)]
pub struct RequestFilter {
    /// Matches the request number or a ref number (case-insensitive substring).
    pub q: Option<String>,
    /// Exact number.
    pub request_number: Option<String>,
    /// Status.
    pub status: Option<String>,
    /// Carrier.
    pub scac: Option<String>,
    /// `bill_of_lading`, `booking_number` or `container`.
    pub request_type: Option<String>,
    /// Created at or after.
    pub created_start_us: Option<i64>,
    /// Created at or before.
    pub created_end_us: Option<i64>,
    /// Updated at or after.
    pub updated_start_us: Option<i64>,
    /// Updated at or before.
    pub updated_end_us: Option<i64>,
}

/// A page of an account's requests, newest first.
pub async fn list_requests(
    db: &Db,
    account_id: Uuid,
    f: &RequestFilter,
    page: &Page,
) -> Result<Listed<TrackingRequestRow>> {
    let mut conds = vec![Cond::new("account_id = ?", vec![Arg::Uuid(account_id)])];
    if let Some(q) = &f.q {
        let like = format!("%{}%", q.to_ascii_uppercase().replace(['%', '_'], ""));
        conds.push(Cond::new(
            "(UPPER(request_number) LIKE ? OR UPPER(CAST(ref_numbers AS TEXT)) LIKE ?)",
            vec![Arg::Text(like.clone()), Arg::Text(like)],
        ));
    }
    if let Some(n) = &f.request_number {
        conds.push(Cond::new("request_number = ?", vec![Arg::Text(n.clone())]));
    }
    if let Some(s) = &f.status {
        conds.push(Cond::new("status = ?", vec![Arg::Text(s.clone())]));
    }
    if let Some(s) = &f.scac {
        conds.push(Cond::new("scac = ?", vec![Arg::Text(s.clone())]));
    }
    if let Some(t) = &f.request_type {
        conds.push(Cond::new("request_type = ?", vec![Arg::Text(t.clone())]));
    }
    for (v, sql) in [
        (f.created_start_us, "created_us >= ?"),
        (f.created_end_us, "created_us <= ?"),
        (f.updated_start_us, "updated_us >= ?"),
        (f.updated_end_us, "updated_us <= ?"),
    ] {
        if let Some(v) = v {
            conds.push(Cond::new(sql, vec![Arg::I64(v)]));
        }
    }
    let spec = ListSpec {
        from: "tracking_requests",
        columns: TR_COLUMNS,
        sort_col: "created_us",
        ascending: false,
        id_col: "id",
        conds,
    };
    // no filter: the account's maintained count is the total
    let counted = (spec.conds.len() == 1).then_some(("tracking_requests", account_id));
    crate::list::list_counted(db, &spec, page, counted).await
}

/// Replaces the ref numbers and/or tags of a request.
pub async fn update_request(
    db: &Db,
    account_id: Uuid,
    id: Uuid,
    ref_numbers: Option<Vec<String>>,
    tags: Option<Vec<String>>,
) -> Result<TrackingRequestRow> {
    let current = get_request(db, account_id, id)
        .await?
        .ok_or(StoreError::NotFound("tracking_request"))?;
    let refs = ref_numbers.unwrap_or(current.ref_numbers.0);
    let tags = tags.unwrap_or(current.shipment_tags.0);
    on_db!(db, p => sqlx::query("UPDATE tracking_requests SET ref_numbers = $3, shipment_tags = $4, updated_us = $5 WHERE id = $1 AND account_id = $2")
        .bind(id).bind(account_id).bind(Json(&refs)).bind(Json(&tags)).bind(now_us())
        .execute(p).await.map(|_| ())?);
    get_request(db, account_id, id)
        .await?
        .ok_or(StoreError::NotFound("tracking_request"))
}

/// Releases every lease on tracking requests and polled subjects, so their work is due again
/// at once; returns how many were released. Only for a process that holds the SQLite file's
/// worker lock ([`Db::lock_worker`]): no other process can hold a lease then, so any lease
/// left is of a process that died (SIGKILL, power loss) and would otherwise hold its work
/// back until it ran out.
pub async fn release_orphaned_leases(db: &Db) -> Result<u64> {
    let mut released = 0;
    for sql in [
        "UPDATE tracking_requests SET locked_until_us = NULL WHERE locked_until_us IS NOT NULL",
        "UPDATE subjects SET locked_until_us = NULL WHERE locked_until_us IS NOT NULL",
    ] {
        released += on_db!(db, p => sqlx::query(sql).execute(p).await?.rows_affected());
    }
    Ok(released)
}

/// Claims up to `limit` due requests with a lease: a claimed request is not handed out again
/// until `lease_us` has passed, so a crashed worker's work is picked up by another.
pub async fn claim_due(
    db: &Db,
    now: i64,
    lease_us: i64,
    limit: i64,
) -> Result<Vec<TrackingRequestRow>> {
    let pick = match db {
        Db::Sqlite(..) => {
            "SELECT id FROM tracking_requests WHERE next_attempt_us <= $1 AND (locked_until_us IS NULL OR locked_until_us < $1) ORDER BY next_attempt_us LIMIT $2"
        }
        Db::Postgres(_) => {
            "SELECT id FROM tracking_requests WHERE next_attempt_us <= $1 AND (locked_until_us IS NULL OR locked_until_us < $1) ORDER BY next_attempt_us LIMIT $2 FOR UPDATE SKIP LOCKED"
        }
    };
    let mut tx = db.begin().await?;
    let ids: Vec<Uuid> = on_tx!(&mut tx, c => sqlx::query_scalar(pick)
        .bind(now).bind(limit).fetch_all(c).await?);
    let mut rows = Vec::new();
    for id in ids {
        on_tx!(&mut tx, c => sqlx::query("UPDATE tracking_requests SET locked_until_us = $2 WHERE id = $1")
            .bind(id).bind(now + lease_us).execute(c).await.map(|_| ())?);
        rows.push(get_in(&mut tx, id).await?);
    }
    tx.commit().await?;
    Ok(rows)
}

/// A container found for a new shipment, with what is already known about it.
#[derive(Debug, Clone)]
pub struct NewContainer {
    /// ISO 6346 number.
    pub number: String,
    /// Observations to merge at creation.
    pub observations: Vec<Observation>,
}

/// What processing a request found out.
#[derive(Debug, Clone)]
pub enum Outcome {
    /// The carrier knows the shipment: create it with its containers.
    Created {
        /// The carrier (resolved when auto-detected).
        scac: String,
        /// Bill of lading number as the carrier knows it.
        bill_of_lading_number: String,
        /// Ports and destination.
        route: Box<Route>,
        /// Containers.
        containers: Vec<NewContainer>,
        /// A sandbox scenario to play on the virtual clock.
        scenario: Option<String>,
    },
    /// Permanently failed.
    Failed {
        /// A `failed_reason`.
        reason: String,
    },
    /// Not manifested yet; check again at `next_us`.
    AwaitingManifest {
        /// Next check.
        next_us: i64,
        /// Give up (`expired`) instead of waiting again.
        expired: bool,
    },
    /// Transient trouble; retry at `next_us`, or fail with `retries_exhausted` when `last`.
    Retry {
        /// Temporary reason.
        reason: String,
        /// Next attempt.
        next_us: i64,
        /// This was the last allowed attempt.
        last: bool,
    },
}

fn tr_payload(r: &TrackingRequestRow) -> Value {
    json!({"tracking_request_id": r.id, "request_number": r.request_number, "status": r.status, "failed_reason": r.failed_reason})
}

/// Marks a pending request whose carrier has no configured source: it waits (retried on the
/// usual schedule, so it resolves once the operator adds one) and says why, with the
/// reference's `data_unavailable`.
pub async fn mark_unavailable(db: &Db, account_id: Uuid, id: Uuid) -> Result<TrackingRequestRow> {
    let mut tx = db.begin().await?;
    on_tx!(&mut tx, c => sqlx::query("UPDATE tracking_requests SET failed_reason = 'data_unavailable', is_retrying = TRUE WHERE id = $1 AND account_id = $2 AND status = 'pending'")
        .bind(id).bind(account_id).execute(c).await.map(|_| ())?);
    let row = get_in(&mut tx, id).await?;
    tx.commit().await?;
    Ok(row)
}

/// Carriers with requests waiting because no source is configured for them: `(scac, count)`.
pub async fn waiting_without_source(db: &Db) -> Result<Vec<(String, i64)>> {
    const SQL: &str = "SELECT scac, COUNT(*) FROM tracking_requests WHERE status IN ('pending', 'awaiting_manifest') AND failed_reason = 'data_unavailable' AND scac IS NOT NULL GROUP BY scac ORDER BY scac";
    Ok(on_db!(db, p => sqlx::query_as(SQL).fetch_all(p).await?))
}

/// A request that resolves to more containers than the account's plan has room for ends
/// `failed` with `plan_limit` instead, and tracks nothing: the limit holds on the containers a
/// request adds, not only on the requests. The account row is locked (PostgreSQL) so two
/// requests resolving at once cannot both take the last places.
async fn within_plan_limit(tx: &mut Tx, account_id: Uuid, outcome: Outcome) -> Result<Outcome> {
    let Outcome::Created { containers, .. } = &outcome else {
        return Ok(outcome);
    };
    let lock = if matches!(tx, Tx::Postgres(_)) {
        " FOR UPDATE"
    } else {
        ""
    };
    let sql = format!("SELECT plan FROM accounts WHERE id = $1{lock}");
    let plan: Option<String> = on_tx!(tx, c => sqlx::query_scalar(sqlx::AssertSqlSafe(sql)).bind(account_id).fetch_optional(c).await?);
    let Some(limit) = plan
        .and_then(|p| p.parse::<Plan>().ok())
        .and_then(Plan::active_container_limit)
    else {
        return Ok(outcome);
    };
    let active: i64 = on_tx!(tx, c => sqlx::query_scalar("SELECT COUNT(*) FROM containers WHERE account_id = $1 AND active = TRUE")
        .bind(account_id).fetch_one(c).await?);
    if active + containers.len() as i64 > i64::from(limit) {
        return Ok(Outcome::Failed {
            reason: "plan_limit".into(),
        });
    }
    Ok(outcome)
}

/// Records the outcome of processing a claimed request, with its events, in one transaction.
/// Returns the ids of the created shipment's containers (empty otherwise).
pub async fn finish(db: &Db, request: &TrackingRequestRow, outcome: Outcome) -> Result<Vec<Uuid>> {
    let now = now_us();
    let mut tx = db.begin().await?;
    let current = get_in(&mut tx, request.id).await?;
    if current.status != Status::Pending.as_str()
        && current.status != Status::AwaitingManifest.as_str()
    {
        // Someone else finished it (an expired lease raced); nothing to do.
        tx.commit().await?;
        return Ok(vec![]);
    }
    let attempts = current.retry_count.unwrap_or(0) + 1;
    let outcome = within_plan_limit(&mut tx, request.account_id, outcome).await?;
    let mut created = Vec::new();
    let (event, row) = match outcome {
        Outcome::Created {
            scac,
            bill_of_lading_number,
            route,
            containers,
            scenario,
        } => {
            let shipment_id = Uuid::now_v7();
            let mut container_ids: Vec<(Uuid, String)> = Vec::new();
            if scac != boxtrack_core::carriers::SANDBOX_SCAC {
                crate::subjects::ensure_in(
                    &mut tx,
                    &scac,
                    &request.request_type,
                    &request.request_number,
                    now,
                    now,
                )
                .await?;
            }
            on_tx!(&mut tx, c => sqlx::query(
                "INSERT INTO shipments (id, account_id, tracking_request_id, bill_of_lading_number, scac, pod_locode, ref_numbers, tags, route, state, tracking_stopped_us, stopped_reason, created_us, updated_us) \
                 VALUES ($1, $2, $3, $4, $5, $11, $6, $7, $8, $9, NULL, NULL, $10, $10)")
                .bind(shipment_id).bind(request.account_id).bind(request.id).bind(&bill_of_lading_number).bind(&scac)
                .bind(Json(&current.ref_numbers.0)).bind(Json(&current.shipment_tags.0)).bind(Json(route.as_ref()))
                .bind(Json(ShipmentState::default())).bind(now).bind(&route.pod_locode)
                .execute(c).await.map(|_| ())?);
            for nc in &containers {
                let container_id = Uuid::now_v7();
                let state = ContainerState::default();
                on_tx!(&mut tx, c => sqlx::query(
                    "INSERT INTO containers (id, account_id, shipment_id, number, ref_numbers, state, current_status, ready_for_pickup, pickup_lfd_us, active, created_us, updated_us) \
                     VALUES ($1, $2, $3, $4, $5, $6, 'new', FALSE, NULL, TRUE, $7, $7)")
                    .bind(container_id).bind(request.account_id).bind(shipment_id).bind(&nc.number)
                    .bind(Json(Vec::<String>::new())).bind(Json(&state)).bind(now)
                    .execute(c).await.map(|_| ())?);
                append(&mut tx, request.account_id, "container.created", "container", container_id,
                    &json!({"container_id": container_id, "shipment_id": shipment_id, "number": nc.number}), now).await?;
                // what EDI files said of the box before it was tracked, with the carrier's word
                let mut observations = nc.observations.clone();
                observations.extend(
                    crate::early::for_new_container_in(&mut tx, request.account_id, &nc.number)
                        .await?,
                );
                apply_in(
                    &mut tx,
                    request.account_id,
                    container_id,
                    &observations,
                    now,
                )
                .await?;
                created.push(container_id);
                container_ids.push((container_id, nc.number.clone()));
            }
            set_initial_fields(&mut tx, request, shipment_id, &container_ids, now).await?;
            if let Some(name) = scenario {
                on_tx!(&mut tx, c => sqlx::query(
                    "INSERT INTO sandbox_runs (id, account_id, shipment_id, scenario, started_us, next_step, done) VALUES ($1, $2, $3, $4, $5, 0, FALSE)")
                    .bind(Uuid::now_v7()).bind(request.account_id).bind(shipment_id).bind(name).bind(now)
                    .execute(c).await.map(|_| ())?);
            }
            on_tx!(&mut tx, c => sqlx::query(
                "UPDATE tracking_requests SET status = 'created', scac = $2, shipment_id = $3, failed_reason = NULL, is_retrying = FALSE, retry_count = $4, next_attempt_us = NULL, locked_until_us = NULL, updated_us = $5 WHERE id = $1")
                .bind(request.id).bind(&scac).bind(shipment_id).bind(attempts).bind(now)
                .execute(c).await.map(|_| ())?);
            (
                "tracking_request.succeeded",
                get_in(&mut tx, request.id).await?,
            )
        }
        Outcome::Failed { reason } => {
            set_status(
                &mut tx,
                request.id,
                Status::Failed,
                Some(&reason),
                false,
                attempts,
                None,
                now,
            )
            .await?;
            (
                "tracking_request.failed",
                get_in(&mut tx, request.id).await?,
            )
        }
        Outcome::AwaitingManifest { next_us, expired } => {
            if expired {
                set_status(
                    &mut tx,
                    request.id,
                    Status::Failed,
                    Some("expired"),
                    false,
                    attempts,
                    None,
                    now,
                )
                .await?;
                (
                    "tracking_request.failed",
                    get_in(&mut tx, request.id).await?,
                )
            } else {
                let first = current.status != Status::AwaitingManifest.as_str();
                set_status(
                    &mut tx,
                    request.id,
                    Status::AwaitingManifest,
                    None,
                    false,
                    attempts,
                    Some(next_us),
                    now,
                )
                .await?;
                let row = get_in(&mut tx, request.id).await?;
                if !first {
                    tx.commit().await?;
                    return Ok(vec![]);
                }
                ("tracking_request.awaiting_manifest", row)
            }
        }
        Outcome::Retry {
            reason,
            next_us,
            last,
        } => {
            if last {
                set_status(
                    &mut tx,
                    request.id,
                    Status::Failed,
                    Some("retries_exhausted"),
                    false,
                    attempts,
                    None,
                    now,
                )
                .await?;
                (
                    "tracking_request.failed",
                    get_in(&mut tx, request.id).await?,
                )
            } else {
                set_status(
                    &mut tx,
                    request.id,
                    Status::Pending,
                    Some(&reason),
                    true,
                    attempts,
                    Some(next_us),
                    now,
                )
                .await?;
                tx.commit().await?;
                return Ok(vec![]);
            }
        }
    };
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
    tx.commit().await?;
    Ok(created)
}

#[allow(clippy::too_many_arguments)]
async fn set_status(
    tx: &mut Tx,
    id: Uuid,
    status: Status,
    reason: Option<&str>,
    retrying: bool,
    attempts: i64,
    next_us: Option<i64>,
    now: i64,
) -> Result<()> {
    on_tx!(tx, c => sqlx::query(
        "UPDATE tracking_requests SET status = $2, failed_reason = $3, is_retrying = $4, retry_count = $5, next_attempt_us = $6, locked_until_us = NULL, updated_us = $7 WHERE id = $1")
        .bind(id).bind(status.as_str()).bind(reason).bind(retrying).bind(attempts).bind(next_us).bind(now)
        .execute(c).await.map(|_| ())?);
    Ok(())
}

#[derive(sqlx::FromRow)]
struct StateRow {
    id: Uuid,
    shipment_id: Uuid,
    state: Json<ContainerState>,
    shipment_state: Json<ShipmentState>,
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
const JOURNEY_ENDED: &str = "all_containers_terminated";

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
struct ContainerUpdate {
    id: Uuid,
    state: ContainerState,
    status: &'static str,
    ready: bool,
    on_hold: bool,
    lfd: Option<i64>,
    active: bool,
}

/// Rows per multi-row statement (well under both backends' parameter limits).
const CHUNK: usize = 200;

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

/// Merges observation batches into many containers of one account with set-based statements:
/// one locked read of every state, the pure merge per container (containers of one shipment
/// see each other's shipment changes, in batch order), then one update of the containers, one
/// of the shipments, multi-row inserts of the transport events and one event-log append.
/// Returns the changes per container (containers with no change are left out). Unknown
/// containers are [`StoreError::NotFound`].
pub async fn apply_batch_in(
    tx: &mut Tx,
    account_id: Uuid,
    batches: &[(Uuid, Vec<Observation>)],
    now: i64,
) -> Result<Vec<(Uuid, Vec<Change>)>> {
    use std::collections::HashMap;
    let batches: Vec<&(Uuid, Vec<Observation>)> =
        batches.iter().filter(|(_, b)| !b.is_empty()).collect();
    if batches.is_empty() {
        return Ok(vec![]);
    }
    // 1. read every state, locked
    let mut rows: HashMap<Uuid, StateRow> = HashMap::new();
    for chunk in batches.chunks(CHUNK) {
        let mut marks = Marks::new(tx.backend());
        let account = marks.one();
        let mut sql = format!(
            "SELECT c.id, c.shipment_id, c.state, s.state AS shipment_state, s.route, s.scac, c.active, s.stopped_reason FROM containers c JOIN shipments s ON s.id = c.shipment_id WHERE c.account_id = {account} AND c.id IN ({})",
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
        rows.extend(found.into_iter().map(|r| (r.id, r)));
    }
    // a journey that ended hears only what refines the milestones it has
    let batches: Vec<(Uuid, std::borrow::Cow<'_, [Observation]>)> = batches
        .into_iter()
        .map(|(id, batch)| match rows.get(id) {
            Some(row) if row.journey_ended() => (
                *id,
                std::borrow::Cow::Owned(boxtrack_core::tracking::milestones::refinements(
                    &row.state.0,
                    batch,
                )),
            ),
            _ => (*id, std::borrow::Cow::Borrowed(batch.as_slice())),
        })
        .filter(|(_, b)| !b.is_empty())
        .collect();
    if batches.is_empty() {
        return Ok(vec![]);
    }
    // what a sandbox journey reports is the sandbox's, whatever party its script plays
    let sandbox: std::collections::HashSet<Uuid> = rows
        .values()
        .filter(|r| r.scac == boxtrack_core::carriers::SANDBOX_SCAC)
        .map(|r| r.id)
        .collect();
    let label = |container_id: &Uuid, source: &'static str| {
        if sandbox.contains(container_id) {
            "sandbox"
        } else {
            source
        }
    };
    // 2. keep what the sources said, verbatim, per container
    let mut raw: Vec<(Uuid, Uuid, &Observation)> = Vec::new();
    for (container_id, batch) in &batches {
        let row = rows
            .get(container_id)
            .ok_or(StoreError::NotFound("container"))?;
        raw.extend(batch.iter().map(|o| (*container_id, row.shipment_id, o)));
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
                    .bind(label(container_id, r.data_source)).bind(r.event).bind(r.estimated).bind(r.at_us)
                    .bind(r.locode).bind(r.timezone).bind(r.vessel_name).bind(r.vessel_imo).bind(r.voyage)
                    .bind(Json(*o)).bind(o.observed_us).bind(now)
                    .bind(boxtrack_core::tracking::observation_key(o));
            }
            q.execute(x).await.map(|_| ())?
        });
    }
    // 3. merge, as the account may see it (its events, webhooks and filter columns)
    let entitlements: Option<Json<Vec<boxtrack_core::plan::Entitlement>>> = on_tx!(tx, c => sqlx::query_scalar("SELECT entitlements FROM accounts WHERE id = $1")
        .bind(account_id).fetch_optional(c).await?);
    let rail_lfd =
        entitlements.is_some_and(|e| e.0.contains(&boxtrack_core::plan::Entitlement::RailLfd));
    let mut shipments: HashMap<Uuid, (ShipmentState, ShipmentState, Route)> = HashMap::new();
    let mut container_updates: Vec<ContainerUpdate> = Vec::new();
    let mut result: Vec<(Uuid, Vec<Change>)> = Vec::new();
    let mut transport: Vec<(Uuid, Uuid, Uuid, boxtrack_core::tracking::TransportEvent)> =
        Vec::new();
    let mut revised: Vec<(Uuid, boxtrack_core::tracking::TransportEvent)> = Vec::new();
    let mut entries = Vec::new();
    let mut terminated: Vec<Uuid> = Vec::new();
    for (container_id, batch) in &batches {
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
        let before = container_updates
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
        let c = merged.container;
        let status = current_status(&c, route.inland());
        let ended = status == boxtrack_core::tracking::rules::ContainerStatus::EmptyReturned;
        if ended && !terminated.contains(&row.shipment_id) {
            terminated.push(row.shipment_id);
        }
        container_updates.push(ContainerUpdate {
            id: *container_id,
            state: c.clone(),
            status: status.as_str(),
            ready: ready_for_pickup(&c, route.inland()),
            on_hold: boxtrack_core::tracking::rules::active_holds(&c.holds)
                .next()
                .is_some(),
            lfd: coalesced_lfd(&c.lfd, rail_lfd),
            active: !ended && !row.journey_ended(),
        });
        for change in &merged.changes {
            let mut payload = json!({"container_id": container_id, "shipment_id": row.shipment_id});
            let (object_type, object_id) = match change {
                // the event is updated in place: no entry of its own
                Change::TransportRevised(t) => {
                    revised.push((*container_id, t.clone()));
                    continue;
                }
                Change::Transport(t) => {
                    let id = Uuid::now_v7();
                    transport.push((id, *container_id, row.shipment_id, t.clone()));
                    payload["transport_event_id"] = json!(id);
                    ("transport_event", id)
                }
                Change::ShipmentEstimatedArrival { .. } => {
                    payload["change"] = serde_json::to_value(change).unwrap_or(Value::Null);
                    ("shipment", row.shipment_id)
                }
                other => {
                    payload["change"] = serde_json::to_value(other).unwrap_or(Value::Null);
                    ("container", *container_id)
                }
            };
            entries.push(crate::events::NewEvent {
                event: change.event_name(),
                object_type,
                object_id,
                payload,
            });
        }
        result.push((*container_id, merged.changes));
    }
    // 4. write containers (last state of each)
    let mut last: Vec<&ContainerUpdate> = Vec::new();
    for u in container_updates.iter().rev() {
        if !last.iter().any(|l| l.id == u.id) {
            last.push(u);
        }
    }
    for chunk in last.chunks(CHUNK) {
        let mut marks = Marks::new(tx.backend());
        let at = marks.one();
        let sql = format!(
            "UPDATE containers SET state = v.state, current_status = v.status, ready_for_pickup = v.ready, pickup_lfd_us = v.lfd, active = v.active, on_hold = v.on_hold, updated_us = {at} \
             FROM (SELECT column1 AS id, column2 AS state, column3 AS status, column4 AS ready, column5 AS lfd, column6 AS active, column7 AS on_hold FROM (VALUES {}) AS t) AS v \
             WHERE containers.id = v.id",
            marks.rows(chunk.len(), 7)
        );
        on_tx!(tx, x => {
            let mut q = sqlx::query(sqlx::AssertSqlSafe(sql));
            q = q.bind(now);
            for u in chunk {
                q = q.bind(u.id).bind(Json(&u.state)).bind(u.status).bind(u.ready).bind(u.lfd).bind(u.active).bind(u.on_hold);
            }
            q.execute(x).await.map(|_| ())?
        });
    }
    // 5. write shipments that changed
    let changed: Vec<(Uuid, ShipmentState)> = shipments
        .into_iter()
        .filter(|(_, (before, after, _))| before != after)
        .map(|(id, (_, after, _))| (id, after))
        .collect();
    for chunk in changed.chunks(CHUNK) {
        let mut marks = Marks::new(tx.backend());
        let at = marks.one();
        let sql = format!(
            "UPDATE shipments SET state = v.state, arrived_us = v.arrived, updated_us = {at} \
             FROM (SELECT column1 AS id, column2 AS state, column3 AS arrived FROM (VALUES {}) AS t) AS v WHERE shipments.id = v.id",
            marks.rows(chunk.len(), 3)
        );
        on_tx!(tx, x => {
            let mut q = sqlx::query(sqlx::AssertSqlSafe(sql));
            q = q.bind(now);
            for (id, st) in chunk {
                q = q.bind(*id).bind(Json(st)).bind(st.pod_ata_us);
            }
            q.execute(x).await.map(|_| ())?
        });
    }
    // 6. transport events (new, superseding, revised) and the event log
    for chunk in transport.chunks(CHUNK) {
        let sql = format!(
            "INSERT INTO transport_events (id, account_id, container_id, shipment_id, event, at_us, locode, timezone, terminal, vessel_name, vessel_imo, voyage, data_source, created_us, milestone_key) VALUES {}",
            Marks::new(tx.backend()).rows(chunk.len(), 15)
        );
        on_tx!(tx, x => {
            let mut q = sqlx::query(sqlx::AssertSqlSafe(sql));
            for (id, container_id, shipment_id, t) in chunk {
                q = q.bind(*id).bind(account_id).bind(*container_id).bind(*shipment_id).bind(&t.event).bind(t.at_us)
                    .bind(&t.locode).bind(&t.timezone).bind(&t.terminal).bind(&t.vessel_name).bind(&t.vessel_imo).bind(&t.voyage)
                    .bind(label(container_id, boxtrack_core::tracking::source_name(t.source)))
                    .bind(now).bind(&t.key);
            }
            q.execute(x).await.map(|_| ())?
        });
    }
    supersede(tx, account_id, &transport, now).await?;
    for (container_id, t) in &revised {
        const SQL: &str = "UPDATE transport_events SET at_us = $1, timezone = $2, terminal = $3, vessel_name = $4, vessel_imo = $5, voyage = $6, data_source = $7 \
            WHERE container_id = $8 AND account_id = $9 AND milestone_key = $10";
        on_tx!(tx, x => sqlx::query(SQL)
            .bind(t.at_us).bind(&t.timezone).bind(&t.terminal).bind(&t.vessel_name).bind(&t.vessel_imo).bind(&t.voyage)
            .bind(label(container_id, boxtrack_core::tracking::source_name(t.source)))
            .bind(*container_id).bind(account_id).bind(&t.key)
            .execute(x).await.map(|_| ())?);
    }
    crate::events::append_many(tx, account_id, &entries, now).await?;
    for shipment_id in terminated {
        stop_if_terminated(tx, account_id, shipment_id, now).await?;
    }
    Ok(result)
}

/// Marks the events that the new ones (already inserted) supersede
/// (`TransportEvent::supersedes`): earlier estimates of a milestone that was estimated again
/// or has happened leave the timeline.
async fn supersede(
    tx: &mut Tx,
    account_id: Uuid,
    new: &[(Uuid, Uuid, Uuid, boxtrack_core::tracking::TransportEvent)],
    now: i64,
) -> Result<()> {
    const SQL: &str = "UPDATE transport_events SET superseded_us = $1 \
        WHERE container_id = $2 AND account_id = $3 AND event = $4 AND superseded_us IS NULL AND id <> $5";
    // the newest of each name on a container decides (an estimate keeps itself)
    let mut done: Vec<(Uuid, String)> = Vec::new();
    for (id, container_id, _, t) in new.iter().rev() {
        let Some(event) = t.supersedes() else {
            continue;
        };
        if done.iter().any(|(c, e)| c == container_id && *e == event) {
            continue;
        }
        on_tx!(tx, x => sqlx::query(SQL)
            .bind(now).bind(*container_id).bind(account_id).bind(&event).bind(*id)
            .execute(x).await.map(|_| ())?);
        done.push((*container_id, event));
    }
    Ok(())
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

/// Stops tracking a shipment (all its containers): sets the stop time and reason, marks the
/// containers inactive and the request `tracking_stopped`, with `tracking_request.tracking_stopped`.
/// Stopping a stopped shipment changes nothing.
pub async fn stop_shipment(
    db: &Db,
    account_id: Uuid,
    shipment_id: Uuid,
    reason: &str,
) -> Result<()> {
    let mut tx = db.begin().await?;
    let stopped: Option<Option<i64>> = on_tx!(&mut tx, c => sqlx::query_scalar("SELECT tracking_stopped_us FROM shipments WHERE id = $1 AND account_id = $2")
        .bind(shipment_id).bind(account_id).fetch_optional(c).await?);
    match stopped {
        None => return Err(StoreError::NotFound("shipment")),
        Some(Some(_)) => return Ok(()),
        Some(None) => {}
    }
    stop_in(&mut tx, account_id, shipment_id, reason, now_us()).await?;
    tx.commit().await?;
    Ok(())
}

async fn stop_in(
    tx: &mut Tx,
    account_id: Uuid,
    shipment_id: Uuid,
    reason: &str,
    now: i64,
) -> Result<()> {
    on_tx!(tx, c => sqlx::query("UPDATE shipments SET tracking_stopped_us = $2, stopped_reason = $3, updated_us = $2 WHERE id = $1")
        .bind(shipment_id).bind(now).bind(reason).execute(c).await.map(|_| ())?);
    on_tx!(tx, c => sqlx::query("UPDATE containers SET active = FALSE, updated_us = $2 WHERE shipment_id = $1")
        .bind(shipment_id).bind(now).execute(c).await.map(|_| ())?);
    let requests: Vec<Uuid> = on_tx!(tx, c => sqlx::query_scalar("SELECT id FROM tracking_requests WHERE shipment_id = $1 AND status = 'created'")
        .bind(shipment_id).fetch_all(c).await?);
    for id in requests {
        on_tx!(tx, c => sqlx::query("UPDATE tracking_requests SET status = 'tracking_stopped', updated_us = $2 WHERE id = $1")
            .bind(id).bind(now).execute(c).await.map(|_| ())?);
        let row = get_in(tx, id).await?;
        append(
            tx,
            account_id,
            "tracking_request.tracking_stopped",
            "tracking_request",
            id,
            &tr_payload(&row),
            now,
        )
        .await?;
    }
    Ok(())
}

/// Stops a tracked shipment whose containers have all been returned empty
/// (`all_containers_terminated`); called after every merge.
async fn stop_if_terminated(
    tx: &mut Tx,
    account_id: Uuid,
    shipment_id: Uuid,
    now: i64,
) -> Result<()> {
    let (open, stopped): (i64, i64) = on_tx!(tx, c => sqlx::query_as(
        "SELECT (SELECT COUNT(*) FROM containers WHERE shipment_id = $1 AND current_status <> 'empty_returned'), \
                (SELECT COUNT(*) FROM shipments WHERE id = $1 AND tracking_stopped_us IS NOT NULL)")
        .bind(shipment_id).fetch_one(c).await?);
    if open == 0 && stopped == 0 {
        stop_in(
            tx,
            account_id,
            shipment_id,
            "all_containers_terminated",
            now,
        )
        .await?;
    }
    Ok(())
}

/// Resumes tracking a stopped shipment. A free account at its container limit gets
/// [`StoreError::PlanLimit`].
pub async fn resume_shipment(
    db: &Db,
    account_id: Uuid,
    plan: Plan,
    shipment_id: Uuid,
) -> Result<()> {
    let now = now_us();
    let mut tx = db.begin().await?;
    let stopped: Option<Option<i64>> = on_tx!(&mut tx, c => sqlx::query_scalar("SELECT tracking_stopped_us FROM shipments WHERE id = $1 AND account_id = $2")
        .bind(shipment_id).bind(account_id).fetch_optional(c).await?);
    match stopped {
        None => return Err(StoreError::NotFound("shipment")),
        Some(None) => return Ok(()),
        Some(Some(_)) => {}
    }
    if let Some(limit) = plan.active_container_limit() {
        let (active, here): (i64, i64) = on_tx!(&mut tx, c => sqlx::query_as(
            "SELECT (SELECT COUNT(*) FROM containers WHERE account_id = $1 AND active = TRUE), (SELECT COUNT(*) FROM containers WHERE shipment_id = $2 AND current_status <> 'empty_returned')")
            .bind(account_id).bind(shipment_id).fetch_one(c).await?);
        if active + here > i64::from(limit) {
            return Err(StoreError::PlanLimit { limit });
        }
    }
    on_tx!(&mut tx, c => sqlx::query("UPDATE shipments SET tracking_stopped_us = NULL, stopped_reason = NULL, updated_us = $2 WHERE id = $1")
        .bind(shipment_id).bind(now).execute(c).await.map(|_| ())?);
    on_tx!(&mut tx, c => sqlx::query("UPDATE containers SET active = TRUE, updated_us = $2 WHERE shipment_id = $1 AND current_status <> 'empty_returned'")
        .bind(shipment_id).bind(now).execute(c).await.map(|_| ())?);
    // a stopped request comes back to life unless another request for the same number was
    // made while it was stopped: that one is the live one (one live request per number);
    // of two stopped ones for a number, the newer comes back
    on_tx!(&mut tx, c => sqlx::query("UPDATE tracking_requests SET status = 'created', updated_us = $2 WHERE shipment_id = $1 AND status = 'tracking_stopped' \
        AND NOT EXISTS (SELECT 1 FROM tracking_requests o WHERE o.account_id = tracking_requests.account_id AND o.request_number = tracking_requests.request_number \
        AND o.request_type = tracking_requests.request_type AND COALESCE(o.scac, '') = COALESCE(tracking_requests.scac, '') AND o.id <> tracking_requests.id \
        AND (o.status IN ('pending', 'awaiting_manifest', 'created') OR (o.status = 'tracking_stopped' AND o.shipment_id = $1 AND o.id > tracking_requests.id)))")
        .bind(shipment_id).bind(now).execute(c).await.map(|_| ())?);
    tx.commit().await?;
    Ok(())
}

/// Replaces a shipment's ref numbers and/or tags.
pub async fn update_shipment(
    db: &Db,
    account_id: Uuid,
    id: Uuid,
    refs: Option<Vec<String>>,
    tags: Option<Vec<String>>,
) -> Result<()> {
    let now = now_us();
    let n = on_db!(db, p => sqlx::query(
        "UPDATE shipments SET ref_numbers = COALESCE($3, ref_numbers), tags = COALESCE($4, tags), updated_us = $5 WHERE id = $1 AND account_id = $2")
        .bind(id).bind(account_id).bind(refs.map(Json)).bind(tags.map(Json)).bind(now)
        .execute(p).await?.rows_affected());
    if n == 0 {
        Err(StoreError::NotFound("shipment"))
    } else {
        Ok(())
    }
}

/// Replaces a container's ref numbers.
pub async fn update_container(
    db: &Db,
    account_id: Uuid,
    id: Uuid,
    refs: Vec<String>,
) -> Result<()> {
    update_containers(db, account_id, &[(id, refs)]).await
}

/// Replaces the reference numbers of many containers of an account in one transaction: all
/// change or, when one is not the account's, none does ([`StoreError::NotFound`]).
pub async fn update_containers(
    db: &Db,
    account_id: Uuid,
    changes: &[(Uuid, Vec<String>)],
) -> Result<()> {
    let now = now_us();
    let mut tx = db.begin().await?;
    for (id, refs) in changes {
        let n = on_tx!(&mut tx, c => sqlx::query("UPDATE containers SET ref_numbers = $3, updated_us = $4 WHERE id = $1 AND account_id = $2")
            .bind(*id).bind(account_id).bind(Json(refs)).bind(now)
            .execute(c).await?.rows_affected());
        if n == 0 {
            // dropping the transaction rolls back what was changed before
            return Err(StoreError::NotFound("container"));
        }
    }
    tx.commit().await?;
    Ok(())
}

/// Merges observations into many containers of one account in a single transaction (for
/// bulk ingest); returns how many changes were recorded.
pub async fn apply_many(
    db: &Db,
    account_id: Uuid,
    batches: &[(Uuid, Vec<Observation>)],
) -> Result<usize> {
    let mut tx = db.begin().await?;
    let changes = apply_batch_in(&mut tx, account_id, batches, now_us()).await?;
    tx.commit().await?;
    Ok(changes.iter().map(|(_, c)| c.len()).sum())
}

/// Days after arrival (or without any update) after which tracking stops by itself.
pub const STOP_AFTER_DAYS: i64 = 56;

/// Stops shipments that arrived more than [`STOP_AFTER_DAYS`] ago (`past_arrival_window`) or
/// have had no update for that long (`no_updates_at_line`); returns how many were stopped.
/// The arrival is compared with the clock of the shipment's data, not the wall clock: a
/// sandbox journey's virtual time (it started at its run's start and runs `sandbox_speed`
/// times faster), or the clock its carrier last showed (`clock_*`, a simulator's runs fast).
/// "No update" is boxtrack's own time, the wall clock.
pub async fn stop_stale(db: &Db, now: i64, sandbox_speed: f64) -> Result<usize> {
    let window = STOP_AFTER_DAYS * 86_400_000_000;
    let cutoff = now - window;
    // two branches, each on a partial index of its own (migration 0032): tracked shipments
    // that arrived, and tracked ones that have not and went quiet; an OR of the two would
    // read every tracked shipment
    const SQL: &str = "SELECT id, account_id, CASE WHEN arrived_us IS NOT NULL AND arrived_us < data_now - $3 THEN 'past_arrival_window' ELSE 'no_updates_at_line' END FROM ( \
        SELECT s.id, s.account_id, s.arrived_us, s.updated_us, \
          CASE WHEN r.started_us IS NOT NULL THEN r.started_us + CAST(($1 - r.started_us) * CAST($4 AS DOUBLE PRECISION) AS BIGINT) \
               WHEN s.clock_wall_us IS NOT NULL THEN s.clock_source_us + CAST(($1 - s.clock_wall_us) * s.clock_speed AS BIGINT) \
               ELSE $1 END AS data_now \
        FROM shipments s LEFT JOIN sandbox_runs r ON r.shipment_id = s.id \
        WHERE s.tracking_stopped_us IS NULL AND s.arrived_us IS NOT NULL \
        UNION ALL \
        SELECT s.id, s.account_id, s.arrived_us, s.updated_us, CAST($1 AS BIGINT) AS data_now \
        FROM shipments s \
        WHERE s.tracking_stopped_us IS NULL AND s.arrived_us IS NULL AND s.updated_us < $2) AS x \
        WHERE (arrived_us IS NOT NULL AND arrived_us < data_now - $3) OR updated_us < $2 LIMIT 500";
    let rows: Vec<(Uuid, Uuid, String)> = on_db!(db, p => sqlx::query_as(SQL)
        .bind(now).bind(cutoff).bind(window).bind(sandbox_speed.max(1.0))
        .fetch_all(p).await?);
    for (shipment_id, account_id, reason) in &rows {
        stop_shipment(db, *account_id, *shipment_id, reason).await?;
    }
    Ok(rows.len())
}
