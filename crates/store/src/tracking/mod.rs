//! Tracking requests (also the work queue), shipments, containers and transport events.

use boxtrack_core::paging::{Key, Page};
use boxtrack_core::plan::Plan;
use boxtrack_core::requests::{Status, ValidRequest};
use boxtrack_core::tracking::{Observation, Route};
use serde_json::{Value, json};
use sqlx::types::Json;
use uuid::Uuid;

use crate::events::append;
use crate::list::{Arg, Cond, Keyed, ListSpec, Listed};
use crate::{Db, Result, StoreError, Tx, now_us, on_db, on_tx};

mod apply;
mod columns;
mod finish;
mod join;
mod texts;

pub use apply::{apply, apply_batch_in, apply_in, apply_many};
pub(crate) use apply::{refine_since, takes_reports};
pub use finish::finish;
pub use join::{Joined, join_shipment};

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
    #[sqlx(json)]
    pub ref_numbers: Vec<String>,
    /// Shipment tags.
    #[sqlx(json)]
    pub shipment_tags: Vec<String>,
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
    let row = get_in(&mut tx, account_id, id).await?;
    tx.commit().await?;
    Ok(row)
}

/// Sets the custom field values request `request_id` carried on the shipment it has just
/// created (`shipment`; `None` when only containers joined it) and on containers
/// `containers` (a definition deleted since is skipped).
async fn set_initial_fields(
    tx: &mut Tx,
    request_id: Uuid,
    account_id: Uuid,
    shipment: Option<Uuid>,
    containers: &[(Uuid, String)],
    now: i64,
) -> Result<()> {
    let stored: Option<Option<Json<Vec<InitialField>>>> = on_tx!(tx, c => sqlx::query_scalar(
        "SELECT initial_custom_fields FROM tracking_requests WHERE account_id = $2 AND id = $1")
        .bind(request_id).bind(account_id).fetch_optional(c).await?);
    let Some(Some(Json(fields))) = stored else {
        return Ok(());
    };
    for f in &fields {
        let targets: Vec<Uuid> = if f.entity_type == "Shipment" {
            shipment.into_iter().collect()
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
                 SELECT $1, $2, $3, $4, $5, $6, $7, $7 WHERE EXISTS (SELECT 1 FROM custom_field_definitions WHERE account_id = $2 AND id = $3) \
                 ON CONFLICT DO NOTHING")
                .bind(Uuid::now_v7()).bind(account_id).bind(f.definition_id).bind(&f.entity_type)
                .bind(entity_id).bind(Json(&f.value)).bind(now)
                .execute(c).await.map(|_| ())?);
        }
    }
    Ok(())
}

async fn get_in(tx: &mut Tx, account_id: Uuid, id: Uuid) -> Result<TrackingRequestRow> {
    const SQL: &str = "SELECT id, account_id, request_number, request_type, scac, auto_detect, status, failed_reason, is_retrying, retry_count, ref_numbers, shipment_tags, shipment_id, customer_id, next_attempt_us, created_us, updated_us FROM tracking_requests WHERE account_id = $2 AND id = $1";
    Ok(on_tx!(tx, c => sqlx::query_as(SQL).bind(id).bind(account_id).fetch_one(c).await?))
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
    let refs = ref_numbers.unwrap_or(current.ref_numbers);
    let tags = tags.unwrap_or(current.shipment_tags);
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
    // the limit written in: SQLite built with STAT4 (as bundled) prepares a statement again
    // each time a bound `LIMIT` is bound anew (`sqlite_writer::claim_sql`)
    // Citus cannot lock rows of many shards: there a claim is each row's lease taken only
    // while it is still free (below), a row another worker took meanwhile being left out
    let lock = match db {
        Db::Sqlite(..) => "",
        Db::Postgres(p) if crate::citus::on_citus(p) => "",
        Db::Postgres(_) => " FOR UPDATE SKIP LOCKED",
    };
    let pick = format!(
        "SELECT account_id, id FROM tracking_requests WHERE next_attempt_us <= $1 AND (locked_until_us IS NULL OR locked_until_us < $1) ORDER BY next_attempt_us LIMIT {}{lock}",
        limit.max(0)
    );
    let mut tx = db.begin().await?;
    let ids: Vec<(Uuid, Uuid)> = on_tx!(&mut tx, c => sqlx::query_as(sqlx::AssertSqlSafe(pick))
        .bind(now).fetch_all(c).await?);
    let mut rows = Vec::new();
    for (account_id, id) in ids {
        let took = on_tx!(&mut tx, c => sqlx::query("UPDATE tracking_requests SET locked_until_us = $2 WHERE account_id = $3 AND id = $1 \
            AND next_attempt_us <= $4 AND (locked_until_us IS NULL OR locked_until_us < $4)")
            .bind(id).bind(now + lease_us).bind(account_id).bind(now).execute(c).await?.rows_affected());
        if took == 1 {
            rows.push(get_in(&mut tx, account_id, id).await?);
        }
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
    let row = get_in(&mut tx, account_id, id).await?;
    tx.commit().await?;
    Ok(row)
}

/// Records the carrier detected for a request created with `auto_detect_vocc_scac` and no
/// SCAC, whatever its lookup then answers, so that `filter[scac]` finds it while it waits,
/// retries or fails, as the reference fills `scac` once the carrier is inferred. A request
/// that has its carrier keeps it.
pub async fn set_detected_scac(db: &Db, account_id: Uuid, id: Uuid, scac: &str) -> Result<()> {
    on_db!(db, p => sqlx::query("UPDATE tracking_requests SET scac = $2 WHERE account_id = $3 AND id = $1 AND scac IS NULL")
        .bind(id).bind(scac).bind(account_id).execute(p).await.map(|_| ())?);
    Ok(())
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
    match room_in_plan(tx, account_id).await? {
        Some(room) if containers.len() as i64 > room => Ok(Outcome::Failed {
            reason: "plan_limit".into(),
        }),
        _ => Ok(outcome),
    }
}

/// How many more active containers the account's plan admits (`None`: no limit). The
/// account's row is locked on PostgreSQL, as a request's creation of containers locks it.
pub(super) async fn room_in_plan(tx: &mut Tx, account_id: Uuid) -> Result<Option<i64>> {
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
        return Ok(None);
    };
    let active: i64 = on_tx!(tx, c => sqlx::query_scalar("SELECT COUNT(*) FROM containers WHERE account_id = $1 AND active = TRUE")
        .bind(account_id).fetch_one(c).await?);
    Ok(Some((i64::from(limit) - active).max(0)))
}

