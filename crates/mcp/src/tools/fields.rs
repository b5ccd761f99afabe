//! Custom field values of one entity, as the tools show them.

use super::error::ToolError;
use boxtrack_core::custom_fields::{self as rules, DataType};
use boxtrack_core::paging::{MAX_SIZE, Page};
use boxtrack_http::Front;
use boxtrack_store::accounts::Account;
use boxtrack_store::custom_fields::{self as store, FieldFilter};
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
    let failed = ToolError::reading("custom fields");
    let rows = store::fields(
        &state.ctx.db,
        account.id,
        &FieldFilter {
            entity_type: Some(entity_type.to_string()),
            entity_id: Some(entity_id),
            definition_id: None,
        },
        &Page::first(MAX_SIZE),
    )
    .await
    .map_err(failed)?
    .rows;
    let mut out = Vec::with_capacity(rows.len());
    for f in rows {
        let dt = DataType::parse(&f.data_type).unwrap_or(DataType::ShortText);
        let labels: Vec<(String, String)> = if dt.has_options() {
            store::options(&state.ctx.db, f.definition_id)
                .await
                .map_err(failed)?
                .into_iter()
                .map(|o| (o.value, o.label))
                .collect()
        } else {
            Vec::new()
        };
        out.push(CustomFieldValue {
            name: Some(f.display_name.clone()),
            slug: f.api_slug.clone(),
            display_value: rules::display_value(dt, &f.value.0, &labels),
            value: f.value.0,
            data_type: Some(f.data_type),
        });
    }
    Ok(out)
}
