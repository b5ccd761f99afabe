//! `/v2/email_submissions`: e-mail an account sends in (a mail server or an inbound-mail
//! service POSTs each message as `message/rfc822`); every attachment becomes a document,
//! typed from its file name and linked by the numbers in the subject, file name and body.

use axum::extract::{OriginalUri, RawQuery, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use boxtrack_app::documents::{self, EmailDocument, SubmissionRow};
use boxtrack_core::{documents as rules, email};
use serde_json::Value;

use crate::state::AppState;
use crate::state::Routes;
use boxtrack_http::auth::Caller;
use boxtrack_http::doc::{Doc, binary, body, list_of, single};
use boxtrack_http::error::{ApiError, ApiResult};
use boxtrack_http::extract::{IdPath, RawBody};
use boxtrack_http::jsonapi::{JsonApi, QueryParams, list_response};
use boxtrack_views::documents::email_submission;

const INCLUDES: &[&str] = &["documents"];

/// The largest message accepted: 25 MiB of attachments in base64, with room for the rest.
pub const MAX_MESSAGE_BYTES: usize = 40 * 1024 * 1024;

/// The `email_submission` resource object.
pub fn to_resource(e: &SubmissionRow, document_ids: &[uuid::Uuid]) -> Value {
    email_submission(e, document_ids).to_value()
}

/// The resource with its documents (and them as included resources when asked).
async fn render(
    state: &AppState,
    caller: &Caller,
    e: &SubmissionRow,
    include: bool,
) -> ApiResult<(Value, Vec<Value>)> {
    let docs = documents::of_submission(&state.ctx, caller.account.id, e.id).await?;
    let ids: Vec<uuid::Uuid> = docs.iter().map(|d| d.id).collect();
    let included = if include {
        docs.iter().map(super::documents::to_resource).collect()
    } else {
        Vec::new()
    };
    Ok((to_resource(e, &ids), included))
}

/// `documents` is included unless `include` says otherwise (as in the reference).
fn wants_documents(q: &QueryParams) -> ApiResult<bool> {
    if q.get("include").is_none() {
        return Ok(true);
    }
    Ok(q.includes("email_submission", INCLUDES)?
        .iter()
        .any(|i| i == "documents"))
}

/// `POST /v2/email_submissions`: one e-mail, the raw message as the body
/// (`Content-Type: message/rfc822`). 201 with what was recorded; a Message-ID sent before
/// answers 200 with the first submission and records nothing.
pub async fn create(
    State(state): State<AppState>,
    caller: Caller,
    headers: HeaderMap,
    RawBody(raw): RawBody,
) -> ApiResult<Response> {
    let ct = headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_ascii_lowercase();
    if !ct.starts_with("message/rfc822") {
        return Err(ApiError::new(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            "send the raw e-mail with Content-Type: message/rfc822",
        ));
    }
    let e = email::parse(&raw)
        .map_err(|err| ApiError::unprocessable("/", "invalid_email", err.to_string()))?;
    let mut docs = Vec::new();
    for a in &e.attachments {
        let numbers =
            rules::reference_numbers(&[&e.subject, &a.filename, e.body.as_deref().unwrap_or("")]);
        let (shipment_ids, container_ids) =
            documents::linked(&state.ctx, caller.account.id, &numbers).await?;
        docs.push(EmailDocument {
            filename: &a.filename,
            content_type: &a.content_type,
            bytes: &a.bytes,
            checksum: rules::checksum(&a.bytes),
            document_type: rules::classify("", &a.filename),
            shipment_ids,
            container_ids,
        });
    }
    let (id, new) = documents::submit(&state.ctx, caller.account.id, &e, &docs).await?;
    let row = documents::submission(&state.ctx, caller.account.id, id)
        .await?
        .ok_or_else(ApiError::internal)?;
    let (data, included) = render(&state, &caller, &row, true).await?;
    let mut doc = JsonApi::single(data, included);
    if !e.skipped.is_empty() {
        doc.tree_mut()["meta"] = serde_json::to_value(Skipped {
            skipped_attachments: &e.skipped,
        })
        .unwrap_or_default();
    }
    let mut res = doc.into_response();
    if new {
        *res.status_mut() = StatusCode::CREATED;
    }
    Ok(res)
}

/// The `meta` of a submission that left attachments out: which, and why.
#[derive(serde::Serialize)]
struct Skipped<'a> {
    skipped_attachments: &'a [String],
}

