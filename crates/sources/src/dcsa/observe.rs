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
        if let Some(fact) = release_fact(e, at_us) {
            let said = Observation {
                observed_us,
                source: DataSource::ShippingLine,
                fact,
                precision: Default::default(),
                upstream_id: e.event_id.clone(),
            };
            out.push((container, said));
            continue;
        }
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

/// What an actual event says of a release gate: a 3.0 customs equipment event (`CUSR`,
/// `CUSI`, `CUSS`), or a shipment event holding or releasing the line's release message or
/// customs (`HOLD` / `RELS` of an `SRM` or `CUS` document), with the document's id and the
/// event's reason as the wording.
fn release_fact(e: &Event, at_us: i64) -> Option<Fact> {
    if e.event_classifier_code != "ACT" {
        return None;
    }
    let (gate, status, name) = match e.event_type.as_str() {
        "EQUIPMENT" => {
            crate::release_codes::dcsa_equipment(e.equipment_event_type_code.as_deref()?)?
        }
        "SHIPMENT" => crate::release_codes::dcsa_shipment(
            e.shipment_event_type_code.as_deref()?,
            e.document_type_code.as_deref()?,
        )?,
        _ => return None,
    };
    let mut wording = name.to_string();
    if let Some(reason) = e.reason.as_deref().filter(|r| !r.trim().is_empty()) {
        wording = format!("{wording}: {}", reason.trim());
    }
    Some(Fact::Release {
        gate,
        status,
        wording: Some(wording),
        at_us: Some(at_us),
    })
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

#[cfg(test)]
mod tests {
    use super::*;

    fn event(json: serde_json::Value) -> Event {
        serde_json::from_value(json).expect("a 2.2 event")
    }

    #[test]
    fn customs_and_release_events_speak_of_their_gates() {
        let cusi = event(serde_json::json!({
            "eventCreatedDateTime": "2026-03-02T10:00:00Z",
            "eventType": "EQUIPMENT",
            "eventClassifierCode": "ACT",
            "eventDateTime": "2026-03-02T09:00:00Z",
            "equipmentEventTypeCode": "CUSI",
            "equipmentReference": "MSKU1234565"
        }));
        let rels = event(serde_json::json!({
            "eventCreatedDateTime": "2026-03-03T10:00:00Z",
            "eventType": "SHIPMENT",
            "eventClassifierCode": "ACT",
            "eventDateTime": "2026-03-03T08:00:00Z",
            "shipmentEventTypeCode": "RELS",
            "documentTypeCode": "SRM",
            "documentID": "BL1",
            "reason": "Freight paid, bill surrendered"
        }));
        let planned = event(serde_json::json!({
            "eventCreatedDateTime": "2026-03-03T10:00:00Z",
            "eventType": "SHIPMENT",
            "eventClassifierCode": "PLN",
            "eventDateTime": "2026-03-05T08:00:00Z",
            "shipmentEventTypeCode": "RELS",
            "documentTypeCode": "SRM",
            "documentID": "BL1"
        }));
        let (out, _) = map(&[cusi, rels, planned], &Route::default());
        let said: Vec<_> = out
            .iter()
            .filter_map(|(c, o)| match &o.fact {
                Fact::Release {
                    gate,
                    status,
                    wording,
                    ..
                } => Some((c.clone(), gate.name(), status.name(), wording.clone())),
                _ => None,
            })
            .collect();
        assert_eq!(
            said,
            vec![
                (
                    Some("MSKU1234565".to_string()),
                    "customs",
                    "held",
                    Some("Customs selected for inspection".to_string())
                ),
                (
                    None,
                    "line",
                    "released",
                    Some("Released by the line: Freight paid, bill surrendered".to_string())
                ),
            ],
            "a planned release says nothing yet"
        );
    }
}
