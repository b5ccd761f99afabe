//! `get_shipment_details` on the read layer: the account's shipment row, its containers,
//! the shipment's typed attributes as the REST resource has them, in the reference MCP
//! server's shape (routing by port with their terminals, times and zones; the vessel at the
//! port of discharge; containers in brief; the line's tracking).

use super::error::ToolError;
use boxtrack_app::model::{Account, ContainerRow, ShipmentRow};
use boxtrack_core::tracking::assess;
use boxtrack_views::jsonapi::At;
use boxtrack_views::tracking::{ShipmentVoyageAttributes, container_resource, shipment_resource};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use uuid::Uuid;

use boxtrack_app::shipments::{self, Shown};
use boxtrack_core::reference;
use boxtrack_http::Front;
use boxtrack_views::reference::{port_id, terminal_id};

use super::fields::CustomFieldValue;
use super::tool::{Cx, Tool};

/// `get_shipment_details`'s arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct GetInput {
    /// The shipment's id (UUID)
    pub id: Uuid,
    /// Include the list of containers. Default: true
    #[schemars(extend("default" = true))]
    pub include_containers: Option<bool>,
    /// Include the account's custom fields set on the shipment. Default: false
    #[schemars(extend("default" = false))]
    pub include_custom_fields: Option<bool>,
}

/// The ports of lading and discharge and the inland destination, with their times and the
/// discharge terminal.
fn routing(v: &ShipmentVoyageAttributes, pod_terminal: Option<&str>) -> Routing {
    let destination = v.destination_locode.clone().map(|locode| Destination {
        locode,
        name: v.destination_name.clone(),
        terminal: None,
        eta: v.destination_eta_at,
        ata: v.destination_ata_at,
        timezone: v.destination_timezone.clone(),
    });
    Routing {
        port_of_lading: Lading {
            port_details: port_details(v.port_of_lading_locode.as_deref()),
            locode: v.port_of_lading_locode.clone(),
            name: v.port_of_lading_name.clone(),
            etd: v.pol_etd_at,
            atd: v.pol_atd_at,
            timezone: v.pol_timezone.clone(),
        },
        port_of_discharge: Discharge {
            port_details: port_details(v.port_of_discharge_locode.as_deref()),
            terminal: terminal_details(pod_terminal),
            locode: v.port_of_discharge_locode.clone(),
            name: v.port_of_discharge_name.clone(),
            eta: v.pod_eta_at,
            ata: v.pod_ata_at,
            original_eta: v.pod_original_eta_at,
            timezone: v.pod_timezone.clone(),
        },
        destination,
    }
}

/// `get_shipment_details`.
pub struct GetShipmentDetails;

impl Tool for GetShipmentDetails {
    const GUIDE: super::contract::Guide = super::guides::SHIPMENT;
    type Input = GetInput;
    type Output = ShipmentAnswer;
    const NAME: &'static str = "get_shipment_details";
    const TITLE: &'static str = "Get Shipment Details";
    const DESCRIPTION: &'static str = "Get detailed shipment information including routing, bill of lading, containers and port details: the shipping line, ports with their terminals, ETAs and ATAs in their zones, the vessel at the port of discharge, and the container list. Use get_container with a returned container UUID for pickup availability, holds, fees and the last free day.";

    async fn call(cx: &Cx<'_>, input: GetInput) -> Result<ShipmentAnswer, ToolError> {
        get(
            cx.state,
            cx.account,
            input.id,
            input.include_containers.unwrap_or(true),
            input.include_custom_fields.unwrap_or(false),
        )
        .await
    }
}

/// The shipping line.
#[derive(Debug, Serialize, JsonSchema)]
pub struct Line {
    /// SCAC.
    pub scac: String,
    /// Name.
    pub name: Option<String>,
    /// Short name.
    pub short_name: Option<String>,
}

/// A port in the reference data.
#[derive(Debug, Serialize, JsonSchema)]
pub struct PortDetails {
    /// Port id.
    pub id: Uuid,
    /// UN/LOCODE.
    pub code: String,
    /// ISO 3166 country code.
    pub country_code: String,
}

/// A terminal in the reference data.
#[derive(Debug, Serialize, JsonSchema)]
pub struct TerminalDetails {
    /// Terminal id.
    pub id: Uuid,
    /// Name.
    pub name: String,
    /// Short name.
    pub nickname: Option<String>,
    /// CBP FIRMS code.
    pub firms_code: String,
}

/// The port of lading.
#[derive(Debug, Serialize, JsonSchema)]
pub struct Lading {
    /// UN/LOCODE.
    pub locode: Option<String>,
    /// Name.
    pub name: Option<String>,
    /// The port in the reference data.
    pub port_details: Option<PortDetails>,
    /// Estimated departure.
    pub etd: Option<At>,
    /// Departure.
    pub atd: Option<At>,
    /// The port's IANA zone.
    pub timezone: Option<String>,
}

