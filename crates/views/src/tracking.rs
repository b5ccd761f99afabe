//! Resource objects of tracking: tracking requests, shipments, containers, transport and raw
//! events. Each is a typed [`Resource`] whose attributes are a struct: every attribute of the
//! contract is present (null when unknown), and the OpenAPI schema is derived from the same
//! struct that is serialized.

use boxtrack_core::carriers;
use boxtrack_core::plan::Entitlement;
use boxtrack_core::tracking::rules::{ContainerStatus, coalesced_lfd, t};
use boxtrack_core::tracking::{Fee, Hold, LfdKind};
use boxtrack_store::accounts::Account;
use boxtrack_store::reads::{ContainerRow, RawEventRow, ShipmentRow, TransportEventRow};
use boxtrack_store::tracking::TrackingRequestRow;
use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use serde::Serialize;
use serde_json::Value;
use uuid::Uuid;

use crate::jsonapi::{At, Kind, Resource, ToMany, ToOne};

fn port_rel(locode: Option<&str>) -> ToOne {
    ToOne::new(
        "port",
        locode
            .and_then(boxtrack_core::reference::port)
            .map(|p| crate::reference::port_id(&p.locode)),
    )
}

fn terminal_rel(firms: Option<&str>) -> ToOne {
    ToOne::new(
        "terminal",
        firms
            .and_then(boxtrack_core::reference::terminal)
            .map(|t| crate::reference::terminal_id(&t.firms_code)),
    )
}

/// The `tracking_request` type.
pub struct TrackingRequest;

impl Kind for TrackingRequest {
    const TYPE: &'static str = "tracking_request";
    const COLLECTION: &'static str = "tracking_requests";
    const NAME: &'static str = "TrackingRequest";
    type Attributes = TrackingRequestAttributes;
    type Relationships = TrackingRequestRelationships;
}

/// Attributes of a tracking request.
#[derive(Debug, Serialize, JsonSchema)]
pub struct TrackingRequestAttributes {
    /// The number as registered.
    pub request_number: String,
    /// What the number is.
    #[schemars(extend("enum" = ["container", "bill_of_lading", "booking_number"]))]
    pub request_type: String,
    /// The carrier's SCAC (`TEST` for the sandbox), or null while it is being detected.
    pub scac: Option<String>,
    /// The carrier is detected from the number.
    pub auto_detect_vocc_scac: bool,
    /// Where the request is.
    #[schemars(extend("enum" = ["pending", "awaiting_manifest", "created", "failed", "tracking_stopped"]))]
    pub status: String,
    /// Why the request failed or is failing. `data_unavailable` while no source is configured
    /// for the carrier (the request waits and resolves once one is); `plan_limit` when it
    /// resolved to more containers than the plan has room for (nothing was tracked).
    #[schemars(extend("enum" = ["booking_cancelled", "duplicate", "expired", "internal_processing_error", "invalid_number", "not_found", "retries_exhausted", "shipping_line_unreachable", "unrecognized_response", "data_unavailable", "scac_auto_detect_failed", "plan_limit", null]))]
    pub failed_reason: Option<String>,
    /// The request is waiting to be tried again.
    pub is_retrying: bool,
    /// How often it was tried again.
    pub retry_count: Option<i64>,
    /// The client's reference numbers.
    pub ref_numbers: Vec<String>,
    /// Tags given to the shipment once it is created.
    pub shipment_tags: Vec<String>,
    /// When the request was registered.
    pub created_at: At,
    /// When it last changed.
    pub updated_at: At,
}

/// Relationships of a tracking request.
#[derive(Debug, Serialize, JsonSchema)]
pub struct TrackingRequestRelationships {
    /// The shipment it created (`shipment`), once it did.
    pub tracked_object: ToOne,
    /// The customer (`party`) it is tracked for.
    pub customer: ToOne,
}

