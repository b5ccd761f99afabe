//! Reference resources (ports, terminals, metro areas, shipping lines, vessels) and their stable
//! ids: the same UN/LOCODE, FIRMS code, SCAC or IMO number always gives the same id.

use boxtrack_core::carriers::ShippingLine as Line;
use boxtrack_core::reference::{self, Port as PortRow, Terminal as TerminalRow, stable_id};
use boxtrack_store::ais::AisVessel;
use schemars::JsonSchema;
use serde::Serialize;
use serde_json::Value;
use uuid::Uuid;

use crate::jsonapi::{At, Kind, NoRelationships, Resource, ToMany, ToOne};

/// The stable id of a port.
pub fn port_id(locode: &str) -> Uuid {
    Uuid::from_bytes(reference::id_of("port", locode))
}

/// The stable id of a terminal.
pub fn terminal_id(firms: &str) -> Uuid {
    Uuid::from_bytes(reference::id_of("terminal", firms))
}

/// The stable id of a shipping line.
pub fn line_id(scac: &str) -> Uuid {
    Uuid::from_bytes(reference::id_of("shipping_line", scac))
}

/// The stable id of a vessel (by IMO number).
pub fn vessel_id(imo: &str) -> Uuid {
    Uuid::from_bytes(stable_id("vessel", imo))
}

/// The stable id of a metro area (an inland place by UN/LOCODE).
pub fn metro_id(locode: &str) -> Uuid {
    Uuid::from_bytes(reference::id_of("metro_area", locode))
}

/// Attributes of a place: a port or a metro area.
#[derive(Debug, Serialize, JsonSchema)]
pub struct PlaceAttributes {
    /// The resource's id.
    pub id: Uuid,
    /// Its name.
    pub name: Option<String>,
    /// Its UN/LOCODE.
    pub code: String,
    /// The city it is in (its UN/LOCODE name).
    pub city: Option<String>,
    /// Its state or province code (the UN/LOCODE subdivision, e.g. `CA`), when known.
    pub state_abbr: Option<String>,
    /// ISO 3166 country code.
    pub country_code: String,
    /// Latitude (WGS84).
    pub latitude: Option<f64>,
    /// Longitude (WGS84).
    pub longitude: Option<f64>,
    /// IANA time zone.
    pub time_zone: String,
}

fn place(id: Uuid, p: &PortRow) -> PlaceAttributes {
    PlaceAttributes {
        id,
        name: p.name.clone(),
        code: p.locode.clone(),
        city: p.name.clone(),
        state_abbr: p.subdivision.clone(),
        country_code: p.country_code.clone(),
        latitude: p.latitude,
        longitude: p.longitude,
        time_zone: p.time_zone.clone(),
    }
}

/// The `port` type.
pub struct Port;

impl Kind for Port {
    const TYPE: &'static str = "port";
    const COLLECTION: &'static str = "ports";
    const NAME: &'static str = "Port";
    type Attributes = PlaceAttributes;
    type Relationships = PortRelationships;
}

/// Relationships of a port.
#[derive(Debug, Serialize, JsonSchema)]
pub struct PortRelationships {
    /// The terminals boxtrack knows at the port (`terminal`), as the reference lists them.
    pub terminals: ToMany,
}

/// The `port` resource.
pub fn port(p: &PortRow) -> Resource<Port> {
    let id = port_id(&p.locode);
    Resource {
        id,
        attributes: place(id, p),
        relationships: PortRelationships {
            terminals: ToMany::new(
                "terminal",
                reference::terminals()
                    .iter()
                    .filter(|t| t.port_locode == p.locode)
                    .map(|t| terminal_id(&t.firms_code)),
            ),
        },
    }
}

/// The `port` resource as a JSON value.
pub fn port_resource(p: &PortRow) -> Value {
    port(p).to_value()
}

/// The `metro_area` type (inland destinations and rail ramps).
pub struct MetroArea;

