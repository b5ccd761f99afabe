//! Custom fields: `/v2/custom_field_definitions` (with `…/{definition_id}/options` for
//! enums), `/v2/custom_fields`, and the same values through their entity:
//! `/v2/{shipments|containers|tracking_requests}/{id}/custom_fields[/{api_slug}]`.

use axum::extract::{OriginalUri, Path, RawQuery, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use boxtrack_core::custom_fields::{self as rules, DataType, EntityType, Rules};
use boxtrack_core::time::format_micros;
use boxtrack_store::StoreError;
use boxtrack_store::custom_fields::Json;
use boxtrack_store::custom_fields::{
    self as store, DefinitionFilter, DefinitionRow, FieldFilter, FieldRow, OptionRow,
};
use serde::Deserialize;
use serde_json::{Map, Value, json};
use uuid::Uuid;

use super::IdPath;
use crate::AppState;
use crate::auth::Caller;
use crate::error::{ApiError, ApiResult};
use crate::jsonapi::{Body, JsonApi, QueryParams, list_response, resource};
use crate::openapi::{
    Op, body, errors, id_param, list_of, operation, page_params, query_params, single,
};

fn uuid_or_404(raw: &str, what: &str) -> ApiResult<Uuid> {
    Uuid::parse_str(raw).map_err(|_| ApiError::not_found(what))
}

fn created(doc: JsonApi) -> Response {
    let mut res = doc.into_response();
    *res.status_mut() = StatusCode::CREATED;
    res
}

fn text(
    attrs: &Map<String, Value>,
    key: &str,
    max: usize,
    required: bool,
) -> ApiResult<Option<String>> {
    let pointer = format!("/data/attributes/{key}");
    match attrs.get(key) {
        None | Some(Value::Null) if !required => Ok(None),
        Some(Value::String(s)) if !s.trim().is_empty() && s.trim().chars().count() <= max => {
            Ok(Some(s.trim().to_string()))
        }
        _ => Err(ApiError::unprocessable(
            &pointer,
            "invalid",
            format!("{key} must be text of 1 to {max} characters"),
        )),
    }
}

/// A JSON:API request document with free-form attributes (each field checked by hand, so
/// every problem names its attribute).
#[derive(Deserialize)]
pub struct Doc {
    data: DocData,
}

#[derive(Deserialize)]
struct DocData {
    #[serde(default, rename = "type")]
    kind: Option<String>,
    #[serde(default)]
    attributes: Map<String, Value>,
    #[serde(default)]
    relationships: Option<Value>,
}

impl Doc {
    fn attrs(&self, kind: &str) -> ApiResult<&Map<String, Value>> {
        match self.data.kind.as_deref() {
            Some(k) if k != kind => Err(ApiError::unprocessable(
                "/data/type",
                "invalid_type",
                format!("type must be {kind:?}"),
            )),
            _ => Ok(&self.data.attributes),
        }
    }
}

// ---- definitions -------------------------------------------------------------------------

fn definition_resource(d: &DefinitionRow, options: &[OptionRow]) -> Value {
    resource(
        "custom_field_definition",
        d.id,
        "custom_field_definitions",
        json!({
            "entity_type": d.entity_type,
            "api_slug": d.api_slug,
            "display_name": d.display_name,
            "description": d.description,
            "data_type": d.data_type,
            "reference_type": d.reference_type,
            "validation": d.validation.0,
            "default_format": d.default_format,
            "default_value": d.default_value.0,
            "created_at": format_micros(d.created_us),
            "updated_at": format_micros(d.updated_us),
        }),
        Some(json!({
            "options": {"data": options.iter().map(|o| json!({"id": o.id, "type": "custom_field_option"})).collect::<Vec<_>>()},
        })),
    )
}

fn data_type(d: &DefinitionRow) -> DataType {
    DataType::parse(&d.data_type).unwrap_or(DataType::ShortText)
}

async fn definition_or_404(
    state: &AppState,
    caller: &Caller,
    id: Uuid,
) -> ApiResult<DefinitionRow> {
    store::definition(&state.db, caller.account.id, id)
        .await?
        .ok_or_else(|| ApiError::not_found("custom field definition"))
}

/// Checks a value against a definition (and its options).
async fn checked(
    state: &AppState,
    d: &DefinitionRow,
    value: &Value,
    pointer: &str,
) -> ApiResult<Value> {
    let options: Vec<String> = store::options(&state.db, d.id)
        .await?
        .into_iter()
        .map(|o| o.value)
        .collect();
    rules::check_value(
        &Rules {
            data_type: data_type(d),
            validation: &d.validation.0,
            options: &options,
            reference_type: d.reference_type.as_deref(),
        },
        value,
    )
    .map_err(|e| ApiError::unprocessable(pointer, "invalid", e))
}

/// `filter[entity_type]` (either spelling), as definitions store it.
fn entity_type_filter(q: &QueryParams) -> ApiResult<Option<String>> {
    q.text("filter[entity_type]")
        .map(|e| {
            EntityType::parse(&e)
                .map(|t| t.as_str().to_string())
                .ok_or_else(|| {
                    ApiError::bad_parameter(
                        "filter[entity_type]",
                        "filter[entity_type] must be Shipment, Container or TrackingRequest (or shipment, container, tracking_request)",
                    )
                })
        })
        .transpose()
}

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
    let data_type = match q.text("filter[data_type]") {
        Some(d) if DataType::parse(&d).is_none() => {
            return Err(ApiError::bad_parameter(
                "filter[data_type]",
                format!("{d:?} is not a data type"),
            ));
        }
        other => other,
    };
    let f = DefinitionFilter {
        entity_type,
        data_type,
        display_name: q.text("filter[display_name]"),
    };
    let listed = store::definitions(&state.db, caller.account.id, &f, &page).await?;
    let mut data = Vec::new();
    for d in &listed.rows {
        data.push(definition_resource(
            d,
            &store::options(&state.db, d.id).await?,
        ));
    }
    Ok(list_response(
        state.config.public_url.as_deref(),
        &headers,
        uri.path(),
        &q,
        page,
        &listed,
        data,
        vec![],
    ))
}

