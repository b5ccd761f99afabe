//! The mapping of DCSA events to observations: which container milestone each event is, where
//! on the route it happens, and what it says of the vessel, the voyage and the container.

use boxtrack_core::ident;
use boxtrack_core::time::parse_micros;
use boxtrack_core::tracking::{
    DataSource, Equipment, EventFact, Fact, Milestone, Observation, Place,
};

use super::Event;

/// What boxtrack knows of the route, to tell the port of loading from a transshipment port.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Route {
    /// Port of lading.
    pub pol: Option<String>,
    /// Port of discharge.
    pub pod: Option<String>,
    /// Inland destination.
    pub destination: Option<String>,
}

/// One observation and the container it is about (`None`: every container of the subject,
/// as for a vessel's arrival).
pub type Targeted = (Option<String>, Observation);

fn place(route: &Route, locode: Option<&str>, mode: &str, default: Place) -> Place {
    let is = |p: &Option<String>| locode.is_some() && p.as_deref() == locode;
    if is(&route.pod) {
        Place::Pod
    } else if is(&route.pol) {
        Place::Origin
    } else if is(&route.destination) || matches!(mode, "RAIL" | "TRUCK") {
        Place::Inland
    } else if locode.is_some() && route.pol.is_some() && route.pod.is_some() {
        Place::Transshipment
    } else {
        default
    }
}

/// Maps events to observations. Planned events (`PLN`) count as estimates; shipment
/// (document) events carry no container milestone and are only noted.
pub fn map(events: &[Event], route: &Route) -> (Vec<Targeted>, Vec<String>) {
    let mut out = vec![];
    let mut notes = vec![];
    for e in events {
        let observed_us = parse_micros(&e.event_created_date_time).unwrap_or(0);
        let Some(at_us) = parse_micros(&e.event_date_time) else {
            continue;
        };
        let mode = e
            .transport_call
            .as_ref()
            .map_or("VESSEL", |t| t.mode_of_transport.as_str());
        let locode = e
            .event_location
            .as_ref()
            .and_then(|l| l.un_location_code.clone())
            .or_else(|| {
                e.transport_call
                    .as_ref()
                    .and_then(|t| t.un_location_code.clone())
            });
        let container = e.equipment_reference.as_deref().map(ident::normalize);
        let laden = e.empty_indicator_code.as_deref() != Some("EMPTY");
        let code = e
            .transport_event_type_code
            .as_deref()
            .or(e.equipment_event_type_code.as_deref())
            .unwrap_or("");
        let (milestone, default_place) = milestone_of(e.event_type.as_str(), code, mode, laden);
        let Some(milestone) = milestone else {
            notes.push(format!(
                "{} {} event {} carries no container milestone",
                e.event_type,
                e.shipment_event_type_code.as_deref().unwrap_or(code),
                e.event_id.as_deref().unwrap_or("without id")
            ));
            continue;
        };
        let (milestone, p) = placed(route, locode.as_deref(), mode, milestone, default_place);
        let said = |fact| Observation {
            observed_us,
            source: DataSource::ShippingLine,
            fact,
            precision: Default::default(),
            upstream_id: e.event_id.clone(),
        };
        out.push((
            container.clone(),
            said(event_fact(e, milestone, p, locode, at_us)),
        ));
        if let Some(fact) = equipment_fact(e) {
            out.push((container, said(fact)));
        }
    }
    (out, notes)
}

