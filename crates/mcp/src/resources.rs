//! The MCP resources: a container by id (a template), the milestone glossary and the query
//! guidance. URIs are `boxtrack://…`; the reference server's spellings (`terminal49://…`,
//! `t49:…`) are read as the same resources, so clients written for it work unchanged.

use crate::protocol::{
    self, Resource, ResourceContents, ResourceTemplate, ResourceTemplates, Resources, RpcError,
    TextContents,
};
use crate::tools;

use boxtrack_app::model::Account;
use boxtrack_http::Front;

/// The glossary's URI.
pub const GLOSSARY_URI: &str = "boxtrack://docs/milestone-glossary";
/// The query guidance's URI.
pub const GUIDANCE_URI: &str = "boxtrack://docs/mcp-query-guidance";
/// The list tools' column catalog's URI.
pub const COLUMNS_URI: &str = "boxtrack://docs/list-display-columns";
/// The container template.
pub const CONTAINER_TEMPLATE: &str = "boxtrack://container/{id}";

const GUIDANCE: &str = include_str!("guides/query-guidance.md");
const COLUMNS: &str = include_str!("guides/list-display-columns.json");

/// `resources/list`.
pub fn list() -> Resources {
    Resources {
        resources: vec![
            Resource {
                uri: GLOSSARY_URI,
                name: "milestone-glossary",
                title: "Milestone Glossary",
                description: "Every event and milestone boxtrack tracks, what it means, and the container attribute it sets.",
                mime_type: "text/markdown",
            },
            Resource {
                uri: GUIDANCE_URI,
                name: "query-guidance",
                title: "MCP Query Guidance",
                description: "Which tool answers which question, and how to read urgency, fees, status, times and pages.",
                mime_type: "text/markdown",
            },
            Resource {
                uri: COLUMNS_URI,
                name: "list-display-columns",
                title: "List Display Column Catalog",
                description: "The columns of list_containers, list_shipments and list_tracking_requests rows: key (a path in the row), label, and what is computed (counts of holds and fees).",
                mime_type: "application/json",
            },
        ],
    }
}

/// `resources/templates/list`.
pub fn templates() -> ResourceTemplates {
    ResourceTemplates {
        resource_templates: vec![ResourceTemplate {
            uri_template: CONTAINER_TEMPLATE,
            name: "container",
            title: "Container Information",
            description: "A compact summary of a container by id: status, equipment, availability, last free days with their urgency, fees, holds and rail.",
            mime_type: "text/markdown",
        }],
    }
}

/// A URI in boxtrack's spelling (`terminal49://x` and `t49:x` are `boxtrack://x`).
pub fn normalize(uri: &str) -> String {
    let uri = uri.trim();
    if let Some(rest) = uri.strip_prefix("terminal49://") {
        format!("boxtrack://{rest}")
    } else if let Some(rest) = uri.strip_prefix("t49:") {
        format!("boxtrack://{rest}")
    } else {
        uri.to_string()
    }
}

/// The glossary, made from the event catalog (so it names every event deliveries carry).
pub fn glossary() -> String {
    use boxtrack_core::webhooks::{CATEGORIES, EVENTS, category, describe};
    let mut text = String::from(
        "# Container milestone & event glossary\n\nWhat each event boxtrack tracks means. Webhooks deliver them by these names; `get_container_transport_events` lists the `container.transport.*` ones as a container's timeline.\n",
    );
    for (id, name) in CATEGORIES {
        text.push_str(&format!("\n## {name}\n\n| event | meaning |\n|---|---|\n"));
        for e in EVENTS.iter().filter(|e| category(e) == id) {
            text.push_str(&format!("| `{e}` | {} |\n", describe(e)));
        }
    }
    text.push_str(
        "\n## Events and the container attributes they set\n\n| event | attribute |\n|---|---|\n\
         | `container.transport.vessel_departed` | `pol_atd_at` (shipment) |\n\
         | `container.transport.vessel_arrived` | `pod_arrived_at`, `pod_ata_at` (shipment) |\n\
         | `container.transport.vessel_discharged` | `pod_discharged_at` |\n\
         | `container.transport.full_out` (at the port) | `pod_full_out_at` |\n\
         | `container.transport.rail_loaded` | `pod_rail_loaded_at` |\n\
         | `container.transport.rail_departed` | `pod_rail_departed_at` |\n\
         | `container.transport.rail_arrived` | `ind_ata_at` |\n\
         | `container.transport.full_out` (inland) | `final_destination_full_out_at` |\n\
         | `container.transport.empty_in` | `empty_terminated_at` |\n\
         \n## Reading them\n\n- A usual import: vessel_loaded, vessel_departed, (transshipment_*), vessel_arrived, vessel_discharged, available, full_out, empty_in.\n\
         - Times are UTC; each event carries the IANA zone of its place.\n\
         - `estimated.*` events are new estimates, not moves.\n\
         - A hold that clears disappears from `holds_at_pod_terminal`; `container.updated` says what changed.\n",
    );
    text
}

