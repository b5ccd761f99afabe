//! `POST /v2/ingest/x12` and `POST /v2/ingest/edifact`: upstream data pushed to boxtrack
//! (X12 315 and 322 files, EDIFACT IFTSTA interchanges), and `POST /v2/ingest/dcsa` (DCSA
//! pushes).

use axum::body::Bytes;
use axum::extract::State;
use axum::http::StatusCode;
use boxtrack_app::ingest::{self, FileFormat, PushError, PushReport, Report};
use schemars::JsonSchema;
use serde::Serialize;

use crate::state::AppState;
use crate::state::Routes;
use boxtrack_core::time;
use boxtrack_http::auth::Caller;
use boxtrack_http::doc::{self, Doc, WithHeader, schema_of, text_matching};
use boxtrack_http::error::{ApiError, ApiResult};
use boxtrack_http::jsonapi::JsonApi;
use boxtrack_sources::dcsa::Version;
use boxtrack_sources::x12;

fn result_doc(r: &Report) -> JsonApi {
    JsonApi::of(&IngestDocument {
        data: IngestResult {
            id: r.payload_id,
            kind: "ingest_result",
            attributes: IngestAttributes {
                format: r.format,
                status: r.status,
                transaction_sets_accepted: r.transaction_sets_accepted,
                transaction_sets_rejected: r.transaction_sets_rejected,
                observations: r.observations,
                containers_matched: r.containers_matched.clone(),
                containers_unknown: r.containers_unknown.clone(),
                early_reports_kept: r.early_reports_kept,
                changes: r.changes,
                findings: r
                    .findings
                    .iter()
                    .map(|f| FindingView {
                        severity: match f.severity {
                            x12::Severity::Warning => "warning",
                            x12::Severity::Error => "error",
                        },
                        segment_position: f.segment_position,
                        segment: f.segment.clone(),
                        reason: f.reason.clone(),
                    })
                    .collect(),
                notes: r.notes.clone(),
            },
        },
    })
}

/// What an ingested file held and changed.
#[derive(Serialize, JsonSchema)]
pub struct IngestDocument {
    /// The result.
    pub data: IngestResult,
}

/// The result of one file.
#[derive(Serialize, JsonSchema)]
pub struct IngestResult {
    /// The stored payload's id.
    pub id: uuid::Uuid,
    /// `ingest_result`.
    #[serde(rename = "type")]
    #[schemars(extend("const" = "ingest_result"))]
    pub kind: &'static str,
    /// What it held and changed.
    pub attributes: IngestAttributes,
}

/// What a file held and changed.
#[derive(Serialize, JsonSchema)]
pub struct IngestAttributes {
    /// `x12` or `edifact`.
    pub format: &'static str,
    /// `accepted`, `partial` or `rejected`.
    pub status: &'static str,
    /// Transaction sets taken.
    pub transaction_sets_accepted: usize,
    /// Transaction sets refused.
    pub transaction_sets_rejected: usize,
    /// Observations made from them.
    pub observations: usize,
    /// Tracked containers they were about.
    pub containers_matched: Vec<String>,
    /// Containers nobody tracks.
    pub containers_unknown: Vec<String>,
    /// Of those, how many had something to say (boxtrack's extension): kept, and applied when
    /// a tracking request makes the container known.
    pub early_reports_kept: usize,
    /// Changes to tracked containers.
    pub changes: usize,
    /// What was wrong or odd, by segment.
    pub findings: Vec<FindingView>,
    /// Other remarks.
    pub notes: Vec<String>,
}

/// A finding about one segment.
#[derive(Serialize, JsonSchema)]
pub struct FindingView {
    /// `warning` (accepted) or `error` (its transaction set refused).
    #[schemars(extend("enum" = ["warning", "error"]))]
    pub severity: &'static str,
    /// The segment's position in the file (1-based).
    pub segment_position: usize,
    /// The segment.
    pub segment: String,
    /// What is wrong.
    pub reason: String,
}

/// The file formats `POST /v2/ingest/*` reads.
/// The address a file of `format` is posted to, as the source health names it.
fn route(format: FileFormat) -> &'static str {
    match format {
        FileFormat::X12 => "POST /v2/ingest/x12",
        FileFormat::Edifact => "POST /v2/ingest/edifact",
    }
}

