//! Polling a subject: ask the carrier (DCSA) and the terminals of its discharged containers,
//! keep the answers verbatim, merge what they say into every container (of every account)
//! that tracks the subject, and decide when to ask again.

use std::collections::{BTreeMap, BTreeSet};

use boxtrack_core::requests::RequestType;
use boxtrack_core::schedule;
use boxtrack_core::tracking::{Change, ContainerState, Observation, Route, ShipmentState};
use boxtrack_store::payloads::{self, NewPayload};
use boxtrack_store::subjects::{self, Polled, SubjectRow, Target};
use boxtrack_store::tracking::NewContainer;
use boxtrack_store::{Db, StoreError, tracking};
use uuid::Uuid;

use crate::carrier::Digest;
use crate::terminal;
use crate::upstream::{UpstreamError, Upstreams};

/// What one poll did.
#[derive(Debug, Clone, Default)]
pub struct PollReport {
    /// Changes per container id.
    pub changes: BTreeMap<Uuid, Vec<Change>>,
    /// Containers fed.
    pub containers: usize,
    /// What went wrong upstream, if anything (the subject is retried with backoff).
    pub error: Option<String>,
    /// Terminal feeds that failed (the carrier data was still applied).
    pub terminal_errors: Vec<String>,
    /// The next poll (`None`: the subject is done).
    pub next_due_us: Option<i64>,
}

fn waiting_at_terminal(status: &str) -> bool {
    matches!(
        status,
        "grounded" | "available" | "not_available" | "awaiting_inland_transfer"
    )
}

/// Polls one subject now and records the outcome on it, in named steps: ask the carrier
/// ([`failed`] when it cannot answer), keep its answer verbatim ([`keep_answer`]), add what the
/// terminals say of the boxes waiting there ([`terminal_feed`]), merge it all into every
/// container that tracks the subject, keep the carrier's clock, and decide when to ask again
/// ([`next_poll`]).
pub async fn poll_subject(
    db: &Db,
    upstreams: &Upstreams,
    subject: &SubjectRow,
    now_us: i64,
) -> Result<PollReport, StoreError> {
    let mut report = PollReport::default();
    let targets = subjects::targets(db, &subject.scac, &subject.kind, &subject.reference).await?;
    if targets.is_empty() {
        subjects::finish(
            db,
            subject.id,
            now_us,
            &Polled::Success { next_due_us: None },
        )
        .await?;
        return Ok(report);
    }
    let known: Option<Route> = serde_json::from_str(&targets[0].route).ok();
    let kind = RequestType::parse(&subject.kind).unwrap_or(RequestType::BillOfLading);
    let answer = match upstreams
        .dcsa_events(&subject.scac, kind, &subject.reference)
        .await
    {
        Ok(a) => a,
        Err(e) => return failed(db, upstreams, subject, e, now_us, report).await,
    };
    keep_answer(db, subject, &answer, now_us).await?;
    let d = answer.digest(known.as_ref());
    let targets = match join_new_boxes(db, subject, kind, &targets, &d, now_us).await? {
        Some(more) => more,
        None => targets,
    };
    report.containers = targets.len();
    let mut per_account: BTreeMap<Uuid, Vec<(Uuid, Vec<Observation>)>> = BTreeMap::new();
    let mut feeds: BTreeMap<(String, String), Option<Vec<Observation>>> = BTreeMap::new();
    for t in &targets {
        let mut obs = d.for_container(&t.number);
        obs.extend(
            answer
                .retracted
                .iter()
                .filter(|r| r.about(&t.number))
                .map(crate::dcsa::Retraction::observation),
        );
        let state: ContainerState = serde_json::from_str(&t.state).unwrap_or_default();
        let terminal_code = d
            .terminals
            .get(&t.number)
            .cloned()
            .or(state.pod_terminal.clone());
        let discharged_now = d.terminals.contains_key(&t.number);
        if let Some(code) = terminal_code
            && (discharged_now || waiting_at_terminal(&t.current_status))
        {
            let key = (code.clone(), t.number.clone());
            if !feeds.contains_key(&key) {
                let pod = d.route.pod_locode.as_deref();
                let got = terminal_feed(db, upstreams, &code, &t.number, pod, now_us, &mut report)
                    .await?;
                feeds.insert(key.clone(), got);
            }
            if let Some(Some(more)) = feeds.get(&key) {
                obs.extend(more.iter().cloned());
            }
        }
        per_account
            .entry(t.account_id)
            .or_default()
            .push((t.container_id, obs));
    }
    for (account, batches) in per_account {
        let mut tx = db.begin().await?;
        let changes = tracking::apply_batch_in(&mut tx, account, &batches, now_us).await?;
        tx.commit().await?;
        for (id, c) in changes {
            report.changes.insert(id, c);
        }
    }
    // the shipments' data runs on the carrier's clock (rules that compare it with "now" use it)
    // (a clock that keeps real time within a minute is the wall clock: nothing to write)
    if let Some(c) = answer
        .clock
        .filter(|c| c.speed != 1.0 || (c.source_us - c.wall_us).abs() > 60_000_000)
    {
        subjects::record_clock(
            db,
            &subject.scac,
            &subject.kind,
            &subject.reference,
            c.wall_us,
            c.source_us,
            c.speed,
        )
        .await?;
    }
    report.next_due_us = next_poll(db, upstreams, subject, now_us, &report).await?;
    subjects::finish(
        db,
        subject.id,
        now_us,
        &Polled::Success {
            next_due_us: report.next_due_us,
        },
    )
    .await?;
    Ok(report)
}

