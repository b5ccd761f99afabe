//! What boxtrack shows. One function per resource type builds its JSON:API resource object from
//! the store's rows; the HTTP edge, the MCP server and the webhook deliverer all show the same
//! objects because they all call these.
//!
//! - [`jsonapi`]: resource objects and relationships;
//! - [`accounts`]: the account, API keys, parties and webhooks;
//! - [`charges`]: tariffs and calendars;
//! - [`custom_fields`]: custom field definitions, options and values;
//! - [`documents`]: documents and the e-mails they came in;
//! - [`tracking`]: tracking requests, shipments, containers, transport and raw events;
//! - [`reference`]: ports, terminals, metro areas, shipping lines, vessels and their stable ids;
//! - [`notifications`]: the `webhook_notification` resource and the delivered envelope.

// the container resource is one `json!` object of some sixty attributes
#![recursion_limit = "256"]

pub mod accounts;
pub mod charges;
pub mod custom_fields;
pub mod documents;
pub mod json;
pub mod jsonapi;
pub mod notifications;
pub mod reference;
pub mod tracking;

use serde_json::{Map, Value};

/// The schemas of the typed resources, keyed by their names in the OpenAPI document
/// (`Container`, `ContainerAttributes`, …), with `$ref`s into `#/components/schemas`. They
/// describe what is serialized (JSON Schema 2020-12, the dialect of OpenAPI 3.1): a field that
/// is always written is required, an optional one may be null.
pub fn schemas() -> Map<String, Value> {
    use jsonapi::Resource;
    let mut generator = schemars::generate::SchemaSettings::draft2020_12()
        .with(|s| {
            s.definitions_path = "/components/schemas".into();
            s.meta_schema = None;
        })
        .for_serialize()
        .into_generator();
    generator.subschema_for::<Resource<tracking::TrackingRequest>>();
    generator.subschema_for::<Resource<tracking::Shipment>>();
    generator.subschema_for::<Resource<tracking::Container>>();
    generator.subschema_for::<Resource<tracking::TransportEvent>>();
    generator.subschema_for::<Resource<tracking::RawEvent>>();
    generator.subschema_for::<Resource<accounts::Account>>();
    generator.subschema_for::<Resource<accounts::ApiKey>>();
    generator.subschema_for::<Resource<accounts::PublishableKey>>();
    generator.subschema_for::<Resource<accounts::Party>>();
    generator.subschema_for::<Resource<accounts::Webhook>>();
    generator.subschema_for::<Resource<charges::Tariff>>();
    generator.subschema_for::<Resource<charges::Calendar>>();
    generator.subschema_for::<Resource<documents::Document>>();
    generator.subschema_for::<Resource<documents::EmailSubmission>>();
    generator.subschema_for::<Resource<notifications::WebhookNotification>>();
    generator.subschema_for::<notifications::Envelope>();
    generator.subschema_for::<Resource<custom_fields::Definition>>();
    generator.subschema_for::<Resource<custom_fields::CustomFieldOption>>();
    generator.subschema_for::<Resource<custom_fields::CustomField>>();
    generator.subschema_for::<Resource<reference::Port>>();
    generator.subschema_for::<Resource<reference::MetroArea>>();
    generator.subschema_for::<Resource<reference::Terminal>>();
    generator.subschema_for::<Resource<reference::ShippingLine>>();
    generator.subschema_for::<Resource<reference::Vessel>>();
    generator.take_definitions(true)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn refs(v: &Value, out: &mut Vec<String>) {
        match v {
            Value::Object(o) => {
                if let Some(Value::String(r)) = o.get("$ref") {
                    out.push(r.clone());
                }
                o.values().for_each(|v| refs(v, out));
            }
            Value::Array(a) => a.iter().for_each(|v| refs(v, out)),
            _ => {}
        }
    }

    #[test]
    fn every_reference_of_the_derived_schemas_resolves_among_them() {
        let s = schemas();
        let mut found = Vec::new();
        refs(&Value::Object(s.clone()), &mut found);
        assert!(!found.is_empty());
        for r in found {
            let name = r.strip_prefix("#/components/schemas/").unwrap_or(&r);
            assert!(s.contains_key(name), "{r} does not resolve");
        }
    }

    #[test]
    fn attributes_always_written_are_required_and_unknown_ones_may_be_null() {
        let s = schemas();
        let attrs = &s["ContainerAttributes"];
        let required: Vec<&str> = attrs["required"]
            .as_array()
            .map(|a| a.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        for name in [
            "number",
            "ready_for_pickup",
            "pickup_lfd",
            "ind_facility_holds",
        ] {
            assert!(required.contains(&name), "{name} is not required");
        }
        let lfd = attrs["properties"]["pickup_lfd"].to_string();
        assert!(lfd.contains("null") && lfd.contains("date-time"), "{lfd}");
        // to-many relationships too large to list are always there, as links
        let rels = &s["ContainerRelationships"]["required"];
        assert!(rels.to_string().contains("raw_events"));
        assert!(s["RelatedMany"]["required"].to_string().contains("links"));
        assert_eq!(s["Container"]["properties"]["type"]["const"], "container");
    }
}