/// Retires the cached reads of `accounts`, whose data a file or push changed, before the
/// response leaves (other processes hear of it from the database's change feed).
fn retire_cached_reads(state: &AppState, accounts: &[uuid::Uuid]) {
    for account in accounts {
        state.reads.changes().touch(*account);
    }
}

/// The largest X12 or EDIFACT file one request may carry.
const MAX_FILE_BYTES: usize = 16 * 1024 * 1024;

/// `POST /v2/ingest/x12`: the body is the X12 file as sent by the carrier or railroad.
pub async fn x12(
    State(state): State<AppState>,
    caller: Caller,
    raw: Bytes,
) -> ApiResult<(StatusCode, JsonApi)> {
    ingest_file(&state, &caller, &raw, FileFormat::X12).await
}

/// `POST /v2/ingest/edifact`: the body is the UN/EDIFACT interchange (IFTSTA) as sent.
pub async fn edifact(
    State(state): State<AppState>,
    caller: Caller,
    raw: Bytes,
) -> ApiResult<(StatusCode, JsonApi)> {
    ingest_file(&state, &caller, &raw, FileFormat::Edifact).await
}

async fn ingest_file(
    state: &AppState,
    caller: &Caller,
    raw: &[u8],
    format: FileFormat,
) -> ApiResult<(StatusCode, JsonApi)> {
    let text = body_text(raw, format.name())?;
    let report = ingest::file(&state.ctx, &caller.account, format, route(format), text).await?;
    // an operator's file changes other accounts than the caller's (which the access layer
    // touches)
    retire_cached_reads(state, &report.accounts);
    if report.status == "rejected" {
        return Err(rejection(&report, format));
    }
    Ok((StatusCode::OK, result_doc(&report)))
}

/// The body as text: ASCII or UTF-8, not blank.
fn body_text<'a>(raw: &'a [u8], name: &str) -> ApiResult<&'a str> {
    let text = std::str::from_utf8(raw).map_err(|e| {
        ApiError::new(
            StatusCode::BAD_REQUEST,
            format!(
                "The body must be text ({name} is ASCII or UTF-8): invalid UTF-8 at byte {}",
                e.valid_up_to()
            ),
        )
    })?;
    if text.trim().is_empty() {
        return Err(ApiError::new(
            StatusCode::BAD_REQUEST,
            format!("The body is empty; send the {name} interchange as the request body"),
        ));
    }
    Ok(text)
}

/// The 422 of a file nothing of which was read: one error per finding that refused it.
fn rejection(report: &Report, format: FileFormat) -> ApiError {
    let (name, code) = (format.name(), format!("{}_rejected", format.kind()));
    report
        .findings
        .iter()
        .filter(|f| f.severity == x12::Severity::Error)
        .map(|f| {
            ApiError::new(
                StatusCode::UNPROCESSABLE_ENTITY,
                format!("{name} rejected (payload {}): {f}", report.payload_id),
            )
            .with_code(&code)
        })
        .reduce(ApiError::merge)
        .unwrap_or_else(|| {
            ApiError::new(
                StatusCode::UNPROCESSABLE_ENTITY,
                format!(
                    "{name} rejected (payload {}): no status message in the file",
                    report.payload_id
                ),
            )
            .with_code(&code)
        })
}

/// The 3.0 answer to a push: `feedbackElements` naming each event not applied (`ERROR`) and
/// each caveat (`WARN`), as `PostEventsResponse` has it.
fn feedback(report: &PushReport) -> Feedback {
    let mut elements: Vec<FeedbackElement> = report
        .refused
        .iter()
        .map(|r| FeedbackElement {
            severity: Severity::Error,
            message: format!("not applied ({}): {}", r.code, r.reason),
            property_path: Some(format!("$.events[{}]", r.index)),
        })
        .collect();
    elements.extend(report.notes.iter().map(|n| FeedbackElement {
        severity: Severity::Warn,
        message: n.clone(),
        property_path: None,
    }));
    Feedback { elements }
}

/// A 3.0 push's answer (T&T 3.0 `PostEventsResponse`): what was not applied and why.
#[derive(Debug, Serialize, JsonSchema)]
pub struct Feedback {
    /// One element per event not applied and per caveat.
    #[serde(rename = "feedbackElements")]
    pub elements: Vec<FeedbackElement>,
}

