//! The `container` resource (with holds, fees and last free days as the account may see them).

use boxtrack_core::plan::Entitlement;
use boxtrack_core::tracking::rules::{ContainerStatus, coalesced_lfd, t};
use boxtrack_core::tracking::{Fee, Hold, LfdKind};
use boxtrack_store::accounts::Account;
use boxtrack_store::reads::{ContainerRow, ShipmentRow};
use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use serde::Serialize;
use serde_json::Value;

use super::rels::*;
use crate::jsonapi::{At, Kind, RelatedMany, Resource, ToOne};

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
        boxtrack_core::tracking::merge::major_units(self.0).serialize(s)
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
    /// Holds at the POD terminal (at the inland ramp for a box bound there); an empty list
    /// when the terminal reports none, null while no source has reported holds.
    pub holds_at_pod_terminal: Option<Vec<HoldView>>,
    /// Fees at the POD terminal; an empty list when the terminal reports none, null while no
    /// source has reported fees (unknown is not zero).
    pub fees_at_pod_terminal: Option<Vec<FeeView>>,
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
    /// Its transport events (`transport_event`): the link to them, and their ids with
    /// `include=transport_events`.
    pub transport_events: RelatedMany,
    /// What its sources reported (`raw_event`): the link to them.
    pub raw_events: RelatedMany,
}

/// The `container` resource as `account` may see it (rail LFD needs its entitlement).
pub fn container_resource(
    c: &ContainerRow,
    shipment: Option<&ShipmentRow>,
    account: &Account,
) -> Resource<Container> {
    let st = &c.state.0;
    let time = |k: boxtrack_core::tracking::times::TimeKey| At::opt(st.times.get(&k).copied());
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
                    .get(&boxtrack_core::tracking::versions::VersionKey::Availability)
                    .or(st
                        .versions
                        .get(&boxtrack_core::tracking::versions::VersionKey::Holds))
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
            holds_at_pod_terminal: boxtrack_core::tracking::rules::reported_holds(st)
                .map(|h| h.iter().map(HoldView::from).collect()),
            fees_at_pod_terminal: boxtrack_core::tracking::rules::reported_fees(st)
                .map(|f| f.iter().map(FeeView::from).collect()),
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
            transport_events: RelatedMany::at(format!("/v2/containers/{}/transport_events", c.id)),
            raw_events: RelatedMany::at(format!("/v2/containers/{}/raw_events", c.id)),
        },
    }
}

/// The `container` resource as a JSON value.
pub fn container(c: &ContainerRow, shipment: Option<&ShipmentRow>, account: &Account) -> Value {
    container_resource(c, shipment, account).to_value()
}