impl Kind for MetroArea {
    const TYPE: &'static str = "metro_area";
    const COLLECTION: &'static str = "metro_areas";
    const NAME: &'static str = "MetroArea";
    type Attributes = PlaceAttributes;
    type Relationships = NoRelationships;
    const HAS_RELATIONSHIPS: bool = false;
}

/// The `metro_area` resource as a JSON value.
pub fn metro_resource(p: &PortRow) -> Value {
    let id = metro_id(&p.locode);
    Resource::<MetroArea> {
        id,
        attributes: place(id, p),
        relationships: NoRelationships {},
    }
    .to_value()
}

/// The `terminal` type.
pub struct Terminal;

impl Kind for Terminal {
    const TYPE: &'static str = "terminal";
    const COLLECTION: &'static str = "terminals";
    const NAME: &'static str = "Terminal";
    type Attributes = TerminalAttributes;
    type Relationships = TerminalRelationships;
}

/// Attributes of a terminal.
#[derive(Debug, Serialize, JsonSchema)]
pub struct TerminalAttributes {
    /// The resource's id.
    pub id: Uuid,
    /// Its name.
    pub name: String,
    /// Its short name.
    pub nickname: String,
    /// Its FIRMS code (US customs).
    pub firms_code: String,
    /// Its code in the SMDG Terminal Code List (absent where that list has none for it).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub smdg_code: Option<String>,
    /// Its BIC Facility Code (absent where no public copy of the register has one: the
    /// register codes depots and yards more than ocean terminals).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bic_facility_code: Option<String>,
    /// Street part of its address (absent where no source gives it).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub street: Option<String>,
    /// Its city.
    pub city: String,
    /// Its state or province (`California`), where the country has them.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub state: Option<String>,
    /// Its state or province code (`CA`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub state_abbr: Option<String>,
    /// ZIP or postal code part of its address (absent where no source gives it).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub zip: Option<String>,
    /// Its country (`United States`).
    pub country: String,
    /// ISO 3166 country code.
    pub country_code: String,
    /// IANA time zone.
    pub time_zone: String,
    /// What kind of facility it is: `ocean_terminal` (every terminal boxtrack knows; the
    /// reference also has `rail`).
    #[schemars(extend("enum" = ["ocean_terminal", "rail"]))]
    pub facility_type: &'static str,
    /// What boxtrack reads from the terminal (see [`TerminalProvidedData`]).
    pub provided_data: TerminalProvidedData,
}

/// Which container attributes a terminal's feed fills, as the reference describes each
/// terminal, with a note on each (empty when there is nothing to say). boxtrack reads every
/// terminal through one protocol (availability, holds, fees, last free day, appointment,
/// yard location, full out with its chassis), so the answer is the same for all of them.
#[derive(Debug, Serialize, JsonSchema)]
pub struct TerminalProvidedData {
    /// `pickup_lfd`.
    pub pickup_lfd: bool,
    /// About `pickup_lfd`.
    pub pickup_lfd_notes: String,
    /// `available_for_pickup`.
    pub available_for_pickup: bool,
    /// About `available_for_pickup`.
    pub available_for_pickup_notes: String,
    /// `fees_at_pod_terminal`.
    pub fees_at_pod_terminal: bool,
    /// About `fees_at_pod_terminal`.
    pub fees_at_pod_terminal_notes: String,
    /// `holds_at_pod_terminal`.
    pub holds_at_pod_terminal: bool,
    /// About `holds_at_pod_terminal`.
    pub holds_at_pod_terminal_notes: String,
    /// `pickup_appointment_at`.
    pub pickup_appointment_at: bool,
    /// About `pickup_appointment_at`.
    pub pickup_appointment_at_notes: String,
    /// `location_at_pod_terminal`.
    pub location_at_pod_terminal: bool,
    /// About `location_at_pod_terminal`.
    pub location_at_pod_terminal_notes: String,
    /// `pod_full_out_chassis_number`.
    pub pod_full_out_chassis_number: bool,
    /// About `pod_full_out_chassis_number`.
    pub pod_full_out_chassis_number_notes: String,
    /// `pod_full_out_at`.
    pub pod_full_out_at: bool,
    /// About `pod_full_out_at`.
    pub pod_full_out_at_notes: String,
    /// `empty_terminated_at`.
    pub empty_terminated_at: bool,
    /// About `empty_terminated_at`.
    pub empty_terminated_at_notes: String,
}

