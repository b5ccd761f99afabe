//! Custom fields: `/v2/custom_field_definitions` (with `…/{definition_id}/options` for
//! enums), `/v2/custom_fields`, and the same values through their entity:
//! `/v2/{shipments|containers|tracking_requests}/{id}/custom_fields[/{api_slug}]`.

use boxtrack_core::custom_fields::{DataType, EntityType};

use boxtrack_http::schema::{Param, Schema};

use crate::state::Routes;
use boxtrack_http::doc::{Doc, Q, all_of, body, list_of, single, typed_params};

mod definitions;
mod options;
mod shared;
mod values;

pub use definitions::*;
pub use options::*;
pub use values::*;

// ---- OpenAPI -----------------------------------------------------------------------------

/// A write's request document of this resource type.
fn write_doc(kind: &str) -> Schema {
    let data = Schema::object()
        .prop("type", Schema::exactly(kind))
        .prop("attributes", Schema::object())
        .prop("relationships", Schema::object());
    Schema::record(&[("data", data)])
}

/// The entity types a filter takes, in both spellings.
fn entity_types() -> Q {
    Q::OneOf(
        EntityType::ALL
            .iter()
            .flat_map(|e| [e.as_str(), e.resource_type()])
            .collect(),
    )
}

/// The filters of the definition list.
fn definition_filters() -> Vec<Param> {
    typed_params(&[
        (
            "filter[entity_type]",
            entity_types(),
            "Shipment, Container or TrackingRequest (or shipment, container, tracking_request)",
        ),
        (
            "filter[data_type]",
            Q::OneOf(DataType::ALL.map(DataType::as_str).to_vec()),
            "A data type",
        ),
        ("filter[display_name]", Q::Text, "Part of the display name"),
    ])
}

/// The filters of the field list.
fn field_filters() -> Vec<Param> {
    typed_params(&[
        (
            "filter[entity_type]",
            entity_types(),
            "shipment, container or tracking_request (or Shipment, Container, TrackingRequest)",
        ),
        ("filter[entity_id]", Q::Uuid, "The entity's id"),
        ("filter[definition_id]", Q::Uuid, "The definition's id"),
    ])
}

/// An operation of this module: its tag, summary and description.
fn op(summary: &str, description: &str) -> Doc {
    Doc::new("Custom fields", summary).about(description)
}

/// An operation on one definition's options: its summary and description.
fn option_op(summary: &str, description: &str) -> Doc {
    op(summary, description)
        .id("Custom field definition")
        .path_text("option_id", "The option")
}

/// An operation on an entity's own custom fields.
fn nested(summary: &str, description: &str) -> Doc {
    op(summary, description).id("The shipment, container or tracking request")
}

/// An operation on one of an entity's own custom fields, by its slug.
fn nested_one(summary: &str, description: &str) -> Doc {
    nested(summary, description).path_text("api_slug", "The definition's api_slug")
}

/// The custom-field operations of one kind of entity (`E`: 0 shipments, 1 containers, 2
/// tracking requests), at `base` and `one`.
fn entity_fields<const E: u8>(routes: Routes, base: &'static str, one: &'static str) -> Routes {
    // the reference's operationIds name the entity
    const ENTITY: [&str; 3] = ["shipments", "containers", "tracking-requests"];
    routes
        .get(base, nested_list::<E>, || {
            nested("List an entity's custom fields", "Every value set on it.")
                .reference_id(&format!("get-{}-custom-fields", ENTITY[usize::from(E)]))
                .errors(&[401, 404, 429])
                .ok("The fields", all_of("CustomField"))
        })
        .post(base, nested_create::<E>, || {
            nested("Set an entity's custom field", "`api_slug` and `value`.")
                .reference_id(&format!("post-{}-custom-fields", ENTITY[usize::from(E)]))
                .body_schema(write_doc("custom_field"))
                .errors(&[400, 401, 404, 415, 422, 429])
                .answer("201", body("The field", single("CustomField")))
        })
        .patch(one, nested_update::<E>, || {
            nested_one("Update an entity's custom field", "A new `value`.")
                .reference_id(&format!(
                    "patch-{}-custom-fields-api-slug",
                    ENTITY[usize::from(E)]
                ))
                .body_schema(write_doc("custom_field"))
                .errors(&[400, 401, 404, 415, 422, 429])
                .ok("The field", single("CustomField"))
        })
        .delete(one, nested_delete::<E>, || {
            nested_one("Delete an entity's custom field", "Removes the value.")
                .reference_id(&format!(
                    "delete-{}-custom-fields-api-slug",
                    ENTITY[usize::from(E)]
                ))
                .errors(&[401, 404, 429])
                .answer("204", Doc::empty_answer("Deleted"))
        })
}

