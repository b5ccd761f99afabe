//! Reference resources (ports, terminals, metro areas, shipping lines, vessels) and their stable
//! ids: the same UN/LOCODE, FIRMS code, SCAC or IMO number always gives the same id.

use boxtrack_core::carriers::ShippingLine;
use boxtrack_core::reference::{self, Port, Terminal, stable_id};
use serde_json::{Value, json};
use uuid::Uuid;

use crate::jsonapi::{resource, to_one};

/// The stable id of a port.
pub fn port_id(locode: &str) -> Uuid {
    Uuid::from_bytes(stable_id("port", locode))
}

/// The stable id of a terminal.
pub fn terminal_id(firms: &str) -> Uuid {
    Uuid::from_bytes(stable_id("terminal", firms))
}

/// The `port` resource.
pub fn port_resource(p: &Port) -> Value {
    let id = port_id(&p.locode);
    resource(
        "port",
        id,
        "ports",
        json!({"id": id, "name": p.name, "code": p.locode, "country_code": p.country_code, "latitude": p.latitude, "longitude": p.longitude, "time_zone": p.time_zone}),
        None,
    )
}

/// The `terminal` resource.
pub fn terminal_resource(t: &Terminal) -> Value {
    let id = terminal_id(&t.firms_code);
    resource(
        "terminal",
        id,
        "terminals",
        json!({"id": id, "name": t.name, "nickname": t.nickname, "firms_code": t.firms_code, "smdg_code": null, "bic_facility_code": null, "city": t.city, "time_zone": t.time_zone}),
        Some(
            json!({"port": to_one("port", reference::port(&t.port_locode).map(|p| port_id(&p.locode)))}),
        ),
    )
}

/// The `shipping_line` resource.
pub fn line_resource(l: &ShippingLine) -> Value {
    let id = Uuid::from_bytes(stable_id("shipping_line", &l.scac));
    resource(
        "shipping_line",
        id,
        "shipping_lines",
        json!({
            "scac": l.scac, "name": l.name, "short_name": l.short_name, "alternative_scacs": [],
            "bill_of_lading_tracking_support": l.supported,
            "booking_number_tracking_support": l.supported,
            "container_number_tracking_support": l.supported && l.container_number_tracking,
            "bill_of_lading_prefix": l.bill_of_lading_prefix,
            "notes": l.notes,
        }),
        None,
    )
}

/// The stable id of a vessel (by IMO number).
pub fn vessel_id(imo: &str) -> Uuid {
    Uuid::from_bytes(stable_id("vessel", imo))
}

/// The `vessel` resource as known from carrier events (positions come with AIS).
pub fn vessel_resource(imo: &str, name: Option<&str>) -> Value {
    let id = vessel_id(imo);
    resource(
        "vessel",
        id,
        "vessels",
        json!({"id": id, "name": name, "imo": imo, "mmsi": null, "latitude": null, "longitude": null, "nautical_speed_knots": null, "navigational_heading_degrees": null, "position_timestamp": null, "positions": []}),
        None,
    )
}

/// The stable id of a metro area (an inland place by UN/LOCODE).
pub fn metro_id(locode: &str) -> Uuid {
    Uuid::from_bytes(stable_id("metro_area", locode))
}

/// The `metro_area` resource (inland destinations and rail ramps).
pub fn metro_resource(p: &Port) -> Value {
    let id = metro_id(&p.locode);
    resource(
        "metro_area",
        id,
        "metro_areas",
        json!({"id": id, "name": p.name, "code": p.locode, "country_code": p.country_code, "latitude": p.latitude, "longitude": p.longitude, "time_zone": p.time_zone}),
        None,
    )
}
