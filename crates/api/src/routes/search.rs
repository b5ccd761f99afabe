//! `GET /v2/search?query=`: one box for bill of lading, booking, container and reference numbers.

use axum::extract::{RawQuery, State};
use boxtrack_app::model::SearchHit;
use boxtrack_app::search;
use boxtrack_http::schema::{Param, Schema};
use boxtrack_views::jsonapi::At;
use schemars::JsonSchema;
use serde::Serialize;
use uuid::Uuid;

use crate::state::AppState;
use crate::state::Routes;
use boxtrack_http::auth::Caller;
use boxtrack_http::doc::Doc;
use boxtrack_http::error::{ApiError, ApiResult};
use boxtrack_http::jsonapi::{JsonApi, QueryParams};

/// Most results returned.
pub const MAX_RESULTS: usize = 25;

/// `GET /v2/search`.
pub async fn search(
    State(state): State<AppState>,
    caller: Caller,
    RawQuery(raw): RawQuery,
) -> ApiResult<JsonApi> {
    let query = query_of(&QueryParams::parse(raw.as_deref()))?;
    // results may be as old as a replica's lag (never older than the account's own writes)
    let found = search::search(&state.ctx, caller.account.id, &query, MAX_RESULTS).await?;
    let data: Vec<SearchResult> = found
        .ranked
        .iter()
        .map(|(score, h)| result(&found, *score, h))
        .collect();
    let n = data.len();
    Ok(JsonApi::of(&SearchDocument {
        data,
        meta: Meta { size: n, total: n },
    }))
}

/// The text searched for (`query`, or `q`), at least two characters.
fn query_of(q: &QueryParams) -> ApiResult<String> {
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
    Ok(query)
}

/// One hit as the reference shows it, with what its entity says of itself.
fn result(found: &search::Found, score: u8, h: &SearchHit) -> SearchResult {
    let refs: Vec<String> = serde_json::from_str(&h.refs).unwrap_or_default();
    let mut a = SearchAttributes {
        entity_type: "tracking_request",
        number: h.number.clone(),
        shipment_id: None,
        scac: None,
        port_of_lading_name: None,
        port_of_discharge_name: None,
        containers_count: None,
        tracking_stopped: None,
        tracking_stopped_reason: None,
        status: None,
        failed_reason: None,
        ref_numbers: refs,
        score,
        created_at: At(h.updated_us),
        updated_at: At(h.updated_us),
    };
    let shipments = &found.shipments;
    let collection = match h.entity_type.as_str() {
        "shipment" => {
            a.entity_type = "shipment";
            if let Some(s) = shipments.get(&h.id) {
                let route = &s.route;
                a.scac = Some(s.scac.clone());
                a.port_of_lading_name.clone_from(&route.pol_name);
                a.port_of_discharge_name.clone_from(&route.pod_name);
                a.containers_count = Some(found.boxes.get(&h.id).map_or(0, Vec::len));
                a.tracking_stopped = Some(s.tracking_stopped_us.is_some());
                a.tracking_stopped_reason.clone_from(&s.stopped_reason);
                a.created_at = At(s.created_us);
            }
            "shipments"
        }
        "container" => {
            a.entity_type = "cargo";
            if let Some(c) = found.containers.get(&h.id) {
                a.shipment_id = Some(c.shipment_id);
                a.scac = shipments.get(&c.shipment_id).map(|s| s.scac.clone());
                a.created_at = At(c.created_us);
            }
            "containers"
        }
        _ => {
            if let Some(r) = found.requests.get(&h.id) {
                a.shipment_id = r.shipment_id;
                a.scac.clone_from(&r.scac);
                a.status = Some(r.status.clone());
                a.failed_reason.clone_from(&r.failed_reason);
                a.created_at = At(r.created_us);
            }
            "tracking_requests"
        }
    };
    SearchResult {
        id: h.id,
        kind: a.entity_type,
        links: Links {
            this: format!("/v2/{collection}/{}", h.id),
        },
        attributes: a,
    }
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

/// One result: a shipment, a container (`cargo`, as the reference calls it) or a tracking
/// request. It has no relationships: a relationship naming the result itself (as an `entity`
/// link once did) makes a client's deserialized graph contain itself.
#[derive(Serialize, JsonSchema)]
pub struct SearchResult {
    /// The entity's id.
    pub id: Uuid,
    /// `shipment`, `cargo` or `tracking_request`.
    #[serde(rename = "type")]
    #[schemars(extend("enum" = ["shipment", "cargo", "tracking_request"]))]
    pub kind: &'static str,
    /// What matched, and what the entity is.
    pub attributes: SearchAttributes,
    /// Where the entity is.
    pub links: Links,
}

/// What matched, and what the entity is.
#[derive(Serialize, JsonSchema)]
pub struct SearchAttributes {
    /// `shipment`, `cargo` or `tracking_request`.
    #[schemars(extend("enum" = ["shipment", "cargo", "tracking_request"]))]
    pub entity_type: &'static str,
    /// Bill of lading (shipments), container number (cargos) or request number.
    pub number: String,
    /// The shipment (cargos and tracking requests).
    pub shipment_id: Option<Uuid>,
    /// The shipping line's SCAC.
    pub scac: Option<String>,
    /// Port of lading (shipments).
    pub port_of_lading_name: Option<String>,
    /// Port of discharge (shipments).
    pub port_of_discharge_name: Option<String>,
    /// Containers on the shipment (shipments).
    pub containers_count: Option<usize>,
    /// Tracking has stopped (shipments).
    pub tracking_stopped: Option<bool>,
    /// Why tracking stopped (shipments).
    pub tracking_stopped_reason: Option<String>,
    /// The request's status (tracking requests).
    pub status: Option<String>,
    /// Why the request failed (tracking requests).
    pub failed_reason: Option<String>,
    /// The client's reference numbers.
    pub ref_numbers: Vec<String>,
    /// How well it matched: 3 exact, 2 prefix, 1 anywhere.
    pub score: u8,
    /// When the entity was created.
    pub created_at: At,
    /// When the entity last changed.
    pub updated_at: At,
}

/// `links.self`: the entity's path.
#[derive(Serialize, JsonSchema)]
pub struct Links {
    /// `/v2/<collection>/<id>`.
    #[serde(rename = "self")]
    pub this: String,
}

/// This module's operations, each declared with its route and handler.
pub fn routes() -> Routes {
    Routes::default()
        .get("/v2/search", search, || {
            Doc::new("Search", "Search numbers")
                .about("Finds shipments (bill of lading or booking), containers and open tracking requests by number or ref number, ignoring case, spaces and dashes; at most 25 results, exact matches first, then prefixes, then other matches, newest first within a rank. Each result is a `shipment`, a `cargo` (a container) or a `tracking_request`, with its shipment, carrier, ports, container count and tracking state (as the reference answers).")
                .param(
                    Param::query(
                        "query",
                        Schema::string().min_length(2).pattern("\\S[\\s\\S]*\\S"),
                        "At least two characters that are not spaces",
                    )
                    .required(),
                )
                .errors(&[400, 401, 429])
                .ok_of::<SearchDocument>("Ranked results")
                .reference_id("searchAll")
        })
}