/// The `tracking_request` resource.
pub fn tracking_request_resource(r: &TrackingRequestRow) -> Resource<TrackingRequest> {
    Resource {
        id: r.id,
        attributes: TrackingRequestAttributes {
            request_number: r.request_number.clone(),
            request_type: r.request_type.clone(),
            scac: r.scac.clone(),
            auto_detect_vocc_scac: r.auto_detect,
            status: r.status.clone(),
            failed_reason: r.failed_reason.clone(),
            is_retrying: r.is_retrying,
            retry_count: r.retry_count,
            ref_numbers: r.ref_numbers.0.clone(),
            shipment_tags: r.shipment_tags.0.clone(),
            created_at: At(r.created_us),
            updated_at: At(r.updated_us),
        },
        relationships: TrackingRequestRelationships {
            tracked_object: ToOne::new("shipment", r.shipment_id),
            customer: ToOne::new("party", r.customer_id),
        },
    }
}

/// The `tracking_request` resource as a JSON value.
pub fn tracking_request(r: &TrackingRequestRow) -> Value {
    tracking_request_resource(r).to_value()
}

/// The `shipment` type.
pub struct Shipment;

impl Kind for Shipment {
    const TYPE: &'static str = "shipment";
    const COLLECTION: &'static str = "shipments";
    const NAME: &'static str = "Shipment";
    type Attributes = ShipmentAttributes;
    type Relationships = ShipmentRelationships;
}

/// Attributes of a shipment (a bill of lading or booking).
#[derive(Debug, Serialize, JsonSchema)]
pub struct ShipmentAttributes {
    /// The bill of lading (or booking) number.
    pub bill_of_lading_number: String,
    /// The number as the carrier writes it.
    pub normalized_number: String,
    /// The client's reference numbers.
    pub ref_numbers: Vec<String>,
    /// The client's tags.
    pub tags: Vec<String>,
    /// When tracking began.
    pub created_at: At,
    /// When it last changed.
    pub updated_at: At,
    /// Port of lading (UN/LOCODE).
    pub port_of_lading_locode: Option<String>,
    /// Port of lading name.
    pub port_of_lading_name: Option<String>,
    /// Port of discharge (UN/LOCODE).
    pub port_of_discharge_locode: Option<String>,
    /// Port of discharge name.
    pub port_of_discharge_name: Option<String>,
    /// Inland destination (UN/LOCODE), when the journey goes past the port of discharge.
    pub destination_locode: Option<String>,
    /// Inland destination name.
    pub destination_name: Option<String>,
    /// The carrier's SCAC.
    pub shipping_line_scac: String,
    /// The carrier's name.
    pub shipping_line_name: Option<String>,
    /// The carrier's short name.
    pub shipping_line_short_name: Option<String>,
    /// The customer's name (the `customer` party).
    pub customer_name: Option<String>,
    /// The vessel that brings the cargo to the port of discharge.
    pub pod_vessel_name: Option<String>,
    /// Its IMO number.
    pub pod_vessel_imo: Option<String>,
    /// Its voyage number.
    pub pod_voyage_number: Option<String>,
    /// Estimated departure from the port of lading.
    pub pol_etd_at: Option<At>,
    /// Actual departure from the port of lading.
    pub pol_atd_at: Option<At>,
    /// The first estimated departure.
    pub pol_original_etd_at: Option<At>,
    /// Estimated arrival at the port of discharge.
    pub pod_eta_at: Option<At>,
    /// The first estimated arrival at the port of discharge.
    pub pod_original_eta_at: Option<At>,
    /// Actual arrival at the port of discharge.
    pub pod_ata_at: Option<At>,
    /// Estimated arrival at the inland destination.
    pub destination_eta_at: Option<At>,
    /// The first estimated arrival at the inland destination.
    pub destination_original_eta_at: Option<At>,
    /// Actual arrival at the inland destination.
    pub destination_ata_at: Option<At>,
    /// Time zone of the port of lading (IANA).
    pub pol_timezone: Option<String>,
    /// Time zone of the port of discharge (IANA).
    pub pod_timezone: Option<String>,
    /// Time zone of the inland destination (IANA).
    pub destination_timezone: Option<String>,
    /// When the carrier was last asked.
    pub line_tracking_last_attempted_at: At,
    /// When the carrier last answered.
    pub line_tracking_last_succeeded_at: At,
    /// When tracking stopped.
    pub line_tracking_stopped_at: Option<At>,
    /// Why tracking stopped.
    #[schemars(extend("enum" = ["all_containers_terminated", "past_arrival_window", "past_full_out_window", "no_updates_at_line", "cancelled_by_user", "booking_cancelled", null]))]
    pub line_tracking_stopped_reason: Option<String>,
}

