//! DCSA Track & Trace 2.2 push: carriers call boxtrack with arrays of events. A call is
//! verified first (`Notification-Signature: sha256=<hex>`, HMAC-SHA256 of the exact body with
//! the base64-decoded subscription secret); an unsigned or badly signed call is refused and
//! stored nowhere. A verified body is stored verbatim, and its events are merged into every
//! container they concern: equipment events by container number, vessel events by the
//! bill of lading or booking they name.

use std::collections::{BTreeMap, BTreeSet};

use boxtrack_core::tracking::{Observation, Route};
use boxtrack_store::payloads::{self, NewPayload};
use boxtrack_store::{Db, StoreError, subjects, tracking};
use uuid::Uuid;

use crate::carrier::digest;
use crate::dcsa::{self, Event};

/// Why a push was refused.
#[derive(Debug, thiserror::Error)]
pub enum PushError {
    /// Not signed, or not signed with the configured secret: nothing stored.
    #[error("{0}")]
    Unauthorized(String),
    /// Signed, but not an array of DCSA events (stored as rejected).
    #[error("{0}")]
    Invalid(String),
    /// Storage failed.
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// What a push did.
#[derive(Debug, Clone, Default, serde::Serialize)]
pub struct PushReport {
    /// The stored payload.
    pub payload_id: Option<Uuid>,
    /// Valid events.
    pub events: usize,
    /// Rejected events.
    pub rejected: usize,
    /// Why each was rejected.
    pub refused: Vec<dcsa::Rejected>,
    /// Caveats about accepted events (and events noted but not applied).
    pub notes: Vec<String>,
    /// The DCSA version the body's shape says (what the answer follows).
    pub version: dcsa::Version,
    /// Containers updated.
    pub containers: usize,
    /// Changes recorded.
    pub changes: usize,
    /// The accounts whose containers the push was applied to (their cached reads are stale).
    #[serde(skip)]
    pub accounts: Vec<Uuid>,
}

fn concerns(e: &Event, t: &subjects::PushTarget) -> bool {
    match &e.equipment_reference {
        Some(c) => boxtrack_core::ident::normalize(c) == t.number,
        None => e.document_references.iter().any(|d| {
            d.document_reference_value == t.request_number
                || d.document_reference_value == t.bill_of_lading_number
        }),
    }
}

/// The tracked containers a push may concern: by the container numbers its events and
/// withdrawals name, by the bills and bookings its vessel events name, and, for a withdrawal
/// that names neither, wherever its event was applied.
async fn targets_of(
    db: &Db,
    parsed: &dcsa::Parsed,
) -> Result<Vec<subjects::PushTarget>, StoreError> {
    let mut numbers = BTreeSet::new();
    let mut references = BTreeSet::new();
    for e in &parsed.events {
        if let Some(c) = &e.equipment_reference {
            numbers.insert(boxtrack_core::ident::normalize(c));
        } else {
            references.extend(
                e.document_references
                    .iter()
                    .map(|d| d.document_reference_value.clone()),
            );
        }
    }
    for r in &parsed.retracted {
        numbers.extend(r.equipment_reference.clone());
        if r.equipment_reference.is_none() {
            references.extend(r.document_references.iter().cloned());
        }
    }
    let numbers: Vec<String> = numbers.into_iter().collect();
    let references: Vec<String> = references.into_iter().collect();
    let mut targets = subjects::targets_for_push(db, &numbers, &references).await?;
    let unplaced: Vec<String> = parsed
        .retracted
        .iter()
        .filter(|r| r.equipment_reference.is_none() && r.document_references.is_empty())
        .map(|r| r.event_id.clone())
        .collect();
    targets.extend(subjects::targets_holding(db, &unplaced).await?);
    Ok(targets)
}

/// What a push says of tracked container `t`: its events and the withdrawals that concern it
/// (`None`: nothing).
fn observations_for(parsed: &dcsa::Parsed, t: &subjects::PushTarget) -> Option<Vec<Observation>> {
    let relevant: Vec<Event> = parsed
        .events
        .iter()
        .filter(|e| concerns(e, t))
        .cloned()
        .collect();
    let refs = [t.request_number.as_str(), t.bill_of_lading_number.as_str()];
    let withdrawn: Vec<Observation> = parsed
        .retracted
        .iter()
        .filter(|r| r.concerns(&t.number, &refs))
        .map(dcsa::Retraction::observation)
        .collect();
    if relevant.is_empty() && withdrawn.is_empty() {
        return None;
    }
    let known: Option<Route> = serde_json::from_str(&t.route).ok();
    let mut obs = digest(&relevant, known.as_ref()).for_container(&t.number);
    obs.extend(withdrawn);
    Some(obs)
}

/// The documents (bill of lading, booking) named by equipment events about boxes that none of
/// `targets` is.
fn unknown_boxes_bills(events: &[Event], targets: &[subjects::PushTarget]) -> Vec<String> {
    let known: BTreeSet<&str> = targets.iter().map(|t| t.number.as_str()).collect();
    let mut out = BTreeSet::new();
    for e in events {
        if let Some(c) = &e.equipment_reference
            && !known.contains(boxtrack_core::ident::normalize(c).as_str())
        {
            out.extend(
                e.document_references
                    .iter()
                    .map(|d| d.document_reference_value.clone()),
            );
        }
    }
    out.into_iter().collect()
}

/// Verifies, stores and applies one push received at `now_us`; its events are checked against
/// `source_now_us`, the carrier's clock (the `Date` of its call, or `now_us`).
pub async fn dcsa(
    db: &Db,
    secret: Option<&str>,
    signature: Option<&str>,
    subscription_id: Option<&str>,
    body: &[u8],
    now_us: i64,
    source_now_us: i64,
) -> Result<PushReport, PushError> {
    let secret = secret.ok_or_else(|| {
        PushError::Unauthorized("DCSA push is not configured on this service".into())
    })?;
    let signature = signature.ok_or_else(|| {
        PushError::Unauthorized("the Notification-Signature header is missing".into())
    })?;
    if !dcsa::verify_signature(secret, body, signature) {
        return Err(PushError::Unauthorized(
            "the Notification-Signature does not match the body".into(),
        ));
    }
    let origin = format!("dcsa-push:{}", subscription_id.unwrap_or("-"));
    let text = String::from_utf8_lossy(body);
    // plausibility against the carrier's clock (the `Date` of its signed call), not ours
    let parsed = match dcsa::parse(body, source_now_us) {
        Ok(p) => p,
        Err(e) => {
            payloads::record(
                db,
                &NewPayload {
                    account_id: None,
                    format: "dcsa",
                    origin: &origin,
                    body: &text,
                    status: "rejected",
                    summary: &serde_json::json!({"error": e.0}),
                    received_us: now_us,
                },
            )
            .await?;
            return Err(PushError::Invalid(e.0));
        }
    };
    let mut report = PushReport {
        events: parsed.events.len(),
        rejected: parsed.rejected.len(),
        refused: parsed.rejected.clone(),
        notes: parsed.notes.clone(),
        version: parsed.version,
        ..PushReport::default()
    };
    report.payload_id = Some(
        payloads::record(
            db,
            &NewPayload {
                account_id: None,
                format: "dcsa",
                origin: &origin,
                body: &text,
                status: if parsed.rejected.is_empty() {
                    "accepted"
                } else {
                    "partial"
                },
                summary: &serde_json::json!({"rejected": parsed.rejected, "notes": parsed.notes}),
                received_us: now_us,
            },
        )
        .await?,
    );
    let targets = targets_of(db, &parsed).await?;
    // a box nobody tracks, on a bill somebody tracks, may have joined that bill since it was
    // tracked: the bill's next poll (made due now) adds it with its whole history
    let joining = unknown_boxes_bills(&parsed.events, &targets);
    subjects::poll_soon(db, &joining, now_us).await?;
    let mut per_account: BTreeMap<Uuid, Vec<(Uuid, Vec<Observation>)>> = BTreeMap::new();
    let mut seen = BTreeSet::new();
    for t in &targets {
        if !seen.insert(t.container_id) {
            continue;
        }
        if let Some(obs) = observations_for(&parsed, t) {
            per_account
                .entry(t.account_id)
                .or_default()
                .push((t.container_id, obs));
        }
    }
    for (account, batches) in per_account {
        report.containers += batches.len();
        let mut tx = db.begin().await?;
        let changes = tracking::apply_batch_in(&mut tx, account, &batches, now_us).await?;
        tx.commit().await?;
        report.changes += changes.iter().map(|(_, c)| c.len()).sum::<usize>();
        report.accounts.push(account);
    }
    Ok(report)
}
