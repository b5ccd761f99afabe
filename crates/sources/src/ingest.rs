//! Pushed upstream data into the store: the payload is kept verbatim, read, mapped to
//! observations, matched to the tracked containers it names, and merged. Used by
//! `POST /v2/ingest/x12`, `POST /v2/ingest/edifact` and `boxtrack ingest x12|edifact FILE`.

use std::collections::{BTreeMap, BTreeSet};

use boxtrack_core::tracking::{DataSource, Observation};
use boxtrack_store::payloads::{self, NewPayload};
use boxtrack_store::{Db, StoreError, tracking};
use serde::Serialize;
use uuid::Uuid;

use crate::x12::{self, Finding, Severity};

/// Whose containers a payload may touch.
#[derive(Debug, Clone, Copy)]
pub struct Scope {
    /// The sending account (`None`: the operator's command line).
    pub sender: Option<Uuid>,
    /// `Some(account)`: only that account's containers; `None`: every account's.
    pub containers_of: Option<Uuid>,
}

/// What an ingest did.
#[derive(Debug, Clone, Serialize)]
pub struct Report {
    /// The stored payload.
    pub payload_id: Uuid,
    /// `x12`.
    pub format: &'static str,
    /// `accepted` (everything read), `partial` (some parts refused) or `rejected` (nothing).
    pub status: &'static str,
    /// Transaction sets read.
    pub transaction_sets_accepted: usize,
    /// Transaction sets refused.
    pub transaction_sets_rejected: usize,
    /// Observations produced.
    pub observations: usize,
    /// Tracked containers updated (numbers).
    pub containers_matched: Vec<String>,
    /// Container numbers nobody in scope tracks.
    pub containers_unknown: Vec<String>,
    /// Of those, how many had something to say: kept, and applied when a tracking request
    /// makes the container known (`store::early`).
    pub early_reports_kept: usize,
    /// Changes recorded (transport events, attribute changes...).
    pub changes: usize,
    /// The accounts whose containers the file was applied to (their cached reads are stale).
    #[serde(skip)]
    pub accounts: Vec<Uuid>,
    /// Envelope and segment findings.
    pub findings: Vec<Finding>,
    /// Caveats from mapping (bad check digits, unknown zones, unmapped codes).
    pub notes: Vec<String>,
}

impl Report {
    /// The report of a file of `format` of which nothing is read yet.
    fn nothing(format: &'static str) -> Report {
        Report {
            payload_id: Uuid::nil(),
            format,
            status: "rejected",
            transaction_sets_accepted: 0,
            transaction_sets_rejected: 0,
            observations: 0,
            containers_matched: vec![],
            containers_unknown: vec![],
            early_reports_kept: 0,
            changes: 0,
            accounts: vec![],
            findings: vec![],
            notes: vec![],
        }
    }
}

/// Reads an X12 file (any number of interchanges of 315s and 322s) and merges what it says.
/// A file that cannot be read at all is stored with status `rejected` and reported with the
/// segment and reason; nothing else is written.
pub async fn x12(
    db: &Db,
    scope: Scope,
    origin: &str,
    text: &str,
    now_us: i64,
) -> Result<Report, StoreError> {
    let mut report = Report::nothing("x12");
    let parsed = match x12::parse(text) {
        Ok(p) => p,
        Err(e) => {
            report.findings.push(e.0);
            return store(db, scope, origin, text, now_us, report).await;
        }
    };
    report.findings = parsed.findings.clone();
    report.transaction_sets_rejected = parsed
        .errors()
        .filter(|f| f.segment == "SE" || f.segment == "ST")
        .count();
    let mut per_container: BTreeMap<String, Vec<Observation>> = BTreeMap::new();
    for (group, set) in parsed.sets() {
        let msg = match x12::status::read(set) {
            Ok(m) => m,
            Err(f) => {
                report.findings.push(f);
                report.transaction_sets_rejected += 1;
                continue;
            }
        };
        report.transaction_sets_accepted += 1;
        let observed = x12::map::instant(
            &x12::status::Stamp {
                qualifier: String::new(),
                date: group.date.clone(),
                time: Some(group.time.chars().take(4).collect()),
                time_code: Some("UT".into()),
            },
            None,
        )
        .map_or(now_us, |(t, _)| t);
        let label = format!("{} {}", set.code, set.control_number);
        gather(
            &mut report,
            &mut per_container,
            &label,
            x12::map::map(&msg, observed),
        );
    }
    apply_read(db, scope, origin, text, now_us, report, per_container).await
}