impl TerminalProvidedData {
    /// What boxtrack's terminal protocol carries.
    fn of_terminal_feed() -> TerminalProvidedData {
        let none = String::new;
        TerminalProvidedData {
            pickup_lfd: true,
            pickup_lfd_notes: none(),
            available_for_pickup: true,
            available_for_pickup_notes: none(),
            fees_at_pod_terminal: true,
            fees_at_pod_terminal_notes: none(),
            holds_at_pod_terminal: true,
            holds_at_pod_terminal_notes: none(),
            pickup_appointment_at: true,
            pickup_appointment_at_notes: none(),
            location_at_pod_terminal: true,
            location_at_pod_terminal_notes: none(),
            pod_full_out_chassis_number: true,
            pod_full_out_chassis_number_notes: none(),
            pod_full_out_at: true,
            pod_full_out_at_notes: none(),
            empty_terminated_at: false,
            empty_terminated_at_notes:
                "The empty's return is the shipping line's report, not the terminal's.".into(),
        }
    }
}

/// Relationships of a terminal.
#[derive(Debug, Serialize, JsonSchema)]
pub struct TerminalRelationships {
    /// Its port (`port`).
    pub port: ToOne,
}

/// The `terminal` resource as a JSON value.
pub fn terminal_resource(t: &TerminalRow) -> Value {
    let id = terminal_id(&t.firms_code);
    Resource::<Terminal> {
        id,
        attributes: TerminalAttributes {
            id,
            name: t.name.clone(),
            nickname: t.nickname.clone(),
            firms_code: t.firms_code.clone(),
            smdg_code: t.smdg_code.clone(),
            bic_facility_code: t.bic_facility_code.clone(),
            street: t.street.clone(),
            zip: t.zip.clone(),
            city: t.city.clone(),
            state: t
                .state_abbr
                .as_deref()
                .and_then(|s| reference::state_name(&t.country_code, s))
                .map(str::to_string),
            state_abbr: t.state_abbr.clone(),
            country: reference::country_name(&t.country_code)
                .unwrap_or(&t.country_code)
                .to_string(),
            country_code: t.country_code.clone(),
            time_zone: t.time_zone.clone(),
            facility_type: "ocean_terminal",
            provided_data: TerminalProvidedData::of_terminal_feed(),
        },
        relationships: TerminalRelationships {
            port: ToOne::new(
                "port",
                reference::port(&t.port_locode).map(|p| port_id(&p.locode)),
            ),
        },
    }
    .to_value()
}

/// The `shipping_line` type.
pub struct ShippingLine;

impl Kind for ShippingLine {
    const TYPE: &'static str = "shipping_line";
    const COLLECTION: &'static str = "shipping_lines";
    const NAME: &'static str = "ShippingLine";
    type Attributes = ShippingLineAttributes;
    type Relationships = NoRelationships;
    const HAS_RELATIONSHIPS: bool = false;
}

/// Attributes of a shipping line.
#[derive(Debug, Serialize, JsonSchema)]
pub struct ShippingLineAttributes {
    /// Its SCAC.
    pub scac: String,
    /// Its name.
    pub name: String,
    /// Its short name.
    pub short_name: String,
    /// Other SCACs it uses.
    pub alternative_scacs: Vec<String>,
    /// Bills of lading can be tracked.
    pub bill_of_lading_tracking_support: bool,
    /// Bookings can be tracked.
    pub booking_number_tracking_support: bool,
    /// Containers can be tracked by number alone.
    pub container_number_tracking_support: bool,
    /// The prefix of its bill of lading numbers (what the reference's SDK reads).
    pub bol_prefix: Option<String>,
    /// The same as `bol_prefix` (kept for boxtrack clients that read this name).
    pub bill_of_lading_prefix: Option<String>,
    /// `public` (on for every account) or `account` (enabled per account by the carrier).
    #[schemars(extend("enum" = ["public", "account"]))]
    pub access: String,
    /// What to know about tracking it.
    pub notes: Option<String>,
    /// Its public web-tracking page (`${BLNUM}` stands for the bill of lading number), when
    /// known.
    pub tracking_url: Option<String>,
    /// Its public contact page, when known.
    pub contact_url: Option<String>,
    /// Which container attributes its feed fills (see [`LineProvidedData`]).
    pub provided_data: LineProvidedData,
}

