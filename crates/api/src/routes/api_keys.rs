//! `/v2/api_keys`: an account's API keys (self-serve creation and revocation).

use axum::extract::{OriginalUri, RawQuery, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::IntoResponse;
use boxtrack_app::keys;
use boxtrack_app::model::ApiKeyRecord;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;

use crate::state::AppState;
use crate::state::Routes;
use boxtrack_core::time;
use boxtrack_http::auth::Caller;
use boxtrack_http::doc::{Doc, body, list_of, single};
use boxtrack_http::error::{ApiError, ApiResult};
use boxtrack_http::extract::IdPath;
use boxtrack_http::jsonapi::{Body, JsonApi, QueryParams, list_response};
use boxtrack_views::accounts;

const INCLUDES: &[&str] = &["account"];

/// The `api_key` resource object (never the secret).
pub fn to_resource(k: &ApiKeyRecord) -> Value {
    accounts::api_key(k, None).to_value()
}

fn included(caller: &Caller, includes: &[String]) -> Vec<Value> {
    if includes.iter().any(|i| i == "account") {
        vec![super::account::to_resource(&caller.account)]
    } else {
        vec![]
    }
}

/// `GET /v2/api_keys`.
pub async fn list(
    State(state): State<AppState>,
    caller: Caller,
    headers: HeaderMap,
    OriginalUri(uri): OriginalUri,
    RawQuery(raw): RawQuery,
) -> ApiResult<JsonApi> {
    let query = QueryParams::parse(raw.as_deref());
    let page = query.page()?;
    let includes = query.includes("api_key", INCLUDES)?;
    let listed = keys::list(&state.ctx, caller.account.id, &page).await?;
    let data = listed.rows.iter().map(to_resource).collect();
    let inc = if listed.rows.is_empty() {
        vec![]
    } else {
        included(&caller, &includes)
    };
    Ok(list_response(
        state.config.public_url.as_deref(),
        &headers,
        uri.path(),
        &query,
        page,
        &listed,
        data,
        inc,
    ))
}

/// `GET /v2/api_keys/{id}`.
pub async fn show(
    State(state): State<AppState>,
    caller: Caller,
    IdPath(id): IdPath,
    RawQuery(raw): RawQuery,
) -> ApiResult<JsonApi> {
    let includes = QueryParams::parse(raw.as_deref()).includes("api_key", INCLUDES)?;
    let k = keys::get(&state.ctx, caller.account.id, id)
        .await?
        .ok_or_else(|| ApiError::not_found("api_key"))?;
    Ok(JsonApi::single(
        to_resource(&k),
        included(&caller, &includes),
    ))
}

/// Request body of `POST /v2/api_keys`.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CreateDoc {
    data: CreateData,
}

/// A key to issue.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct CreateData {
    /// `api_key`.
    #[serde(rename = "type")]
    #[schemars(extend("const" = "api_key"))]
    kind: String,
    /// Its name.
    #[serde(default)]
    attributes: CreateAttrs,
}

/// A key's name.
#[derive(Deserialize, Default, JsonSchema)]
#[serde(deny_unknown_fields)]
struct CreateAttrs {
    /// A name to tell keys apart (1 to 100 characters; left out for none, never `null`).
    #[serde(default, deserialize_with = "present")]
    #[schemars(with = "String", extend("maxLength" = 100, "pattern" = "\\S"))]
    name: Option<Option<String>>,
    /// When the key stops working (RFC 3339, or a date for its midnight UTC; in the future, at
    /// most ten years ahead); left out: never. Past it the key is refused as a revoked key is.
    #[serde(default)]
    #[schemars(extend("format" = "date-time"))]
    expires_at: Option<String>,
}

/// The expiry a new key asks for: `None` for none, else a time in the future (at most ten
/// years ahead), or a 422 naming `/data/attributes/expires_at`.
fn expiry(given: Option<&str>, now_us: i64) -> ApiResult<Option<i64>> {
    let Some(given) = given else { return Ok(None) };
    const TEN_YEARS_US: i64 = 3_652 * 86_400 * 1_000_000;
    match time::parse_instant_or_date(given) {
        Some(at) if at > now_us && at - now_us <= TEN_YEARS_US => Ok(Some(at)),
        Some(_) => Err(ApiError::unprocessable(
            "/data/attributes/expires_at",
            "invalid",
            "expires_at must be in the future, at most ten years ahead",
        )),
        None => Err(ApiError::unprocessable(
            "/data/attributes/expires_at",
            "invalid",
            "expires_at must be an RFC 3339 time such as 2027-06-30T00:00:00Z, or a date (its midnight UTC)",
        )),
    }
}

