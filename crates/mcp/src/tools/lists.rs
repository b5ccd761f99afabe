//! The list tools on the read layer: one requested page (at most 25 rows) of the account's
//! containers, shipments or tracking requests, with the filters the reference MCP server
//! offers that boxtrack's data answers, compact snake_case rows, and `_metadata` that says
//! which filters applied and whether more pages follow. Like the reference's, the container
//! and shipment lists show actively tracked records unless asked otherwise.

use super::error::ToolError;
use std::collections::BTreeMap;

use boxtrack_app::containers::{self, ContainerSort};
use boxtrack_app::custom_fields::FieldUsed;
use boxtrack_app::fields::One;
use boxtrack_app::model::Account;
use boxtrack_app::model::Listed;
use boxtrack_app::shipments::{self, ShipmentSort};
use boxtrack_core::paging::Page;
use boxtrack_core::tracking::rules::{self, active_holds};
use boxtrack_views::jsonapi::At;
use boxtrack_views::tracking::container_resource;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use uuid::Uuid;

use boxtrack_core::{carriers, reference};
use boxtrack_http::Front;

use super::filters::{
    Applied, ContainerFilters, Paging, ShipmentFilters, container_filter, merged, shipment_filter,
    sort,
};
use super::tool::{Cx, Tool};
use crate::protocol::Content;

/// The orders `list_containers` offers.
pub const CONTAINER_SORTS: [&str; 6] = [
    "-updated_at",
    "updated_at",
    "-created_at",
    "created_at",
    "pickup_lfd",
    "-pickup_lfd",
];

/// The orders `list_shipments` offers.
pub const SHIPMENT_SORTS: [&str; 4] = ["-updated_at", "updated_at", "-created_at", "created_at"];

/// What a list answer says of itself.
#[derive(Debug, Serialize, JsonSchema)]
pub struct ListMetadata {
    /// The filters that applied, with the defaults added (`actively_tracked`).
    pub applied_filters: BTreeMap<String, Value>,
    /// The order.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sort: Option<String>,
    /// This page (1-based).
    pub page: u32,
    /// Rows asked for.
    pub page_size: u32,
    /// Whether another page follows.
    pub has_more: bool,
    /// The next page, when one follows.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_page: Option<u32>,
    /// How each custom field named in `custom_fields` resolved.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub custom_fields: Vec<CustomFieldUsed>,
}

/// A custom field a list filtered on, as its name resolved.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct CustomFieldUsed {
    /// The name the call gave.
    pub field: String,
    /// The field's key.
    pub api_slug: String,
    /// Its type (`short_text`, `enum`, `enum_multi`).
    pub data_type: String,
    /// The value asked for.
    pub value: String,
}

/// How many match.
#[derive(Debug, Serialize, JsonSchema)]
pub struct ListMeta {
    /// Rows matching the filters in all (a lower bound past 10,000 when not exact).
    pub total: u64,
    /// Whether `total` is exact.
    pub total_is_exact: bool,
}

/// A list answer.
#[derive(Debug, Serialize, JsonSchema)]
pub struct ListAnswer<T> {
    /// The rows of this page.
    pub items: Vec<T>,
    /// How many match.
    pub meta: ListMeta,
    /// Filters the call named that this list does not have (always empty: unknown
    /// arguments are refused).
    #[serde(rename = "unsupportedFilters")]
    pub unsupported_filters: Vec<String>,
    /// What the answer says of itself.
    #[serde(rename = "_metadata")]
    pub metadata: ListMetadata,
}

impl<T> ListAnswer<T> {
    /// What the answer says of itself, for its response contract: `what` the rows are and
    /// the columns to show by default.
    pub fn facts<'a>(
        &self,
        what: &'a str,
        columns: &'static [&'static str],
    ) -> super::contract::ListFacts<'a> {
        // the default (`actively_tracked`) alone does not narrow the list
        let filtered = self
            .metadata
            .applied_filters
            .iter()
            .any(|(k, v)| k != "actively_tracked" || v != &Value::Bool(true));
        super::contract::ListFacts {
            rows: self.items.len(),
            total: self.meta.total,
            total_is_exact: self.meta.total_is_exact,
            filtered,
            has_more: self.metadata.has_more,
            what,
            columns,
        }
    }
}

