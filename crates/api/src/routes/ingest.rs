//! `POST /v2/ingest/x12`: upstream data pushed to boxtrack (X12 315 and 322 files).

use axum::body::Bytes;
use axum::extract::State;
use axum::http::StatusCode;
use boxtrack_sources::ingest::{self, Scope};
use serde_json::{Value, json};

use crate::AppState;
use crate::auth::Caller;
use crate::error::{ApiError, ApiResult};
use crate::jsonapi::JsonApi;
use crate::openapi::{Op, body, errors, operation};

fn result_doc(r: &ingest::Report) -> Value {
    json!({
        "data": {
            "id": r.payload_id.to_string(),
            "type": "ingest_result",
            "attributes": {
                "format": r.format,
                "status": r.status,
                "transaction_sets_accepted": r.transaction_sets_accepted,
                "transaction_sets_rejected": r.transaction_sets_rejected,
                "observations": r.observations,
                "containers_matched": r.containers_matched,
                "containers_unknown": r.containers_unknown,
                "changes": r.changes,
                "findings": r.findings,
                "notes": r.notes,
            }
        }
    })
}

/// `POST /v2/ingest/x12`: the body is the X12 file as sent by the carrier or railroad.
pub async fn x12(
    State(state): State<AppState>,
    caller: Caller,
    raw: Bytes,
) -> ApiResult<(StatusCode, JsonApi)> {
    let text = std::str::from_utf8(&raw).map_err(|e| {
        ApiError::new(
            StatusCode::BAD_REQUEST,
            format!(
                "The body must be text (X12 is ASCII): invalid UTF-8 at byte {}",
                e.valid_up_to()
            ),
        )
    })?;
    if text.trim().is_empty() {
        return Err(ApiError::new(
            StatusCode::BAD_REQUEST,
            "The body is empty; send the X12 interchange as the request body",
        ));
    }
    let scope = Scope {
        sender: Some(caller.account.id),
        containers_of: (!caller.account.operator).then_some(caller.account.id),
    };
    let report = ingest::x12(&state.db, scope, "api", text, boxtrack_store::now_us()).await?;
    if report.status == "rejected" {
        let mut err: Option<ApiError> = None;
        let errors: Vec<&boxtrack_sources::x12::Finding> = report
            .findings
            .iter()
            .filter(|f| f.severity == boxtrack_sources::x12::Severity::Error)
            .collect();
        for f in &errors {
            let e = ApiError::new(
                StatusCode::UNPROCESSABLE_ENTITY,
                format!("X12 rejected (payload {}): {f}", report.payload_id),
            )
            .with_code("x12_rejected");
            err = Some(match err {
                None => e,
                Some(prev) => prev.merge(e),
            });
        }
        return Err(err.unwrap_or_else(|| {
            ApiError::new(
                StatusCode::UNPROCESSABLE_ENTITY,
                format!(
                    "X12 rejected (payload {}): no 315 or 322 transaction set in the file",
                    report.payload_id
                ),
            )
            .with_code("x12_rejected")
        }));
    }
    Ok((StatusCode::OK, JsonApi(result_doc(&report))))
}

/// Documented operations of this module.
pub fn operations() -> Vec<Op> {
    let mut op = operation(
        "Ingest",
        "Ingest an X12 file",
        "Feeds an ANSI X12 004010 file of 315 (ocean status) and 322 (rail and terminal) transaction sets. Delimiters come from the ISA segment; envelopes are checked (a wrong segment count is a warning, a control-number mismatch rejects that set, group or interchange). Each status becomes observations for the containers it names: an account key updates that account's containers, an operator account's key those of every account. The file is stored verbatim either way. 200 with what was read, matched and changed (also when some sets were refused: `status: partial`); 422 naming the segment and reason when nothing could be read.",
        vec![],
        None,
        errors(&[400, 401, 422, 429]),
        (
            "200",
            body("What the file held and changed", json!({"type": "object"})),
        ),
    );
    op["requestBody"] = json!({
        "required": true,
        "content": {
            "application/edi-x12": {"schema": {"type": "string"}},
            "text/plain": {"schema": {"type": "string"}}
        }
    });
    vec![Op {
        method: "post",
        path: "/v2/ingest/x12",
        op,
    }]
}