/// The port of discharge.
#[derive(Debug, Serialize, JsonSchema)]
pub struct Discharge {
    /// UN/LOCODE.
    pub locode: Option<String>,
    /// Name.
    pub name: Option<String>,
    /// The port in the reference data.
    pub port_details: Option<PortDetails>,
    /// The terminal the containers are discharged at.
    pub terminal: Option<TerminalDetails>,
    /// Estimated arrival.
    pub eta: Option<At>,
    /// Arrival.
    pub ata: Option<At>,
    /// The first estimate.
    pub original_eta: Option<At>,
    /// The port's IANA zone.
    pub timezone: Option<String>,
}

/// The inland destination.
#[derive(Debug, Serialize, JsonSchema)]
pub struct Destination {
    /// UN/LOCODE.
    pub locode: String,
    /// Name.
    pub name: Option<String>,
    /// Its terminal, when known.
    pub terminal: Option<TerminalDetails>,
    /// Estimated arrival.
    pub eta: Option<At>,
    /// Arrival.
    pub ata: Option<At>,
    /// Its IANA zone.
    pub timezone: Option<String>,
}

/// Where the shipment goes.
#[derive(Debug, Serialize, JsonSchema)]
pub struct Routing {
    /// Where it is loaded.
    pub port_of_lading: Lading,
    /// Where it is discharged.
    pub port_of_discharge: Discharge,
    /// Where it goes inland, when it does.
    pub destination: Option<Destination>,
}

/// The vessel that brings it to the port of discharge.
#[derive(Debug, Serialize, JsonSchema)]
pub struct Vessel {
    /// Name.
    pub name: Option<String>,
    /// IMO number.
    pub imo: Option<String>,
    /// Voyage.
    pub voyage_number: Option<String>,
}

/// A container of the shipment, briefly.
#[derive(Debug, Serialize, JsonSchema)]
pub struct ContainerBrief {
    /// Container id (for get_container).
    pub id: Uuid,
    /// ISO 6346 number.
    pub number: String,
    /// Equipment type.
    pub equipment_type: Option<String>,
    /// Length in feet.
    pub equipment_length: Option<i64>,
    /// Released for pickup.
    pub available_for_pickup: bool,
    /// Arrived at the port of discharge.
    pub pod_arrived_at: Option<At>,
    /// Discharged there.
    pub pod_discharged_at: Option<At>,
    /// Its last free day.
    pub pickup_lfd: Option<At>,
}

/// The containers of the shipment.
#[derive(Debug, Serialize, JsonSchema)]
pub struct Containers {
    /// How many.
    pub count: usize,
    /// Each.
    pub containers: Vec<ContainerBrief>,
}

/// The containers, or how to ask for them.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(untagged)]
pub enum ContainersOrHint {
    /// Loaded.
    Loaded(Containers),
    /// Not asked for: what to call instead.
    Hint(String),
}

/// How boxtrack follows the shipment with its line.
#[derive(Debug, Serialize, JsonSchema)]
pub struct Tracking {
    /// The last time the line was asked.
    pub line_tracking_last_attempted_at: Option<At>,
    /// The last time it answered.
    pub line_tracking_last_succeeded_at: Option<At>,
    /// When tracking stopped.
    pub line_tracking_stopped_at: Option<At>,
    /// Why.
    pub line_tracking_stopped_reason: Option<String>,
}

/// Facts about the answer.
#[derive(Debug, Serialize, JsonSchema)]
pub struct ShipmentMetadata {
    /// The same as `status`.
    pub shipment_status: String,
    /// What was loaded.
    pub includes_loaded: Vec<String>,
}

/// `get_shipment_details`'s answer.
#[derive(Debug, Serialize, JsonSchema)]
pub struct ShipmentAnswer {
    /// Shipment id.
    pub id: Uuid,
    /// Bill of lading (or booking) number.
    pub bill_of_lading: String,
    /// The same, normalized.
    pub normalized_number: String,
    /// `delivered_to_destination`, `arrived_at_pod`, `in_transit`, `awaiting_departure` or
    /// `pending`, from the voyage's times.
    #[schemars(extend("enum" = ["delivered_to_destination", "arrived_at_pod", "in_transit", "awaiting_departure", "pending"]))]
    pub status: String,
    /// The shipping line.
    pub shipping_line: Line,
    /// The customer named on the tracking request.
    pub customer_name: Option<String>,
    /// The client's reference numbers.
    pub reference_numbers: Vec<String>,
    /// The client's tags.
    pub tags: Vec<String>,
    /// Ports, terminals and times.
    pub routing: Routing,
    /// The vessel at the port of discharge.
    pub vessel_at_pod: Vessel,
    /// Its containers (with `include_containers`, the default), or how to get them.
    pub containers: ContainersOrHint,
    /// The line's tracking.
    pub tracking: Tracking,
    /// Last change.
    pub updated_at: At,
    /// When tracking began.
    pub created_at: At,
    /// Custom fields (with `include_custom_fields`).
    pub custom_fields: Option<Vec<CustomFieldValue>>,
    /// Facts about the answer.
    #[serde(rename = "_metadata")]
    pub metadata: ShipmentMetadata,
}