/// An active hold, briefly.
#[derive(Debug, Serialize, JsonSchema)]
pub struct HoldBrief {
    /// Which hold.
    pub name: String,
    /// The terminal's words.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
}

/// A fee, briefly.
#[derive(Debug, Serialize, JsonSchema)]
pub struct FeeBrief {
    /// Which fee.
    #[serde(rename = "type")]
    pub kind: String,
    /// How much, in major units.
    pub amount: f64,
    /// ISO 4217 code.
    pub currency: String,
}

/// A container's shipment, in a row.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct RowShipment {
    /// Shipment id.
    pub id: Uuid,
    /// Bill of lading.
    pub bill_of_lading: String,
    /// The line's SCAC.
    pub shipping_line_scac: String,
    /// Port of discharge.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub port_of_discharge: Option<String>,
    /// Vessel at the port of discharge.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pod_vessel: Option<String>,
    /// Estimated arrival there.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pod_eta_at: Option<At>,
    /// Arrival there.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pod_ata_at: Option<At>,
}

/// A container, as a list shows it; absent keys are unknown.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ContainerRow {
    /// Container id (for get_container).
    pub id: Uuid,
    /// ISO 6346 number.
    pub number: String,
    /// Its `current_status`.
    pub status: String,
    /// Released for pickup (absent when the terminal has not said).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub available_for_pickup: Option<bool>,
    /// The POD terminal's name.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pod_terminal: Option<String>,
    /// Arrived at the port of discharge.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pod_arrived_at: Option<At>,
    /// Discharged.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pod_discharged_at: Option<At>,
    /// Picked up full.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pod_full_out_at: Option<At>,
    /// The last free day.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pickup_lfd: Option<At>,
    /// The pickup appointment.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pickup_appointment_at: Option<At>,
    /// Active holds (`[]`: the terminal reports none; null: not reported yet).
    pub holds: Option<Vec<HoldBrief>>,
    /// Fees (`[]`: the terminal reports none; null: not reported yet, not zero).
    pub fees: Option<Vec<FeeBrief>>,
    /// Its shipment.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub shipment: Option<RowShipment>,
    /// When the terminal was last heard from.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub terminal_checked_at: Option<At>,
    /// The port's IANA zone.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pod_timezone: Option<String>,
}

/// A container of a shipment row.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ShipmentContainer {
    /// Container id.
    pub id: Uuid,
    /// ISO 6346 number.
    pub number: String,
    /// Its `current_status`.
    pub status: String,
}

/// A shipment, as a list shows it.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ShipmentRow {
    /// Shipment id (for get_shipment_details).
    pub id: Uuid,
    /// Bill of lading (or booking) number.
    pub bill_of_lading: String,
    /// The line's SCAC.
    pub shipping_line_scac: String,
    /// The line's name.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub shipping_line_name: Option<String>,
    /// Vessel at the port of discharge.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pod_vessel_name: Option<String>,
    /// Its voyage.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pod_voyage_number: Option<String>,
    /// Port of discharge.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub port_of_discharge_name: Option<String>,
    /// Estimated arrival there.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pod_eta_at: Option<At>,
    /// Arrival there.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pod_ata_at: Option<At>,
    /// Inland destination.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub destination_name: Option<String>,
    /// Estimated arrival there.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub destination_eta_at: Option<At>,
    /// The client's reference numbers.
    pub ref_numbers: Vec<String>,
    /// Whether tracking stopped.
    pub tracking_stopped: bool,
    /// Its containers (with `include_containers`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub containers: Option<Vec<ShipmentContainer>>,
}

/// A list answer: the page's rows, how many match, the filters that applied, where the next
/// page is.
pub(super) fn answer<T, R>(
    items: Vec<T>,
    listed: &Listed<R>,
    applied: BTreeMap<String, Value>,
    sort: Option<String>,
    page: &Page,
) -> ListAnswer<T> {
    ListAnswer {
        items,
        meta: ListMeta {
            total: listed.total,
            total_is_exact: listed.total_exact,
        },
        unsupported_filters: Vec::new(),
        metadata: ListMetadata {
            applied_filters: applied,
            sort,
            page: page.number,
            page_size: page.size,
            has_more: listed.has_next,
            next_page: listed.has_next.then(|| page.number.saturating_add(1)),
            custom_fields: Vec::new(),
        },
    }
}

