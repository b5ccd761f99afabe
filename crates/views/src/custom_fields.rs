//! Resources of custom fields: definitions, the options of enum definitions, and the values
//! set on shipments, containers and tracking requests.

use boxtrack_store::custom_fields::{DefinitionRow, FieldRow, OptionRow};
use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use serde::Serialize;
use serde_json::Value;
use uuid::Uuid;

use crate::jsonapi::{At, Identifier, Kind, RelatedMany, Resource, ToMany, ToOne};

fn any_value(_: &mut SchemaGenerator) -> Schema {
    json_schema!({"description": "Depends on the definition's data_type", "oneOf": [
        {"type": "string"}, {"type": "number"}, {"type": "boolean"},
        {"type": "array", "items": {"type": "string"}}, {"type": "object"}, {"type": "null"}
    ]})
}

/// The `custom_field_definition` type.
pub struct Definition;

impl Kind for Definition {
    const TYPE: &'static str = "custom_field_definition";
    const COLLECTION: &'static str = "custom_field_definitions";
    const NAME: &'static str = "CustomFieldDefinition";
    type Attributes = DefinitionAttributes;
    type Relationships = DefinitionRelationships;
}

/// Attributes of a custom field definition.
#[derive(Debug, Serialize, JsonSchema)]
pub struct DefinitionAttributes {
    /// What it is set on.
    #[schemars(extend("enum" = ["Shipment", "Container", "TrackingRequest"]))]
    pub entity_type: String,
    /// Its name in the API.
    pub api_slug: String,
    /// Its name for people.
    pub display_name: String,
    /// What it is for.
    pub description: Option<String>,
    /// What its values are.
    #[schemars(extend("enum" = ["short_text", "number", "date", "datetime", "boolean", "enum", "enum_multi", "reference"]))]
    pub data_type: String,
    /// For `reference`: what it refers to.
    pub reference_type: Option<String>,
    /// Checks of its values (by data type).
    #[schemars(extend("type" = ["object", "null"]))]
    pub validation: Value,
    /// How values are shown.
    pub default_format: Option<String>,
    /// The value of an entity that has none set.
    #[schemars(schema_with = "any_value")]
    pub default_value: Value,
    /// The template it was made from: always null (boxtrack has no definition templates;
    /// the reference's live service returns the member).
    pub template_id: Option<String>,
    /// When it was created.
    pub created_at: At,
    /// When it last changed.
    pub updated_at: At,
}

/// Relationships of a custom field definition.
#[derive(Debug, Serialize, JsonSchema)]
pub struct DefinitionRelationships {
    /// The account that owns it (`account`).
    pub account: ToOne,
    /// The values set with it (`custom_field`): listed by `GET
    /// /v2/custom_fields?filter[definition_id]=…`, and in `data` with `include=fields`.
    pub fields: RelatedMany,
    /// Its options (`custom_field_option`), for enums.
    pub options: ToMany,
}

/// The `custom_field_definition` resource with its options' ids, and the ids of its values
/// when the request includes them.
pub fn definition(
    d: &DefinitionRow,
    options: &[OptionRow],
    fields: Option<&[Uuid]>,
) -> Resource<Definition> {
    let mut values = RelatedMany::at(format!("/v2/custom_fields?filter[definition_id]={}", d.id));
    values.data = fields.map(|ids| {
        ids.iter()
            .map(|id| Identifier::new("custom_field", id))
            .collect()
    });
    Resource {
        id: d.id,
        attributes: DefinitionAttributes {
            entity_type: d.entity_type.clone(),
            api_slug: d.api_slug.clone(),
            display_name: d.display_name.clone(),
            description: d.description.clone(),
            data_type: d.data_type.clone(),
            reference_type: d.reference_type.clone(),
            validation: d.validation.clone(),
            default_format: d.default_format.clone(),
            default_value: d.default_value.clone(),
            template_id: None,
            created_at: At(d.created_us),
            updated_at: At(d.updated_us),
        },
        relationships: DefinitionRelationships {
            account: ToOne::new("account", Some(d.account_id)),
            fields: values,
            options: ToMany::new("custom_field_option", options.iter().map(|o| o.id)),
        },
    }
}

/// The `custom_field_option` type.
pub struct CustomFieldOption;

impl Kind for CustomFieldOption {
    const TYPE: &'static str = "custom_field_option";
    const COLLECTION: &'static str = "custom_field_options";
    const NAME: &'static str = "CustomFieldOption";
    type Attributes = OptionAttributes;
    type Relationships = OptionRelationships;
}

/// Attributes of an option of an enum definition.
#[derive(Debug, Serialize, JsonSchema)]
pub struct OptionAttributes {
    /// Its name for people.
    pub label: String,
    /// The value stored.
    pub value: String,
    /// Its place in the list.
    pub position: Option<i64>,
}

/// Relationships of an option.
#[derive(Debug, Serialize, JsonSchema)]
pub struct OptionRelationships {
    /// Its definition (`custom_field_definition`).
    pub definition: ToOne,
}

/// The `custom_field_option` resource as a JSON value; its `links.self` is under its
/// definition.
pub fn option(o: &OptionRow) -> Value {
    let mut r = Resource::<CustomFieldOption> {
        id: o.id,
        attributes: OptionAttributes {
            label: o.label.clone(),
            value: o.value.clone(),
            position: o.position,
        },
        relationships: OptionRelationships {
            definition: ToOne::new("custom_field_definition", Some(o.definition_id)),
        },
    }
    .to_value();
    r["links"]["self"] = Value::String(format!(
        "/v2/custom_field_definitions/{}/options/{}",
        o.definition_id, o.id
    ));
    r
}

/// The `custom_field` type (a value set on an entity).
pub struct CustomField;

impl Kind for CustomField {
    const TYPE: &'static str = "custom_field";
    const COLLECTION: &'static str = "custom_fields";
    const NAME: &'static str = "CustomField";
    type Attributes = FieldAttributes;
    type Relationships = FieldRelationships;
}

/// Attributes of a custom field value.
#[derive(Debug, Serialize, JsonSchema)]
pub struct FieldAttributes {
    /// The definition's name in the API.
    pub api_slug: String,
    /// The value.
    #[schemars(schema_with = "any_value")]
    pub value: Value,
    /// The value as people read it (an option's label, a formatted date).
    pub display_value: Option<String>,
    /// When it was set.
    pub created_at: At,
    /// When it last changed.
    pub updated_at: At,
}

/// Relationships of a custom field value.
#[derive(Debug, Serialize, JsonSchema)]
pub struct FieldRelationships {
    /// What it is set on (`shipment`, `container` or `tracking_request`).
    pub entity: ToOne,
    /// Its definition (`custom_field_definition`).
    pub definition: ToOne,
}

/// The `custom_field` resource; `entity_type` is the entity's resource type and
/// `display_value` how people read the value.
pub fn field(
    f: &FieldRow,
    entity_type: &str,
    display_value: Option<String>,
) -> Resource<CustomField> {
    Resource {
        id: f.id,
        attributes: FieldAttributes {
            api_slug: f.api_slug.clone(),
            value: f.value.clone(),
            display_value,
            created_at: At(f.created_us),
            updated_at: At(f.updated_us),
        },
        relationships: FieldRelationships {
            entity: ToOne::new(entity_type, Some(f.entity_id)),
            definition: ToOne::new("custom_field_definition", Some(f.definition_id)),
        },
    }
}
