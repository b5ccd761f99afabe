//! `/v2/tracking_requests`: register numbers to track, follow their processing, infer carriers.

use axum::extract::{OriginalUri, RawQuery, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::IntoResponse;
use boxtrack_app::model::Db;
use boxtrack_app::model::TrackingRequestRow;
use boxtrack_app::parties;
use boxtrack_app::requests::{self as request_cases, ListRequests};
use boxtrack_app::shipments;
use boxtrack_app::tracking as app;
use boxtrack_core::requests::{self, NewRequest};
use boxtrack_views::tracking as resources;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;

use crate::state::AppState;
use crate::state::Routes;
use boxtrack_http::auth::Caller;
use boxtrack_http::doc::{Doc, body, list_of, single};
use boxtrack_http::error::{ApiError, ApiResult};
use boxtrack_http::extract::IdPath;
use boxtrack_http::jsonapi::{Body, JsonApi, QueryParams, list_response};
use boxtrack_sources::sandbox;

const INCLUDES: &[&str] = &["tracked_object", "customer"];

/// What to track.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct CreateAttrs {
    /// The number.
    #[serde(default)]
    #[schemars(required, extend("type" = "string"))]
    request_number: Option<String>,
    /// What the number is.
    #[serde(default)]
    #[schemars(required, extend("type" = "string", "enum" = ["container", "bill_of_lading", "booking_number"]))]
    request_type: Option<String>,
    /// 4-letter carrier code; TEST for the sandbox. Required unless auto_detect_vocc_scac.
    #[serde(default)]
    scac: Option<String>,
    /// Detect the carrier from the number.
    #[serde(default)]
    auto_detect_vocc_scac: Option<bool>,
    /// The client's reference numbers (at most 50, each at most 100 characters).
    #[serde(default)]
    #[schemars(inner(length(max = 100)))]
    ref_numbers: Option<Vec<String>>,
    /// Tags given to the shipment once it is created (at most 50, each at most 100 characters).
    #[serde(default)]
    #[schemars(inner(length(max = 100)))]
    shipment_tags: Option<Vec<String>>,
    /// Custom field values set on the shipment and its containers when they are created;
    /// each checked against its definition now.
    #[serde(default)]
    #[schemars(schema_with = "initial_custom_fields_schema")]
    initial_custom_fields: Option<Value>,
}

fn initial_custom_fields_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    schemars::json_schema!({"type": "object", "properties": {
        "shipment": {"type": "array", "items": {"type": "object", "required": ["api_slug", "value"], "properties": {"api_slug": {"type": "string"}, "value": {}}}},
        "containers": {"type": "array", "items": {"type": "object", "required": ["api_slug", "value"], "properties": {"api_slug": {"type": "string"}, "value": {}, "number": {"type": "string", "description": "Which container (every container when absent)"}}}}
    }})
}

fn create_relationships_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    schemars::json_schema!({"type": "object", "properties": {
        "customer": {"type": "object", "description": "The customer this is tracked for: a party of the account (POST /v2/parties)", "properties": {"data": {"type": ["object", "null"], "required": ["type", "id"], "properties": {"type": {"const": "party"}, "id": {"type": "string", "format": "uuid"}}}}}
    }})
}

/// A tracking request to create.
#[derive(Deserialize, JsonSchema)]
struct CreateData {
    /// `tracking_request`.
    #[serde(rename = "type")]
    #[schemars(extend("const" = "tracking_request"))]
    kind: String,
    /// What to track.
    attributes: CreateAttrs,
    /// Whom it is tracked for.
    #[serde(default)]
    #[schemars(schema_with = "create_relationships_schema")]
    relationships: Option<Value>,
}

