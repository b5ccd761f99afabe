//! The `shipment` resource.

use boxtrack_core::carriers;
use boxtrack_store::reads::{ContainerOnShipment, ShipmentRow};
use schemars::JsonSchema;
use serde::Serialize;
use serde_json::Value;

use super::rels::*;
use crate::jsonapi::{At, Kind, Resource, ToMany, ToOne};

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
    /// The terminal at the inland destination (`terminal`; boxtrack does not learn it: null).
    pub destination_terminal: ToOne,
    /// The shipment's containers (`container`).
    pub containers: ToMany,
    /// The customer (`party`).
    pub customer: ToOne,
    /// The person who stopped its tracking (`user`): boxtrack has API keys, not users, so
    /// always null.
    pub line_tracking_stopped_by_user: ToOne,
}

/// The `shipment` resource; `container_ids` fills the `containers` relationship.
pub fn shipment_resource<C: ContainerOnShipment>(
    s: &ShipmentRow,
    containers: &[C],
) -> Resource<Shipment> {
    let route = &s.route.0;
    // the POD terminal the containers report (they share one port of discharge)
    let pod_terminal = containers
        .iter()
        .find_map(ContainerOnShipment::pod_terminal);
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
            pod_terminal: terminal_rel(pod_terminal),
            destination_terminal: ToOne::none(),
            containers: ToMany::new("container", containers.iter().map(ContainerOnShipment::id)),
            customer: ToOne::new("party", s.customer_id),
            line_tracking_stopped_by_user: ToOne::none(),
        },
    }
}

/// The `shipment` resource as a JSON value.
pub fn shipment<C: ContainerOnShipment>(s: &ShipmentRow, containers: &[C]) -> Value {
    shipment_resource(s, containers).to_value()
}
