//! Custom field values of one entity, as the tools show them.

use super::error::ToolError;
use boxtrack_app::custom_fields::{self, Labelled};
use boxtrack_app::model::Account;
use boxtrack_core::custom_fields::{self as rules, DataType};
use boxtrack_http::Front;
use uuid::Uuid;

use schemars::JsonSchema;
use serde::Serialize;

/// A custom field's value.
#[derive(Debug, Serialize, JsonSchema)]
pub struct CustomFieldValue {
    /// Its label.
    pub name: Option<String>,
    /// Its key.
    pub slug: String,
    /// The value.
    pub value: serde_json::Value,
    /// How people read it.
    pub display_value: Option<String>,
    /// Its type.
    pub data_type: Option<String>,
}

/// The custom field values set on one entity (`Shipment`, `Container`, `TrackingRequest`),
/// each with its label and how people read it.
pub(super) async fn of(
    state: &Front,
    account: &Account,
    entity_type: &str,
    entity_id: Uuid,
) -> Result<Vec<CustomFieldValue>, ToolError> {
    let rows = custom_fields::values_of(&state.ctx.db, account.id, entity_type, entity_id)
        .await
        .map_err(ToolError::from_app("custom fields"))?;
    let mut out = Vec::with_capacity(rows.len());
    for Labelled { field: f, labels } in rows {
        let dt = DataType::parse(&f.data_type).unwrap_or(DataType::ShortText);
        out.push(CustomFieldValue {
            name: Some(f.display_name.clone()),
            slug: f.api_slug.clone(),
            display_value: rules::display_value(dt, &f.value, &labels),
            value: f.value,
            data_type: Some(f.data_type),
        });
    }
    Ok(out)
}