/// `POST /v2/custom_field_definitions`.
pub async fn create_definition(
    State(state): State<AppState>,
    caller: Caller,
    Body(doc): Body<Doc>,
) -> ApiResult<Response> {
    let a = doc.attrs("custom_field_definition")?;
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
    let now = boxtrack_store::now_us();
    let mut d = DefinitionRow {
        id: Uuid::now_v7(),
        account_id: caller.account.id,
        entity_type: entity_type.as_str().to_string(),
        api_slug: slug.to_string(),
        display_name,
        description,
        data_type: dt.as_str().to_string(),
        reference_type,
        validation: Json(validation),
        default_format: text(a, "default_format", 100, false)?,
        default_value: Json(Value::Null),
        created_us: now,
        updated_us: now,
    };
    let default = a.get("default_value").cloned().unwrap_or(Value::Null);
    d.default_value = Json(checked(&state, &d, &default, "/data/attributes/default_value").await?);
    match store::create_definition(&state.db, &d).await {
        Err(StoreError::Duplicate(_)) => Err(ApiError::unprocessable(
            "/data/attributes/api_slug",
            "duplicate",
            format!("{} already has a field {slug:?}", entity_type.as_str()),
        )),
        other => {
            other?;
            Ok(created(JsonApi::single(
                definition_resource(&d, &[]),
                vec![],
            )))
        }
    }
}

/// `GET /v2/custom_field_definitions/{id}`.
pub async fn show_definition(
    State(state): State<AppState>,
    caller: Caller,
    IdPath(id): IdPath,
) -> ApiResult<JsonApi> {
    let d = definition_or_404(&state, &caller, id).await?;
    let options = store::options(&state.db, d.id).await?;
    Ok(JsonApi::single(definition_resource(&d, &options), vec![]))
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
        d.validation = Json(v.clone());
    }
    if a.contains_key("default_format") {
        d.default_format = text(a, "default_format", 100, false)?;
    }
    if let Some(v) = a.get("default_value") {
        d.default_value = Json(checked(&state, &d, v, "/data/attributes/default_value").await?);
    }
    store::update_definition(&state.db, &d).await?;
    let d = definition_or_404(&state, &caller, id).await?;
    let options = store::options(&state.db, d.id).await?;
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
    let options = store::options(&state.db, d.id).await?;
    store::delete_definition(&state.db, caller.account.id, id).await?;
    Ok(JsonApi::single(definition_resource(&d, &options), vec![]))
}

// ---- options -----------------------------------------------------------------------------

fn option_resource(o: &OptionRow) -> Value {
    let mut r = resource(
        "custom_field_option",
        o.id,
        "custom_field_options",
        json!({"label": o.label, "value": o.value, "position": o.position}),
        Some(
            json!({"definition": {"data": {"id": o.definition_id, "type": "custom_field_definition"}}}),
        ),
    );
    r["links"]["self"] = json!(format!(
        "/v2/custom_field_definitions/{}/options/{}",
        o.definition_id, o.id
    ));
    r
}

