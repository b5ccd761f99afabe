//! `get_container` on the read layer: the account's container and shipment rows, the
//! container's typed attributes as the REST resource has them, and the answers an agent asks
//! for (status and its source, last free day and its urgency in the terminal's calendar, fee
//! total, local times), in the reference MCP server's shape.

use super::error::ToolError;
use boxtrack_app::charges::container::ContainerCharges;
use boxtrack_app::model::Account;
use boxtrack_app::model::{ContainerRow, ShipmentRow};
use boxtrack_app::{clock, containers};
use boxtrack_core::plan::Entitlement;
use boxtrack_core::tracking::assess::{self, Milestones};
use boxtrack_core::tracking::{self, ContainerState, LfdKind, rules};
use boxtrack_views::jsonapi::At;
use boxtrack_views::tracking::release::ReleaseGates;
use boxtrack_views::tracking::{
    ContainerRowAttributes, ContainerStateAttributes, FeeView, HoldView, container_resource,
};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use uuid::Uuid;

use boxtrack_core::{carriers, reference as core_reference};
use boxtrack_http::Front;
use boxtrack_views::reference;

use super::fields::CustomFieldValue;
use super::tool::{Cx, Tool};

/// `get_container`'s arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct GetInput {
    /// The container's id (UUID)
    pub id: Uuid,
    /// Related data to include. Default ['shipment']; the shipment and the POD terminal are always loaded. transport_events: a summary (count, rail events, latest); custom_fields: the account's fields set on the container.
    pub include: Option<Vec<Include>>,
}

/// What `get_container` may load besides the container.
#[derive(Debug, Clone, Copy, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Include {
    /// The container's shipment.
    Shipment,
    /// The terminal at the port of discharge.
    PodTerminal,
    /// A summary of its transport events.
    TransportEvents,
    /// The account's custom fields set on it.
    CustomFields,
}

impl Include {
    /// Its word.
    pub fn as_str(self) -> &'static str {
        match self {
            Include::Shipment => INCLUDES[0],
            Include::PodTerminal => INCLUDES[1],
            Include::TransportEvents => INCLUDES[2],
            Include::CustomFields => INCLUDES[3],
        }
    }
}

/// `get_container`.
pub struct GetContainer;

impl Tool for GetContainer {
    const GUIDE: super::contract::Guide = super::guides::CONTAINER;
    type Input = GetInput;
    type Output = ContainerAnswer;
    const NAME: &'static str = "get_container";
    const TITLE: &'static str = "Get Container Details";
    const DESCRIPTION: &'static str = "Get container information with flexible data loading. Returns core container data (status, location, equipment, dates), the last free day with its urgency in the terminal's calendar, fees, holds and rail, plus optional shipment, terminal, transport-event or custom-field data. Transport events are summarized only; call get_container_transport_events for the complete milestone timeline.";

    async fn call(cx: &Cx<'_>, input: GetInput) -> Result<ContainerAnswer, ToolError> {
        let include: Vec<String> = match input.include {
            Some(list) => list.iter().map(|i| i.as_str().to_string()).collect(),
            None => vec![Include::Shipment.as_str().to_string()],
        };
        get(cx.state, cx.account, input.id, &include).await
    }
}

/// The arguments of a tool about one container.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ContainerId {
    /// Container id
    pub id: Uuid,
}

/// `get_container_readiness`.
pub struct GetContainerReadiness;

impl Tool for GetContainerReadiness {
    const GUIDE: super::contract::Guide = super::guides::READINESS;
    type Input = ContainerId;
    type Output = Readiness;
    const NAME: &'static str = "get_container_readiness";
    const TITLE: &'static str = "Get Container Readiness";
    const DESCRIPTION: &'static str = "Can the container be picked up, and what stands in the way: ready flag, active holds, fees, the release gates (customs, line, terminal: who holds or released the box, in their words), the coalesced last free day and the days left in the port's time zone.";

    async fn call(cx: &Cx<'_>, input: ContainerId) -> Result<Readiness, ToolError> {
        readiness(cx.state, cx.account, input.id).await
    }
}