/// Reads an EDIFACT file (interchanges of IFTSTA, CODECO and COARRI messages) and merges what
/// it says, as
/// [`x12`] does: a file that cannot be read at all, or whose every message is refused, is
/// stored with status `rejected` and nothing else is written; a refused message or
/// interchange leaves the others applied.
pub async fn edifact(
    db: &Db,
    scope: Scope,
    origin: &str,
    text: &str,
    now_us: i64,
) -> Result<Report, StoreError> {
    let mut report = Report::nothing("edifact");
    let parsed = match crate::edifact::parse(text) {
        Ok(p) => p,
        Err(e) => {
            report.findings.push(e.0);
            return store(db, scope, origin, text, now_us, report).await;
        }
    };
    report.findings = parsed.findings.clone();
    report.transaction_sets_rejected = parsed.messages_refused;
    let mut per_container: BTreeMap<String, Vec<Observation>> = BTreeMap::new();
    for interchange in &parsed.interchanges {
        // when the sender produced it: the UNB's date and time (UTC), else now
        let date = match interchange.date.len() {
            6 => format!("20{}", interchange.date),
            _ => interchange.date.clone(),
        };
        let observed = x12::map::instant(
            &x12::status::Stamp {
                qualifier: String::new(),
                date,
                time: Some(interchange.time.chars().take(4).collect()),
                time_code: Some("UT".into()),
            },
            None,
        )
        .map_or(now_us, |(t, _)| t);
        for message in &interchange.messages {
            let (statuses, findings, terminal) = match message.kind.as_str() {
                "IFTSTA" => {
                    let (s, f) = crate::edifact::iftsta::read(message);
                    (s, f, false)
                }
                "CODECO" | "COARRI" => {
                    let (s, f) = crate::edifact::terminal::read(message);
                    (s, f, true)
                }
                other => {
                    report.transaction_sets_rejected += 1;
                    report.findings.push(Finding {
                        severity: Severity::Error,
                        segment_position: message.segments.first().map_or(0, |s| s.position),
                        segment: "UNH".into(),
                        reason: format!(
                            "message type {other} is not read (IFTSTA, CODECO and COARRI are); refused"
                        ),
                    });
                    continue;
                }
            };
            let refused = findings.iter().any(|f| f.severity == Severity::Error);
            report.findings.extend(findings);
            if refused {
                report.transaction_sets_rejected += 1;
                continue;
            }
            report.transaction_sets_accepted += 1;
            let label = format!("{} {}", message.kind, message.reference);
            for status in statuses {
                let mut mapped = x12::map::map(&status, observed);
                // a terminal's moves are the terminal's word, whatever vocabulary carries them
                if terminal {
                    for o in &mut mapped.observations {
                        o.source = DataSource::Terminal;
                    }
                }
                gather(&mut report, &mut per_container, &label, mapped);
            }
        }
    }
    apply_read(db, scope, origin, text, now_us, report, per_container).await
}

/// Adds what one status message says to the report and to its container's observations.
fn gather(
    report: &mut Report,
    per_container: &mut BTreeMap<String, Vec<Observation>>,
    label: &str,
    mapped: x12::map::Mapped,
) {
    for n in mapped.notes {
        report.notes.push(format!("{label}: {n}"));
    }
    let Some(container) = mapped.container else {
        report
            .notes
            .push(format!("{label}: no container number; nothing to apply"));
        return;
    };
    report.observations += mapped.observations.len();
    per_container
        .entry(container)
        .or_default()
        .extend(mapped.observations);
}