/// The definitions and their options.
fn definition_routes(routes: Routes) -> Routes {
    routes
        .get("/v2/custom_field_definitions", list_definitions, || {
            op("List custom field definitions", "The account's definitions, newest first; `include=account,options,fields` adds the account, their options and the values set with them.")
                .paged()
                .params(definition_filters())
                .include(definitions::DEFINITION_INCLUDES)
                .errors(&[400, 401, 429])
                .ok("A page of definitions", list_of("CustomFieldDefinition"))
                .reference_id("get-custom-field-definitions")
        })
        .post("/v2/custom_field_definitions", create_definition, || {
            op("Create a custom field definition", "`entity_type`, `api_slug` (unique per entity type), `display_name`, `data_type`; optional `description`, `reference_type` (reference fields), `validation` (short_text: max_length; number: min, max; any: required), `default_format`, `default_value`.")
                .body_schema(write_doc("custom_field_definition"))
                .errors(&[400, 401, 415, 422, 429])
                .answer("201", body("The definition", single("CustomFieldDefinition")))
                .reference_id("post-custom-field-definitions")
        })
        .get("/v2/custom_field_definitions/{id}", show_definition, || {
            op("Get a custom field definition", "With its options' ids; `include=account` adds the account, `include=options` the options, `include=fields` every value set with it (`GET /v2/custom_fields?filter[definition_id]=…` pages them).")
                .id("Custom field definition")
                .include(definitions::DEFINITION_INCLUDES)
                .errors(&[401, 404, 429])
                .ok("The definition", single("CustomFieldDefinition"))
                .reference_id("get-custom-field-definitions-id")
        })
        .patch("/v2/custom_field_definitions/{id}", update_definition, || {
            op("Update a custom field definition", "display_name, description, validation, default_format, default_value; the slug and types are fixed (422 `immutable`).")
                .id("Custom field definition")
                .body_schema(write_doc("custom_field_definition"))
                .errors(&[400, 401, 404, 415, 422, 429])
                .ok("The definition", single("CustomFieldDefinition"))
                .reference_id("patch-custom-field-definitions-id")
        })
        .delete("/v2/custom_field_definitions/{id}", delete_definition, || {
            op("Delete a custom field definition", "With its options and every value set for it; answers with the definition as it was.")
                .id("Custom field definition")
                .errors(&[401, 404, 429])
                .ok("The deleted definition", single("CustomFieldDefinition"))
                .reference_id("delete-custom-field-definitions-id")
        })
        .get("/v2/custom_field_definitions/{id}/options", list_options, || {
            op("List custom field options", "In position order, paged by number like every list (`page[number]`, `page[size]`).")
                .id("Custom field definition")
                .paged_by_number()
                .errors(&[400, 401, 404, 429])
                .ok("A page of options", list_of("CustomFieldOption"))
                .reference_id("get-custom-field-options")
        })
        .post("/v2/custom_field_definitions/{id}/options", create_option, || {
            op("Create a custom field option", "`label`, `value` (unique in the definition), `position`; enum and enum_multi definitions only.")
                .id("Custom field definition")
                .body_schema(write_doc("custom_field_option"))
                .errors(&[400, 401, 404, 415, 422, 429])
                .answer("201", body("The option", single("CustomFieldOption")))
                .reference_id("post-custom-field-options")
        })
        .get("/v2/custom_field_definitions/{id}/options/{option_id}", show_option, || {
            option_op("Get a custom field option", "One option.")
                .errors(&[401, 404, 429])
                .ok("The option", single("CustomFieldOption"))
                .reference_id("get-custom-field-options-id")
        })
        .patch("/v2/custom_field_definitions/{id}/options/{option_id}", update_option, || {
            option_op("Update a custom field option", "label, value, position.")
                .body_schema(write_doc("custom_field_option"))
                .errors(&[400, 401, 404, 415, 422, 429])
                .ok("The option", single("CustomFieldOption"))
                .reference_id("patch-custom-field-options-id")
        })
        .delete("/v2/custom_field_definitions/{id}/options/{option_id}", delete_option, || {
            option_op("Delete a custom field option", "Answers with the option as it was.")
                .errors(&[401, 404, 429])
                .ok("The deleted option", single("CustomFieldOption"))
                .reference_id("delete-custom-field-options-id")
        })
}

/// The values, by id.
fn field_routes(routes: Routes) -> Routes {
    routes
        .get("/v2/custom_fields", list_fields, || {
            op("List custom fields", "Values set on the account's entities, newest first, with `display_value` (option labels, Yes/No).")
                .paged()
                .params(field_filters())
                .errors(&[400, 401, 429])
                .ok("A page of fields", list_of("CustomField"))
                .reference_id("get-custom-fields")
        })
        .post("/v2/custom_fields", create_field, || {
            op("Create a custom field", "`api_slug`, `value` (checked against the definition) and `relationships.entity` {type, id}.")
                .body_schema(write_doc("custom_field"))
                .errors(&[400, 401, 415, 422, 429])
                .answer("201", body("The field", single("CustomField")))
                .reference_id("post-custom-fields")
        })
        .get("/v2/custom_fields/{id}", show_field, || {
            op("Get a custom field", "One field.")
                .id("Custom field")
                .errors(&[401, 404, 429])
                .ok("The field", single("CustomField"))
                .reference_id("get-custom-fields-id")
        })
        .patch("/v2/custom_fields/{id}", update_field, || {
            op("Update a custom field", "A new `value` (null clears it).")
                .id("Custom field")
                .body_schema(write_doc("custom_field"))
                .errors(&[400, 401, 404, 415, 422, 429])
                .ok("The field", single("CustomField"))
                .reference_id("patch-custom-fields-id")
        })
        .delete("/v2/custom_fields/{id}", delete_field, || {
            op("Delete a custom field", "Answers with the field as it was.")
                .id("Custom field")
                .errors(&[401, 404, 429])
                .ok("The deleted field", single("CustomField"))
                .reference_id("delete-custom-fields-id")
        })
}

/// This module's operations, each declared with its route and handler.
pub fn routes() -> Routes {
    let r = field_routes(definition_routes(Routes::default()));
    let r = entity_fields::<0>(
        r,
        "/v2/shipments/{id}/custom_fields",
        "/v2/shipments/{id}/custom_fields/{api_slug}",
    );
    let r = entity_fields::<1>(
        r,
        "/v2/containers/{id}/custom_fields",
        "/v2/containers/{id}/custom_fields/{api_slug}",
    );
    entity_fields::<2>(
        r,
        "/v2/tracking_requests/{id}/custom_fields",
        "/v2/tracking_requests/{id}/custom_fields/{api_slug}",
    )
}