/// `get_container_readiness`'s answer.
#[derive(Debug, Serialize, JsonSchema)]
pub struct Readiness {
    /// The container number.
    pub container_number: String,
    /// Available, without active holds.
    pub ready_for_pickup: bool,
    /// The container's status.
    pub current_status: String,
    /// Active holds; null while no source has reported holds.
    pub holds: Option<Vec<HoldView>>,
    /// Fees (total lines left out); null while no source has reported fees.
    pub fees: Option<Vec<FeeView>>,
    /// The last free day that holds.
    pub pickup_lfd: Option<At>,
    /// Days until it, in the port's calendar.
    pub days_left: Option<i64>,
    /// The time zone the days are counted in.
    pub time_zone: Option<String>,
    /// The pickup appointment.
    pub pickup_appointment_at: Option<At>,
    /// The terminal's FIRMS code.
    pub pod_terminal: Option<String>,
    /// Who must let the box go: customs, the line and the terminal (boxtrack's extension).
    pub release_gates: ReleaseGates,
}

/// What `get_container` may load besides the container.
pub const INCLUDES: [&str; 4] = [
    "shipment",
    "pod_terminal",
    "transport_events",
    "custom_fields",
];

/// The container's equipment.
#[derive(Debug, Serialize, JsonSchema)]
pub struct Equipment {
    /// ISO type, as reported.
    #[serde(rename = "type")]
    pub kind: Option<String>,
    /// Length in feet.
    pub length: Option<i64>,
    /// Height (`standard`, `high_cube`).
    pub height: Option<String>,
    /// Weight in pounds.
    pub weight_lbs: Option<i64>,
}

/// Where the container is and whether it can be picked up.
#[derive(Debug, Serialize, JsonSchema)]
pub struct Location {
    /// Where it is in the terminal, as the terminal says.
    pub current_location: Option<String>,
    /// Released for pickup.
    pub available_for_pickup: Option<bool>,
    /// Whether the terminal has said.
    pub availability_known: Option<bool>,
    /// Arrived at the port of discharge.
    pub pod_arrived_at: Option<At>,
    /// The same on the port's clock (`N/A` when unknown).
    pub pod_arrived_at_local: String,
    /// Discharged.
    pub pod_discharged_at: Option<At>,
    /// The same on the port's clock.
    pub pod_discharged_at_local: String,
    /// The port's IANA time zone.
    pub pod_timezone: Option<String>,
}

/// The last free days by source.
#[derive(Debug, Serialize, JsonSchema)]
pub struct LastFreeDays {
    /// The terminal's.
    pub terminal: Option<At>,
    /// The rail carrier's at the inland ramp (with the `rail_lfd` entitlement).
    pub rail: Option<At>,
    /// The shipping line's.
    pub line: Option<At>,
}

/// Demurrage: the last free day, how near it is, fees and holds.
#[derive(Debug, Serialize, JsonSchema)]
pub struct Demurrage {
    /// The last free day that counts (the line's, else the terminal's, else the rail
    /// carrier's).
    pub pickup_lfd: Option<At>,
    /// Whose it is: `line`, `facility`, `rail`, or `entered` (a person of the account).
    pub pickup_lfd_source: Option<String>,
    /// Its date in the terminal's calendar.
    pub pickup_lfd_local_date: Option<String>,
    /// It on the terminal's clock (`N/A` when unknown).
    pub pickup_lfd_local: String,
    /// Each source's.
    pub last_free_days: LastFreeDays,
    /// The pickup appointment.
    pub pickup_appointment_at: Option<At>,
    /// The terminal's fees (null while no source has reported fees: unknown is not zero).
    pub fees_at_pod_terminal: Option<Vec<FeeView>>,
    /// Their sum in major units (the terminal's `total` lines left out; none when in
    /// several currencies).
    pub fees_total_amount: Option<f64>,
    /// Its currency.
    pub fees_currency_code: Option<String>,
    /// The terminal's holds (pending ones included; only `hold` blocks pickup); null while
    /// no source has reported holds.
    pub holds_at_pod_terminal: Option<Vec<HoldView>>,
    /// `overdue`, `imminent` (today or within 3 days), `none` or `unknown`.
    #[schemars(extend("enum" = ["overdue", "imminent", "none", "unknown"]))]
    pub urgency: String,
    /// Whether the urgency is withheld.
    pub urgency_suppressed: bool,
    /// Why.
    pub urgency_reason: Option<String>,
    /// Days from today to the last free day in the terminal's calendar (negative after it).
    pub days_until_lfd: Option<i64>,
}