#[allow(clippy::too_many_arguments)]
async fn set_status(
    tx: &mut Tx,
    account_id: Uuid,
    id: Uuid,
    status: Status,
    reason: Option<&str>,
    retrying: bool,
    attempts: i64,
    next_us: Option<i64>,
    now: i64,
) -> Result<()> {
    on_tx!(tx, c => sqlx::query(
        "UPDATE tracking_requests SET status = $2, failed_reason = $3, is_retrying = $4, retry_count = $5, next_attempt_us = $6, locked_until_us = NULL, updated_us = $7 WHERE account_id = $8 AND id = $1")
        .bind(id).bind(status.as_str()).bind(reason).bind(retrying).bind(attempts).bind(next_us).bind(now).bind(account_id)
        .execute(c).await.map(|_| ())?);
    Ok(())
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
    on_tx!(tx, c => sqlx::query("UPDATE shipments SET tracking_stopped_us = $2, stopped_reason = $3, updated_us = $2 WHERE account_id = $4 AND id = $1")
        .bind(shipment_id).bind(now).bind(reason).bind(account_id).execute(c).await.map(|_| ())?);
    on_tx!(tx, c => sqlx::query("UPDATE containers SET active = FALSE, updated_us = $2 WHERE account_id = $3 AND shipment_id = $1")
        .bind(shipment_id).bind(now).bind(account_id).execute(c).await.map(|_| ())?);
    let requests: Vec<Uuid> = on_tx!(tx, c => sqlx::query_scalar("SELECT id FROM tracking_requests WHERE account_id = $2 AND shipment_id = $1 AND status = 'created'")
        .bind(shipment_id).bind(account_id).fetch_all(c).await?);
    for id in requests {
        on_tx!(tx, c => sqlx::query("UPDATE tracking_requests SET status = 'tracking_stopped', updated_us = $2 WHERE account_id = $3 AND id = $1")
            .bind(id).bind(now).bind(account_id).execute(c).await.map(|_| ())?);
        let row = get_in(tx, account_id, id).await?;
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
        "SELECT (SELECT COUNT(*) FROM containers WHERE account_id = $2 AND shipment_id = $1 AND current_status <> 'empty_returned'), \
                (SELECT COUNT(*) FROM shipments WHERE account_id = $2 AND id = $1 AND tracking_stopped_us IS NOT NULL)")
        .bind(shipment_id).bind(account_id).fetch_one(c).await?);
    if open == 0 && stopped == 0 {
        stop_in(tx, account_id, shipment_id, apply::JOURNEY_ENDED, now).await?;
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
            "SELECT (SELECT COUNT(*) FROM containers WHERE account_id = $1 AND active = TRUE), (SELECT COUNT(*) FROM containers WHERE account_id = $1 AND shipment_id = $2 AND current_status <> 'empty_returned')")
            .bind(account_id).bind(shipment_id).fetch_one(c).await?);
        if active + here > i64::from(limit) {
            return Err(StoreError::PlanLimit { limit });
        }
    }
    on_tx!(&mut tx, c => sqlx::query("UPDATE shipments SET tracking_stopped_us = NULL, stopped_reason = NULL, updated_us = $2 WHERE account_id = $3 AND id = $1")
        .bind(shipment_id).bind(now).bind(account_id).execute(c).await.map(|_| ())?);
    on_tx!(&mut tx, c => sqlx::query("UPDATE containers SET active = TRUE, updated_us = $2 WHERE account_id = $3 AND shipment_id = $1 AND current_status <> 'empty_returned'")
        .bind(shipment_id).bind(now).bind(account_id).execute(c).await.map(|_| ())?);
    // a stopped request comes back to life unless another request for the same number was
    // made while it was stopped: that one is the live one (one live request per number);
    // of two stopped ones for a number, the newer comes back
    on_tx!(&mut tx, c => sqlx::query("UPDATE tracking_requests SET status = 'created', updated_us = $2 WHERE account_id = $3 AND shipment_id = $1 AND status = 'tracking_stopped' \
        AND NOT EXISTS (SELECT 1 FROM tracking_requests o WHERE o.account_id = tracking_requests.account_id AND o.request_number = tracking_requests.request_number \
        AND o.request_type = tracking_requests.request_type AND COALESCE(o.scac, '') = COALESCE(tracking_requests.scac, '') AND o.id <> tracking_requests.id \
        AND (o.status IN ('pending', 'awaiting_manifest', 'created') OR (o.status = 'tracking_stopped' AND o.shipment_id = $1 AND o.id > tracking_requests.id)))")
        .bind(shipment_id).bind(now).bind(account_id).execute(c).await.map(|_| ())?);
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
        FROM shipments s LEFT JOIN sandbox_runs r ON r.account_id = s.account_id AND r.shipment_id = s.id \
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