/// The custom fields a list filtered on, as `_metadata` reports them.
pub(super) fn fields_used(used: Vec<FieldUsed>) -> Vec<CustomFieldUsed> {
    used.into_iter()
        .map(|u| CustomFieldUsed {
            field: u.field,
            api_slug: u.api_slug,
            data_type: u.data_type,
            value: u.value,
        })
        .collect()
}

/// `list_containers`'s arguments.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct ContainersInput {
    /// The filters.
    #[serde(flatten)]
    pub filters: ContainerFilters,
    /// The same filters, as the reference's clients send them; a filter goes here or at the top level, never both
    #[serde(default)]
    pub advanced_filters: Option<ContainerFilters>,
    /// Order; default -updated_at. pickup_lfd puts the soonest last free day first, those without one last
    #[serde(default)]
    pub sort: Option<ContainerOrder>,
    /// Accepted for the reference's clients: each row always carries its shipment and POD terminal in brief
    #[serde(default)]
    #[expect(dead_code, reason = "accepted, not needed: every row carries both")]
    pub include: Option<Vec<RowInclude>>,
    /// The page.
    #[serde(flatten)]
    pub paging: Paging,
}

/// The orders `list_containers` offers.
#[derive(Debug, Clone, Copy, Deserialize, JsonSchema)]
pub enum ContainerOrder {
    /// Most recently updated first (the default).
    #[serde(rename = "-updated_at")]
    UpdatedDesc,
    /// Least recently updated first.
    #[serde(rename = "updated_at")]
    Updated,
    /// Newest first.
    #[serde(rename = "-created_at")]
    CreatedDesc,
    /// Oldest first.
    #[serde(rename = "created_at")]
    Created,
    /// The soonest last free day first, those without one last.
    #[serde(rename = "pickup_lfd")]
    Lfd,
    /// The latest last free day first.
    #[serde(rename = "-pickup_lfd")]
    LfdDesc,
}

impl ContainerOrder {
    /// Its word.
    pub fn word(self) -> &'static str {
        match self {
            ContainerOrder::UpdatedDesc => CONTAINER_SORTS[0],
            ContainerOrder::Updated => CONTAINER_SORTS[1],
            ContainerOrder::CreatedDesc => CONTAINER_SORTS[2],
            ContainerOrder::Created => CONTAINER_SORTS[3],
            ContainerOrder::Lfd => CONTAINER_SORTS[4],
            ContainerOrder::LfdDesc => CONTAINER_SORTS[5],
        }
    }
}

/// What the reference's clients ask a container row to include.
#[derive(Debug, Clone, Copy, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum RowInclude {
    /// The shipment, in brief.
    Shipment,
    /// The POD terminal, in brief.
    PodTerminal,
}

/// `list_containers`.
pub struct ListContainers;

impl Tool for ListContainers {
    const GUIDE: super::contract::Guide = super::guides::CONTAINERS;

    fn contract(output: &Self::Output) -> super::contract::ResponseContract {
        let columns = &["number", "status", "pickupLfd", "podTerminal", "holds"];
        super::contract::list_contract(&Self::GUIDE, output.facts("containers", columns))
    }

    fn links(output: &Self::Output) -> Vec<Content> {
        output
            .items
            .iter()
            .map(|c| super::contract::container_link(&c.id, &c.number))
            .collect()
    }
    type Input = ContainersInput;
    type Output = ListAnswer<ContainerRow>;
    const NAME: &'static str = "list_containers";
    const TITLE: &'static str = "List Containers";
    const DESCRIPTION: &'static str = "Return one requested page of containers (at most 25), filtered by status, port, carrier, holds, readiness, tracking state or last change, in compact rows (empty holds or fees mean none reported). Like the dashboard, only actively tracked containers unless include_stopped_tracking is true. Report meta.total for the set; when _metadata.has_more, results are partial: ask for next_page with the same filters and sort. Use get_container with a returned id for a detailed snapshot.";

    async fn call(cx: &Cx<'_>, input: ContainersInput) -> Result<Self::Output, ToolError> {
        containers(cx.state, cx.account, input).await
    }
}