/// Rail from the port of discharge.
#[derive(Debug, Serialize, JsonSchema)]
pub struct Rail {
    /// The rail carrier's SCAC.
    pub pod_rail_carrier: Option<String>,
    /// Loaded on rail at the port.
    pub pod_rail_loaded_at: Option<At>,
    /// Estimated arrival at the inland destination.
    pub destination_eta: Option<At>,
    /// Arrival there.
    pub destination_ata: Option<At>,
}

/// The container's shipment, briefly.
#[derive(Debug, Serialize, JsonSchema)]
pub struct ShipmentBrief {
    /// Shipment id.
    pub id: Uuid,
    /// The client's reference numbers.
    pub ref_numbers: Vec<String>,
    /// The shipping line's SCAC.
    pub line: String,
    /// Its name.
    pub shipping_line_name: Option<String>,
    /// Port of lading.
    pub port_of_lading_name: Option<String>,
    /// Port of discharge.
    pub port_of_discharge_name: Option<String>,
    /// Inland destination.
    pub destination_name: Option<String>,
}

/// The POD terminal.
#[derive(Debug, Serialize, JsonSchema)]
pub struct TerminalBrief {
    /// Terminal id.
    pub id: Uuid,
    /// Name.
    pub name: String,
    /// CBP FIRMS code.
    pub firms_code: String,
}

/// The latest transport event.
#[derive(Debug, Serialize, JsonSchema)]
pub struct LatestEvent {
    /// Event name.
    pub event: String,
    /// When.
    pub timestamp: Option<At>,
    /// Where (terminal or port).
    pub location: Option<String>,
}

/// A summary of the transport events.
#[derive(Debug, Serialize, JsonSchema)]
pub struct EventsSummary {
    /// How many.
    pub count: usize,
    /// How many are rail moves.
    pub rail_events_count: usize,
    /// The latest.
    pub latest_event: Option<LatestEvent>,
}

/// Facts about the answer itself.
#[derive(Debug, Serialize, JsonSchema)]
pub struct ContainerMetadata {
    /// The lifecycle the milestones tell.
    pub container_state: String,
    /// Whether `status` is the container's own `current_status`.
    pub status_is_authoritative: bool,
    /// The same lifecycle.
    pub derived_lifecycle: String,
    /// What was loaded.
    pub includes_loaded: Vec<String>,
    /// What this answer can settle.
    pub can_answer: Vec<String>,
    /// What it cannot settle without more (and how to get it).
    pub needs_more_data_for: Vec<String>,
    /// How to present it, for the container's stage of its journey.
    pub presentation_guidance: String,
}

/// `get_container`'s `_metadata`: the stage, whether the status is the container's own,
/// what was loaded, and the guidance for them.
fn metadata(
    lifecycle: assess::Lifecycle,
    source: &str,
    includes: &[String],
    urgency: &str,
) -> ContainerMetadata {
    let (can_answer, needs_more_data_for, presentation_guidance) =
        super::guides::container_guidance(lifecycle, includes, urgency);
    ContainerMetadata {
        container_state: lifecycle.as_str().to_string(),
        status_is_authoritative: source == "current_status",
        derived_lifecycle: lifecycle.as_str().to_string(),
        includes_loaded: includes.to_vec(),
        can_answer,
        needs_more_data_for,
        presentation_guidance,
    }
}

/// `get_container`'s answer.
#[derive(Debug, Serialize, JsonSchema)]
pub struct ContainerAnswer {
    /// Container id.
    pub id: Uuid,
    /// ISO 6346 number.
    pub container_number: String,
    /// `current_status`, or the lifecycle the milestones tell when there is none.
    pub status: String,
    /// `current_status` or `derived`.
    #[schemars(extend("enum" = ["current_status", "derived"]))]
    pub status_source: String,
    /// Equipment.
    pub equipment: Equipment,
    /// Location and availability.
    pub location: Location,
    /// Last free day, urgency, fees, holds.
    pub demurrage: Demurrage,
    /// Who must let the box go (boxtrack's extension): customs, the line and the terminal,
    /// each `unknown`, `pending`, `held` or `released` with the source and wording deciding.
    pub release_gates: ReleaseGates,
    /// Rail.
    pub rail: Rail,
    /// Its shipment.
    pub shipment: Option<ShipmentBrief>,
    /// Its POD terminal.
    pub pod_terminal: Option<TerminalBrief>,
    /// Custom fields (with `include` `custom_fields`).
    pub custom_fields: Option<Vec<CustomFieldValue>>,
    /// Transport events in brief (with `include` `transport_events`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub events: Option<EventsSummary>,
    /// What the box owes by the account's tariffs, kind by kind, with the calculated last free
    /// day beside the reported one and what each of the next 7 days adds (boxtrack's
    /// extension; left out while no tariff prices the box).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub charges: Option<ContainerCharges>,
    /// When tracking began.
    pub created_at: At,
    /// Facts about the answer.
    #[serde(rename = "_metadata")]
    pub metadata: ContainerMetadata,
}

