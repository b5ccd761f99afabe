//! `GET /v2/search?query=`: one box for bill of lading, booking, container and reference numbers.

use axum::extract::{RawQuery, State};
use boxtrack_core::search::rank;
use boxtrack_store::reads;
use serde_json::{Value, json};

use crate::auth::Caller;
use crate::doc::{Op, body, errors, operation};
use crate::error::{ApiError, ApiResult};
use crate::jsonapi::{JsonApi, QueryParams, to_one};
use crate::state::AppState;

/// Most results returned.
pub const MAX_RESULTS: usize = 25;

/// `GET /v2/search`.
pub async fn search(
    State(state): State<AppState>,
    caller: Caller,
    RawQuery(raw): RawQuery,
) -> ApiResult<JsonApi> {
    let q = QueryParams::parse(raw.as_deref());
    let query = q
        .text("query")
        .or_else(|| q.text("q"))
        .ok_or_else(|| ApiError::bad_parameter("query", "Query parameter is required"))?;
    if query.chars().count() < 2 {
        return Err(ApiError::bad_parameter(
            "query",
            "query must be at least 2 characters",
        ));
    }
    let hits = reads::search(&state.db, caller.account.id, &query, MAX_RESULTS as i64).await?;
    let mut ranked: Vec<(u8, reads::SearchHit)> = hits
        .into_iter()
        .map(|h| {
            let refs: Vec<String> = serde_json::from_str(&h.refs).unwrap_or_default();
            (rank(&query, &h.number, &refs), h)
        })
        .filter(|(score, _)| *score > 0)
        .collect();
    ranked.sort_by(|a, b| b.0.cmp(&a.0).then(b.1.updated_us.cmp(&a.1.updated_us)));
    ranked.truncate(MAX_RESULTS);
    let data: Vec<Value> = ranked
        .iter()
        .map(|(score, h)| {
            let collection = match h.entity_type.as_str() {
                "shipment" => "shipments",
                "container" => "containers",
                _ => "tracking_requests",
            };
            json!({
                "id": h.id.to_string(),
                "type": "search_result",
                "attributes": {
                    "entity_type": h.entity_type,
                    "number": h.number,
                    "ref_numbers": serde_json::from_str::<Value>(&h.refs).unwrap_or(Value::Array(vec![])),
                    "score": score,
                    "updated_at": boxtrack_core::time::format_micros(h.updated_us),
                },
                "relationships": {"entity": to_one(&h.entity_type, Some(h.id))},
                "links": {"self": format!("/v2/{collection}/{}", h.id)},
            })
        })
        .collect();
    let n = data.len();
    Ok(JsonApi(
        json!({"data": data, "meta": {"size": n, "total": n}}),
    ))
}

/// Documented operations of this module.
pub fn operations() -> Vec<Op> {
    vec![Op {
        method: "get",
        path: "/v2/search",
        op: operation(
            "Search",
            "Search numbers",
            "Finds shipments (bill of lading or booking), containers and open tracking requests by number or ref number, ignoring case, spaces and dashes; at most 25 results, exact matches first, then prefixes, then other matches, newest first within a rank.",
            vec![
                json!({"name": "query", "in": "query", "required": true, "schema": {"type": "string", "minLength": 2}}),
            ],
            None,
            errors(&[400, 401, 429]),
            ("200", body("Ranked results", json!({"type": "object"}))),
        ),
    }]
}