/// `list_containers`.
async fn containers(
    state: &Front,
    account: &Account,
    input: ContainersInput,
) -> Result<ListAnswer<ContainerRow>, ToolError> {
    let f = merged(&input.filters, input.advanced_filters.as_ref())?;
    let mut a = Applied::default();
    let page = input.paging.page()?;
    let (sort, sort_text) = sort(input.sort.map(ContainerOrder::word), &CONTAINER_SORTS)?;
    let asked = containers::ListContainers {
        filter: container_filter(&f, &mut a, state.ctx.now_us())?,
        sort: Some(One(ContainerSort(sort))),
        ..containers::ListContainers::default()
    };
    // the use case the REST list and the console run, with the reference's further filters
    // (read where the REST list is: a replica once it has the account's writes)
    let found = containers::list(state.ctx.read_db(account.id), account.id, &asked, &page)
        .await
        .map_err(ToolError::from)?;
    let custom_used = fields_used(found.fields_used);
    let (listed, shipments) = (found.listed, found.shipments);
    let items = listed
        .rows
        .iter()
        .map(|c| {
            let sh = shipments.get(&c.shipment_id);
            let at = container_resource(c, sh, account).attributes;
            let st = &c.state;
            ContainerRow {
                id: c.id,
                number: c.number.clone(),
                status: c.current_status.clone(),
                available_for_pickup: at
                    .state
                    .availability_known
                    .then_some(at.row.available_for_pickup),
                pod_terminal: st.pod_terminal.as_deref().map(|f| {
                    reference::terminal(f).map_or_else(|| f.to_string(), |t| t.name.clone())
                }),
                pod_arrived_at: at.state.pod_arrived_at,
                pod_discharged_at: at.state.pod_discharged_at,
                pod_full_out_at: at.state.pod_full_out_at,
                pickup_lfd: at.row.pickup_lfd,
                pickup_appointment_at: at.state.pickup_appointment_at,
                holds: rules::reported_holds(st).map(|held| {
                    active_holds(held)
                        .map(|h| HoldBrief {
                            name: h.name.clone(),
                            description: h.description.clone(),
                        })
                        .collect()
                }),
                fees: rules::reported_fees(st).map(|fees| {
                    fees.iter()
                        .map(|f| FeeBrief {
                            kind: f.kind.clone(),
                            amount: f.amount_minor as f64 / 100.0,
                            currency: f.currency_code.clone(),
                        })
                        .collect()
                }),
                shipment: sh.map(|s| RowShipment {
                    id: s.id,
                    bill_of_lading: s.bill_of_lading_number.clone(),
                    shipping_line_scac: s.scac.clone(),
                    port_of_discharge: s.route.pod_name.clone(),
                    pod_vessel: s.state.pod_vessel_name.clone(),
                    pod_eta_at: At::opt(s.state.pod_eta_us),
                    pod_ata_at: At::opt(s.state.pod_ata_us),
                }),
                terminal_checked_at: at.state.terminal_checked_at,
                pod_timezone: at.row.pod_timezone,
            }
        })
        .collect();
    let mut out = answer(items, &listed, a.0, sort_text, &page);
    out.metadata.custom_fields = custom_used;
    Ok(out)
}

/// `list_shipments`'s arguments.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct ShipmentsInput {
    /// The filters.
    #[serde(flatten)]
    pub filters: ShipmentFilters,
    /// The same filters, as the reference's clients send them; a filter goes here or at the top level, never both
    #[serde(default)]
    pub advanced_filters: Option<ShipmentFilters>,
    /// Order; default -updated_at
    #[serde(default)]
    pub sort: Option<ShipmentOrder>,
    /// Include each shipment's containers (id, number, status)
    #[schemars(extend("default" = false))]
    #[serde(default)]
    pub include_containers: Option<bool>,
    /// The page.
    #[serde(flatten)]
    pub paging: Paging,
}

/// The orders `list_shipments` offers.
#[derive(Debug, Clone, Copy, Deserialize, JsonSchema)]
pub enum ShipmentOrder {
    /// Most recently updated first (the default).
    #[serde(rename = "-updated_at")]
    UpdatedDesc,
    /// Least recently updated first.
    #[serde(rename = "updated_at")]
    Updated,
    /// Newest first.
    #[serde(rename = "-created_at")]
    CreatedDesc,
    /// Oldest first.
    #[serde(rename = "created_at")]
    Created,
}