/// The party `relationships.customer` names, checked to be one of the account's.
async fn customer(
    state: &AppState,
    caller: &Caller,
    relationships: Option<&Value>,
) -> ApiResult<Option<uuid::Uuid>> {
    let Some(data) = relationships
        .and_then(|r| r.get("customer"))
        .map(|c| &c["data"])
    else {
        return Ok(None);
    };
    if data.is_null() {
        return Ok(None);
    }
    const POINTER: &str = "/data/relationships/customer/data";
    if data["type"] != "party" {
        return Err(ApiError::unprocessable(
            POINTER,
            "invalid_type",
            "customer must be {\"type\": \"party\", \"id\": …}",
        ));
    }
    let id = data["id"]
        .as_str()
        .and_then(|i| uuid::Uuid::parse_str(i).ok())
        .ok_or_else(|| {
            ApiError::unprocessable(
                POINTER,
                "invalid",
                "customer id must be a party id (a UUID)",
            )
        })?;
    parties::get(&state.ctx, caller.account.id, id)
        .await?
        .ok_or_else(|| {
            ApiError::unprocessable(
                POINTER,
                "not_found",
                "customer names no party of this account (POST /v2/parties creates one)",
            )
        })?;
    Ok(Some(id))
}

/// Body of `POST /v2/tracking_requests`.
#[derive(Deserialize, JsonSchema)]
pub struct CreateDoc {
    data: CreateData,
}

fn validation_errors(errs: Vec<requests::FieldError>) -> ApiError {
    let mut it = errs.into_iter();
    let first = it.next().map_or_else(
        || ApiError::new(StatusCode::UNPROCESSABLE_ENTITY, "invalid request"),
        |e| ApiError::unprocessable(e.pointer, e.code, e.detail),
    );
    it.fold(first, |acc, e| {
        acc.merge(ApiError::unprocessable(e.pointer, e.code, e.detail))
    })
}

/// What `includes` asks for of the rows, read from `db`.
async fn tracked(
    db: &Db,
    caller: &Caller,
    rows: &[TrackingRequestRow],
    includes: &[String],
) -> ApiResult<Vec<Value>> {
    // one query per relation for the whole page, then the rows' order
    let mut out = Vec::new();
    let account = caller.account.id;
    if includes.iter().any(|i| i == "customer") {
        let ids: Vec<uuid::Uuid> = rows.iter().filter_map(|r| r.customer_id).collect();
        let parties = parties::get_many(db, account, &ids).await?;
        for id in &ids {
            if let Some(p) = parties.get(id) {
                let res = super::parties::to_resource(p);
                if !out.contains(&res) {
                    out.push(res);
                }
            }
        }
    }
    if includes.iter().any(|i| i == "tracked_object") {
        let ids: Vec<uuid::Uuid> = rows.iter().filter_map(|r| r.shipment_id).collect();
        let (shipments, containers) = shipments::with_containers(db, account, &ids).await?;
        for id in &ids {
            if let Some(s) = shipments.get(id) {
                let cs = containers.get(id).map(Vec::as_slice).unwrap_or_default();
                let res = resources::shipment(s, cs);
                if !out.contains(&res) {
                    out.push(res);
                }
            }
        }
    }
    Ok(out)
}