/// Relationships of a shipment.
#[derive(Debug, Serialize, JsonSchema)]
pub struct ShipmentRelationships {
    /// The port of lading (`port`).
    pub port_of_lading: ToOne,
    /// The port of discharge (`port`).
    pub port_of_discharge: ToOne,
    /// The inland destination (`port`).
    pub destination: ToOne,
    /// The terminal at the port of discharge (`terminal`).
    pub pod_terminal: ToOne,
    /// The terminal at the inland destination (`terminal`).
    pub destination_terminal: ToOne,
    /// The shipment's containers (`container`).
    pub containers: ToMany,
    /// The customer (`party`).
    pub customer: ToOne,
}

/// The `shipment` resource; `container_ids` fills the `containers` relationship.
pub fn shipment_resource(s: &ShipmentRow, container_ids: &[Uuid]) -> Resource<Shipment> {
    let route = &s.route.0;
    let st = &s.state.0;
    let line = carriers::by_scac(&s.scac);
    Resource {
        id: s.id,
        attributes: ShipmentAttributes {
            bill_of_lading_number: s.bill_of_lading_number.clone(),
            normalized_number: s.bill_of_lading_number.clone(),
            ref_numbers: s.ref_numbers.0.clone(),
            tags: s.tags.0.clone(),
            created_at: At(s.created_us),
            updated_at: At(s.updated_us),
            port_of_lading_locode: route.pol_locode.clone(),
            port_of_lading_name: route.pol_name.clone(),
            port_of_discharge_locode: route.pod_locode.clone(),
            port_of_discharge_name: route.pod_name.clone(),
            destination_locode: route.destination_locode.clone(),
            destination_name: route.destination_name.clone(),
            shipping_line_scac: s.scac.clone(),
            shipping_line_name: line.map(|l| l.name.clone()),
            shipping_line_short_name: line.map(|l| l.short_name.clone()),
            customer_name: s.customer_name.clone(),
            pod_vessel_name: st.pod_vessel_name.clone(),
            pod_vessel_imo: st.pod_vessel_imo.clone(),
            pod_voyage_number: st.pod_voyage_number.clone(),
            pol_etd_at: At::opt(st.pol_etd_us),
            pol_atd_at: At::opt(st.pol_atd_us),
            pol_original_etd_at: At::opt(st.pol_original_etd_us),
            pod_eta_at: At::opt(st.pod_eta_us),
            pod_original_eta_at: At::opt(st.pod_original_eta_us),
            pod_ata_at: At::opt(st.pod_ata_us),
            destination_eta_at: At::opt(st.destination_eta_us),
            destination_original_eta_at: At::opt(st.destination_original_eta_us),
            destination_ata_at: At::opt(st.destination_ata_us),
            pol_timezone: route.pol_timezone.clone(),
            pod_timezone: route.pod_timezone.clone(),
            destination_timezone: route.destination_timezone.clone(),
            line_tracking_last_attempted_at: At(s.updated_us),
            line_tracking_last_succeeded_at: At(s.updated_us),
            line_tracking_stopped_at: At::opt(s.tracking_stopped_us),
            line_tracking_stopped_reason: s.stopped_reason.clone(),
        },
        relationships: ShipmentRelationships {
            port_of_lading: port_rel(route.pol_locode.as_deref()),
            port_of_discharge: port_rel(route.pod_locode.as_deref()),
            destination: port_rel(route.destination_locode.as_deref()),
            pod_terminal: ToOne::none(),
            destination_terminal: ToOne::none(),
            containers: ToMany::new("container", container_ids),
            customer: ToOne::new("party", s.customer_id),
        },
    }
}