/// The container, its shipment row, and "now" on the clock of its data.
pub(super) struct Loaded {
    pub(super) container: ContainerRow,
    pub(super) shipment: Option<ShipmentRow>,
    pub(super) now_us: i64,
}

/// Loads a container of the account; `Err` says what to do when there is none.
pub(super) async fn load(state: &Front, account: &Account, id: Uuid) -> Result<Loaded, ToolError> {
    let unavailable = ToolError::reading("container");
    let containers::Shown::<ContainerRow> {
        container,
        shipment,
        ..
    } = containers::show(&state.ctx.db, account.id, id, false)
        .await
        .map_err(unavailable)?
        .ok_or_else(|| format!("No container found with id {id}. Use search_container to find a container's id by its number."))?;
    let now_us = clock::now(&state.ctx, account.id, container.shipment_id).await;
    Ok(Loaded {
        container,
        shipment,
        now_us,
    })
}

/// A time at the clock of `zone`, or `N/A`.
pub(super) fn local(at: Option<&At>, zone: Option<&str>) -> String {
    at.map_or("N/A".to_string(), |t| assess::format_in_zone(t.0, zone))
}

/// `get_container`.
pub(super) async fn get(
    state: &Front,
    account: &Account,
    id: Uuid,
    asked: &[String],
) -> Result<ContainerAnswer, ToolError> {
    let Loaded {
        container: c,
        shipment,
        now_us,
    } = load(state, account, id).await?;
    let includes = includes_of(asked);
    let attributes = container_resource(&c, shipment.as_ref(), account).attributes;
    let (mut a, r) = (attributes.state, attributes.row);
    let st = &c.state;
    let zone = r.pod_timezone.as_deref();
    let milestones = Milestones {
        pod_arrived: a.pod_arrived_at.is_some(),
        pod_discharged: a.pod_discharged_at.is_some(),
        delivered: a.delivered_at.is_some(),
        pod_rail_loaded: a.pod_rail_loaded_at.is_some(),
        final_destination_full_out: a.final_destination_full_out_at.is_some(),
        available_for_pickup: a.availability_known.then_some(r.available_for_pickup),
    };
    let lifecycle = assess::lifecycle(&milestones);
    let current = (!a.current_status.is_empty()).then_some(a.current_status.as_str());
    let (status, source) = assess::status(current, lifecycle);
    let lfd_source = lfd_source(st, account.has(Entitlement::RailLfd));
    let stopped = shipment
        .as_ref()
        .is_some_and(|s| s.tracking_stopped_us.is_some());
    let verdict = assess::urgency(
        r.pickup_lfd.as_ref().map(|t| t.0),
        zone,
        a.terminal_checked_at.as_ref().map(|t| t.0),
        stopped,
        now_us,
    );
    let shipment_brief = shipment.as_ref().map(shipment_brief);
    let pod_terminal = st.pod_terminal.as_deref().map(terminal_brief);
    let events = if includes.iter().any(|i| i == "transport_events") {
        Some(events_summary(state, account, c.id).await?)
    } else {
        None
    };
    let custom_fields = if includes.iter().any(|i| i == "custom_fields") {
        Some(super::fields::of(state, account, "Container", c.id).await?)
    } else {
        None
    };
    let charges = super::charges::of_box(state, account, (&c, shipment.as_ref()), now_us).await?;
    let metadata = metadata(lifecycle, source, &includes, verdict.urgency.as_str());
    let location = location(&a, &r);
    let demurrage = demurrage(st, &mut a, &r, lfd_source, &verdict);
    Ok(ContainerAnswer {
        id: c.id,
        container_number: c.number.clone(),
        status,
        status_source: source.to_string(),
        equipment: Equipment {
            kind: a.equipment_type.clone(),
            length: a.equipment_length,
            height: a.equipment_height.clone(),
            weight_lbs: a.weight_in_lbs,
        },
        location,
        demurrage,
        release_gates: a.release_gates,
        rail: Rail {
            pod_rail_carrier: a.pod_rail_carrier_scac,
            pod_rail_loaded_at: a.pod_rail_loaded_at,
            destination_eta: a.ind_eta_at,
            destination_ata: a.ind_ata_at,
        },
        shipment: shipment_brief,
        pod_terminal,
        custom_fields,
        events,
        charges,
        created_at: r.created_at,
        metadata,
    })
}

