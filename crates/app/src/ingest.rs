//! Upstream data sent to boxtrack rather than fetched: an X12 315 or EDIFACT IFTSTA
//! interchange posted by an account (or by the operator, for every account), and a carrier's
//! signed DCSA Track & Trace push. Each is read and merged by `boxtrack-sources`; what it
//! refuses counts in the sender's source health (`GET /v2/sources`), as a poll's refusals do.

pub use boxtrack_sources::ingest::Report;
use boxtrack_sources::ingest::{self, Scope};
use boxtrack_sources::push;
pub use boxtrack_sources::push::{PushError, PushReport};
use boxtrack_sources::x12::Severity;

use crate::AppError;
use crate::ctx::Ctx;
use crate::model::Account;

/// The EDI formats a file is posted in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileFormat {
    /// ANSI X12 315 (status details).
    X12,
    /// UN/EDIFACT IFTSTA (status report).
    Edifact,
}

impl FileFormat {
    /// As people write it (`X12`, `EDIFACT`).
    pub fn name(self) -> &'static str {
        match self {
            FileFormat::X12 => "X12",
            FileFormat::Edifact => "EDIFACT",
        }
    }

    /// As codes and source kinds name it (`x12`, `edifact`).
    pub fn kind(self) -> &'static str {
        match self {
            FileFormat::X12 => "x12",
            FileFormat::Edifact => "edifact",
        }
    }
}

/// Reads and merges an interchange `account` sent (through `route`, the address the source
/// health names): an operator's file may update every account's containers, anyone else's
/// only its own. The parts refused (findings of severity error) count in the sender's source
/// health; the report says what was read, and `rejected` when nothing was.
pub async fn file(
    ctx: &Ctx,
    account: &Account,
    format: FileFormat,
    route: &str,
    text: &str,
) -> Result<Report, AppError> {
    let scope = Scope {
        sender: Some(account.id),
        containers_of: (!account.operator).then_some(account.id),
    };
    let now = ctx.now_us();
    let report = match format {
        FileFormat::X12 => ingest::x12(&ctx.db, scope, "api", text, now).await?,
        FileFormat::Edifact => ingest::edifact(&ctx.db, scope, "api", text, now).await?,
    };
    let code_refused = format!("{}_refused", format.kind());
    let refused: Vec<(String, &str, String)> = report
        .findings
        .iter()
        .filter(|f| f.severity == Severity::Error)
        .map(|f| {
            (
                format!("{}:{}", report.payload_id, f.segment_position),
                code_refused.as_str(),
                f.to_string(),
            )
        })
        .collect();
    ctx.upstreams.refused(
        format.kind(),
        "ingest",
        route,
        &report.payload_id.to_string(),
        &refused,
        report.status == "partial",
    );
    Ok(report)
}

/// What a carrier's DCSA push carried: its signature (`Notification-Signature`) checked with
/// the configured `secret`, its events merged at `source_now` (the carrier's clock, the
/// `Date` of its call; this service's clock when it sent none). The events refused count in
/// the health of the push's subscription (`subscription`, received through `route`).
pub async fn dcsa_push(
    ctx: &Ctx,
    secret: Option<&str>,
    signature: Option<&str>,
    subscription: Option<&str>,
    route: &str,
    body: &[u8],
    source_now: Option<i64>,
) -> Result<PushReport, PushError> {
    let now = ctx.now_us();
    let source_now = source_now.unwrap_or(now);
    let report = push::dcsa(
        &ctx.db,
        secret,
        signature,
        subscription,
        body,
        now,
        source_now,
    )
    .await?;
    let items: Vec<(String, &str, String)> = report
        .refused
        .iter()
        .map(|r| r.refusal(&now.to_string()))
        .collect();
    ctx.upstreams.refused(
        "dcsa_push",
        subscription.unwrap_or("-"),
        route,
        "push",
        &items,
        true,
    );
    Ok(report)
}