async fn option_parts(
    state: &AppState,
    caller: &Caller,
    def: &str,
    opt: Option<&str>,
) -> ApiResult<(DefinitionRow, Vec<OptionRow>, Option<OptionRow>)> {
    let d = definition_or_404(state, caller, uuid_or_404(def, "custom field definition")?).await?;
    let options = store::options(&state.db, d.id).await?;
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
) -> ApiResult<JsonApi> {
    let (_, options, _) = option_parts(&state, &caller, &def, None).await?;
    let total = options.len();
    let mut doc = JsonApi::single(
        Value::Array(options.iter().map(option_resource).collect()),
        vec![],
    );
    doc.0["meta"] = json!({"total": total});
    Ok(doc)
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
    let now = boxtrack_store::now_us();
    let o = OptionRow {
        id: Uuid::now_v7(),
        definition_id: d.id,
        label,
        value,
        position,
        created_us: now,
        updated_us: now,
    };
    match store::save_option(&state.db, &o, true).await {
        Err(StoreError::Duplicate(_)) => Err(duplicate_option(&o.value)),
        other => {
            other?;
            Ok(created(JsonApi::single(option_resource(&o), vec![])))
        }
    }
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
    o.updated_us = boxtrack_store::now_us();
    match store::save_option(&state.db, &o, false).await {
        Err(StoreError::Duplicate(_)) => Err(duplicate_option(&o.value)),
        other => {
            other?;
            Ok(JsonApi::single(option_resource(&o), vec![]))
        }
    }
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
    store::delete_option(&state.db, d.id, o.id).await?;
    Ok(JsonApi::single(option_resource(&o), vec![]))
}

// ---- values ------------------------------------------------------------------------------

async fn field_resources(state: &AppState, rows: &[FieldRow]) -> ApiResult<Vec<Value>> {
    let mut labels: std::collections::HashMap<Uuid, Vec<(String, String)>> = Default::default();
    let mut out = Vec::new();
    for f in rows {
        let dt = DataType::parse(&f.data_type).unwrap_or(DataType::ShortText);
        if dt.has_options() && !labels.contains_key(&f.definition_id) {
            let opts = store::options(&state.db, f.definition_id).await?;
            labels.insert(
                f.definition_id,
                opts.into_iter().map(|o| (o.value, o.label)).collect(),
            );
        }
        let empty = Vec::new();
        let l = labels.get(&f.definition_id).unwrap_or(&empty);
        let entity =
            EntityType::parse(&f.entity_type).map_or("shipment", EntityType::resource_type);
        out.push(resource(
            "custom_field",
            f.id,
            "custom_fields",
            json!({
                "api_slug": f.api_slug,
                "value": f.value.0,
                "display_value": rules::display_value(dt, &f.value.0, l),
                "created_at": format_micros(f.created_us),
                "updated_at": format_micros(f.updated_us),
            }),
            Some(json!({
                "entity": {"data": {"type": entity, "id": f.entity_id}},
                "definition": {"data": {"type": "custom_field_definition", "id": f.definition_id}},
            })),
        ));
    }
    Ok(out)
}

/// Checks that the account has this entity.
async fn entity_exists(
    state: &AppState,
    caller: &Caller,
    e: EntityType,
    id: Uuid,
) -> ApiResult<bool> {
    let account = caller.account.id;
    Ok(match e {
        EntityType::Shipment => boxtrack_store::reads::shipment(&state.db, account, id)
            .await?
            .is_some(),
        EntityType::Container => boxtrack_store::reads::container(&state.db, account, id)
            .await?
            .is_some(),
        EntityType::TrackingRequest => {
            boxtrack_store::tracking::get_request(&state.db, account, id)
                .await?
                .is_some()
        }
    })
}

async fn one_field(state: &AppState, caller: &Caller, id: Uuid) -> ApiResult<FieldRow> {
    store::field(&state.db, caller.account.id, id)
        .await?
        .ok_or_else(|| ApiError::not_found("custom field"))
}

async fn field_doc(state: &AppState, f: &FieldRow) -> ApiResult<JsonApi> {
    let mut r = field_resources(state, std::slice::from_ref(f)).await?;
    Ok(JsonApi::single(r.pop().unwrap_or(Value::Null), vec![]))
}