/// One element of a push's feedback.
#[derive(Debug, Serialize, JsonSchema)]
pub struct FeedbackElement {
    /// How grave it is.
    pub severity: Severity,
    /// What happened.
    pub message: String,
    /// JSONPath of the event in the request, e.g. `$.events[2]`.
    #[serde(rename = "propertyPath", skip_serializing_if = "Option::is_none")]
    pub property_path: Option<String>,
}

/// The severity of a feedback element.
#[derive(Debug, Clone, Copy, Serialize, JsonSchema)]
#[serde(rename_all = "UPPERCASE")]
pub enum Severity {
    /// The event was not applied.
    Error,
    /// A caveat.
    Warn,
    /// For information.
    // DCSA's vocabulary has it; boxtrack's feedback does not use it
    #[allow(dead_code)]
    Info,
}

/// What a carrier pushes (the body's shape says the version).
// the served document's schema of the body: the handler reads the body itself, to answer
// each version as it requires
#[derive(Debug, serde::Deserialize, JsonSchema)]
#[serde(untagged)]
#[allow(dead_code)]
pub enum PushBody {
    /// DCSA T&T 2.2: an array of events.
    V2(Vec<PushEvent>),
    /// DCSA T&T 3.0: PostEventsRequest.
    V3 {
        /// The events (objects; one that cannot be applied is named in the feedback).
        events: Vec<serde_json::Map<String, serde_json::Value>>,
    },
}

/// One event of a 2.2 push: whatever it carries, but always its `eventType` (a body whose
/// event has none is not a DCSA 2.2 push: 400).
// the served document's schema (see `PushBody`)
#[derive(Debug, serde::Deserialize, JsonSchema)]
#[allow(dead_code)]
pub struct PushEvent {
    /// `EQUIPMENT`, `TRANSPORT` or `SHIPMENT`.
    #[serde(rename = "eventType")]
    pub event_type: String,
    /// The event's other members.
    #[serde(flatten)]
    pub rest: serde_json::Map<String, serde_json::Value>,
}

/// `POST /v2/ingest/dcsa`: a carrier's DCSA Track & Trace push (the subscriber side of its
/// event subscription), 2.2 (an array of events) or 3.0 (`{"events": [...]}`). Authenticated
/// by the `Notification-Signature` header, not by an API key; answers as each version
/// requires: 204 to 2.2, 200 with `feedbackElements` and `API-Version: 3.0.0` to 3.0.
pub async fn dcsa(
    State(state): State<AppState>,
    headers: axum::http::HeaderMap,
    raw: Bytes,
) -> Result<axum::response::Response, ApiError> {
    use axum::response::IntoResponse;
    let header = |n: &str| headers.get(n).and_then(|v| v.to_str().ok());
    // the carrier's clock is the Date of its (signed) call; a simulator's runs fast
    let source_now = header("Date").and_then(time::parse_http_date);
    match ingest::dcsa_push(
        &state.ctx,
        state.config.dcsa_push_secret.as_deref(),
        header("Notification-Signature"),
        header("Subscription-ID"),
        "POST /v2/ingest/dcsa",
        &raw,
        source_now,
    )
    .await
    {
        Ok(report) => {
            // no API key: the access layer touched no account
            retire_cached_reads(&state, &report.accounts);
            tracing::info!(
                events = report.events,
                rejected = report.rejected,
                containers = report.containers,
                changes = report.changes,
                version = %report.version,
                "DCSA push applied"
            );
            Ok(match report.version {
                Version::V2_2 => StatusCode::NO_CONTENT.into_response(),
                Version::V3_0 => (
                    StatusCode::OK,
                    [("API-Version", "3.0.0")],
                    axum::Json(feedback(&report)),
                )
                    .into_response(),
            })
        }
        Err(PushError::Unauthorized(why)) => Err(ApiError::unauthorized(why)),
        Err(PushError::Invalid(why)) => Err(ApiError::new(
            StatusCode::BAD_REQUEST,
            format!("Not a DCSA 2.2 array of events nor a 3.0 events object: {why}"),
        )),
        Err(PushError::Store(e)) => Err(e.into()),
    }
}