impl ShipmentOrder {
    /// Its word.
    pub fn word(self) -> &'static str {
        match self {
            ShipmentOrder::UpdatedDesc => SHIPMENT_SORTS[0],
            ShipmentOrder::Updated => SHIPMENT_SORTS[1],
            ShipmentOrder::CreatedDesc => SHIPMENT_SORTS[2],
            ShipmentOrder::Created => SHIPMENT_SORTS[3],
        }
    }
}

/// `list_shipments`.
pub struct ListShipments;

impl Tool for ListShipments {
    const GUIDE: super::contract::Guide = super::guides::SHIPMENTS;

    fn contract(output: &Self::Output) -> super::contract::ResponseContract {
        let columns = &[
            "bill_of_lading",
            "shipping_line_scac",
            "pod_vessel_name",
            "pod_eta_at",
        ];
        super::contract::list_contract(&Self::GUIDE, output.facts("shipments", columns))
    }
    type Input = ShipmentsInput;
    type Output = ListAnswer<ShipmentRow>;
    const NAME: &'static str = "list_shipments";
    const TITLE: &'static str = "List Shipments";
    const DESCRIPTION: &'static str = "Return one requested page of shipments (at most 25), most recently updated first, filtered by number, port, carrier, tracking state or last change. Like the dashboard, only actively tracked shipments unless include_stopped_tracking is true. Report meta.total for the set; when _metadata.has_more, results are partial: ask for next_page with the same filters. Use get_shipment_details with a returned id for routing and containers.";

    async fn call(cx: &Cx<'_>, input: ShipmentsInput) -> Result<Self::Output, ToolError> {
        shipments(cx.state, cx.account, input).await
    }
}

/// `list_shipments`.
async fn shipments(
    state: &Front,
    account: &Account,
    input: ShipmentsInput,
) -> Result<ListAnswer<ShipmentRow>, ToolError> {
    let f = merged(&input.filters, input.advanced_filters.as_ref())?;
    let mut a = Applied::default();
    let page = input.paging.page()?;
    let (sort, sort_text) = sort(input.sort.map(ShipmentOrder::word), &SHIPMENT_SORTS)?;
    let with_containers = a
        .flag("include_containers", input.include_containers)
        .unwrap_or(false);
    let asked = shipments::ListShipments {
        sort: Some(One(ShipmentSort(sort))),
        ..shipment_filter(&f, &mut a, state.ctx.now_us())?
    };
    // the use case the REST list and the console run, with the reference's further filters
    // (read where the REST list is: a replica once it has the account's writes)
    let found = shipments::list(state.ctx.read_db(account.id), account.id, &asked, &page)
        .await
        .map_err(ToolError::from)?;
    let (listed, boxes) = (found.listed, found.containers);
    let items = listed
        .rows
        .iter()
        .map(|s| {
            let (route, st) = (&s.route, &s.state);
            ShipmentRow {
                id: s.id,
                bill_of_lading: s.bill_of_lading_number.clone(),
                shipping_line_scac: s.scac.clone(),
                shipping_line_name: carriers::by_scac(&s.scac).map(|l| l.name.clone()),
                pod_vessel_name: st.pod_vessel_name.clone(),
                pod_voyage_number: st.pod_voyage_number.clone(),
                port_of_discharge_name: route.pod_name.clone(),
                pod_eta_at: At::opt(st.pod_eta_us),
                pod_ata_at: At::opt(st.pod_ata_us),
                destination_name: route.destination_name.clone(),
                destination_eta_at: At::opt(st.destination_eta_us),
                ref_numbers: s.ref_numbers.clone(),
                tracking_stopped: s.tracking_stopped_us.is_some(),
                containers: with_containers.then(|| {
                    boxes
                        .get(&s.id)
                        .map(|cs| {
                            cs.iter()
                                .map(|c| ShipmentContainer {
                                    id: c.id,
                                    number: c.number.clone(),
                                    status: c.current_status.clone(),
                                })
                                .collect()
                        })
                        .unwrap_or_default()
                }),
            }
        })
        .collect();
    Ok(answer(items, &listed, a.0, sort_text, &page))
}