fn port_details(locode: Option<&str>) -> Option<PortDetails> {
    let p = reference::port(locode?)?;
    Some(PortDetails {
        id: port_id(&p.locode),
        code: p.locode.clone(),
        country_code: p.country_code.clone(),
    })
}

fn terminal_details(firms: Option<&str>) -> Option<TerminalDetails> {
    let firms = firms?;
    let t = reference::terminal(firms);
    Some(TerminalDetails {
        id: terminal_id(firms),
        name: t.map_or_else(|| firms.to_string(), |t| t.name.clone()),
        nickname: t.map(|t| t.nickname.clone()).filter(|n| !n.is_empty()),
        firms_code: firms.to_string(),
    })
}

/// One of the shipment's containers, briefly.
fn container_brief(c: &ContainerRow, s: &ShipmentRow, account: &Account) -> ContainerBrief {
    let ca = container_resource(c, Some(s), account).attributes;
    ContainerBrief {
        id: c.id,
        number: c.number.clone(),
        equipment_type: ca.state.equipment_type,
        equipment_length: ca.state.equipment_length,
        available_for_pickup: ca.row.available_for_pickup,
        pod_arrived_at: ca.state.pod_arrived_at,
        pod_discharged_at: ca.state.pod_discharged_at,
        pickup_lfd: ca.row.pickup_lfd,
    }
}

/// `get_shipment_details`.
pub(super) async fn get(
    state: &Front,
    account: &Account,
    id: Uuid,
    include_containers: bool,
    include_custom_fields: bool,
) -> Result<ShipmentAnswer, ToolError> {
    let unavailable = ToolError::reading("shipment");
    let Shown {
        shipment: s,
        containers,
    } = shipments::show(&state.ctx.db, account.id, id)
        .await
        .map_err(unavailable)?
        .ok_or_else(|| format!("No shipment found with id {id}. Use search_container to find a shipment's id by its bill of lading or reference number."))?;
    let a = shipment_resource(&s, &containers).attributes;
    let status = assess::shipment_status(
        a.voyage.pol_etd_at.is_some(),
        a.voyage.pol_atd_at.is_some(),
        a.voyage.pod_ata_at.is_some(),
        a.voyage.destination_ata_at.is_some(),
    )
    .to_string();
    let pod_terminal = containers.iter().find_map(|c| c.state.pod_terminal.clone());
    let mut includes_loaded: Vec<String> = Vec::new();
    let listed = if include_containers {
        includes_loaded.push("containers".into());
        ContainersOrHint::Loaded(Containers {
            count: containers.len(),
            containers: containers
                .iter()
                .map(|c| container_brief(c, &s, account))
                .collect(),
        })
    } else {
        ContainersOrHint::Hint(
            "Call get_shipment_details with include_containers=true to fetch container list".into(),
        )
    };
    includes_loaded.extend(["ports".to_string(), "terminals".to_string()]);
    let custom_fields = if include_custom_fields {
        includes_loaded.push("custom_fields".into());
        Some(super::fields::of(state, account, "Shipment", s.id).await?)
    } else {
        None
    };
    Ok(ShipmentAnswer {
        id: s.id,
        bill_of_lading: a.row.bill_of_lading_number.clone(),
        normalized_number: a.row.normalized_number.clone(),
        status: status.clone(),
        shipping_line: Line {
            scac: a.row.shipping_line_scac.clone(),
            name: a.row.shipping_line_name.clone(),
            short_name: a.row.shipping_line_short_name.clone(),
        },
        customer_name: a.row.customer_name.clone(),
        reference_numbers: a.row.ref_numbers.clone(),
        tags: a.row.tags.clone(),
        routing: routing(&a.voyage, pod_terminal.as_deref()),
        vessel_at_pod: Vessel {
            name: a.voyage.pod_vessel_name.clone(),
            imo: a.voyage.pod_vessel_imo.clone(),
            voyage_number: a.voyage.pod_voyage_number.clone(),
        },
        containers: listed,
        tracking: Tracking {
            line_tracking_last_attempted_at: Some(a.row.line_tracking_last_attempted_at),
            line_tracking_last_succeeded_at: Some(a.row.line_tracking_last_succeeded_at),
            line_tracking_stopped_at: a.row.line_tracking_stopped_at,
            line_tracking_stopped_reason: a.row.line_tracking_stopped_reason.clone(),
        },
        updated_at: a.row.updated_at,
        created_at: a.row.created_at,
        custom_fields,
        metadata: ShipmentMetadata {
            shipment_status: status,
            includes_loaded,
        },
    })
}