/// Sets `api_slug` = `value` on an entity (a new field).
async fn set_new(
    state: &AppState,
    caller: &Caller,
    e: EntityType,
    entity_id: Uuid,
    a: &Map<String, Value>,
) -> ApiResult<Response> {
    let slug = a
        .get("api_slug")
        .and_then(Value::as_str)
        .unwrap_or_default();
    let d = store::definition_by_slug(&state.db, caller.account.id, e.as_str(), slug)
        .await?
        .ok_or_else(|| {
            ApiError::unprocessable(
                "/data/attributes/api_slug",
                "not_found",
                format!("no {} custom field definition has api_slug {slug:?} (POST /v2/custom_field_definitions)", e.as_str()),
            )
        })?;
    let value = checked(
        state,
        &d,
        a.get("value").unwrap_or(&Value::Null),
        "/data/attributes/value",
    )
    .await?;
    let id = match store::create_field(&state.db, &d, entity_id, &value).await {
        Err(StoreError::Duplicate(_)) => {
            return Err(ApiError::unprocessable(
                "/data/attributes/api_slug",
                "duplicate",
                format!(
                    "{slug:?} is set on this {} already; PATCH it",
                    e.resource_type()
                ),
            ));
        }
        other => other?,
    };
    let f = one_field(state, caller, id).await?;
    Ok(created(field_doc(state, &f).await?))
}

/// `GET /v2/custom_fields`.
pub async fn list_fields(
    State(state): State<AppState>,
    caller: Caller,
    headers: HeaderMap,
    OriginalUri(uri): OriginalUri,
    RawQuery(raw): RawQuery,
) -> ApiResult<JsonApi> {
    let q = QueryParams::parse(raw.as_deref());
    let page = q.page()?;
    let uuid = |name: &str| -> ApiResult<Option<Uuid>> {
        q.text(name)
            .map(|v| {
                Uuid::parse_str(v.trim())
                    .map_err(|_| ApiError::bad_parameter(name, format!("{name} must be a UUID")))
            })
            .transpose()
    };
    let entity_type = entity_type_filter(&q)?;
    let f = FieldFilter {
        entity_type,
        entity_id: uuid("filter[entity_id]")?,
        definition_id: uuid("filter[definition_id]")?,
    };
    let listed = store::fields(&state.db, caller.account.id, &f, &page).await?;
    let data = field_resources(&state, &listed.rows).await?;
    Ok(list_response(
        state.config.public_url.as_deref(),
        &headers,
        uri.path(),
        &q,
        page,
        &listed,
        data,
        vec![],
    ))
}

/// `POST /v2/custom_fields`: `api_slug`, `value` and `relationships.entity`.
pub async fn create_field(
    State(state): State<AppState>,
    caller: Caller,
    Body(doc): Body<Doc>,
) -> ApiResult<Response> {
    let a = doc.attrs("custom_field")?;
    let entity = doc
        .data
        .relationships
        .as_ref()
        .map(|r| &r["entity"]["data"])
        .cloned()
        .unwrap_or(Value::Null);
    const POINTER: &str = "/data/relationships/entity/data";
    let e = entity["type"]
        .as_str()
        .and_then(EntityType::parse)
        .ok_or_else(|| {
            ApiError::unprocessable(
                POINTER,
                "invalid",
                "entity must be {\"type\": shipment, container or tracking_request, \"id\": …}",
            )
        })?;
    let Some(id) = entity["id"].as_str().and_then(|i| Uuid::parse_str(i).ok()) else {
        return Err(ApiError::unprocessable(
            POINTER,
            "invalid",
            "entity id must be a UUID",
        ));
    };
    if !entity_exists(&state, &caller, e, id).await? {
        return Err(ApiError::unprocessable(
            POINTER,
            "not_found",
            format!("the account has no {} {id}", e.resource_type()),
        ));
    }
    set_new(&state, &caller, e, id, a).await
}

/// `GET /v2/custom_fields/{id}`.
pub async fn show_field(
    State(state): State<AppState>,
    caller: Caller,
    IdPath(id): IdPath,
) -> ApiResult<JsonApi> {
    let f = one_field(&state, &caller, id).await?;
    field_doc(&state, &f).await
}

async fn set_existing(
    state: &AppState,
    caller: &Caller,
    f: &FieldRow,
    a: &Map<String, Value>,
) -> ApiResult<JsonApi> {
    let Some(v) = a.get("value") else {
        return Err(ApiError::unprocessable(
            "/data/attributes/value",
            "blank",
            "value is required (null clears it)",
        ));
    };
    let d = definition_or_404(state, caller, f.definition_id).await?;
    let value = checked(state, &d, v, "/data/attributes/value").await?;
    store::set_value(&state.db, caller.account.id, f.id, &value).await?;
    let f = one_field(state, caller, f.id).await?;
    field_doc(state, &f).await
}