/// Which container attributes a shipping line's feed fills, as the reference describes each
/// line, with a note on each (empty when there is nothing to say; `ssl_lfd` has none, as in
/// the reference). boxtrack reads every line through the same adapters (DCSA Track & Trace
/// 2.2 and 3.0, X12 315, EDIFACT IFTSTA), so the answer is the same for all lines but the
/// sandbox, which plays every one.
#[derive(Debug, Serialize, JsonSchema)]
pub struct LineProvidedData {
    /// The line's own last free day.
    pub ssl_lfd: bool,
    /// `seal_number`.
    pub seal_number: bool,
    /// About `seal_number`.
    pub seal_number_notes: String,
    /// `weight_in_lbs`.
    pub weight_in_lbs: bool,
    /// About `weight_in_lbs`.
    pub weight_in_lbs_notes: String,
    /// `equipment_type`.
    pub equipment_type: bool,
    /// About `equipment_type`.
    pub equipment_type_notes: String,
    /// `equipment_length`.
    pub equipment_length: bool,
    /// About `equipment_length`.
    pub equipment_length_notes: String,
    /// `equipment_height`.
    pub equipment_height: bool,
    /// About `equipment_height`.
    pub equipment_height_notes: String,
    /// `pod_arrived_at`.
    pub pod_arrived_at: bool,
    /// About `pod_arrived_at`.
    pub pod_arrived_at_notes: String,
    /// `pod_discharged_at`.
    pub pod_discharged_at: bool,
    /// About `pod_discharged_at`.
    pub pod_discharged_at_notes: String,
    /// `pod_full_out_at`.
    pub pod_full_out_at: bool,
    /// About `pod_full_out_at`.
    pub pod_full_out_at_notes: String,
    /// `empty_terminated_at`.
    pub empty_terminated_at: bool,
    /// About `empty_terminated_at`.
    pub empty_terminated_at_notes: String,
    /// `final_destination_full_out_at`.
    pub final_destination_full_out_at: bool,
    /// About `final_destination_full_out_at`.
    pub final_destination_full_out_at_notes: String,
}

impl LineProvidedData {
    /// What the carrier adapters fill (all of it for the sandbox).
    fn of_line(scac: &str) -> LineProvidedData {
        let sandbox = scac == boxtrack_core::carriers::SANDBOX_SCAC;
        let none = String::new;
        LineProvidedData {
            ssl_lfd: true,
            seal_number: true,
            seal_number_notes: none(),
            weight_in_lbs: sandbox,
            weight_in_lbs_notes: if sandbox {
                none()
            } else {
                "Neither DCSA Track & Trace, X12 315 nor IFTSTA carries the weight.".into()
            },
            equipment_type: true,
            equipment_type_notes: none(),
            equipment_length: true,
            equipment_length_notes: none(),
            equipment_height: true,
            equipment_height_notes: none(),
            pod_arrived_at: true,
            pod_arrived_at_notes: none(),
            pod_discharged_at: true,
            pod_discharged_at_notes: none(),
            pod_full_out_at: true,
            pod_full_out_at_notes: none(),
            empty_terminated_at: true,
            empty_terminated_at_notes: none(),
            final_destination_full_out_at: true,
            final_destination_full_out_at_notes: none(),
        }
    }
}