/// The boxes the carrier's answer names that a shipment tracking the subject lacks (a box
/// that joined the bill after its first lookup), per (account, shipment). A subject that is
/// one container number names no other box.
fn joining(
    kind: RequestType,
    targets: &[Target],
    d: &Digest,
) -> BTreeMap<(Uuid, Uuid), Vec<String>> {
    let mut out: BTreeMap<(Uuid, Uuid), Vec<String>> = BTreeMap::new();
    if kind == RequestType::Container {
        return out;
    }
    let mut has: BTreeMap<(Uuid, Uuid), BTreeSet<&str>> = BTreeMap::new();
    for t in targets {
        has.entry((t.account_id, t.shipment_id))
            .or_default()
            .insert(t.number.as_str());
    }
    for (shipment, numbers) in has {
        let missing: Vec<String> = d
            .per_container
            .keys()
            .filter(|n| {
                boxtrack_core::ident::looks_like_container(n) && !numbers.contains(n.as_str())
            })
            .cloned()
            .collect();
        if !missing.is_empty() {
            out.insert(shipment, missing);
        }
    }
    out
}

/// Adds the boxes that joined the bill since it was tracked ([`joining`]) to their shipments
/// (with what EDI files said of them before; the poll then feeds them as any other); returns
/// the subject's targets read again when any was added.
async fn join_new_boxes(
    db: &Db,
    subject: &SubjectRow,
    kind: RequestType,
    targets: &[Target],
    d: &Digest,
    now_us: i64,
) -> Result<Option<Vec<Target>>, StoreError> {
    let mut added = 0;
    for ((account, shipment), numbers) in joining(kind, targets, d) {
        let boxes: Vec<NewContainer> = numbers
            .iter()
            // the carrier's history of the box comes with the rest of this poll
            .map(|n| NewContainer {
                number: n.clone(),
                observations: vec![],
            })
            .collect();
        let joined = tracking::join_shipment(db, account, shipment, &boxes, now_us).await?;
        if !joined.over_limit.is_empty() {
            tracing::warn!(%account, subject = %subject.reference, numbers = ?joined.over_limit,
                "containers that joined a tracked bill are left out: the account's plan is at its limit");
        }
        added += joined.created.len();
    }
    if added == 0 {
        return Ok(None);
    }
    Ok(Some(
        subjects::targets(db, &subject.scac, &subject.kind, &subject.reference).await?,
    ))
}

/// A span of the carrier's schedule in real time: the schedule runs on the carrier's clock
/// (a simulator at 3600x is polled "hourly" every second); `poll_speedup` (a setting) makes
/// polls faster still. Read when needed: the answer to this poll may be the first reading of
/// that clock.
fn scaled(upstreams: &Upstreams, subject: &SubjectRow, us: i64) -> i64 {
    let speed = upstreams
        .config()
        .poll_speedup
        .max(upstreams.clock("dcsa", &subject.scac).speed)
        .max(1.0);
    (us as f64 / speed).max(1_000_000.0) as i64
}