/// `PATCH /v2/custom_fields/{id}`: a new value.
pub async fn update_field(
    State(state): State<AppState>,
    caller: Caller,
    IdPath(id): IdPath,
    Body(doc): Body<Doc>,
) -> ApiResult<JsonApi> {
    let a = doc.attrs("custom_field")?;
    let f = one_field(&state, &caller, id).await?;
    set_existing(&state, &caller, &f, a).await
}

/// `DELETE /v2/custom_fields/{id}`: answers with the field as it was.
pub async fn delete_field(
    State(state): State<AppState>,
    caller: Caller,
    IdPath(id): IdPath,
) -> ApiResult<JsonApi> {
    let f = one_field(&state, &caller, id).await?;
    let doc = field_doc(&state, &f).await?;
    store::delete_field(&state.db, caller.account.id, id).await?;
    Ok(doc)
}

// ---- through the entity ------------------------------------------------------------------

/// Which entity a nested route serves: 0 shipments, 1 containers, 2 tracking requests.
fn entity_of(e: u8) -> EntityType {
    match e {
        0 => EntityType::Shipment,
        1 => EntityType::Container,
        _ => EntityType::TrackingRequest,
    }
}

async fn nested_entity(
    state: &AppState,
    caller: &Caller,
    e: EntityType,
    raw: &str,
) -> ApiResult<Uuid> {
    let id = uuid_or_404(raw, e.resource_type())?;
    if entity_exists(state, caller, e, id).await? {
        Ok(id)
    } else {
        Err(ApiError::not_found(e.resource_type()))
    }
}

/// The values set on one entity: one per definition, the first 100 (a page's most).
async fn entity_fields(
    state: &AppState,
    caller: &Caller,
    e: EntityType,
    id: Uuid,
) -> ApiResult<Vec<FieldRow>> {
    let f = FieldFilter {
        entity_type: Some(e.as_str().into()),
        entity_id: Some(id),
        definition_id: None,
    };
    let page = boxtrack_core::paging::Page {
        number: 1,
        size: boxtrack_core::paging::MAX_SIZE,
        cursor: None,
    };
    Ok(store::fields(&state.db, caller.account.id, &f, &page)
        .await?
        .rows)
}

async fn nested_field(
    state: &AppState,
    caller: &Caller,
    e: EntityType,
    id: Uuid,
    slug: &str,
) -> ApiResult<FieldRow> {
    entity_fields(state, caller, e, id)
        .await?
        .into_iter()
        .find(|f| f.api_slug == slug)
        .ok_or_else(|| ApiError::not_found("custom field"))
}

/// `GET /v2/{shipments|containers|tracking_requests}/{id}/custom_fields`: every value set on
/// the entity.
pub async fn nested_list<const E: u8>(
    State(state): State<AppState>,
    caller: Caller,
    Path(raw): Path<String>,
) -> ApiResult<JsonApi> {
    let e = entity_of(E);
    let id = nested_entity(&state, &caller, e, &raw).await?;
    let rows = entity_fields(&state, &caller, e, id).await?;
    let data = field_resources(&state, &rows).await?;
    let total = data.len();
    let mut doc = JsonApi::single(Value::Array(data), vec![]);
    doc.0["meta"] = json!({"total": total});
    Ok(doc)
}

/// `POST /v2/{…}/{id}/custom_fields`: `api_slug` and `value`.
pub async fn nested_create<const E: u8>(
    State(state): State<AppState>,
    caller: Caller,
    Path(raw): Path<String>,
    Body(doc): Body<Doc>,
) -> ApiResult<Response> {
    let e = entity_of(E);
    let a = doc.attrs("custom_field")?;
    let id = nested_entity(&state, &caller, e, &raw).await?;
    set_new(&state, &caller, e, id, a).await
}

/// `PATCH /v2/{…}/{id}/custom_fields/{api_slug}`: a new value.
pub async fn nested_update<const E: u8>(
    State(state): State<AppState>,
    caller: Caller,
    Path((raw, slug)): Path<(String, String)>,
    Body(doc): Body<Doc>,
) -> ApiResult<JsonApi> {
    let e = entity_of(E);
    let a = doc.attrs("custom_field")?;
    let id = nested_entity(&state, &caller, e, &raw).await?;
    let f = nested_field(&state, &caller, e, id, &slug).await?;
    set_existing(&state, &caller, &f, a).await
}

