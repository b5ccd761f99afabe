//! Custom fields as the front ends read them: the values set on one entity with the labels of
//! their options, and the conditions a list takes on them by a field's name.

use std::collections::BTreeMap;

use boxtrack_core::custom_fields::{DataType, EntityType};
use boxtrack_core::paging::{MAX_SIZE, Page};
use boxtrack_store::Db;
use boxtrack_store::custom_fields::{self as store, DefinitionRow, FieldFilter};
use boxtrack_store::reads::CustomCond;
use uuid::Uuid;

pub use boxtrack_store::custom_fields::FieldRow;

use crate::AppError;

/// A value set on an entity, with the labels of its definition's options (value, label).
#[derive(Debug, Clone)]
pub struct Labelled {
    /// The value and its definition's name, key and type.
    pub field: FieldRow,
    /// The options' values and labels (none for a field without options).
    pub labels: Vec<(String, String)>,
}

/// The custom field values set on one entity (`Shipment`, `Container`, `TrackingRequest`),
/// each with its options' labels.
pub async fn values_of(
    db: &Db,
    account_id: Uuid,
    entity_type: &str,
    entity_id: Uuid,
) -> Result<Vec<Labelled>, AppError> {
    let of = FieldFilter {
        entity_type: Some(entity_type.to_string()),
        entity_id: Some(entity_id),
        definition_id: None,
    };
    let rows = store::fields(db, account_id, &of, &Page::first(MAX_SIZE))
        .await?
        .rows;
    let mut out = Vec::with_capacity(rows.len());
    for field in rows {
        let options = DataType::parse(&field.data_type).is_some_and(DataType::has_options);
        let labels = if options {
            store::options(db, field.definition_id)
                .await?
                .into_iter()
                .map(|o| (o.value, o.label))
                .collect()
        } else {
            Vec::new()
        };
        out.push(Labelled { field, labels });
    }
    Ok(out)
}

/// A custom field a list filtered on, as the answer reports it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FieldUsed {
    /// The name asked for.
    pub field: String,
    /// The field's key.
    pub api_slug: String,
    /// Its type.
    pub data_type: String,
    /// The value asked for.
    pub value: String,
}

/// Whether a definition can filter a container list: a container's or a shipment's text or
/// option field.
fn filterable(d: &DefinitionRow) -> bool {
    [EntityType::Container, EntityType::Shipment]
        .iter()
        .any(|e| e.as_str() == d.entity_type)
        && [DataType::ShortText, DataType::Enum, DataType::EnumMulti]
            .iter()
            .any(|t| t.as_str() == d.data_type)
}

/// An invalid `custom_fields` condition, saying why.
fn invalid(why: String) -> AppError {
    AppError::Invalid {
        param: "custom_fields".into(),
        detail: format!("Invalid list filter \"custom_fields\": {why}"),
    }
}

/// The conditions on custom fields asked by name (`{"Sales Rep": "Ann"}`, by display name or
/// key): text fields match containers whose own or shipment value contains the text, option
/// fields an option's value; values separated by commas mean any of them; `@exists` /
/// `@not_exists` test presence. Fields of other types are refused, as unknown names are,
/// naming the fields that can filter.
pub async fn conditions(
    db: &Db,
    account_id: Uuid,
    asked: &BTreeMap<String, String>,
) -> Result<(Vec<CustomCond>, Vec<FieldUsed>), AppError> {
    if asked.is_empty() {
        return Ok((Vec::new(), Vec::new()));
    }
    let defs = store::definitions(db, account_id, &Default::default(), &Page::first(MAX_SIZE))
        .await?
        .rows;
    let mut conds = Vec::new();
    let mut used = Vec::new();
    for (name, value) in asked {
        let named: Vec<&DefinitionRow> = defs
            .iter()
            .filter(|d| d.api_slug == *name || d.display_name.eq_ignore_ascii_case(name.trim()))
            .collect();
        let usable: Vec<&DefinitionRow> = named.iter().copied().filter(|d| filterable(d)).collect();
        let Some(first) = usable.first() else {
            let mut names: Vec<String> = defs
                .iter()
                .filter(|d| filterable(d))
                .map(|d| format!("{} ({})", d.display_name, d.api_slug))
                .collect();
            names.sort();
            names.dedup();
            let why = if named.is_empty() {
                "no such custom field"
            } else {
                "only text and option fields filter"
            };
            let names = if names.is_empty() {
                "none".to_string()
            } else {
                names.join(", ")
            };
            return Err(invalid(format!(
                "{name:?}: {why}. Fields that filter: {names}."
            )));
        };
        let Some(text) = Some(value.trim()).filter(|t| !t.is_empty()) else {
            return Err(invalid(format!(
                "the value of {name:?} is text, several separated by commas, @exists or @not_exists."
            )));
        };
        let known = match text {
            "@exists" => Some(true),
            "@not_exists" => Some(false),
            _ => None,
        };
        conds.push(CustomCond {
            definitions: usable.iter().map(|d| d.id).collect(),
            any_of: if known.is_some() {
                Vec::new()
            } else {
                text.split(',')
                    .map(|x| x.trim().to_string())
                    .filter(|x| !x.is_empty())
                    .collect()
            },
            options: first.data_type != DataType::ShortText.as_str(),
            known,
        });
        used.push(FieldUsed {
            field: name.clone(),
            api_slug: first.api_slug.clone(),
            data_type: first.data_type.clone(),
            value: text.to_string(),
        });
    }
    Ok((conds, used))
}
