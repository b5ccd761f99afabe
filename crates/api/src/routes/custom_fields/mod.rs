//! Custom fields: `/v2/custom_field_definitions` (with `…/{definition_id}/options` for
//! enums), `/v2/custom_fields`, and the same values through their entity:
//! `/v2/{shipments|containers|tracking_requests}/{id}/custom_fields[/{api_slug}]`.

use boxtrack_core::custom_fields::{DataType, EntityType};
use serde_json::{Value, json};

use crate::doc::{
    Op, Q, all_of, body, errors, id_param, list_of, operation, page_params, single, typed_params,
};

mod definitions;
mod options;
mod shared;
mod values;

pub use definitions::*;
pub use options::*;
pub use values::*;

// ---- OpenAPI -----------------------------------------------------------------------------

/// Documented operations of this module.
pub fn operations() -> Vec<Op> {
    let doc = |kind: &str| json!({"type": "object", "required": ["data"], "properties": {"data": {"type": "object", "properties": {"type": {"type": "string", "const": kind}, "attributes": {"type": "object"}, "relationships": {"type": "object"}}}}});
    let path_param = |name: &str, what: &str| json!({"name": name, "in": "path", "required": true, "schema": {"type": "string"}, "description": what});
    let mut def_list = page_params();
    let entity_types = || {
        Q::OneOf(
            EntityType::ALL
                .iter()
                .flat_map(|e| [e.as_str(), e.resource_type()])
                .collect(),
        )
    };
    def_list.extend(typed_params(&[
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
    ]));
    let mut field_list = page_params();
    field_list.extend(typed_params(&[
        (
            "filter[entity_type]",
            entity_types(),
            "shipment, container or tracking_request (or Shipment, Container, TrackingRequest)",
        ),
        ("filter[entity_id]", Q::Uuid, "The entity's id"),
        ("filter[definition_id]", Q::Uuid, "The definition's id"),
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
            ("200", body("The options", all_of("CustomFieldOption"))),
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
            ("200", body("The fields", all_of("CustomField"))),
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

/// This module's routes with the documentation of their operations.
pub fn routes() -> crate::doc::Routes {
    crate::doc::Routes::new(operations)
        .route(
            "/v2/custom_field_definitions",
            axum::routing::get(list_definitions).post(create_definition),
        )
        .route(
            "/v2/custom_field_definitions/{id}",
            axum::routing::get(show_definition)
                .patch(update_definition)
                .delete(delete_definition),
        )
        .route(
            "/v2/custom_field_definitions/{id}/options",
            axum::routing::get(list_options).post(create_option),
        )
        .route(
            "/v2/custom_field_definitions/{id}/options/{option_id}",
            axum::routing::get(show_option)
                .patch(update_option)
                .delete(delete_option),
        )
        .route(
            "/v2/custom_fields",
            axum::routing::get(list_fields).post(create_field),
        )
        .route(
            "/v2/custom_fields/{id}",
            axum::routing::get(show_field)
                .patch(update_field)
                .delete(delete_field),
        )
        .route(
            "/v2/shipments/{id}/custom_fields",
            axum::routing::get(nested_list::<0>).post(nested_create::<0>),
        )
        .route(
            "/v2/shipments/{id}/custom_fields/{api_slug}",
            axum::routing::patch(nested_update::<0>).delete(nested_delete::<0>),
        )
        .route(
            "/v2/containers/{id}/custom_fields",
            axum::routing::get(nested_list::<1>).post(nested_create::<1>),
        )
        .route(
            "/v2/containers/{id}/custom_fields/{api_slug}",
            axum::routing::patch(nested_update::<1>).delete(nested_delete::<1>),
        )
        .route(
            "/v2/tracking_requests/{id}/custom_fields",
            axum::routing::get(nested_list::<2>).post(nested_create::<2>),
        )
        .route(
            "/v2/tracking_requests/{id}/custom_fields/{api_slug}",
            axum::routing::patch(nested_update::<2>).delete(nested_delete::<2>),
        )
}