/// `GET /v2/email_submissions`.
pub async fn list(
    State(state): State<AppState>,
    caller: Caller,
    headers: HeaderMap,
    OriginalUri(uri): OriginalUri,
    RawQuery(raw): RawQuery,
) -> ApiResult<JsonApi> {
    let q = QueryParams::parse(raw.as_deref());
    let page = q.page()?;
    let include = wants_documents(&q)?;
    let listed = documents::submissions(&state.ctx, caller.account.id, &page).await?;
    let (mut data, mut included) = (Vec::new(), Vec::new());
    for e in &listed.rows {
        let (d, inc) = render(&state, &caller, e, include).await?;
        data.push(d);
        included.extend(inc);
    }
    Ok(list_response(
        state.config.public_url.as_deref(),
        &headers,
        uri.path(),
        &q,
        page,
        &listed,
        data,
        included,
    ))
}

/// `GET /v2/email_submissions/{id}`.
pub async fn show(
    State(state): State<AppState>,
    caller: Caller,
    IdPath(id): IdPath,
    RawQuery(raw): RawQuery,
) -> ApiResult<JsonApi> {
    let q = QueryParams::parse(raw.as_deref());
    let include = wants_documents(&q)?;
    let e = documents::submission(&state.ctx, caller.account.id, id)
        .await?
        .ok_or_else(|| ApiError::not_found("EmailSubmission"))?;
    let (data, included) = render(&state, &caller, &e, include).await?;
    Ok(JsonApi::single(data, included))
}

/// This module's operations, each declared with its route and handler.
pub fn routes() -> Routes {
    Routes::default()
        .routed(
            "post",
            "/v2/email_submissions",
            axum::routing::post(create)
                .layer(axum::extract::DefaultBodyLimit::max(MAX_MESSAGE_BYTES)),
            || {
                Doc::new("Documents", "Send in an e-mail")
                    .about("One e-mail as a mail server or an inbound-mail service hands it over: the raw RFC 5322 message as the body, `Content-Type: message/rfc822`, up to 40 MiB. Every attachment of 1 byte to 25 MiB becomes a document (`source: email`), typed from its file name and linked to the account's shipments and containers whose numbers the subject, file name or body hold; a file the account already has is not kept twice. 201 with the submission and its documents; a Message-ID sent before answers 200 with the first submission. 422 `invalid_email` when the body is no message or has no From.")
                    .errors(&[401, 413, 415, 422, 429])
                    .answer("201", body("The submission", single("EmailSubmission")))
                    .ok(
                        "A Message-ID sent before: the first submission, unchanged",
                        single("EmailSubmission"),
                    )
                    .body_media(&["message/rfc822"], binary())
            },
        )
        .get("/v2/email_submissions", list, || {
            Doc::new("Documents", "List e-mail submissions")
                .about("The account's e-mails, newest first; `documents` included unless `include` names less.")
                .paged()
                .include(INCLUDES)
                .errors(&[400, 401, 429])
                .ok("A page of submissions", list_of("EmailSubmission"))
                .reference_id("get-email_submissions")
        })
        .get("/v2/email_submissions/{id}", show, || {
            Doc::new("Documents", "Get an e-mail submission")
                .about("One e-mail with its documents.")
                .id("Email submission")
                .include(INCLUDES)
                .errors(&[400, 401, 404, 429])
                .ok("The submission", single("EmailSubmission"))
                .reference_id("get-email_submissions-id")
        })
}