/// `POST /v2/tracking_requests`.
pub async fn create(
    State(state): State<AppState>,
    caller: Caller,
    Body(doc): Body<CreateDoc>,
) -> ApiResult<impl IntoResponse> {
    if doc.data.kind != "tracking_request" {
        return Err(ApiError::unprocessable(
            "/data/type",
            "invalid_type",
            format!("type must be \"tracking_request\", not {:?}", doc.data.kind),
        ));
    }
    let customer_id = customer(&state, &caller, doc.data.relationships.as_ref()).await?;
    let initial = super::custom_fields::initial_fields(
        &state,
        &caller,
        doc.data.attributes.initial_custom_fields.as_ref(),
    )
    .await?;
    let a = doc.data.attributes;
    let input = NewRequest {
        request_number: a.request_number,
        request_type: a.request_type,
        scac: a.scac,
        auto_detect: a.auto_detect_vocc_scac.unwrap_or(false),
        ref_numbers: a.ref_numbers.unwrap_or_default(),
        shipment_tags: a.shipment_tags.unwrap_or_default(),
    };
    let extras = request_cases::RequestExtras {
        customer_id,
        initial_custom_fields: initial,
    };
    let row = match app::track(&state.ctx, &caller.account, &input, extras).await {
        Ok(r) => r,
        Err(app::Refused::Invalid(errors)) => return Err(validation_errors(errors)),
        Err(app::Refused::Duplicate(valid)) => {
            return Err(ApiError::unprocessable(
                "/data/attributes/request_number",
                "duplicate",
                format!(
                    "Request number '{}' with scac '{}' already exists in a tracking_request with a pending or created status",
                    valid.number,
                    valid.scac.as_deref().unwrap_or("")
                ),
            ));
        }
        Err(app::Refused::PlanLimit(limit)) => {
            return Err(ApiError::unprocessable(
                "/data",
                "plan_limit",
                format!(
                    "The free plan tracks at most {limit} active containers at once; stop tracking a shipment or upgrade the plan"
                ),
            ));
        }
        Err(app::Refused::Store(e)) => return Err(e.into()),
    };
    let mut res = JsonApi::single(resources::tracking_request(&row), vec![]).into_response();
    *res.status_mut() = StatusCode::CREATED;
    Ok(res)
}

/// `GET /v2/tracking_requests`.
pub async fn list(
    State(state): State<AppState>,
    caller: Caller,
    headers: HeaderMap,
    OriginalUri(uri): OriginalUri,
    RawQuery(raw): RawQuery,
) -> ApiResult<JsonApi> {
    let q = QueryParams::parse(raw.as_deref());
    let page = q.page()?;
    let includes = if q.get("include").is_some() {
        q.includes("tracking_request", INCLUDES)?
    } else {
        vec!["tracked_object".to_string()]
    };
    let asked: ListRequests = q.input()?;
    // a list may be as old as a replica's lag (never older than the account's own writes)
    let db = state.ctx.read_db(caller.account.id);
    let listed = request_cases::list(db, caller.account.id, &asked, &page).await?;
    let included = tracked(db, &caller, &listed.rows, &includes).await?;
    Ok(list_response(
        state.config.public_url.as_deref(),
        &headers,
        uri.path(),
        &q,
        page,
        &listed,
        listed
            .rows
            .iter()
            .map(resources::tracking_request)
            .collect(),
        included,
    ))
}

/// `GET /v2/tracking_requests/{id}`.
pub async fn show(
    State(state): State<AppState>,
    caller: Caller,
    IdPath(id): IdPath,
    RawQuery(raw): RawQuery,
) -> ApiResult<JsonApi> {
    let q = QueryParams::parse(raw.as_deref());
    let includes = if q.get("include").is_some() {
        q.includes("tracking_request", INCLUDES)?
    } else {
        vec!["tracked_object".to_string()]
    };
    let row = request_cases::get(&state.ctx, caller.account.id, id)
        .await?
        .ok_or_else(|| ApiError::not_found("tracking_request"))?;
    let included = tracked(
        &state.ctx.db,
        &caller,
        std::slice::from_ref(&row),
        &includes,
    )
    .await?;
    Ok(JsonApi::single(resources::tracking_request(&row), included))
}

/// What to change.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct PatchAttrs {
    /// The client's reference numbers (replaced; at most 50, each at most 100 characters).
    #[serde(default)]
    #[schemars(inner(length(max = 100)))]
    ref_numbers: Option<Vec<String>>,
    /// Single ref number (reference spelling).
    #[serde(default)]
    ref_number: Option<String>,
    /// Tags for the shipment (replaced; at most 50, each at most 100 characters).
    #[serde(default)]
    #[schemars(inner(length(max = 100)))]
    shipment_tags: Option<Vec<String>>,
}

/// The change.
#[derive(Deserialize, JsonSchema)]
struct PatchData {
    /// `tracking_request`.
    #[serde(default, rename = "type")]
    #[schemars(extend("const" = "tracking_request"))]
    kind: Option<String>,
    /// What to change.
    attributes: PatchAttrs,
}