/// A member that may be left out but is not `null`: left out is `None` (by `default`), `null`
/// is `Some(None)`, so that the handler can refuse it instead of taking it for "left out".
pub(crate) fn present<'de, D, T>(d: D) -> Result<Option<Option<T>>, D::Error>
where
    D: serde::Deserializer<'de>,
    T: Deserialize<'de>,
{
    Option::<T>::deserialize(d).map(Some)
}

/// A key's name as given (API or publishable key): left out, or trimmed, 1 to 100 characters
/// as given; `null` or anything else is a 422 naming `/data/attributes/name`.
pub(crate) fn key_name(given: Option<Option<&str>>) -> ApiResult<Option<String>> {
    let given = match given {
        None => return Ok(None),
        Some(None) => {
            return Err(ApiError::unprocessable(
                "/data/attributes/name",
                "invalid",
                "name must be a string of 1 to 100 characters, or left out; not null",
            ));
        }
        Some(Some(given)) => given,
    };
    let name = given.trim();
    if name.is_empty() || given.chars().count() > 100 {
        return Err(ApiError::unprocessable(
            "/data/attributes/name",
            "invalid",
            "name must be 1 to 100 characters",
        ));
    }
    Ok(Some(name.to_string()))
}

/// `POST /v2/api_keys`: issues a key for the caller's account; the key is in the response once.
pub async fn create(
    State(state): State<AppState>,
    caller: Caller,
    Body(doc): Body<CreateDoc>,
) -> ApiResult<impl IntoResponse> {
    if doc.data.kind != "api_key" {
        return Err(ApiError::unprocessable(
            "/data/type",
            "invalid_type",
            format!("type must be \"api_key\", not {:?}", doc.data.kind),
        ));
    }
    let name = key_name(doc.data.attributes.name.as_ref().map(Option::as_deref))?;
    let expires_us = expiry(
        doc.data.attributes.expires_at.as_deref(),
        state.ctx.now_us(),
    )?;
    let (record, key) =
        keys::create(&state.ctx, caller.account.id, name.as_deref(), expires_us).await?;
    let r = accounts::api_key(&record, Some(key.expose().to_string()));
    let mut res = JsonApi::single(r.to_value(), vec![]).into_response();
    *res.status_mut() = StatusCode::CREATED;
    Ok(res)
}

/// `DELETE /v2/api_keys/{id}`: revokes a key of the caller's account.
pub async fn revoke(
    State(state): State<AppState>,
    caller: Caller,
    IdPath(id): IdPath,
) -> ApiResult<JsonApi> {
    let k = keys::revoke(&state.ctx, caller.account.id, id).await?;
    // at once in this process; the others stop trusting it within a second
    state.keys.forget_key(id);
    Ok(JsonApi::single(to_resource(&k), vec![]))
}

/// This module's operations, each declared with its route and handler.
pub fn routes() -> Routes {
    Routes::default()
        .get("/v2/api_keys", list, || {
            Doc::new("API keys", "List API keys")
                .about("The account's keys, newest first. Secrets are never shown; `hint` tells keys apart.")
                .paged()
                .include(INCLUDES)
                .errors(&[400, 401, 429])
                .ok("A page of keys", list_of("ApiKey"))
        })
        .post("/v2/api_keys", create, || {
            Doc::new("API keys", "Create an API key")
                .about("Issues a new key for the caller's account, optionally expiring at `expires_at` (past it the key is refused as a revoked key is). The `key` attribute of the response is the only time the key is shown; only its SHA-256 digest is stored.")
                .body::<CreateDoc>()
                .errors(&[400, 401, 415, 422, 429])
                .answer("201", body("The new key, with its secret", single("ApiKey")))
        })
        .get("/v2/api_keys/{id}", show, || {
            Doc::new("API keys", "Get an API key")
                .about("One key of the caller's account.")
                .id("API key")
                .include(INCLUDES)
                .errors(&[400, 401, 404, 429])
                .ok("The key", single("ApiKey"))
        })
        .delete("/v2/api_keys/{id}", revoke, || {
            Doc::new("API keys", "Revoke an API key")
                .about("Revokes a key of the caller's account at once; it never authenticates again. Revoking twice keeps the first `revoked_at`.")
                .id("API key")
                .errors(&[401, 404, 429])
                .ok("The revoked key", single("ApiKey"))
        })
}
