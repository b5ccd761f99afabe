//! Custom field values: `/v2/custom_fields`, the same through their entity
//! (`/v2/{shipments|containers|tracking_requests}/{id}/custom_fields`), and the
//! `initial_custom_fields` of a new tracking request.

use axum::extract::{OriginalUri, Path, RawQuery, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::Response;
use boxtrack_app::custom_fields::{self as cases, InitialField, ValueFilter as FieldFilter};
use boxtrack_app::model::FieldRow;
use boxtrack_core::custom_fields::{self as rules, DataType, EntityType};
use serde_json::{Map, Value};
use uuid::Uuid;

use crate::state::AppState;
use boxtrack_core::paging::{self, Page};
use boxtrack_http::auth::Caller;
use boxtrack_http::error::{ApiError, ApiResult};
use boxtrack_http::extract::IdPath;
use boxtrack_http::jsonapi::{Body, Collection, JsonApi, QueryParams, list_response};
use boxtrack_views::custom_fields;

use super::shared::*;

// ---- values ------------------------------------------------------------------------------

pub(super) async fn field_resources(state: &AppState, rows: &[FieldRow]) -> ApiResult<Vec<Value>> {
    let mut labels: std::collections::HashMap<Uuid, Vec<(String, String)>> = Default::default();
    let mut out = Vec::new();
    for f in rows {
        let dt = DataType::parse(&f.data_type).unwrap_or(DataType::ShortText);
        if dt.has_options() && !labels.contains_key(&f.definition_id) {
            let opts = cases::options(&state.ctx, f.account_id, f.definition_id).await?;
            labels.insert(
                f.definition_id,
                opts.into_iter().map(|o| (o.value, o.label)).collect(),
            );
        }
        let empty = Vec::new();
        let l = labels.get(&f.definition_id).unwrap_or(&empty);
        let entity =
            EntityType::parse(&f.entity_type).map_or("shipment", EntityType::resource_type);
        let display = rules::display_value(dt, &f.value, l);
        out.push(custom_fields::field(f, entity, display).to_value());
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
    Ok(cases::entity_exists(&state.ctx, caller.account.id, e, id).await?)
}

async fn one_field(state: &AppState, caller: &Caller, id: Uuid) -> ApiResult<FieldRow> {
    cases::value(&state.ctx, caller.account.id, id)
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
    let d = cases::definition_by_slug(&state.ctx, caller.account.id, e.as_str(), slug)
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
    let Some(id) = cases::create_value(&state.ctx, &d, entity_id, &value).await? else {
        return Err(ApiError::unprocessable(
            "/data/attributes/api_slug",
            "duplicate",
            format!(
                "{slug:?} is set on this {} already; PATCH it",
                e.resource_type()
            ),
        ));
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
    let entity_type = entity_type_filter(&q)?;
    let f = FieldFilter {
        entity_type,
        entity_id: q.uuid("filter[entity_id]")?,
        definition_id: q.uuid("filter[definition_id]")?,
    };
    let listed = cases::values(&state.ctx, caller.account.id, &f, &page).await?;
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
    cases::set_value(&state.ctx, caller.account.id, f.id, &value).await?;
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
    cases::delete_value(&state.ctx, caller.account.id, id).await?;
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
    let page = Page {
        number: 1,
        size: paging::MAX_SIZE,
        cursor: None,
    };
    Ok(cases::values(&state.ctx, caller.account.id, &f, &page)
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
    Ok(JsonApi::of(&Collection::counted(data)))
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
    cases::delete_value(&state.ctx, caller.account.id, f.id).await?;
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
) -> ApiResult<Vec<InitialField>> {
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
            let d = cases::definition_by_slug(&state.ctx, caller.account.id, e.as_str(), slug)
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
            out.push(InitialField {
                definition_id: d.id,
                entity_type: e.as_str().to_string(),
                number,
                value,
            });
        }
    }
    Ok(out)
}