/// Where the box is at the port of discharge, in UTC and at the port's clock.
fn location(a: &ContainerStateAttributes, r: &ContainerRowAttributes) -> Location {
    let zone = r.pod_timezone.as_deref();
    Location {
        current_location: a.location_at_pod_terminal.clone(),
        available_for_pickup: a.availability_known.then_some(r.available_for_pickup),
        availability_known: Some(a.availability_known),
        pod_arrived_at_local: local(a.pod_arrived_at.as_ref(), zone),
        pod_discharged_at_local: local(a.pod_discharged_at.as_ref(), zone),
        pod_arrived_at: a.pod_arrived_at,
        pod_discharged_at: a.pod_discharged_at,
        pod_timezone: r.pod_timezone.clone(),
    }
}

/// The last free day and what is owed or holds the box, with the urgency decided (the fees
/// and holds shown are taken out of `a`).
fn demurrage(
    st: &ContainerState,
    a: &mut ContainerStateAttributes,
    r: &ContainerRowAttributes,
    lfd_source: Option<&str>,
    verdict: &assess::Verdict,
) -> Demurrage {
    let zone = r.pod_timezone.as_deref();
    let fees = fee_total(st);
    Demurrage {
        pickup_lfd_source: lfd_source.map(str::to_string),
        pickup_lfd_local_date: r
            .pickup_lfd
            .as_ref()
            .and_then(|t| assess::local_date(t.0, zone)),
        pickup_lfd_local: local(r.pickup_lfd.as_ref(), zone),
        pickup_lfd: r.pickup_lfd,
        last_free_days: LastFreeDays {
            terminal: r.import_deadlines.pickup_lfd_terminal,
            rail: r.import_deadlines.pickup_lfd_rail,
            line: r.import_deadlines.pickup_lfd_line,
        },
        pickup_appointment_at: a.pickup_appointment_at,
        // MCP keeps "not reported yet" (null), which its contract allows
        fees_at_pod_terminal: rules::reported_fees(st)
            .map(|_| std::mem::take(&mut a.fees_at_pod_terminal)),
        fees_total_amount: fees.total_minor.map(|m| m as f64 / 100.0),
        fees_currency_code: fees.currency,
        holds_at_pod_terminal: rules::reported_holds(st)
            .map(|_| std::mem::take(&mut a.holds_at_pod_terminal)),
        urgency: verdict.urgency.as_str().to_string(),
        urgency_suppressed: verdict.suppressed,
        urgency_reason: verdict.reason.map(str::to_string),
        days_until_lfd: verdict.days_until_lfd,
    }
}

/// The total of the fees reported (fees never reported have no total, not a total of zero).
fn fee_total(st: &ContainerState) -> assess::FeeTotal {
    rules::reported_fees(st)
        .map(assess::fee_total)
        .unwrap_or(assess::FeeTotal {
            total_minor: None,
            currency: None,
        })
}

/// What `get_container` loads: the shipment and the terminal always, as the reference's
/// server does, then what the call asked for, once each.
fn includes_of(asked: &[String]) -> Vec<String> {
    let mut includes: Vec<String> = vec!["shipment".into(), "pod_terminal".into()];
    for i in asked {
        if !includes.contains(i) {
            includes.push(i.clone());
        }
    }
    includes
}

/// Whose last free day holds: the line's, else the terminal's, else the rail's (when the
/// account sees rail).
fn lfd_source(st: &ContainerState, rail_visible: bool) -> Option<&'static str> {
    rules::coalesced_lfd(&st.lfd, rail_visible).map(|_| {
        if st.lfd.contains_key(&LfdKind::User) {
            "entered"
        } else if st.lfd.contains_key(&LfdKind::Line) {
            "line"
        } else if st.lfd.contains_key(&LfdKind::Terminal) {
            "facility"
        } else {
            "rail"
        }
    })
}