/// The `shipment` resource as a JSON value.
pub fn shipment(s: &ShipmentRow, container_ids: &[Uuid]) -> Value {
    shipment_resource(s, container_ids).to_value()
}

/// The `container` type.
pub struct Container;

impl Kind for Container {
    const TYPE: &'static str = "container";
    const COLLECTION: &'static str = "containers";
    const NAME: &'static str = "Container";
    type Attributes = ContainerAttributes;
    type Relationships = ContainerRelationships;
}

fn container_status_schema(_: &mut SchemaGenerator) -> Schema {
    let all: Vec<&str> = ContainerStatus::ALL.iter().map(|s| s.as_str()).collect();
    json_schema!({"type": "string", "enum": all})
}

/// A hold at the terminal.
#[derive(Debug, Serialize, JsonSchema)]
pub struct HoldView {
    /// Which hold.
    #[schemars(extend("enum" = ["freight", "customs", "USDA", "VACIS", "TMF", "other"]))]
    pub name: String,
    /// `hold` (the box cannot leave) or `pending`.
    #[schemars(extend("enum" = ["hold", "pending"]))]
    pub status: String,
    /// The terminal's words.
    pub description: Option<String>,
}

impl From<&Hold> for HoldView {
    fn from(h: &Hold) -> HoldView {
        HoldView {
            name: h.name.clone(),
            status: h.status.clone(),
            description: h.description.clone(),
        }
    }
}

/// An amount of money in major units (`120`, `87.5`), from minor units.
#[derive(Debug, Clone, Copy)]
pub struct Amount(pub i64);

impl Serialize for Amount {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        if self.0 % 100 == 0 {
            s.serialize_i64(self.0 / 100)
        } else {
            s.serialize_f64(self.0 as f64 / 100.0)
        }
    }
}

impl JsonSchema for Amount {
    fn inline_schema() -> bool {
        true
    }
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Amount".into()
    }
    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({"type": "number"})
    }
}

/// A fee at the terminal.
#[derive(Debug, Serialize, JsonSchema)]
pub struct FeeView {
    /// Which fee.
    #[serde(rename = "type")]
    #[schemars(extend("enum" = ["demurrage", "extended_dwell_time", "exam", "total", "other"]))]
    pub kind: String,
    /// How much, in major units.
    pub amount: Amount,
    /// ISO 4217 currency code.
    pub currency_code: String,
}

impl From<&Fee> for FeeView {
    fn from(f: &Fee) -> FeeView {
        FeeView {
            kind: f.kind.clone(),
            amount: Amount(f.amount_minor),
            currency_code: f.currency_code.clone(),
        }
    }
}

/// The last free days by who sets them.
#[derive(Debug, Serialize, JsonSchema)]
pub struct ImportDeadlines {
    /// The POD terminal's last free day.
    pub pickup_lfd_terminal: Option<At>,
    /// The rail carrier's last free day at the inland ramp (needs the `rail_lfd` entitlement).
    pub pickup_lfd_rail: Option<At>,
    /// The shipping line's last free day.
    pub pickup_lfd_line: Option<At>,
}

