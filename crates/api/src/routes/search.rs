//! `GET /v2/search?query=`: one box for bill of lading, booking, container and reference numbers.

use axum::extract::{RawQuery, State};
use boxtrack_core::search::rank;
use boxtrack_store::reads;
use boxtrack_views::jsonapi::{At, ToOne};
use schemars::JsonSchema;
use serde::Serialize;
use serde_json::json;
use uuid::Uuid;

use crate::auth::Caller;
use crate::doc::{Op, body, errors, operation, schema_of};
use crate::error::{ApiError, ApiResult};
use crate::jsonapi::{JsonApi, QueryParams};
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
    let data: Vec<SearchResult> = ranked
        .iter()
        .map(|(score, h)| {
            let collection = match h.entity_type.as_str() {
                "shipment" => "shipments",
                "container" => "containers",
                _ => "tracking_requests",
            };
            SearchResult {
                id: h.id,
                kind: "search_result",
                attributes: SearchAttributes {
                    entity_type: h.entity_type.clone(),
                    number: h.number.clone(),
                    ref_numbers: serde_json::from_str(&h.refs).unwrap_or_default(),
                    score: *score,
                    updated_at: At(h.updated_us),
                },
                relationships: SearchRelationships {
                    entity: ToOne::new(&h.entity_type, Some(h.id)),
                },
                links: Links {
                    this: format!("/v2/{collection}/{}", h.id),
                },
            }
        })
        .collect();
    let n = data.len();
    Ok(JsonApi::of(&SearchDocument {
        data,
        meta: Meta { size: n, total: n },
    }))
}

/// The search response.
#[derive(Serialize, JsonSchema)]
pub struct SearchDocument {
    /// Results, best first.
    pub data: Vec<SearchResult>,
    /// How many.
    pub meta: Meta,
}

/// How many results there are.
#[derive(Serialize, JsonSchema)]
pub struct Meta {
    /// Results in this document.
    pub size: usize,
    /// Results in all (the same: search does not page).
    pub total: usize,
}

/// One result.
#[derive(Serialize, JsonSchema)]
pub struct SearchResult {
    /// The entity's id.
    pub id: Uuid,
    /// `search_result`.
    #[serde(rename = "type")]
    #[schemars(extend("const" = "search_result"))]
    pub kind: &'static str,
    /// What matched.
    pub attributes: SearchAttributes,
    /// The entity.
    pub relationships: SearchRelationships,
    /// Where the entity is.
    pub links: Links,
}

/// What matched.
#[derive(Serialize, JsonSchema)]
pub struct SearchAttributes {
    /// `shipment`, `container` or `tracking_request`.
    #[schemars(extend("enum" = ["shipment", "container", "tracking_request"]))]
    pub entity_type: String,
    /// Its number.
    pub number: String,
    /// Its reference numbers.
    pub ref_numbers: Vec<String>,
    /// How well it matched: exact, prefix, anywhere.
    pub score: u8,
    /// When the entity last changed.
    pub updated_at: At,
}

/// The entity a result is.
#[derive(Serialize, JsonSchema)]
pub struct SearchRelationships {
    /// The shipment, container or tracking request.
    pub entity: ToOne,
}

/// `links.self`: the entity's path.
#[derive(Serialize, JsonSchema)]
pub struct Links {
    /// `/v2/<collection>/<id>`.
    #[serde(rename = "self")]
    pub this: String,
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
            ("200", body("Ranked results", schema_of::<SearchDocument>())),
        ),
    }]
}

/// This module's routes with the documentation of their operations.
pub fn routes() -> crate::doc::Routes {
    crate::doc::Routes::new(operations()).route("/v2/search", axum::routing::get(search))
}