/// `DELETE /v2/{…}/{id}/custom_fields/{api_slug}`.
pub async fn nested_delete<const E: u8>(
    State(state): State<AppState>,
    caller: Caller,
    Path((raw, slug)): Path<(String, String)>,
) -> ApiResult<StatusCode> {
    let e = entity_of(E);
    let id = nested_entity(&state, &caller, e, &raw).await?;
    let f = nested_field(&state, &caller, e, id, &slug).await?;
    store::delete_field(&state.db, caller.account.id, f.id).await?;
    Ok(StatusCode::NO_CONTENT)
}

// ---- with a tracking request --------------------------------------------------------------

/// Checks `initial_custom_fields` of a new tracking request (`{"shipment": [{api_slug,
/// value}], "containers": [{api_slug, value, number?}]}`) against the account's definitions;
/// the values to set once the shipment and containers exist.
pub async fn initial_fields(
    state: &AppState,
    caller: &Caller,
    given: Option<&Value>,
) -> ApiResult<Vec<boxtrack_store::tracking::InitialField>> {
    const BASE: &str = "/data/attributes/initial_custom_fields";
    let Some(given) = given.filter(|v| !v.is_null()) else {
        return Ok(Vec::new());
    };
    let Some(obj) = given.as_object() else {
        return Err(ApiError::unprocessable(
            BASE,
            "invalid",
            "initial_custom_fields must be {\"shipment\": […], \"containers\": […]}",
        ));
    };
    let mut out = Vec::new();
    for (key, entity) in obj {
        let e = match key.as_str() {
            "shipment" => EntityType::Shipment,
            "containers" => EntityType::Container,
            other => {
                return Err(ApiError::unprocessable(
                    &format!("{BASE}/{other}"),
                    "invalid",
                    "initial_custom_fields takes shipment and containers",
                ));
            }
        };
        let items = entity.as_array().ok_or_else(|| {
            ApiError::unprocessable(
                &format!("{BASE}/{key}"),
                "invalid",
                format!("{key} must be an array of {{api_slug, value}}"),
            )
        })?;
        for (i, item) in items.iter().enumerate() {
            let at = format!("{BASE}/{key}/{i}");
            let slug = item["api_slug"].as_str().unwrap_or_default();
            let d = store::definition_by_slug(&state.db, caller.account.id, e.as_str(), slug)
                .await?
                .ok_or_else(|| {
                    ApiError::unprocessable(
                        &format!("{at}/api_slug"),
                        "not_found",
                        format!(
                            "no {} custom field definition has api_slug {slug:?}",
                            e.as_str()
                        ),
                    )
                })?;
            let value = checked(state, &d, &item["value"], &format!("{at}/value")).await?;
            let number = match &item["number"] {
                Value::Null => None,
                Value::String(n) if e == EntityType::Container => {
                    Some(n.trim().to_ascii_uppercase())
                }
                _ => {
                    return Err(ApiError::unprocessable(
                        &format!("{at}/number"),
                        "invalid",
                        "number is a container number, for containers only",
                    ));
                }
            };
            out.push(boxtrack_store::tracking::InitialField {
                definition_id: d.id,
                entity_type: e.as_str().to_string(),
                number,
                value,
            });
        }
    }
    Ok(out)
}

// ---- OpenAPI -----------------------------------------------------------------------------

/// The OpenAPI schemas of the resources.
pub fn schemas() -> Vec<(&'static str, Value)> {
    let value = json!({"description": "Depends on the definition's data_type", "oneOf": [{"type": "string"}, {"type": "number"}, {"type": "boolean"}, {"type": "array", "items": {"type": "string"}}, {"type": "object"}, {"type": "null"}]});
    vec![
        (
            "CustomFieldDefinition",
            json!({"type": "object", "required": ["id", "type"], "properties": {
                "id": {"type": "string", "format": "uuid"}, "type": {"const": "custom_field_definition"},
                "attributes": {"type": "object", "properties": {
                    "entity_type": {"enum": ["Shipment", "Container", "TrackingRequest"]}, "api_slug": {"type": "string"},
                    "display_name": {"type": "string"}, "description": {"type": ["string", "null"]},
                    "data_type": {"enum": ["short_text", "number", "date", "datetime", "boolean", "enum", "enum_multi", "reference"]},
                    "reference_type": {"type": ["string", "null"]}, "validation": {"type": ["object", "null"]},
                    "default_format": {"type": ["string", "null"]}, "default_value": value.clone(),
                    "created_at": {"type": "string", "format": "date-time"}, "updated_at": {"type": "string", "format": "date-time"}
                }}
            }}),
        ),
        (
            "CustomFieldOption",
            json!({"type": "object", "required": ["id", "type"], "properties": {
                "id": {"type": "string", "format": "uuid"}, "type": {"const": "custom_field_option"},
                "attributes": {"type": "object", "properties": {"label": {"type": "string"}, "value": {"type": "string"}, "position": {"type": ["integer", "null"]}}}
            }}),
        ),
        (
            "CustomField",
            json!({"type": "object", "required": ["id", "type"], "properties": {
                "id": {"type": "string", "format": "uuid"}, "type": {"const": "custom_field"},
                "attributes": {"type": "object", "properties": {"api_slug": {"type": "string"}, "value": value, "display_value": {"type": ["string", "null"]}}},
                "relationships": {"type": "object", "properties": {"entity": {"$ref": "#/components/schemas/Relationship"}, "definition": {"$ref": "#/components/schemas/Relationship"}}}
            }}),
        ),
    ]
}