/// Attributes of a container.
#[derive(Debug, Serialize, JsonSchema)]
pub struct ContainerAttributes {
    /// The container number (ISO 6346).
    pub number: String,
    /// The seal number.
    pub seal_number: Option<String>,
    /// When tracking began.
    pub created_at: At,
    /// When it last changed.
    pub updated_at: At,
    /// The client's reference numbers.
    pub ref_numbers: Vec<String>,
    /// Equipment type.
    #[schemars(extend("enum" = ["dry", "reefer", "open top", "flat rack", "bulk", "tank", null]))]
    pub equipment_type: Option<String>,
    /// Length in feet.
    #[schemars(extend("enum" = [10, 20, 40, 45, null]))]
    pub equipment_length: Option<i64>,
    /// `standard` or `high_cube`.
    pub equipment_height: Option<String>,
    /// Gross weight in pounds.
    pub weight_in_lbs: Option<i64>,
    /// Arrived at the port of discharge.
    pub pod_arrived_at: Option<At>,
    /// Discharged from the vessel.
    pub pod_discharged_at: Option<At>,
    /// Left the POD terminal full.
    pub pod_full_out_at: Option<At>,
    /// Left the final destination full.
    pub final_destination_full_out_at: Option<At>,
    /// Returned empty.
    pub empty_terminated_at: Option<At>,
    /// Delivered.
    pub delivered_at: Option<At>,
    /// Empty picked up for export.
    pub empty_out_at: Option<At>,
    /// Full in at the port of lading.
    pub pol_full_in_at: Option<At>,
    /// Loaded on the vessel at the port of lading.
    pub pol_vessel_loaded_at: Option<At>,
    /// The vessel left the port of lading.
    pub pol_vessel_departed_at: Option<At>,
    /// When the terminal was last read for this box.
    pub terminal_checked_at: Option<At>,
    /// When the POD terminal was last asked.
    pub pod_last_tracking_request_at: Option<At>,
    /// When the shipping line was last asked.
    pub shipment_last_tracking_request_at: Option<At>,
    /// When the rail carrier was last asked.
    pub rail_last_tracking_request_at: Option<At>,
    /// The terminal says it can be picked up, and it has not left the pickup terminal.
    pub available_for_pickup: bool,
    /// The terminal has said whether it is available.
    pub availability_known: bool,
    /// available_for_pickup and no hold with status hold.
    pub ready_for_pickup: bool,
    /// Holds at the POD terminal.
    pub holds_at_pod_terminal: Vec<HoldView>,
    /// Fees at the POD terminal.
    pub fees_at_pod_terminal: Vec<FeeView>,
    /// The last free day that applies (terminal, rail where entitled, then line).
    pub pickup_lfd: Option<At>,
    /// The last free days by who sets them.
    pub import_deadlines: ImportDeadlines,
    /// The shipping line's last free day.
    pub ssl_lfd: Option<At>,
    /// The pickup appointment.
    pub pickup_appointment_at: Option<At>,
    /// The chassis it left the POD terminal on.
    pub pod_full_out_chassis_number: Option<String>,
    /// Where it is in the POD terminal (yard position).
    pub location_at_pod_terminal: Option<String>,
    /// Time zone of the port of discharge (IANA).
    pub pod_timezone: Option<String>,
    /// Time zone of the final destination (IANA).
    pub final_destination_timezone: Option<String>,
    /// Time zone of the empty return (IANA).
    pub empty_terminated_timezone: Option<String>,
    /// The rail carrier from the port of discharge.
    pub pod_rail_carrier_scac: Option<String>,
    /// The rail carrier into the inland destination.
    pub ind_rail_carrier_scac: Option<String>,
    /// Loaded on rail at the port of discharge.
    pub pod_rail_loaded_at: Option<At>,
    /// The train left the port of discharge.
    pub pod_rail_departed_at: Option<At>,
    /// Estimated arrival at the inland destination.
    pub ind_eta_at: Option<At>,
    /// Actual arrival at the inland destination.
    pub ind_ata_at: Option<At>,
    /// Unloaded from rail at the inland destination.
    pub ind_rail_unloaded_at: Option<At>,
    /// The last free day at the inland facility (needs the `rail_lfd` entitlement).
    pub ind_facility_lfd_on: Option<At>,
    /// Holds at the inland facility (not reported by any source yet: always null).
    pub ind_facility_holds: Option<Vec<HoldView>>,
    /// Fees at the inland facility (not reported by any source yet: always null).
    pub ind_facility_fees: Option<Vec<FeeView>>,
    /// Where the container is in its journey.
    #[schemars(schema_with = "container_status_schema")]
    pub current_status: String,
}

