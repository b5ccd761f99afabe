//! `search_container` on the read layer: the account's containers and shipments whose
//! number or reference numbers match, best first (ranked as `GET /v2/search` ranks them), in
//! the reference MCP server's shape.

use super::error::ToolError;
use boxtrack_app::model::Account;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::tool::{Cx, Tool};

/// `search_container`'s arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SearchInput {
    /// One container number, booking number, bill of lading number or customer reference (at most 128 characters); an identifier only, never a message
    #[schemars(length(min = 1, max = 128))]
    pub query: String,
}

/// `search_container`.
pub struct SearchContainer;

impl Tool for SearchContainer {
    const GUIDE: super::contract::Guide = super::guides::SEARCH;
    type Input = SearchInput;
    type Output = SearchAnswer;
    const NAME: &'static str = "search_container";
    const TITLE: &'static str = "Search Containers";
    const DESCRIPTION: &'static str = "Search for containers and shipments by container number, booking number, bill of lading or reference number, exact matches first. Returns the account's own records; use get_container or get_shipment_details with a returned id for the details. Pass one identifier, never a message.";

    async fn call(cx: &Cx<'_>, input: SearchInput) -> Result<SearchAnswer, ToolError> {
        get(cx.state, cx.account, &input.query).await
    }
}
use uuid::Uuid;

use boxtrack_app::search;
use boxtrack_http::Front;

/// The most matches of each kind searched.
const LIMIT: usize = 25;

/// A matching container.
#[derive(Debug, Serialize, JsonSchema)]
pub struct ContainerHit {
    /// Container id (for get_container).
    pub id: Uuid,
    /// ISO 6346 number.
    pub container_number: String,
    /// Its `current_status`.
    pub status: String,
    /// The shipping line's SCAC.
    pub shipping_line: String,
    /// Port of discharge.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pod_terminal: Option<String>,
    /// Port of lading.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pol_terminal: Option<String>,
    /// Where it goes: the inland destination, else the port of discharge.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub destination: Option<String>,
}

/// A matching shipment.
#[derive(Debug, Serialize, JsonSchema)]
pub struct ShipmentHit {
    /// Shipment id (for get_shipment_details).
    pub id: Uuid,
    /// Its bill of lading (or booking) number.
    pub bill_of_lading: String,
    /// The client's reference numbers.
    pub ref_numbers: Vec<String>,
    /// The shipping line's SCAC.
    pub shipping_line: String,
    /// How many containers it has.
    pub container_count: usize,
}

/// `search_container`'s answer.
#[derive(Debug, Serialize, JsonSchema)]
pub struct SearchAnswer {
    /// Matching containers, best first.
    pub containers: Vec<ContainerHit>,
    /// Matching shipments, best first.
    pub shipments: Vec<ShipmentHit>,
    /// How many in all.
    pub total_results: usize,
}

/// `search_container`.
pub(super) async fn get(
    state: &Front,
    account: &Account,
    query: &str,
) -> Result<SearchAnswer, ToolError> {
    let query = query.trim();
    if query.is_empty() {
        return Err(
            "query is required: one container, booking, bill of lading or reference number.".into(),
        );
    }
    // read where the REST search is: a replica once it has the account's writes
    let found = search::search(&state.ctx, account.id, query, LIMIT)
        .await
        .map_err(ToolError::from_app("search"))?;
    let (ranked, containers, shipments, boxes) = (
        &found.ranked,
        &found.containers,
        &found.shipments,
        &found.boxes,
    );
    let mut answer = SearchAnswer {
        containers: Vec::new(),
        shipments: Vec::new(),
        total_results: 0,
    };
    for (_, h) in ranked {
        match h.entity_type.as_str() {
            "container" => {
                let Some(c) = containers.get(&h.id) else {
                    continue;
                };
                let route = shipments
                    .get(&c.shipment_id)
                    .map(|s| s.route.clone())
                    .unwrap_or_default();
                answer.containers.push(ContainerHit {
                    id: c.id,
                    container_number: c.number.clone(),
                    status: c.current_status.clone(),
                    shipping_line: shipments
                        .get(&c.shipment_id)
                        .map_or_else(|| "Unknown".to_string(), |s| s.scac.clone()),
                    pod_terminal: route.pod_name.clone(),
                    pol_terminal: route.pol_name.clone(),
                    destination: route.destination_name.clone().or(route.pod_name.clone()),
                });
            }
            "shipment" => {
                let Some(s) = shipments.get(&h.id) else {
                    continue;
                };
                answer.shipments.push(ShipmentHit {
                    id: s.id,
                    bill_of_lading: s.bill_of_lading_number.clone(),
                    ref_numbers: s.ref_numbers.clone(),
                    shipping_line: s.scac.clone(),
                    container_count: boxes.get(&s.id).map_or(0, Vec::len),
                });
            }
            _ => {}
        }
    }
    answer.total_results = answer.containers.len() + answer.shipments.len();
    Ok(answer)
}