/// `resources/read`: the contents, or the JSON-RPC error for an unknown or foreign resource.
pub async fn read(
    state: &Front,
    account: &Account,
    uri: &str,
) -> Result<ResourceContents, RpcError> {
    let uri = normalize(uri);
    let text = |mime: &str, text: String| ResourceContents {
        contents: vec![TextContents {
            uri: uri.clone(),
            mime_type: mime.into(),
            text,
        }],
    };
    if uri == GLOSSARY_URI {
        return Ok(text("text/markdown", glossary()));
    }
    if uri == GUIDANCE_URI {
        return Ok(text("text/markdown", GUIDANCE.to_string()));
    }
    if uri == COLUMNS_URI {
        return Ok(text("application/json", COLUMNS.to_string()));
    }
    if let Some(id) = uri
        .strip_prefix("boxtrack://container/")
        .and_then(|id| uuid::Uuid::parse_str(id).ok())
        && let Ok(markdown) = tools::container_resource_text(state, account, id).await
    {
        return Ok(text("text/markdown", markdown));
    }
    Err(RpcError {
        data: Some(protocol::to_value(NotFound { uri })),
        ..RpcError::new(-32002, "Resource not found")
    })
}

/// The `data` of a resource not found: its URI.
#[derive(serde::Serialize)]
struct NotFound {
    uri: String,
}

#[cfg(test)]
mod tests {
    use boxtrack_core::webhooks;
    use boxtrack_http::doc;

    use super::*;
    use crate::tools::{self, ContainerRow, RequestRow, ShipmentRow};

    #[test]
    fn the_reference_server_s_uris_are_ours() {
        assert_eq!(
            normalize("terminal49://docs/milestone-glossary"),
            GLOSSARY_URI
        );
        assert_eq!(
            normalize("t49:container/0190c0de-0000-7000-8000-000000000000"),
            "boxtrack://container/0190c0de-0000-7000-8000-000000000000"
        );
        assert_eq!(normalize("boxtrack://x"), "boxtrack://x");
    }

    /// Every column the catalog names is a field of the rows the list tools answer (checked
    /// against their output schemas).
    #[test]
    fn the_column_catalog_names_fields_the_rows_have() {
        let catalog: serde_json::Value = serde_json::from_str(COLUMNS).unwrap();
        for (kind, schema) in [
            ("container", doc::schema_of::<ContainerRow>()),
            ("shipment", doc::schema_of::<ShipmentRow>()),
            ("tracking_request", doc::schema_of::<RequestRow>()),
        ] {
            for col in catalog[kind].as_array().unwrap() {
                let path = col["path"].as_str().or(col["key"].as_str()).unwrap();
                let mut at = &schema;
                for part in path.split('.') {
                    at = &at["properties"][part];
                    assert!(!at.is_null(), "{kind}: no field {path}");
                }
            }
        }
    }

    #[test]
    fn the_contracts_name_the_column_catalog_served_here() {
        assert_eq!(tools::COLUMN_CATALOG, COLUMNS_URI);
    }

    #[test]
    fn the_glossary_names_every_event() {
        let g = glossary();
        for e in webhooks::EVENTS {
            assert!(g.contains(&format!("`{e}`")), "{e} missing");
        }
    }
}