/// Relationships of a container.
#[derive(Debug, Serialize, JsonSchema)]
pub struct ContainerRelationships {
    /// The shipment it travels on (`shipment`).
    pub shipment: ToOne,
    /// The terminal at the port of discharge (`terminal`).
    pub pod_terminal: ToOne,
    /// Where it is picked up, when not at the POD terminal.
    pub pickup_facility: ToOne,
    /// Its transport events (`transport_event`), only with `include=transport_events`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub transport_events: Option<ToMany>,
}

/// The `container` resource as `account` may see it (rail LFD needs its entitlement).
pub fn container_resource(
    c: &ContainerRow,
    shipment: Option<&ShipmentRow>,
    account: &Account,
) -> Resource<Container> {
    let st = &c.state.0;
    let time = |k: &str| At::opt(st.times.get(k).copied());
    let rail = account.has(Entitlement::RailLfd);
    let lfd = |k: LfdKind| At::opt(st.lfd.get(&k).copied());
    let rail_lfd = if rail { lfd(LfdKind::Rail) } else { None };
    let route = shipment.map(|s| s.route.0.clone()).unwrap_or_default();
    let final_tz = if route.inland() {
        route.destination_timezone.clone()
    } else {
        route.pod_timezone.clone()
    };
    Resource {
        id: c.id,
        attributes: ContainerAttributes {
            number: c.number.clone(),
            seal_number: st.equipment.seal_number.clone(),
            created_at: At(c.created_us),
            updated_at: At(c.updated_us),
            ref_numbers: c.ref_numbers.0.clone(),
            equipment_type: st.equipment.equipment_type.clone(),
            equipment_length: st.equipment.equipment_length,
            equipment_height: st.equipment.equipment_height.clone(),
            weight_in_lbs: st.equipment.weight_in_lbs,
            pod_arrived_at: time(t::POD_ARRIVED),
            pod_discharged_at: time(t::POD_DISCHARGED),
            pod_full_out_at: time(t::POD_FULL_OUT),
            final_destination_full_out_at: time(t::FINAL_FULL_OUT),
            empty_terminated_at: time(t::EMPTY_TERMINATED),
            delivered_at: time(t::DELIVERED),
            empty_out_at: time(t::EMPTY_OUT),
            pol_full_in_at: time(t::POL_FULL_IN),
            pol_vessel_loaded_at: time(t::POL_VESSEL_LOADED),
            pol_vessel_departed_at: time(t::POL_VESSEL_DEPARTED),
            terminal_checked_at: At::opt(
                st.versions
                    .get("availability")
                    .or(st.versions.get("holds"))
                    .copied(),
            ),
            pod_last_tracking_request_at: None,
            shipment_last_tracking_request_at: shipment.map(|s| At(s.updated_us)),
            rail_last_tracking_request_at: None,
            available_for_pickup: boxtrack_core::tracking::rules::available_for_pickup(
                st,
                route.inland(),
            ),
            availability_known: st.availability_known,
            ready_for_pickup: c.ready_for_pickup,
            holds_at_pod_terminal: st.holds.iter().map(HoldView::from).collect(),
            fees_at_pod_terminal: st.fees.iter().map(FeeView::from).collect(),
            pickup_lfd: At::opt(coalesced_lfd(&st.lfd, rail)),
            import_deadlines: ImportDeadlines {
                pickup_lfd_terminal: lfd(LfdKind::Terminal),
                pickup_lfd_rail: rail_lfd,
                pickup_lfd_line: lfd(LfdKind::Line),
            },
            ssl_lfd: lfd(LfdKind::Line),
            pickup_appointment_at: At::opt(st.pickup_appointment_us),
            pod_full_out_chassis_number: st.pod_full_out_chassis_number.clone(),
            location_at_pod_terminal: st.location_at_pod_terminal.clone(),
            pod_timezone: route.pod_timezone.clone(),
            final_destination_timezone: final_tz,
            empty_terminated_timezone: route.pod_timezone.clone(),
            pod_rail_carrier_scac: st.pod_rail_carrier_scac.clone(),
            ind_rail_carrier_scac: st.ind_rail_carrier_scac.clone(),
            pod_rail_loaded_at: time(t::POD_RAIL_LOADED),
            pod_rail_departed_at: time(t::POD_RAIL_DEPARTED),
            ind_eta_at: time(t::IND_ETA),
            ind_ata_at: time(t::IND_ATA),
            ind_rail_unloaded_at: time(t::IND_RAIL_UNLOADED),
            ind_facility_lfd_on: rail_lfd,
            ind_facility_holds: None,
            ind_facility_fees: None,
            current_status: c.current_status.clone(),
        },
        relationships: ContainerRelationships {
            shipment: ToOne::new("shipment", Some(c.shipment_id)),
            pod_terminal: terminal_rel(st.pod_terminal.as_deref()),
            pickup_facility: ToOne::none(),
            transport_events: None,
        },
    }
}