/// Documented operations of this module.
pub fn operations() -> Vec<Op> {
    let doc = |kind: &str| json!({"type": "object", "required": ["data"], "properties": {"data": {"type": "object", "properties": {"type": {"const": kind}, "attributes": {"type": "object"}, "relationships": {"type": "object"}}}}});
    let path_param = |name: &str, what: &str| json!({"name": name, "in": "path", "required": true, "schema": {"type": "string"}, "description": what});
    let mut def_list = page_params();
    def_list.extend(query_params(&[
        (
            "filter[entity_type]",
            "Shipment, Container or TrackingRequest",
        ),
        ("filter[data_type]", "A data type"),
        ("filter[display_name]", "Part of the display name"),
    ]));
    let mut field_list = page_params();
    field_list.extend(query_params(&[
        (
            "filter[entity_type]",
            "shipment, container or tracking_request",
        ),
        ("filter[entity_id]", "The entity's id"),
        ("filter[definition_id]", "The definition's id"),
    ]));
    let op = |method: &'static str,
              path: &'static str,
              summary: &str,
              desc: &str,
              params: Vec<Value>,
              req: Option<Value>,
              errs: &[u16],
              ok: (&str, Value)| Op {
        method,
        path,
        op: operation(
            "Custom fields",
            summary,
            desc,
            params,
            req,
            errors(errs),
            ok,
        ),
    };
    let def_id = || vec![id_param("Custom field definition")];
    let opt_ids = || {
        vec![
            id_param("Custom field definition"),
            path_param("option_id", "The option"),
        ]
    };
    let mut ops = vec![
        op(
            "get",
            "/v2/custom_field_definitions",
            "List custom field definitions",
            "The account's definitions, newest first.",
            def_list,
            None,
            &[400, 401, 429],
            (
                "200",
                body("A page of definitions", list_of("CustomFieldDefinition")),
            ),
        ),
        op(
            "post",
            "/v2/custom_field_definitions",
            "Create a custom field definition",
            "`entity_type`, `api_slug` (unique per entity type), `display_name`, `data_type`; optional `description`, `reference_type` (reference fields), `validation` (short_text: max_length; number: min, max; any: required), `default_format`, `default_value`.",
            vec![],
            Some(doc("custom_field_definition")),
            &[400, 401, 415, 422, 429],
            (
                "201",
                body("The definition", single("CustomFieldDefinition")),
            ),
        ),
        op(
            "get",
            "/v2/custom_field_definitions/{id}",
            "Get a custom field definition",
            "With its options.",
            def_id(),
            None,
            &[401, 404, 429],
            (
                "200",
                body("The definition", single("CustomFieldDefinition")),
            ),
        ),
        op(
            "patch",
            "/v2/custom_field_definitions/{id}",
            "Update a custom field definition",
            "display_name, description, validation, default_format, default_value; the slug and types are fixed (422 `immutable`).",
            def_id(),
            Some(doc("custom_field_definition")),
            &[400, 401, 404, 415, 422, 429],
            (
                "200",
                body("The definition", single("CustomFieldDefinition")),
            ),
        ),
        op(
            "delete",
            "/v2/custom_field_definitions/{id}",
            "Delete a custom field definition",
            "With its options and every value set for it; answers with the definition as it was.",
            def_id(),
            None,
            &[401, 404, 429],
            (
                "200",
                body("The deleted definition", single("CustomFieldDefinition")),
            ),
        ),
        op(
            "get",
            "/v2/custom_field_definitions/{id}/options",
            "List custom field options",
            "In position order.",
            def_id(),
            None,
            &[401, 404, 429],
            ("200", body("The options", list_of("CustomFieldOption"))),
        ),
        op(
            "post",
            "/v2/custom_field_definitions/{id}/options",
            "Create a custom field option",
            "`label`, `value` (unique in the definition), `position`; enum and enum_multi definitions only.",
            def_id(),
            Some(doc("custom_field_option")),
            &[400, 401, 404, 415, 422, 429],
            ("201", body("The option", single("CustomFieldOption"))),
        ),
        op(
            "get",
            "/v2/custom_field_definitions/{id}/options/{option_id}",
            "Get a custom field option",
            "One option.",
            opt_ids(),
            None,
            &[401, 404, 429],
            ("200", body("The option", single("CustomFieldOption"))),
        ),
        op(
            "patch",
            "/v2/custom_field_definitions/{id}/options/{option_id}",
            "Update a custom field option",
            "label, value, position.",
            opt_ids(),
            Some(doc("custom_field_option")),
            &[400, 401, 404, 415, 422, 429],
            ("200", body("The option", single("CustomFieldOption"))),
        ),
        op(
            "delete",
            "/v2/custom_field_definitions/{id}/options/{option_id}",
            "Delete a custom field option",
            "Answers with the option as it was.",
            opt_ids(),
            None,
            &[401, 404, 429],
            (
                "200",
                body("The deleted option", single("CustomFieldOption")),
            ),
        ),
        op(
            "get",
            "/v2/custom_fields",
            "List custom fields",
            "Values set on the account's entities, newest first, with `display_value` (option labels, Yes/No).",
            field_list,
            None,
            &[400, 401, 429],
            ("200", body("A page of fields", list_of("CustomField"))),
        ),
        op(
            "post",
            "/v2/custom_fields",
            "Create a custom field",
            "`api_slug`, `value` (checked against the definition) and `relationships.entity` {type, id}.",
            vec![],
            Some(doc("custom_field")),
            &[400, 401, 415, 422, 429],
            ("201", body("The field", single("CustomField"))),
        ),
        op(
            "get",
            "/v2/custom_fields/{id}",
            "Get a custom field",
            "One field.",
            vec![id_param("Custom field")],
            None,
            &[401, 404, 429],
            ("200", body("The field", single("CustomField"))),
        ),
        op(
            "patch",
            "/v2/custom_fields/{id}",
            "Update a custom field",
            "A new `value` (null clears it).",
            vec![id_param("Custom field")],
            Some(doc("custom_field")),
            &[400, 401, 404, 415, 422, 429],
            ("200", body("The field", single("CustomField"))),
        ),
        op(
            "delete",
            "/v2/custom_fields/{id}",
            "Delete a custom field",
            "Answers with the field as it was.",
            vec![id_param("Custom field")],
            None,
            &[401, 404, 429],
            ("200", body("The deleted field", single("CustomField"))),
        ),
    ];
    const NESTED: [(&str, &str); 3] = [
        (
            "/v2/shipments/{id}/custom_fields",
            "/v2/shipments/{id}/custom_fields/{api_slug}",
        ),
        (
            "/v2/containers/{id}/custom_fields",
            "/v2/containers/{id}/custom_fields/{api_slug}",
        ),
        (
            "/v2/tracking_requests/{id}/custom_fields",
            "/v2/tracking_requests/{id}/custom_fields/{api_slug}",
        ),
    ];
    for (base, one) in NESTED {
        let p = || vec![id_param("The shipment, container or tracking request")];
        let ps = || {
            vec![
                id_param("The shipment, container or tracking request"),
                path_param("api_slug", "The definition's api_slug"),
            ]
        };
        ops.push(op(
            "get",
            base,
            "List an entity's custom fields",
            "Every value set on it.",
            p(),
            None,
            &[401, 404, 429],
            ("200", body("The fields", list_of("CustomField"))),
        ));
        ops.push(op(
            "post",
            base,
            "Set an entity's custom field",
            "`api_slug` and `value`.",
            p(),
            Some(doc("custom_field")),
            &[400, 401, 404, 415, 422, 429],
            ("201", body("The field", single("CustomField"))),
        ));
        ops.push(op(
            "patch",
            one,
            "Update an entity's custom field",
            "A new `value`.",
            ps(),
            Some(doc("custom_field")),
            &[400, 401, 404, 415, 422, 429],
            ("200", body("The field", single("CustomField"))),
        ));
        ops.push(op(
            "delete",
            one,
            "Delete an entity's custom field",
            "Removes the value.",
            ps(),
            None,
            &[401, 404, 429],
            ("204", json!({"description": "Deleted"})),
        ));
    }
    ops
}