/// The `shipping_line` resource as a JSON value.
pub fn line_resource(l: &Line) -> Value {
    Resource::<ShippingLine> {
        id: line_id(&l.scac),
        attributes: ShippingLineAttributes {
            scac: l.scac.clone(),
            name: l.name.clone(),
            short_name: l.short_name.clone(),
            alternative_scacs: l.alternative_scacs.clone(),
            bill_of_lading_tracking_support: l.bill_of_lading_tracking,
            booking_number_tracking_support: l.booking_number_tracking,
            container_number_tracking_support: l.container_number_tracking,
            bol_prefix: l.bill_of_lading_prefix.clone(),
            bill_of_lading_prefix: l.bill_of_lading_prefix.clone(),
            access: l.access.clone(),
            notes: l.notes.clone(),
            tracking_url: l.tracking_url.clone(),
            contact_url: l.contact_url.clone(),
            provided_data: LineProvidedData::of_line(&l.scac),
        },
        relationships: NoRelationships {},
    }
    .to_value()
}

/// The `vessel` type.
pub struct Vessel;

impl Kind for Vessel {
    const TYPE: &'static str = "vessel";
    const COLLECTION: &'static str = "vessels";
    const NAME: &'static str = "Vessel";
    type Attributes = VesselAttributes;
    type Relationships = NoRelationships;
    const HAS_RELATIONSHIPS: bool = false;
}

/// One position of a vessel: reported by AIS, or estimated ahead of it.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct Position {
    /// Latitude (WGS84).
    pub latitude: f64,
    /// Longitude (WGS84).
    pub longitude: f64,
    /// Heading in degrees (estimated positions only).
    pub heading: Option<f64>,
    /// When.
    pub timestamp: At,
    /// The position is an estimate, not a report.
    pub estimated: bool,
}

/// Attributes of a vessel.
#[derive(Debug, Serialize, JsonSchema)]
pub struct VesselAttributes {
    /// The resource's id.
    pub id: Uuid,
    /// Its name.
    pub name: Option<String>,
    /// Its IMO number.
    pub imo: String,
    /// Its MMSI (from AIS).
    pub mmsi: Option<String>,
    /// Latest latitude (from AIS).
    pub latitude: Option<f64>,
    /// Latest longitude (from AIS).
    pub longitude: Option<f64>,
    /// Speed over ground in knots (from AIS).
    pub nautical_speed_knots: Option<f64>,
    /// Heading, or course over ground without one (from AIS).
    pub navigational_heading_degrees: Option<f64>,
    /// When the latest position was reported.
    pub position_timestamp: Option<At>,
    /// The destination its crew entered (from AIS).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ais_destination: Option<String>,
    /// The arrival time its crew entered (from AIS).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ais_eta_at: Option<At>,
    /// Its AIS navigation status code.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ais_navigation_status: Option<i32>,
    /// Positions asked for (a track, or estimated positions ahead).
    pub positions: Vec<Position>,
}

/// The `vessel` resource as known from carrier events and, when there is one, its AIS report.
pub fn vessel(imo: &str, name: Option<&str>, ais: Option<&AisVessel>) -> Resource<Vessel> {
    let id = vessel_id(imo);
    Resource {
        id,
        attributes: VesselAttributes {
            id,
            name: name.map(str::to_string),
            imo: imo.to_string(),
            mmsi: ais.map(|a| a.mmsi.to_string()),
            latitude: ais.and_then(|a| a.latitude),
            longitude: ais.and_then(|a| a.longitude),
            nautical_speed_knots: ais.and_then(|a| a.speed_knots),
            navigational_heading_degrees: ais.and_then(|a| a.heading.map(f64::from).or(a.course)),
            position_timestamp: ais.and_then(|a| At::opt(a.position_us)),
            ais_destination: ais.and_then(|a| a.destination.clone()),
            ais_eta_at: ais.and_then(|a| At::opt(a.eta_us)),
            ais_navigation_status: ais.and_then(|a| a.nav_status),
            positions: Vec::new(),
        },
        relationships: NoRelationships {},
    }
}

/// The `vessel` resource without AIS, as a JSON value.
pub fn vessel_resource(imo: &str, name: Option<&str>) -> Value {
    vessel(imo, name, None).to_value()
}