/// The `container` resource as a JSON value.
pub fn container(c: &ContainerRow, shipment: Option<&ShipmentRow>, account: &Account) -> Value {
    container_resource(c, shipment, account).to_value()
}

/// Whether an event happened inland (its location is then a metro area rather than a port).
pub fn inland_event(event: &str) -> bool {
    ["rail_", "arrived_at_inland_destination"]
        .iter()
        .any(|p| event.contains(p))
}

fn event_location(e: &TransportEventRow) -> ToOne {
    let place = e.locode.as_deref().and_then(boxtrack_core::reference::port);
    match place {
        Some(p) if inland_event(&e.event) => {
            ToOne::new("metro_area", Some(crate::reference::metro_id(&p.locode)))
        }
        Some(p) => ToOne::new("port", Some(crate::reference::port_id(&p.locode))),
        None => ToOne::none(),
    }
}

/// The `transport_event` type.
pub struct TransportEvent;

impl Kind for TransportEvent {
    const TYPE: &'static str = "transport_event";
    const COLLECTION: &'static str = "transport_events";
    const NAME: &'static str = "TransportEvent";
    type Attributes = TransportEventAttributes;
    type Relationships = TransportEventRelationships;
}

/// Attributes of a transport event (a milestone of the container's journey).
#[derive(Debug, Serialize, JsonSchema)]
pub struct TransportEventAttributes {
    /// What happened (`container.transport.vessel_arrived`, …).
    pub event: String,
    /// When (null for a planned milestone without a time).
    pub timestamp: Option<At>,
    /// The place's time zone (IANA).
    pub timezone: Option<String>,
    /// Where (UN/LOCODE).
    pub location_locode: Option<String>,
    /// The voyage number.
    pub voyage_number: Option<String>,
    /// The vessel's name.
    pub vessel_name: Option<String>,
    /// The vessel's IMO number.
    pub vessel_imo: Option<String>,
    /// The terminal's FIRMS code.
    pub terminal_code: Option<String>,
    /// Who reported it.
    #[schemars(extend("enum" = ["shipping_line", "terminal", "rail", "ais", "sandbox"]))]
    pub data_source: String,
    /// For `container.pickup_*` events, the time the event is about.
    pub value: Option<At>,
    /// When the source withdrew it (never yet: always null).
    pub invalidated_at: Option<At>,
    /// When boxtrack recorded it.
    pub created_at: At,
}

/// Relationships of a transport event.
#[derive(Debug, Serialize, JsonSchema)]
pub struct TransportEventRelationships {
    /// The shipment (`shipment`).
    pub shipment: ToOne,
    /// The container (`container`).
    pub container: ToOne,
    /// Where it happened: a `port`, or a `metro_area` for inland events.
    pub location: ToOne,
    /// The vessel (`vessel`).
    pub vessel: ToOne,
    /// The terminal (`terminal`).
    pub terminal: ToOne,
}