/// This module's operations: X12 and EDIFACT files (an API key), DCSA pushes (signed).
pub fn routes() -> Routes {
    Routes::default()
        .routed(
            "post",
            "/v2/ingest/x12",
            axum::routing::post(x12).layer(axum::extract::DefaultBodyLimit::max(MAX_FILE_BYTES)),
            || {
            Doc::new("Ingest", "Ingest an X12 file")
                .about("Feeds an ANSI X12 004010 file of 315 (ocean status) and 322 (rail and terminal) transaction sets. Delimiters come from the ISA segment; envelopes are checked (a wrong segment count is a warning, a control-number mismatch rejects that set, group or interchange). Each status becomes observations for the containers it names: an account key updates that account's containers, an operator account's key those of every account. The file is stored verbatim either way. Files up to 16 MiB (413 `payload_too_large` past that, nothing read). 200 with what was read, matched and changed (also when some sets were refused: `status: partial`); 422 naming the segment and reason when nothing could be read.")
                .body_media(&["application/edi-x12", "text/plain"], text_matching("^\\s*ISA"))
                .errors(&[400, 401, 413, 422, 429])
                .ok_of::<IngestDocument>("What the file held and changed")
        })
        .routed(
            "post",
            "/v2/ingest/edifact",
            axum::routing::post(edifact).layer(axum::extract::DefaultBodyLimit::max(MAX_FILE_BYTES)),
            || {
            Doc::new("Ingest", "Ingest an EDIFACT file")
                .about("Feeds a UN/EDIFACT interchange of IFTSTA messages (international multimodal status reports, D:95B to D:00B and later), as carriers send them. Separators come from the UNA service string advice (the defaults `:+.? '` without one) and release characters are honoured; envelopes are checked: a UNT whose segment count or reference is wrong refuses that message, a UNZ whose count or reference is wrong refuses the whole interchange, and nothing of a refused part is applied. Each consignment's status (STS, with its date DTM 334, place LOC 175, equipment EQD and route LOC 9/11/13/7 with actual and estimated dates) becomes observations for the container it names, read with the same status rules as X12 315s; times are to the minute (DTM format 203) unless stated to the second (204). An account key updates that account's containers, an operator account's key those of every account; the file is stored verbatim either way and refused parts count in source health. Files up to 16 MiB (413 `payload_too_large` past that, nothing read). 200 with what was read, matched and changed (`status: partial` when some parts were refused); 422 naming the segment and reason when nothing could be read.")
                .body_media(&["application/edifact", "text/plain"], text_matching("^\\s*UN[ABH]"))
                .errors(&[400, 401, 413, 422, 429])
                .ok_of::<IngestDocument>("What the file held and changed")
        })
        .public_post("/v2/ingest/dcsa", dcsa, || {
            Doc::new("Ingest", "Receive a DCSA push")
                .about("The subscriber endpoint of DCSA Track & Trace event subscriptions: carriers POST their events here, in 2.2 (a JSON array of events) or 3.0 (`{\"events\": [...]}`, the `PostEventsRequest` of T&T 3.0); the body's shape says which. No API key: the call must carry `Notification-Signature: sha256=<hex>`, the HMAC-SHA256 of the exact body keyed with the base64-decoded subscription secret (setting `dcsa_push_secret`); unsigned or badly signed calls get 401 and nothing is stored. Verified bodies are stored verbatim and their events merged into every container they concern (equipment events by container number, vessel events by the bill of lading or booking they name). Answers 204 to a 2.2 push; 200 with `feedbackElements` (an `ERROR` per event not applied, a `WARN` per caveat) and `API-Version: 3.0.0` to a 3.0 push.")
                .header("Notification-Signature", true, "sha256=<lowercase hex HMAC-SHA256 of the body>")
                .header("Subscription-ID", false, "The carrier's subscription")
                .body_media(&["application/json"], doc::request_schema_of::<PushBody>())
                .errors(&[400, 401])
                .answer("204", Doc::empty_answer("A 2.2 push, accepted"))
                .answer(
                    "200",
                    Doc::json_answer(
                        "A 3.0 push, accepted: what was not applied and why (T&T 3.0 `PostEventsResponse`)",
                        schema_of::<Feedback>(),
                    )
                    .with_header("API-Version", "3.0.0"),
                )
                .no_key()
        })
}
