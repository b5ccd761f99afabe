//! `/v2/publishable_keys` (beyond the reference): the keys of the embeddable map and widget,
//! made, listed and revoked by API as the portal does it by hand. An account needs the
//! `widget` entitlement to make one; the key is shown once, in the answer that makes it.

use axum::extract::{OriginalUri, RawQuery, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::IntoResponse;
use boxtrack_app::keys;
use boxtrack_core::plan::Entitlement;
use schemars::JsonSchema;
use serde::Deserialize;

use crate::state::AppState;
use crate::state::Routes;
use boxtrack_core::apikey;
use boxtrack_http::auth::Caller;
use boxtrack_http::doc::{Doc, body, list_of, single};
use boxtrack_http::error::{ApiError, ApiResult};
use boxtrack_http::extract::IdPath;
use boxtrack_http::jsonapi::{Body, JsonApi, QueryParams, memory_list_response};
use boxtrack_views::accounts;

/// `GET /v2/publishable_keys`: the account's keys, newest first, revoked ones too.
pub async fn list(
    State(state): State<AppState>,
    caller: Caller,
    headers: HeaderMap,
    OriginalUri(uri): OriginalUri,
    RawQuery(raw): RawQuery,
) -> ApiResult<JsonApi> {
    let q = QueryParams::parse(raw.as_deref());
    q.page()?;
    let keys = keys::publishable(&state.ctx, caller.account.id).await?;
    let data = keys
        .iter()
        .map(|k| accounts::publishable_key(k, None).to_value())
        .collect();
    memory_list_response(
        state.config.public_url.as_deref(),
        &headers,
        uri.path(),
        &q,
        data,
    )
}

/// `GET /v2/publishable_keys/{id}`.
pub async fn show(
    State(state): State<AppState>,
    caller: Caller,
    IdPath(id): IdPath,
) -> ApiResult<JsonApi> {
    let k = keys::publishable(&state.ctx, caller.account.id)
        .await?
        .into_iter()
        .find(|k| k.id == id)
        .ok_or_else(|| ApiError::not_found("publishable_key"))?;
    Ok(JsonApi::single(
        accounts::publishable_key(&k, None).to_value(),
        vec![],
    ))
}

/// Request body of `POST /v2/publishable_keys`.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CreateDoc {
    data: CreateData,
}

/// A key to make.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct CreateData {
    /// `publishable_key`.
    #[serde(rename = "type")]
    #[schemars(extend("const" = "publishable_key"))]
    kind: String,
    /// Its name and origins.
    #[serde(default)]
    attributes: CreateAttrs,
}

/// A key's name and the pages that may use it.
#[derive(Deserialize, Default, JsonSchema)]
#[serde(deny_unknown_fields)]
struct CreateAttrs {
    /// A name to tell keys apart (1 to 100 characters; left out for none, never `null`).
    #[serde(default, deserialize_with = "super::api_keys::present")]
    #[schemars(with = "String", extend("maxLength" = 100, "pattern" = "\\S"))]
    name: Option<Option<String>>,
    /// Origins (`https://shop.example.com`, `http://localhost:8080`: scheme, host, optional
    /// port, no path) whose pages may use the key; none or empty: any origin. At most 20.
    #[serde(default)]
    #[schemars(length(max = 20), inner(length(max = 300)))]
    allowed_origins: Vec<String>,
}

/// `POST /v2/publishable_keys`: makes a key for the caller's account; the key is in the
/// answer once.
pub async fn create(
    State(state): State<AppState>,
    caller: Caller,
    Body(doc): Body<CreateDoc>,
) -> ApiResult<impl IntoResponse> {
    caller.require(Entitlement::Widget)?;
    if doc.data.kind != "publishable_key" {
        return Err(ApiError::unprocessable(
            "/data/type",
            "invalid_type",
            format!("type must be \"publishable_key\", not {:?}", doc.data.kind),
        ));
    }
    let a = doc.data.attributes;
    let name = super::api_keys::key_name(a.name.as_ref().map(Option::as_deref))?;
    let origins = apikey::normalize_origins(a.allowed_origins.iter().map(String::as_str))
        .map_err(|e| ApiError::unprocessable("/data/attributes/allowed_origins", "invalid", e))?;
    let (record, key) =
        keys::create_publishable(&state.ctx, caller.account.id, name.as_deref(), &origins).await?;
    let r = accounts::publishable_key(&record, Some(key.expose().to_string()));
    let mut res = JsonApi::single(r.to_value(), vec![]).into_response();
    *res.status_mut() = StatusCode::CREATED;
    Ok(res)
}

/// `DELETE /v2/publishable_keys/{id}`: revokes a key of the caller's account.
pub async fn revoke(
    State(state): State<AppState>,
    caller: Caller,
    IdPath(id): IdPath,
) -> ApiResult<JsonApi> {
    let k = keys::revoke_publishable(&state.ctx, caller.account.id, id).await?;
    Ok(JsonApi::single(
        accounts::publishable_key(&k, None).to_value(),
        vec![],
    ))
}

/// This module's operations, each declared with its route and handler.
pub fn routes() -> Routes {
    Routes::default()
        .get("/v2/publishable_keys", list, || {
            Doc::new("Publishable keys", "List publishable keys")
                .about("The account's publishable keys (`btp_…`, the credential of the embeddable map and widget), newest first, revoked ones too. The keys themselves are never shown again; `hint` tells them apart.")
                .paged_by_number()
                .errors(&[400, 401, 429])
                .ok("A page of keys", list_of("PublishableKey"))
        })
        .post("/v2/publishable_keys", create, || {
            Doc::new("Publishable keys", "Create a publishable key")
                .about("Makes a publishable key for the caller's account (entitlement `widget`), usable from pages of the `allowed_origins` given (none: any origin). The `key` attribute of the answer is the only time the key is shown; only its SHA-256 digest is stored.")
                .body::<CreateDoc>()
                .errors(&[400, 401, 403, 415, 422, 429])
                .answer("201", body("The new key, with the key itself", single("PublishableKey")))
        })
        .get("/v2/publishable_keys/{id}", show, || {
            Doc::new("Publishable keys", "Get a publishable key")
                .about("One publishable key of the caller's account.")
                .id("Publishable key")
                .errors(&[401, 404, 429])
                .ok("The key", single("PublishableKey"))
        })
        .delete("/v2/publishable_keys/{id}", revoke, || {
            Doc::new("Publishable keys", "Revoke a publishable key")
                .about("Revokes a publishable key of the caller's account at once: the map and widget refuse it from then on. Revoking twice keeps the first `revoked_at`.")
                .id("Publishable key")
                .errors(&[401, 404, 429])
                .ok("The revoked key", single("PublishableKey"))
        })
}