/// The common end of an ingest: the status from what was read, the payload stored, and the
/// observations merged into the tracked containers in scope.
async fn apply_read(
    db: &Db,
    scope: Scope,
    origin: &str,
    text: &str,
    now_us: i64,
    mut report: Report,
    per_container: BTreeMap<String, Vec<Observation>>,
) -> Result<Report, StoreError> {
    report.status = match (
        report.transaction_sets_accepted,
        report
            .findings
            .iter()
            .any(|f| f.severity == Severity::Error),
    ) {
        (0, _) => "rejected",
        (_, true) => "partial",
        (_, false) => "accepted",
    };
    let numbers: Vec<String> = per_container.keys().cloned().collect();
    let targets = payloads::targets(db, scope.containers_of, &numbers).await?;
    let matched: BTreeSet<&str> = targets.iter().map(|t| t.number.as_str()).collect();
    report.containers_unknown = numbers
        .iter()
        .filter(|n| !matched.contains(n.as_str()))
        .cloned()
        .collect();
    report.containers_matched = matched.iter().map(|s| s.to_string()).collect();
    let mut by_account: BTreeMap<Uuid, Vec<(Uuid, Vec<Observation>)>> = BTreeMap::new();
    group_by_account(&mut by_account, &targets, &per_container);
    let mut report = store(db, scope, origin, text, now_us, report).await?;
    // what it said of boxes no account tracks yet is kept for when one does
    let early: Vec<(String, Vec<Observation>)> = report
        .containers_unknown
        .iter()
        .filter_map(|n| per_container.get(n).map(|o| (n.clone(), o.clone())))
        .collect();
    let kept = boxtrack_store::early::keep(
        db,
        scope.containers_of,
        Some(report.payload_id),
        &early,
        now_us,
    )
    .await?;
    report.early_reports_kept = kept.kept;
    // a container made known while the file was read takes its reports now
    if !kept.known_meanwhile.is_empty() {
        let late = payloads::targets(db, scope.containers_of, &kept.known_meanwhile).await?;
        group_by_account(&mut by_account, &late, &per_container);
        report
            .containers_unknown
            .retain(|n| !kept.known_meanwhile.contains(n));
        report
            .containers_matched
            .extend(kept.known_meanwhile.iter().cloned());
    }
    for (account, batches) in by_account {
        report.changes += tracking::apply_many(db, account, &batches).await?;
        report.accounts.push(account);
    }
    Ok(report)
}

/// Adds each target's observations to its account's batches.
fn group_by_account(
    by_account: &mut BTreeMap<Uuid, Vec<(Uuid, Vec<Observation>)>>,
    targets: &[payloads::Target],
    per_container: &BTreeMap<String, Vec<Observation>>,
) {
    for t in targets {
        if let Some(obs) = per_container.get(&t.number) {
            by_account
                .entry(t.account_id)
                .or_default()
                .push((t.container_id, obs.clone()));
        }
    }
}

async fn store(
    db: &Db,
    scope: Scope,
    origin: &str,
    text: &str,
    now_us: i64,
    mut report: Report,
) -> Result<Report, StoreError> {
    let summary = serde_json::json!({
        "transaction_sets_accepted": report.transaction_sets_accepted,
        "transaction_sets_rejected": report.transaction_sets_rejected,
        "findings": report.findings,
        "notes": report.notes,
    });
    report.payload_id = payloads::record(
        db,
        &NewPayload {
            account_id: scope.sender,
            format: report.format,
            origin,
            body: text,
            status: report.status,
            summary: &summary,
            received_us: now_us,
        },
    )
    .await?;
    Ok(report)
}