/// The container milestone of an event type and code by a mode of transport, and where it
/// happens when the route does not tell (`None`: no container milestone).
fn milestone_of(
    event_type: &str,
    code: &str,
    mode: &str,
    laden: bool,
) -> (Option<Milestone>, Place) {
    match (event_type, code, mode) {
        ("TRANSPORT", "ARRI", "RAIL") => (Some(Milestone::RailArrived), Place::Inland),
        ("TRANSPORT", "DEPA", "RAIL") => (Some(Milestone::RailDeparted), Place::Pod),
        ("TRANSPORT", "ARRI", "BARGE") => (Some(Milestone::FeederArrived), Place::Transshipment),
        ("TRANSPORT", "DEPA", "BARGE") => (Some(Milestone::FeederDeparted), Place::Transshipment),
        ("TRANSPORT", "ARRI", "VESSEL") => (Some(Milestone::VesselArrived), Place::Pod),
        ("TRANSPORT", "DEPA", "VESSEL") => (Some(Milestone::VesselDeparted), Place::Origin),
        ("EQUIPMENT", "LOAD", "RAIL") => (Some(Milestone::RailLoaded), Place::Pod),
        ("EQUIPMENT", "DISC", "RAIL") => (Some(Milestone::RailUnloaded), Place::Inland),
        ("EQUIPMENT", "LOAD", "BARGE") => (Some(Milestone::FeederLoaded), Place::Transshipment),
        ("EQUIPMENT", "DISC", "BARGE") => (Some(Milestone::FeederDischarged), Place::Transshipment),
        ("EQUIPMENT", "LOAD", _) => (Some(Milestone::VesselLoaded), Place::Origin),
        ("EQUIPMENT", "DISC", _) => (Some(Milestone::VesselDischarged), Place::Pod),
        ("EQUIPMENT", "GTIN", _) if laden => (Some(Milestone::FullIn), Place::Origin),
        ("EQUIPMENT", "GTIN", _) => (Some(Milestone::EmptyIn), Place::Pod),
        ("EQUIPMENT", "GTOT", _) if laden => (Some(Milestone::FullOut), Place::Pod),
        ("EQUIPMENT", "GTOT" | "PICK", _) => (Some(Milestone::EmptyOut), Place::Origin),
        ("EQUIPMENT", "DROP", _) => (Some(Milestone::Delivered), Place::Inland),
        _ => (None, Place::Pod),
    }
}

/// Where on the route a milestone at `locode` happens, and the milestone as it reads there:
/// its transshipment form at a transshipment port, and a rail arrival at the inland
/// destination as the inland arrival. Gate moves happen at the ends of the journey, never
/// "in transshipment".
fn placed(
    route: &Route,
    locode: Option<&str>,
    mode: &str,
    milestone: Milestone,
    default_place: Place,
) -> (Milestone, Place) {
    let mut p = place(route, locode, mode, default_place);
    if p == Place::Transshipment
        && matches!(
            milestone,
            Milestone::FullIn | Milestone::FullOut | Milestone::EmptyIn | Milestone::EmptyOut
        )
    {
        p = default_place;
    }
    let milestone = if p == Place::Transshipment {
        milestone.at_transshipment()
    } else {
        milestone
    };
    // arriving by rail or truck at the inland destination is the inland arrival
    let milestone = if milestone == Milestone::RailArrived
        && locode.is_some()
        && locode == route.destination.as_deref()
    {
        Milestone::ArrivedAtInlandDestination
    } else {
        milestone
    };
    (milestone, p)
}

/// The milestone as an event fact: estimated unless actual, with its place, terminal, and
/// (by vessel) the vessel and the voyage (the import voyage at the port of discharge).
fn event_fact(
    e: &Event,
    milestone: Milestone,
    p: Place,
    locode: Option<String>,
    at_us: i64,
) -> Fact {
    let tc = e.transport_call.as_ref();
    let vessel = tc.and_then(|t| t.vessel.as_ref());
    let is_vessel = tc.map_or("VESSEL", |t| t.mode_of_transport.as_str()) == "VESSEL";
    let timezone = locode.as_deref().and_then(crate::x12::map::zone_of_locode);
    Fact::Event(EventFact {
        milestone,
        estimated: e.event_classifier_code != "ACT",
        at_us: Some(at_us),
        place: p,
        locode,
        timezone,
        terminal: tc.and_then(|t| t.facility_code.clone()).or_else(|| {
            e.event_location
                .as_ref()
                .and_then(|l| l.facility_code.clone())
        }),
        vessel_name: vessel
            .filter(|_| is_vessel)
            .and_then(|v| v.vessel_name.clone()),
        vessel_imo: vessel
            .filter(|_| is_vessel)
            .and_then(|v| v.vessel_imo_number.clone()),
        voyage: tc.filter(|_| is_vessel).and_then(|t| {
            if p == Place::Pod {
                t.import_voyage_number
                    .clone()
                    .or(t.export_voyage_number.clone())
            } else {
                t.export_voyage_number.clone()
            }
        }),
    })
}

/// The container's size and type from its ISO code (and its first seal), when the code
/// tells its length.
fn equipment_fact(e: &Event) -> Option<Fact> {
    let iso = e.iso_equipment_code.as_ref()?;
    let (length, height, kind) = ident::size_type(iso);
    length.is_some().then(|| {
        Fact::Equipment(Equipment {
            equipment_type: kind.map(str::to_string),
            equipment_length: length,
            equipment_height: height.map(str::to_string),
            weight_in_lbs: None,
            seal_number: e.seals.first().map(|s| s.seal_number.clone()),
        })
    })
}
