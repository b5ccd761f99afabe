//! What the custom-field handlers share: lookups, checks and the resource objects.

use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use boxtrack_app::custom_fields::{self as cases, DefinitionRow, OptionRow};
use boxtrack_core::custom_fields::{self as rules, DataType, EntityType, Rules};
use serde::Deserialize;
use serde_json::{Map, Value};
use uuid::Uuid;

use crate::state::AppState;
use boxtrack_http::auth::Caller;
use boxtrack_http::error::{ApiError, ApiResult};
use boxtrack_http::jsonapi::{JsonApi, QueryParams};
use boxtrack_views::custom_fields;

pub(super) fn uuid_or_404(raw: &str, what: &str) -> ApiResult<Uuid> {
    Uuid::parse_str(raw).map_err(|_| ApiError::not_found(what))
}

pub(super) fn created(doc: JsonApi) -> Response {
    let mut res = doc.into_response();
    *res.status_mut() = StatusCode::CREATED;
    res
}

pub(super) fn text(
    attrs: &Map<String, Value>,
    key: &str,
    max: usize,
    required: bool,
) -> ApiResult<Option<String>> {
    let pointer = format!("/data/attributes/{key}");
    match attrs.get(key) {
        None | Some(Value::Null) if !required => Ok(None),
        // the length as given, then trimmed
        Some(Value::String(s)) if !s.trim().is_empty() && s.chars().count() <= max => {
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
    pub(super) data: DocData,
}

/// The `data` member of a [`Doc`].
#[derive(Deserialize)]
pub struct DocData {
    #[serde(default, rename = "type")]
    pub(super) kind: Option<String>,
    #[serde(default)]
    pub(super) attributes: Map<String, Value>,
    #[serde(default)]
    pub(super) relationships: Option<Value>,
}

impl Doc {
    pub(super) fn attrs(&self, kind: &str) -> ApiResult<&Map<String, Value>> {
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

pub(super) fn definition_resource(d: &DefinitionRow, options: &[OptionRow]) -> Value {
    custom_fields::definition(d, options, None).to_value()
}

pub(super) fn data_type(d: &DefinitionRow) -> DataType {
    DataType::parse(&d.data_type).unwrap_or(DataType::ShortText)
}

pub(super) async fn definition_or_404(
    state: &AppState,
    caller: &Caller,
    id: Uuid,
) -> ApiResult<DefinitionRow> {
    cases::definition(&state.ctx, caller.account.id, id)
        .await?
        .ok_or_else(|| ApiError::not_found("custom field definition"))
}

/// Checks a value against a definition (and its options).
pub(super) async fn checked(
    state: &AppState,
    d: &DefinitionRow,
    value: &Value,
    pointer: &str,
) -> ApiResult<Value> {
    let options: Vec<String> = cases::options(&state.ctx, d.account_id, d.id)
        .await?
        .into_iter()
        .map(|o| o.value)
        .collect();
    rules::check_value(
        &Rules {
            data_type: data_type(d),
            validation: &d.validation,
            options: &options,
            reference_type: d.reference_type.as_deref(),
        },
        value,
    )
    .map_err(|e| ApiError::unprocessable(pointer, "invalid", e))
}

/// `filter[entity_type]` (either spelling), as definitions store it.
pub(super) fn entity_type_filter(q: &QueryParams) -> ApiResult<Option<String>> {
    q.get("filter[entity_type]")
        .map(|e| {
            EntityType::parse(e)
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
