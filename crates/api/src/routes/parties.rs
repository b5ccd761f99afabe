//! `/v2/parties`: an account's customers. A tracking request names one in
//! `relationships.customer`; its shipment then carries `customer_name`, and shipments and
//! containers filter by `filter[customer_id]` / `filter[customer_name]`.

use axum::extract::{OriginalUri, RawQuery, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::IntoResponse;
use boxtrack_app::model::PartyRow;
use boxtrack_app::parties;
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
use boxtrack_views::accounts;

/// The `party` resource object.
pub fn to_resource(p: &PartyRow) -> Value {
    accounts::party(p).to_value()
}

/// The party.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct Attrs {
    /// The company's name (1 to 200 characters).
    #[schemars(required, extend("type" = "string", "maxLength" = 200))]
    company_name: Option<String>,
}

/// A party to create or rename.
#[derive(Deserialize, JsonSchema)]
struct Data {
    /// `party`.
    #[serde(default, rename = "type")]
    #[schemars(extend("const" = "party"))]
    kind: Option<String>,
    /// The party.
    attributes: Attrs,
}

/// Body of `POST` and `PATCH`.
#[derive(Deserialize, JsonSchema)]
pub struct PartyDoc {
    data: Data,
}

/// The company name a body gives (its `type`, if any, must be `party`).
fn company_name(doc: PartyDoc) -> ApiResult<String> {
    if doc.data.kind.as_deref().is_some_and(|k| k != "party") {
        return Err(ApiError::unprocessable(
            "/data/type",
            "invalid_type",
            "type must be \"party\"",
        ));
    }
    Ok(doc.data.attributes.company_name.unwrap_or_default())
}

/// `GET /v2/parties`.
pub async fn list(
    State(state): State<AppState>,
    caller: Caller,
    headers: HeaderMap,
    OriginalUri(uri): OriginalUri,
    RawQuery(raw): RawQuery,
) -> ApiResult<JsonApi> {
    let q = QueryParams::parse(raw.as_deref());
    let page = q.page()?;
    let listed = parties::list(&state.ctx, caller.account.id, &page).await?;
    Ok(list_response(
        state.config.public_url.as_deref(),
        &headers,
        uri.path(),
        &q,
        page,
        &listed,
        listed.rows.iter().map(to_resource).collect(),
        vec![],
    ))
}

/// `POST /v2/parties`.
pub async fn create(
    State(state): State<AppState>,
    caller: Caller,
    Body(doc): Body<PartyDoc>,
) -> ApiResult<impl IntoResponse> {
    let name = company_name(doc)?;
    let p = parties::create(&state.ctx, caller.account.id, &name).await?;
    let mut res = JsonApi::single(to_resource(&p), vec![]).into_response();
    *res.status_mut() = StatusCode::CREATED;
    Ok(res)
}

/// `GET /v2/parties/{id}`.
pub async fn show(
    State(state): State<AppState>,
    caller: Caller,
    IdPath(id): IdPath,
) -> ApiResult<JsonApi> {
    let p = parties::get(&state.ctx, caller.account.id, id)
        .await?
        .ok_or_else(|| ApiError::not_found("Party"))?;
    Ok(JsonApi::single(to_resource(&p), vec![]))
}

/// `PATCH /v2/parties/{id}`: renames a party (its shipments show the new name).
pub async fn update(
    State(state): State<AppState>,
    caller: Caller,
    IdPath(id): IdPath,
    Body(doc): Body<PartyDoc>,
) -> ApiResult<JsonApi> {
    let name = company_name(doc)?;
    let p = parties::rename(&state.ctx, caller.account.id, id, &name).await?;
    Ok(JsonApi::single(to_resource(&p), vec![]))
}

/// This module's operations, each declared with its route and handler.
pub fn routes() -> Routes {
    Routes::default()
        .get("/v2/parties", list, || {
            Doc::new("Parties", "List parties")
                .about("The account's customers, newest first.")
                .paged()
                .errors(&[400, 401, 429])
                .ok("A page of parties", list_of("Party"))
                .reference_id("list-parties")
        })
        .post("/v2/parties", create, || {
            Doc::new("Parties", "Create a party")
                .about("A customer to name on tracking requests (`relationships.customer`). Names are unique in the account, ignoring case (422 `duplicate`).")
                .body::<PartyDoc>()
                .errors(&[400, 401, 415, 422, 429])
                .answer("201", body("The party", single("Party")))
                .reference_id("post-party")
        })
        .get("/v2/parties/{id}", show, || {
            Doc::new("Parties", "Get a party")
                .about("One party of the account.")
                .id("Party")
                .errors(&[401, 404, 429])
                .ok("The party", single("Party"))
                .reference_id("get-parties-id")
        })
        .patch("/v2/parties/{id}", update, || {
            Doc::new("Parties", "Update a party")
                .about("Renames the party; its shipments' `customer_name` follows.")
                .id("Party")
                .body::<PartyDoc>()
                .errors(&[400, 401, 404, 415, 422, 429])
                .ok("The party", single("Party"))
                .reference_id("edit-party")
        })
}