/// The carrier did not answer: back off, keep a malformed answer as a rejected payload, and
/// record the failure on the subject.
async fn failed(
    db: &Db,
    upstreams: &Upstreams,
    subject: &SubjectRow,
    e: UpstreamError,
    now_us: i64,
    mut report: PollReport,
) -> Result<PollReport, StoreError> {
    let next = now_us
        + scaled(
            upstreams,
            subject,
            schedule::backoff_us(subject.failures as u32 + 1, e.retry_after()),
        );
    report.error = Some(e.to_string());
    report.next_due_us = Some(next);
    if let UpstreamError::Malformed { .. } = e {
        payloads::record(
            db,
            &NewPayload {
                account_id: None,
                format: "dcsa",
                origin: &format!("dcsa:{}", subject.scac),
                body: "",
                status: "rejected",
                summary: &serde_json::json!({"error": e.to_string(), "subject": subject.reference}),
                received_us: now_us,
            },
        )
        .await?;
    }
    subjects::finish(
        db,
        subject.id,
        now_us,
        &Polled::Failure {
            error: e.to_string(),
            next_due_us: next,
        },
    )
    .await?;
    Ok(report)
}

/// Keeps the carrier's answer verbatim, a payload per body.
async fn keep_answer(
    db: &Db,
    subject: &SubjectRow,
    answer: &crate::upstream::DcsaAnswer,
    now_us: i64,
) -> Result<(), StoreError> {
    let status = if answer.rejected.is_empty() {
        "accepted"
    } else {
        "partial"
    };
    for body in &answer.bodies {
        payloads::record(
            db,
            &NewPayload {
                account_id: None,
                format: "dcsa",
                origin: &format!("dcsa:{}", subject.scac),
                body,
                status,
                summary: &serde_json::json!({"subject": subject.reference, "rejected": answer.rejected, "notes": answer.notes}),
                received_us: now_us,
            },
        )
        .await?;
    }
    Ok(())
}

/// What terminal `code` says of container `number` (kept verbatim, its refusals counted);
/// `None` when it has no feed or says nothing. A failed feed is noted in `report`.
async fn terminal_feed(
    db: &Db,
    upstreams: &Upstreams,
    code: &str,
    number: &str,
    pod: Option<&str>,
    now_us: i64,
    report: &mut PollReport,
) -> Result<Option<Vec<Observation>>, StoreError> {
    match upstreams.terminal_status(code, number).await {
        Ok(Some((status, body))) => {
            payloads::record(
                db,
                &NewPayload {
                    account_id: None,
                    format: "terminal",
                    origin: &format!("terminal:{code}"),
                    body: &body,
                    status: "accepted",
                    summary: &serde_json::json!({"container": number}),
                    received_us: now_us,
                },
            )
            .await?;
            let refused = terminal::refusals(&status);
            if let Some(ep) = upstreams.terminal(code) {
                upstreams.refused("terminal", code, &ep.url, number, &refused, true);
            }
            Ok(Some(terminal::map(&status, pod)))
        }
        Ok(None) | Err(UpstreamError::NotConfigured(_)) => Ok(None),
        Err(e) => {
            report.terminal_errors.push(e.to_string());
            Ok(None)
        }
    }
}

/// When to ask again: from where the containers are now, sooner after a terminal failed.
async fn next_poll(
    db: &Db,
    upstreams: &Upstreams,
    subject: &SubjectRow,
    now_us: i64,
    report: &PollReport,
) -> Result<Option<i64>, StoreError> {
    let after = subjects::targets(db, &subject.scac, &subject.kind, &subject.reference).await?;
    let statuses: Vec<&str> = after.iter().map(|t| t.current_status.as_str()).collect();
    let eta = after
        .iter()
        .filter_map(|t| serde_json::from_str::<ShipmentState>(&t.shipment_state).ok())
        .filter_map(|s| s.pod_eta_us)
        .min();
    let source_now = upstreams.clock("dcsa", &subject.scac).now_at(now_us);
    let next = schedule::cadence_us(&statuses, eta, source_now)
        .map(|c| now_us + scaled(upstreams, subject, c));
    Ok(if report.terminal_errors.is_empty() {
        next
    } else {
        next.map(|n| n.min(now_us + scaled(upstreams, subject, schedule::backoff_us(1, None))))
    })
}

/// Polls every subject due at `now_us`, `batch` at a time with a lease; returns how many.
pub async fn poll_due(
    db: &Db,
    upstreams: &Upstreams,
    now_us: i64,
    batch: i64,
) -> Result<usize, StoreError> {
    let mut done = 0;
    loop {
        let due = subjects::claim_due(db, now_us, 300_000_000, batch).await?;
        if due.is_empty() {
            return Ok(done);
        }
        for s in &due {
            if let Err(e) = poll_subject(db, upstreams, s, now_us).await {
                tracing::error!(subject = %s.reference, error = %e, "poll failed");
            }
            done += 1;
        }
    }
}