/// The container's shipment, briefly.
fn shipment_brief(s: &ShipmentRow) -> ShipmentBrief {
    let route = &s.route;
    ShipmentBrief {
        id: s.id,
        ref_numbers: s.ref_numbers.clone(),
        line: s.scac.clone(),
        shipping_line_name: carriers::by_scac(&s.scac).map(|l| l.name.clone()),
        port_of_lading_name: route.pol_name.clone(),
        port_of_discharge_name: route.pod_name.clone(),
        destination_name: route.destination_name.clone(),
    }
}

/// The terminal at the port of discharge, by its FIRMS code.
fn terminal_brief(firms: &str) -> TerminalBrief {
    TerminalBrief {
        id: reference::terminal_id(firms),
        name: core_reference::terminal(firms).map_or_else(|| firms.to_string(), |t| t.name.clone()),
        firms_code: firms.to_string(),
    }
}

/// The container's transport events in brief: how many, how many by rail, and the latest
/// thing that happened (no estimate, no change of a date).
async fn events_summary(
    state: &Front,
    account: &Account,
    id: Uuid,
) -> Result<EventsSummary, ToolError> {
    let rows = containers::events(&state.ctx.db, account.id, id, 1000)
        .await
        .map_err(ToolError::from_app("container's events"))?;
    let latest = rows
        .iter()
        .filter(|e| tracking::happened(&e.event))
        .max_by_key(|e| e.at_us.unwrap_or(i64::MIN));
    Ok(EventsSummary {
        count: rows.len(),
        rail_events_count: rows.iter().filter(|e| e.event.contains("rail")).count(),
        latest_event: latest.map(|e| LatestEvent {
            event: e.event.clone(),
            timestamp: At::opt(e.at_us),
            location: e
                .terminal
                .as_deref()
                .and_then(core_reference::terminal)
                .map(|t| t.name.clone())
                .or_else(|| {
                    e.locode.as_deref().and_then(|l| {
                        core_reference::port(l)
                            .and_then(|p| p.name.clone())
                            .or_else(|| Some(l.to_string()))
                    })
                }),
        }),
    })
}

/// `get_container_readiness`: whether the container can be picked up, its active holds, its
/// fees (without `total` lines), and the days left to its last free day in the zone that day
/// is kept in (the POD's; the inland ramp's for a rail carrier's), on the clock of the data.
pub(super) async fn readiness(
    state: &Front,
    account: &Account,
    id: Uuid,
) -> Result<Readiness, ToolError> {
    let Loaded {
        container: c,
        shipment,
        now_us,
    } = load(state, account, id).await?;
    let attributes = container_resource(&c, shipment.as_ref(), account).attributes;
    let (a, r) = (attributes.state, attributes.row);
    let st = &c.state;
    let mut known = std::collections::BTreeMap::new();
    for (at, kind) in [
        (r.import_deadlines.pickup_lfd_line, LfdKind::Line),
        (r.import_deadlines.pickup_lfd_terminal, LfdKind::Terminal),
        (r.import_deadlines.pickup_lfd_rail, LfdKind::Rail),
    ] {
        if let Some(t) = at {
            known.insert(kind, t.0);
        }
    }
    let zone = rules::lfd_zone(
        &known,
        true,
        r.pod_timezone.as_deref(),
        r.final_destination_timezone.as_deref(),
    );
    let days_left = r
        .pickup_lfd
        .and_then(|l| rules::days_until(l.0, zone, now_us));
    // null while not reported (MCP's contract allows it; REST answers an empty array)
    let holds: Option<Vec<HoldView>> = rules::reported_holds(st).map(|_| {
        a.holds_at_pod_terminal
            .into_iter()
            .filter(|h| h.status == "hold")
            .collect()
    });
    let fees: Option<Vec<FeeView>> = rules::reported_fees(st).map(|_| {
        a.fees_at_pod_terminal
            .into_iter()
            .filter(|f| f.kind != "total")
            .collect()
    });
    Ok(Readiness {
        container_number: c.number.clone(),
        ready_for_pickup: c.ready_for_pickup,
        current_status: c.current_status.clone(),
        holds,
        fees,
        pickup_lfd: r.pickup_lfd,
        days_left,
        time_zone: zone.map(str::to_string),
        pickup_appointment_at: a.pickup_appointment_at,
        pod_terminal: st.pod_terminal.clone(),
        release_gates: a.release_gates,
    })
}
