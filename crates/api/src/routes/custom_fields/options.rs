//! Options of enum definitions: `/v2/custom_field_definitions/{id}/options`.

use axum::extract::{Path, State};
use axum::response::Response;
use boxtrack_app::custom_fields::{self as cases, DefinitionRow, OptionRow};
use serde_json::{Map, Value};
use uuid::Uuid;

use crate::state::AppState;
use boxtrack_http::auth::Caller;
use boxtrack_http::error::{ApiError, ApiResult};
use boxtrack_http::jsonapi::{self, Body, JsonApi, QueryParams};
use boxtrack_views::custom_fields;

use super::shared::*;

// ---- options -----------------------------------------------------------------------------

fn option_resource(o: &OptionRow) -> Value {
    custom_fields::option(o)
}

async fn option_parts(
    state: &AppState,
    caller: &Caller,
    def: &str,
    opt: Option<&str>,
) -> ApiResult<(DefinitionRow, Vec<OptionRow>, Option<OptionRow>)> {
    let d = definition_or_404(state, caller, uuid_or_404(def, "custom field definition")?).await?;
    let options = cases::options(&state.ctx, d.account_id, d.id).await?;
    let one = match opt {
        Some(raw) => {
            let id = uuid_or_404(raw, "custom field option")?;
            Some(
                options
                    .iter()
                    .find(|o| o.id == id)
                    .cloned()
                    .ok_or_else(|| ApiError::not_found("custom field option"))?,
            )
        }
        None => None,
    };
    Ok((d, options, one))
}

fn option_attrs(
    a: &Map<String, Value>,
    current: Option<&OptionRow>,
) -> ApiResult<(String, String, Option<i64>)> {
    let label = match (a.contains_key("label"), current) {
        (false, Some(c)) => c.label.clone(),
        _ => text(a, "label", 100, true)?.unwrap_or_default(),
    };
    let value = match (a.contains_key("value"), current) {
        (false, Some(c)) => c.value.clone(),
        _ => text(a, "value", 100, true)?.unwrap_or_default(),
    };
    let position = match a.get("position") {
        None => current.and_then(|c| c.position),
        Some(Value::Null) => None,
        Some(v) => Some(
            v.as_i64()
                .filter(|p| (0..=1_000_000).contains(p))
                .ok_or_else(|| {
                    ApiError::unprocessable(
                        "/data/attributes/position",
                        "invalid",
                        "position must be a whole number from 0",
                    )
                })?,
        ),
    };
    Ok((label, value, position))
}

fn duplicate_option(value: &str) -> ApiError {
    ApiError::unprocessable(
        "/data/attributes/value",
        "duplicate",
        format!("the definition has an option with value {value:?}"),
    )
}

/// `GET /v2/custom_field_definitions/{id}/options`.
pub async fn list_options(
    State(state): State<AppState>,
    caller: Caller,
    Path(def): Path<String>,
    headers: axum::http::HeaderMap,
    axum::extract::OriginalUri(uri): axum::extract::OriginalUri,
    axum::extract::RawQuery(raw): axum::extract::RawQuery,
) -> ApiResult<JsonApi> {
    let q = QueryParams::parse(raw.as_deref());
    // the paging parameters are checked before anything is read
    q.page()?;
    let (_, options, _) = option_parts(&state, &caller, &def, None).await?;
    jsonapi::memory_list_response(
        state.config.public_url.as_deref(),
        &headers,
        uri.path(),
        &q,
        options.iter().map(option_resource).collect(),
    )
}

/// `POST /v2/custom_field_definitions/{id}/options` (enum definitions only).
pub async fn create_option(
    State(state): State<AppState>,
    caller: Caller,
    Path(def): Path<String>,
    Body(doc): Body<Doc>,
) -> ApiResult<Response> {
    let a = doc.attrs("custom_field_option")?;
    let (d, _, _) = option_parts(&state, &caller, &def, None).await?;
    if !data_type(&d).has_options() {
        return Err(ApiError::unprocessable(
            "/data",
            "invalid",
            format!(
                "{} fields have no options; only enum and enum_multi do",
                d.data_type
            ),
        ));
    }
    let (label, value, position) = option_attrs(a, None)?;
    let now = state.ctx.now_us();
    let o = OptionRow {
        id: Uuid::now_v7(),
        definition_id: d.id,
        label,
        value,
        position,
        created_us: now,
        updated_us: now,
    };
    if !cases::save_option(&state.ctx, d.account_id, &o, true).await? {
        return Err(duplicate_option(&o.value));
    }
    Ok(created(JsonApi::single(option_resource(&o), vec![])))
}

/// `GET /v2/custom_field_definitions/{id}/options/{option_id}`.
pub async fn show_option(
    State(state): State<AppState>,
    caller: Caller,
    Path((def, opt)): Path<(String, String)>,
) -> ApiResult<JsonApi> {
    let (_, _, o) = option_parts(&state, &caller, &def, Some(&opt)).await?;
    Ok(JsonApi::single(
        o.as_ref().map(option_resource).unwrap_or(Value::Null),
        vec![],
    ))
}

/// `PATCH /v2/custom_field_definitions/{id}/options/{option_id}`. Values already
/// set keep the old option value.
pub async fn update_option(
    State(state): State<AppState>,
    caller: Caller,
    Path((def, opt)): Path<(String, String)>,
    Body(doc): Body<Doc>,
) -> ApiResult<JsonApi> {
    let a = doc.attrs("custom_field_option")?;
    let (_, _, current) = option_parts(&state, &caller, &def, Some(&opt)).await?;
    let Some(mut o) = current else {
        return Err(ApiError::not_found("custom field option"));
    };
    let (label, value, position) = option_attrs(a, Some(&o))?;
    o.label = label;
    o.value = value;
    o.position = position;
    o.updated_us = state.ctx.now_us();
    if !cases::save_option(&state.ctx, caller.account.id, &o, false).await? {
        return Err(duplicate_option(&o.value));
    }
    Ok(JsonApi::single(option_resource(&o), vec![]))
}

/// `DELETE /v2/custom_field_definitions/{id}/options/{option_id}`.
pub async fn delete_option(
    State(state): State<AppState>,
    caller: Caller,
    Path((def, opt)): Path<(String, String)>,
) -> ApiResult<JsonApi> {
    let (d, _, o) = option_parts(&state, &caller, &def, Some(&opt)).await?;
    let Some(o) = o else {
        return Err(ApiError::not_found("custom field option"));
    };
    cases::delete_option(&state.ctx, d.account_id, d.id, o.id).await?;
    Ok(JsonApi::single(option_resource(&o), vec![]))
}
