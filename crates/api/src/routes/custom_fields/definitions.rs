//! Custom field definitions: `/v2/custom_field_definitions`.

use axum::extract::{OriginalUri, RawQuery, State};
use axum::http::HeaderMap;
use axum::response::Response;
use boxtrack_app::custom_fields::{self as cases, DefinitionFilter, DefinitionRow};
use boxtrack_core::custom_fields::{self as rules, DataType, EntityType};
use serde_json::{Map, Value};
use uuid::Uuid;

use crate::state::AppState;
use boxtrack_http::auth::Caller;
use boxtrack_http::error::{ApiError, ApiResult};
use boxtrack_http::extract::IdPath;
use boxtrack_http::jsonapi::{Body, JsonApi, QueryParams, list_response};
use boxtrack_views::custom_fields;
use boxtrack_views::jsonapi::include_once;

use super::shared::*;
use crate::routes::account;

/// `GET /v2/custom_field_definitions`.
pub async fn list_definitions(
    State(state): State<AppState>,
    caller: Caller,
    headers: HeaderMap,
    OriginalUri(uri): OriginalUri,
    RawQuery(raw): RawQuery,
) -> ApiResult<JsonApi> {
    let q = QueryParams::parse(raw.as_deref());
    let page = q.page()?;
    let entity_type = entity_type_filter(&q)?;
    let data_type = q
        .one_of("filter[data_type]", &DataType::ALL.map(DataType::as_str))?
        .map(str::to_string);
    let f = DefinitionFilter {
        entity_type,
        data_type,
        display_name: q.text("filter[display_name]"),
    };
    let includes = q.includes("custom_field_definition", DEFINITION_INCLUDES)?;
    let listed = cases::definitions(&state.ctx, caller.account.id, &f, &page).await?;
    let mut data = Vec::new();
    let mut included = Vec::new();
    for d in &listed.rows {
        data.push(rendered(&state, d, &includes, &mut included).await?);
    }
    if !listed.rows.is_empty() {
        include_account(&caller, &includes, &mut included);
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

/// What `include` may name on a definition.
pub(super) const DEFINITION_INCLUDES: &[&str] = &["account", "options", "fields"];

/// The caller's account, when `includes` names it.
fn include_account(caller: &Caller, includes: &[String], included: &mut Vec<Value>) {
    if includes.iter().any(|i| i == "account") {
        include_once(included, account::to_resource(&caller.account));
    }
}

/// A definition with what `includes` names added to `included`: its options, and every
/// value set with it.
async fn rendered(
    state: &AppState,
    d: &DefinitionRow,
    includes: &[String],
    included: &mut Vec<Value>,
) -> ApiResult<Value> {
    let options = cases::options(&state.ctx, d.account_id, d.id).await?;
    if includes.iter().any(|i| i == "options") {
        for o in &options {
            include_once(included, custom_fields::option(o));
        }
    }
    let fields = if includes.iter().any(|i| i == "fields") {
        let rows = cases::values_of_definition(&state.ctx, d.account_id, d.id).await?;
        for r in super::values::field_resources(state, &rows).await? {
            include_once(included, r);
        }
        Some(rows.iter().map(|r| r.id).collect::<Vec<Uuid>>())
    } else {
        None
    };
    Ok(custom_fields::definition(d, &options, fields.as_deref()).to_value())
}

/// `POST /v2/custom_field_definitions`.
pub async fn create_definition(
    State(state): State<AppState>,
    caller: Caller,
    Body(doc): Body<Doc>,
) -> ApiResult<Response> {
    let a = doc.attrs("custom_field_definition")?;
    let mut d = definition_asked(a, caller.account.id, state.ctx.now_us())?;
    let default = a.get("default_value").cloned().unwrap_or(Value::Null);
    d.default_value = checked(&state, &d, &default, "/data/attributes/default_value").await?;
    if !cases::create_definition(&state.ctx, &d).await? {
        return Err(ApiError::unprocessable(
            "/data/attributes/api_slug",
            "duplicate",
            format!("{} already has a field {:?}", d.entity_type, d.api_slug),
        ));
    }
    Ok(created(JsonApi::single(
        definition_resource(&d, &[]),
        vec![],
    )))
}

/// The definition a create asks for, each attribute checked (its default value is checked
/// apart, against the fields it may name).
fn definition_asked(
    a: &Map<String, Value>,
    account_id: Uuid,
    now: i64,
) -> ApiResult<DefinitionRow> {
    let entity_type = a
        .get("entity_type")
        .and_then(Value::as_str)
        .and_then(EntityType::parse)
        .ok_or_else(|| {
            ApiError::unprocessable(
                "/data/attributes/entity_type",
                "invalid",
                "entity_type must be Shipment, Container or TrackingRequest",
            )
        })?;
    let slug = a
        .get("api_slug")
        .and_then(Value::as_str)
        .unwrap_or_default();
    if !rules::valid_slug(slug) {
        return Err(ApiError::unprocessable(
            "/data/attributes/api_slug",
            "invalid",
            "api_slug must start with a lower-case letter and hold only lower-case letters, digits and underscores (64 at most)",
        ));
    }
    let display_name = text(a, "display_name", 100, true)?.unwrap_or_default();
    let description = text(a, "description", 1000, false)?;
    let dt = a
        .get("data_type")
        .and_then(Value::as_str)
        .and_then(DataType::parse)
        .ok_or_else(|| ApiError::unprocessable("/data/attributes/data_type", "invalid", "data_type must be short_text, number, date, datetime, boolean, enum, enum_multi or reference"))?;
    let reference_type = match a.get("reference_type").and_then(Value::as_str) {
        Some(r) if dt != DataType::Reference || !rules::REFERENCE_TYPES.contains(&r) => {
            return Err(ApiError::unprocessable(
                "/data/attributes/reference_type",
                "invalid",
                format!(
                    "reference_type is for reference fields and must be one of {}",
                    rules::REFERENCE_TYPES.join(", ")
                ),
            ));
        }
        other => other.map(str::to_string),
    };
    let validation = a.get("validation").cloned().unwrap_or(Value::Null);
    rules::check_validation(dt, &validation)
        .map_err(|e| ApiError::unprocessable("/data/attributes/validation", "invalid", e))?;
    Ok(DefinitionRow {
        id: Uuid::now_v7(),
        account_id,
        entity_type: entity_type.as_str().to_string(),
        api_slug: slug.to_string(),
        display_name,
        description,
        data_type: dt.as_str().to_string(),
        reference_type,
        validation,
        default_format: text(a, "default_format", 100, false)?,
        default_value: Value::Null,
        created_us: now,
        updated_us: now,
    })
}

/// `GET /v2/custom_field_definitions/{id}`.
pub async fn show_definition(
    State(state): State<AppState>,
    caller: Caller,
    IdPath(id): IdPath,
    RawQuery(raw): RawQuery,
) -> ApiResult<JsonApi> {
    let q = QueryParams::parse(raw.as_deref());
    let includes = q.includes("custom_field_definition", DEFINITION_INCLUDES)?;
    let d = definition_or_404(&state, &caller, id).await?;
    let mut included = Vec::new();
    let data = rendered(&state, &d, &includes, &mut included).await?;
    include_account(&caller, &includes, &mut included);
    Ok(JsonApi::single(data, included))
}

/// `PATCH /v2/custom_field_definitions/{id}`: display name, description, validation,
/// default format and value (the slug, entity type and data type are fixed).
pub async fn update_definition(
    State(state): State<AppState>,
    caller: Caller,
    IdPath(id): IdPath,
    Body(doc): Body<Doc>,
) -> ApiResult<JsonApi> {
    let a = doc.attrs("custom_field_definition")?;
    let mut d = definition_or_404(&state, &caller, id).await?;
    for fixed in ["entity_type", "api_slug", "data_type", "reference_type"] {
        if a.contains_key(fixed) {
            return Err(ApiError::unprocessable(
                &format!("/data/attributes/{fixed}"),
                "immutable",
                format!("{fixed} cannot change; create another definition"),
            ));
        }
    }
    if a.contains_key("display_name") {
        d.display_name = text(a, "display_name", 100, true)?.unwrap_or_default();
    }
    if a.contains_key("description") {
        d.description = text(a, "description", 1000, false)?;
    }
    if let Some(v) = a.get("validation") {
        rules::check_validation(data_type(&d), v)
            .map_err(|e| ApiError::unprocessable("/data/attributes/validation", "invalid", e))?;
        d.validation = v.clone();
    }
    if a.contains_key("default_format") {
        d.default_format = text(a, "default_format", 100, false)?;
    }
    if let Some(v) = a.get("default_value") {
        d.default_value = checked(&state, &d, v, "/data/attributes/default_value").await?;
    }
    cases::update_definition(&state.ctx, &d).await?;
    let d = definition_or_404(&state, &caller, id).await?;
    let options = cases::options(&state.ctx, d.account_id, d.id).await?;
    Ok(JsonApi::single(definition_resource(&d, &options), vec![]))
}

/// `DELETE /v2/custom_field_definitions/{id}`: the definition, its options and every value
/// set for it; answers with the definition as it was.
pub async fn delete_definition(
    State(state): State<AppState>,
    caller: Caller,
    IdPath(id): IdPath,
) -> ApiResult<JsonApi> {
    let d = definition_or_404(&state, &caller, id).await?;
    let options = cases::options(&state.ctx, d.account_id, d.id).await?;
    cases::delete_definition(&state.ctx, caller.account.id, id).await?;
    Ok(JsonApi::single(definition_resource(&d, &options), vec![]))
}