/// The `transport_event` resource.
pub fn transport_event_resource(e: &TransportEventRow) -> Resource<TransportEvent> {
    let value = if e.event.starts_with("container.pickup_") {
        At::opt(e.at_us)
    } else {
        None
    };
    Resource {
        id: e.id,
        attributes: TransportEventAttributes {
            event: e.event.clone(),
            timestamp: At::opt(e.at_us),
            timezone: e.timezone.clone(),
            location_locode: e.locode.clone(),
            voyage_number: e.voyage.clone(),
            vessel_name: e.vessel_name.clone(),
            vessel_imo: e.vessel_imo.clone(),
            terminal_code: e.terminal.clone(),
            data_source: e.data_source.clone(),
            value,
            invalidated_at: None,
            created_at: At(e.created_us),
        },
        relationships: TransportEventRelationships {
            shipment: ToOne::new("shipment", Some(e.shipment_id)),
            container: ToOne::new("container", Some(e.container_id)),
            location: event_location(e),
            vessel: ToOne::new(
                "vessel",
                e.vessel_imo.as_deref().map(crate::reference::vessel_id),
            ),
            terminal: terminal_rel(e.terminal.as_deref()),
        },
    }
}

/// The `transport_event` resource as a JSON value.
pub fn transport_event(e: &TransportEventRow) -> Value {
    transport_event_resource(e).to_value()
}

/// The `raw_event` type.
pub struct RawEvent;

impl Kind for RawEvent {
    const TYPE: &'static str = "raw_event";
    const COLLECTION: &'static str = "raw_events";
    const NAME: &'static str = "RawEvent";
    type Attributes = RawEventAttributes;
    type Relationships = RawEventRelationships;
}

/// Attributes of a raw event: one observation as its source reported it.
#[derive(Debug, Serialize, JsonSchema)]
pub struct RawEventAttributes {
    /// The normalized event.
    pub event: String,
    /// The source's record, as received.
    pub original_event: Value,
    /// When (actual or estimated).
    pub timestamp: Option<At>,
    /// The time is an estimate.
    pub estimated: bool,
    /// The time, when it is actual.
    pub actual_at: Option<At>,
    /// The time, when it is an estimate.
    pub estimated_at: Option<At>,
    /// The place's time zone (IANA).
    pub timezone: Option<String>,
    /// Where (UN/LOCODE).
    pub location_locode: Option<String>,
    /// The vessel's name.
    pub vessel_name: Option<String>,
    /// The vessel's IMO number.
    pub vessel_imo: Option<String>,
    /// The voyage number.
    pub voyage_number: Option<String>,
    /// Who reported it.
    pub data_source: String,
    /// When boxtrack read it from the source.
    pub observed_at: At,
    /// When boxtrack recorded it.
    pub created_at: At,
}

/// Relationships of a raw event.
#[derive(Debug, Serialize, JsonSchema)]
pub struct RawEventRelationships {
    /// The container (`container`).
    pub container: ToOne,
    /// The shipment (`shipment`).
    pub shipment: ToOne,
}

/// The `raw_event` resource.
pub fn raw_event_resource(e: &RawEventRow) -> Resource<RawEvent> {
    let at = At::opt(e.at_us);
    Resource {
        id: e.id,
        attributes: RawEventAttributes {
            event: e.event.clone(),
            original_event: e.original.0.clone(),
            timestamp: at,
            estimated: e.estimated,
            actual_at: if e.estimated { None } else { at },
            estimated_at: if e.estimated { at } else { None },
            timezone: e.timezone.clone(),
            location_locode: e.locode.clone(),
            vessel_name: e.vessel_name.clone(),
            vessel_imo: e.vessel_imo.clone(),
            voyage_number: e.voyage.clone(),
            data_source: e.data_source.clone(),
            observed_at: At(e.observed_us),
            created_at: At(e.created_us),
        },
        relationships: RawEventRelationships {
            container: ToOne::new("container", Some(e.container_id)),
            shipment: ToOne::new("shipment", Some(e.shipment_id)),
        },
    }
}

/// The `raw_event` resource as a JSON value.
pub fn raw_event(e: &RawEventRow) -> Value {
    raw_event_resource(e).to_value()
}