/// Body of `PATCH /v2/tracking_requests/{id}`.
#[derive(Deserialize, JsonSchema)]
pub struct PatchDoc {
    data: PatchData,
}

fn clean(list: Vec<String>, pointer: &'static str) -> ApiResult<Vec<String>> {
    requests::clean_refs(&list, pointer)
        .map_err(|e| ApiError::unprocessable(e.pointer, e.code, e.detail))
}

/// `PATCH /v2/tracking_requests/{id}`: ref numbers and shipment tags.
pub async fn update(
    State(state): State<AppState>,
    caller: Caller,
    IdPath(id): IdPath,
    Body(doc): Body<PatchDoc>,
) -> ApiResult<JsonApi> {
    if doc
        .data
        .kind
        .as_deref()
        .is_some_and(|k| k != "tracking_request")
    {
        return Err(ApiError::unprocessable(
            "/data/type",
            "invalid_type",
            "type must be \"tracking_request\"",
        ));
    }
    let a = doc.data.attributes;
    let refs = match (a.ref_numbers, a.ref_number) {
        (Some(list), _) => Some(clean(list, "/data/attributes/ref_numbers")?),
        (None, Some(one)) => Some(clean(vec![one], "/data/attributes/ref_number")?),
        (None, None) => None,
    };
    let tags = a
        .shipment_tags
        .map(|t| clean(t, "/data/attributes/shipment_tags"))
        .transpose()?;
    let row = request_cases::update(&state.ctx, caller.account.id, id, refs, tags).await?;
    Ok(JsonApi::single(resources::tracking_request(&row), vec![]))
}

/// This module's operations, each declared with its route and handler.
pub fn routes() -> Routes {
    Routes::default()
        .post("/v2/tracking_requests", create, || {
            Doc::new("Tracking requests", "Track a number")
                .about(&format!(
                    "Registers a bill of lading, booking or container number. Answers at once with a `pending` request; the shipment appears when the carrier answers (`tracking_request.succeeded`). Validation failures are 422 with `source.pointer` and a `code` (`blank`, `invalid`, `not_recognized`, `not_supported`, `duplicate`, `plan_limit`). Rate limit bucket `tracking_requests.create` (100/min). {}",
                    requests_sandbox_text()
                ))
                .body::<CreateDoc>()
                .errors(&[400, 401, 415, 422, 429])
                .answer("201", body("The pending request", single("TrackingRequest")))
                .reference_id("post-track")
        })
        .get("/v2/tracking_requests", list, || {
            Doc::new("Tracking requests", "List tracking requests")
                .about("Newest first; the shipment (`tracked_object`) is included unless `include` says otherwise.")
                .paged()
                .include(INCLUDES)
                .query::<ListRequests>()
                .errors(&[400, 401, 429])
                .ok("A page of requests", list_of("TrackingRequest"))
                .reference_id("get-tracking-requests")
        })
        .get("/v2/tracking_requests/{id}", show, || {
            Doc::new("Tracking requests", "Get a tracking request")
                .about("One request with its shipment included.")
                .id("Tracking request")
                .include(INCLUDES)
                .errors(&[400, 401, 404, 429])
                .ok("The request", single("TrackingRequest"))
                .reference_id("get-track-request-by-id")
        })
        .patch("/v2/tracking_requests/{id}", update, || {
            Doc::new("Tracking requests", "Update a tracking request")
                .about("Replaces ref numbers and/or shipment tags.")
                .id("Tracking request")
                .body::<PatchDoc>()
                .errors(&[400, 401, 404, 415, 422, 429])
                .ok("The request", single("TrackingRequest"))
                .reference_id("patch-track-request-by-id")
        })
}

fn requests_sandbox_text() -> String {
    let lines: Vec<String> = sandbox::TEST_NUMBERS
        .iter()
        .map(|(n, d)| format!("`{n}`: {d}"))
        .collect();
    format!("Sandbox (`scac: \"TEST\"`): {}.", lines.join("; "))
}
