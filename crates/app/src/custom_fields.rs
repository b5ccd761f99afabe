//! Custom fields as the front ends read them: the values set on one entity with the labels of
//! their options, and the conditions a list takes on them by a field's name.

use std::collections::BTreeMap;

use boxtrack_core::custom_fields::{DataType, EntityType};
use boxtrack_core::paging::{MAX_SIZE, Page};
use boxtrack_store::custom_fields::{self as store, FieldFilter};
use boxtrack_store::list::Listed;
use boxtrack_store::reads::{self, CustomCond};
use boxtrack_store::{Db, StoreError, tracking};
use uuid::Uuid;

pub use boxtrack_store::custom_fields::FieldRow;

use crate::AppError;
use crate::ctx::Ctx;

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
            store::options(db, account_id, field.definition_id)
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

// ---- the stored definitions, options and values, as `/v2/custom_field*` changes them ------

pub use boxtrack_store::custom_fields::FieldFilter as ValueFilter;
/// What a custom field is (its definition), what narrows a list of them, one option, what
/// narrows a list of values, and a value set when a tracking request is made.
pub use boxtrack_store::custom_fields::{DefinitionFilter, DefinitionRow, Json, OptionRow};
pub use boxtrack_store::tracking::InitialField;

/// `Ok(false)` for a write the store refused as a duplicate, else the write's outcome.
fn unless_duplicate(r: Result<(), StoreError>) -> Result<bool, AppError> {
    match r {
        Ok(()) => Ok(true),
        Err(StoreError::Duplicate(_)) => Ok(false),
        Err(e) => Err(e.into()),
    }
}

/// A page of the account's definitions that `filter` keeps.
pub async fn definitions(
    ctx: &Ctx,
    account_id: Uuid,
    filter: &DefinitionFilter,
    page: &Page,
) -> Result<Listed<DefinitionRow>, AppError> {
    Ok(store::definitions(&ctx.db, account_id, filter, page).await?)
}

/// One of the account's definitions.
pub async fn definition(
    ctx: &Ctx,
    account_id: Uuid,
    id: Uuid,
) -> Result<Option<DefinitionRow>, AppError> {
    Ok(store::definition(&ctx.db, account_id, id).await?)
}

/// The account's definition of an entity type by its key.
pub async fn definition_by_slug(
    ctx: &Ctx,
    account_id: Uuid,
    entity_type: &str,
    api_slug: &str,
) -> Result<Option<DefinitionRow>, AppError> {
    Ok(store::definition_by_slug(&ctx.db, account_id, entity_type, api_slug).await?)
}

/// Stores a new definition; `false` when its key is taken for its entity type.
pub async fn create_definition(ctx: &Ctx, d: &DefinitionRow) -> Result<bool, AppError> {
    unless_duplicate(store::create_definition(&ctx.db, d).await)
}

/// Stores a changed definition.
pub async fn update_definition(ctx: &Ctx, d: &DefinitionRow) -> Result<(), AppError> {
    Ok(store::update_definition(&ctx.db, d).await?)
}

/// Deletes one of the account's definitions with its options and values; whether it was there.
pub async fn delete_definition(ctx: &Ctx, account_id: Uuid, id: Uuid) -> Result<bool, AppError> {
    Ok(store::delete_definition(&ctx.db, account_id, id).await?)
}

/// A definition's options, in their order.
pub async fn options(
    ctx: &Ctx,
    account_id: Uuid,
    definition_id: Uuid,
) -> Result<Vec<OptionRow>, AppError> {
    Ok(store::options(&ctx.db, account_id, definition_id).await?)
}

/// Stores an option (`create`: a new one); `false` when its value is taken.
pub async fn save_option(
    ctx: &Ctx,
    account_id: Uuid,
    o: &OptionRow,
    create: bool,
) -> Result<bool, AppError> {
    unless_duplicate(store::save_option(&ctx.db, account_id, o, create).await)
}

/// Deletes an option of a definition; whether it was there.
pub async fn delete_option(
    ctx: &Ctx,
    account_id: Uuid,
    definition_id: Uuid,
    id: Uuid,
) -> Result<bool, AppError> {
    Ok(store::delete_option(&ctx.db, account_id, definition_id, id).await?)
}

/// One of the account's values.
pub async fn value(ctx: &Ctx, account_id: Uuid, id: Uuid) -> Result<Option<FieldRow>, AppError> {
    Ok(store::field(&ctx.db, account_id, id).await?)
}

/// A page of the account's values that `filter` keeps.
pub async fn values(
    ctx: &Ctx,
    account_id: Uuid,
    filter: &ValueFilter,
    page: &Page,
) -> Result<Listed<FieldRow>, AppError> {
    Ok(store::fields(&ctx.db, account_id, filter, page).await?)
}

/// Every value of one definition.
pub async fn values_of_definition(
    ctx: &Ctx,
    account_id: Uuid,
    definition_id: Uuid,
) -> Result<Vec<FieldRow>, AppError> {
    Ok(store::fields_of_definition(&ctx.db, account_id, definition_id).await?)
}

/// Sets a new value of `d` on an entity: its id, or `None` when the entity has one already.
pub async fn create_value(
    ctx: &Ctx,
    d: &DefinitionRow,
    entity_id: Uuid,
    value: &serde_json::Value,
) -> Result<Option<Uuid>, AppError> {
    match store::create_field(&ctx.db, d, entity_id, value).await {
        Ok(id) => Ok(Some(id)),
        Err(StoreError::Duplicate(_)) => Ok(None),
        Err(e) => Err(e.into()),
    }
}

/// Changes one of the account's values.
pub async fn set_value(
    ctx: &Ctx,
    account_id: Uuid,
    id: Uuid,
    value: &serde_json::Value,
) -> Result<(), AppError> {
    Ok(store::set_value(&ctx.db, account_id, id, value).await?)
}

/// Deletes one of the account's values; whether it was there.
pub async fn delete_value(ctx: &Ctx, account_id: Uuid, id: Uuid) -> Result<bool, AppError> {
    Ok(store::delete_field(&ctx.db, account_id, id).await?)
}

/// Whether the account has this entity (a value can be set only on one it has).
pub async fn entity_exists(
    ctx: &Ctx,
    account_id: Uuid,
    entity: EntityType,
    id: Uuid,
) -> Result<bool, AppError> {
    let db = &ctx.db;
    Ok(match entity {
        EntityType::Shipment => reads::shipment(db, account_id, id).await?.is_some(),
        EntityType::Container => reads::container(db, account_id, id).await?.is_some(),
        EntityType::TrackingRequest => tracking::get_request(db, account_id, id).await?.is_some(),
    })
}
