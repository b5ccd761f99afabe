//! DCSA Track & Trace 3.0: its event shape (`eventClassification`, `eventLocation`,
//! `transportDetails`, `equipmentDetails`, `shipmentDetails`), read into the 2.2 [`Event`]
//! model that the mapping works on, and written from it (what the simulator serves).
//!
//! What 3.0 changes, and how it is read:
//! - the body is `{"events": [...]}` (a `GET` answer and a push alike); pages follow the
//!   `Next-Page-Cursor` header, sent back as `cursor` with the first request's parameters;
//! - `eventUpdatedDateTime` replaces `eventCreatedDateTime` (it is what plausibility is checked
//!   on and what "observed" means); `eventID` is any string, not a UUID;
//! - type, classifier and code move into `eventClassification`; the place is the event's
//!   `eventLocation` (its `facility.facilityCode` is the terminal), the vessel and voyages sit in
//!   `transportDetails.transportCall`;
//! - `IOT` and `REEFER` events carry no container milestone: kept in the stored body, noted,
//!   not mapped; a retracted event (`isRetracted`, which may carry only its `eventID`) is a
//!   [`super::Retraction`]: what boxtrack applied from that event is withdrawn (see
//!   `docs/precedence.md`, "A source withdraws what it said").

use serde::Deserialize;
use serde_json::{Value, json};

use super::{DocumentReference, Event, Location, Parsed, Rejected, Seal, TransportCall, Version};

/// `eventClassification`.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Classification {
    event_type_code: Option<String>,
    event_classifier_code: Option<String>,
    shipment_event_type_code: Option<String>,
    transport_event_type_code: Option<String>,
    equipment_event_type_code: Option<String>,
}

/// `facility`.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Facility {
    facility_code: Option<String>,
}

/// `geoCoordinate`.
#[derive(Debug, Clone, Default, Deserialize)]
struct Geo {
    latitude: Option<String>,
    longitude: Option<String>,
}

/// `eventLocation`.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Location3 {
    location_name: Option<String>,
    #[serde(rename = "UNLocationCode")]
    un_location_code: Option<String>,
    facility: Option<Facility>,
    geo_coordinate: Option<Geo>,
}

/// `{typeCode, reference}`.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
struct DocRef {
    type_code: Option<String>,
    reference: Option<String>,
}

/// `shipmentDetails`.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
struct ShipmentDetails {
    document_reference: Option<DocRef>,
    #[serde(default)]
    additional_document_references: Vec<DocRef>,
    reason: Option<String>,
}

/// `carrierVoyageNumber` / `universalVoyageReference`.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Voyage {
    carrier_voyage_number: Option<String>,
    universal_voyage_reference: Option<String>,
}

impl Voyage {
    fn number(&self) -> Option<String> {
        self.carrier_voyage_number
            .clone()
            .or_else(|| self.universal_voyage_reference.clone())
    }
}

/// `vesselTransport`.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
struct VesselTransport {
    #[serde(rename = "vesselIMONumber")]
    vessel_imo_number: Option<String>,
    vessel_name: Option<String>,
    vessel_flag: Option<String>,
}

/// `transportCall`.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Call {
    transport_call_reference: Option<String>,
    transport_call_sequence_number: Option<i64>,
    mode_of_transport: Option<String>,
    export_voyage_number_or_reference: Option<Voyage>,
    import_voyage_number_or_reference: Option<Voyage>,
    vessel_transport: Option<VesselTransport>,
}

/// `transportDetails`.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
struct TransportDetails {
    #[serde(default)]
    delay_reason_codes: Vec<String>,
    transport_call: Option<Call>,
}

/// `seals[]`.
#[derive(Debug, Clone, Default, Deserialize)]
struct Seal3 {
    number: Option<String>,
}

/// `equipmentDetails`.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
struct EquipmentDetails {
    equipment_reference: Option<String>,
    #[serde(rename = "ISOEquipmentCode")]
    iso_equipment_code: Option<String>,
    empty_indicator_code: Option<String>,
    #[serde(default)]
    seals: Vec<Seal3>,
}

/// One 3.0 event as sent (unknown members are ignored, as the standard allows).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Event3 {
    #[serde(rename = "eventID")]
    event_id: Option<String>,
    #[serde(default)]
    is_retracted: bool,
    event_date_time: Option<String>,
    event_updated_date_time: Option<String>,
    event_location: Option<Location3>,
    event_classification: Option<Classification>,
    shipment_details: Option<ShipmentDetails>,
    transport_details: Option<TransportDetails>,
    equipment_details: Option<EquipmentDetails>,
}

/// The 2.2 model of a 3.0 event; `Err` names what is missing.
fn into_event(e: Event3) -> Result<Event, (&'static str, String)> {
    let missing = |what: &str| ("missing_field", format!("a 3.0 event needs {what}"));
    let class = e
        .event_classification
        .ok_or_else(|| missing("eventClassification"))?;
    let event_type = class
        .event_type_code
        .ok_or_else(|| missing("eventClassification.eventTypeCode"))?;
    let classifier = class
        .event_classifier_code
        .ok_or_else(|| missing("eventClassification.eventClassifierCode"))?;
    let updated = e
        .event_updated_date_time
        .ok_or_else(|| missing("eventUpdatedDateTime"))?;
    let at = e.event_date_time.ok_or_else(|| missing("eventDateTime"))?;
    let place = e.event_location.unwrap_or_default();
    let facility = place.facility.and_then(|f| f.facility_code);
    let (latitude, longitude) = place
        .geo_coordinate
        .map_or((None, None), |g| (g.latitude, g.longitude));
    let location = Location {
        location_name: place.location_name,
        latitude,
        longitude,
        un_location_code: place.un_location_code.clone(),
        facility_code: facility.clone(),
    };
    let details = e.transport_details.unwrap_or_default();
    let transport_call = details.transport_call.map(|c| {
        let vessel = c.vessel_transport.map(|v| super::Vessel {
            vessel_imo_number: v.vessel_imo_number,
            vessel_name: v.vessel_name,
            vessel_flag: v.vessel_flag,
        });
        TransportCall {
            transport_call_id: c
                .transport_call_reference
                .or(c.transport_call_sequence_number.map(|n| n.to_string()))
                .unwrap_or_default(),
            mode_of_transport: c.mode_of_transport.unwrap_or_else(|| "VESSEL".into()),
            un_location_code: place.un_location_code.clone(),
            facility_code: facility.clone(),
            export_voyage_number: c.export_voyage_number_or_reference.and_then(|v| v.number()),
            import_voyage_number: c.import_voyage_number_or_reference.and_then(|v| v.number()),
            location: Some(location.clone()),
            vessel,
        }
    });
    let shipment = e.shipment_details.unwrap_or_default();
    let primary = shipment.document_reference;
    let document_references: Vec<DocumentReference> = primary
        .iter()
        .chain(shipment.additional_document_references.iter())
        .filter_map(|d| {
            Some(DocumentReference {
                document_reference_type: d.type_code.clone()?,
                document_reference_value: d.reference.clone()?,
            })
        })
        .collect();
    let equipment = e.equipment_details.unwrap_or_default();
    let is_shipment = event_type == "SHIPMENT";
    Ok(Event {
        event_id: e.event_id,
        event_created_date_time: updated,
        event_type,
        event_classifier_code: classifier,
        event_date_time: at,
        transport_event_type_code: class.transport_event_type_code,
        equipment_event_type_code: class.equipment_event_type_code,
        shipment_event_type_code: class.shipment_event_type_code,
        document_type_code: primary
            .as_ref()
            .and_then(|d| d.type_code.clone())
            .filter(|_| is_shipment),
        document_id: primary
            .as_ref()
            .and_then(|d| d.reference.clone())
            .filter(|_| is_shipment),
        equipment_reference: equipment.equipment_reference,
        iso_equipment_code: equipment.iso_equipment_code,
        empty_indicator_code: equipment.empty_indicator_code,
        event_location: (location != Location::default()).then_some(location),
        transport_call,
        document_references,
        references: vec![],
        seals: equipment
            .seals
            .into_iter()
            .filter_map(|s| s.number.map(|seal_number| Seal { seal_number }))
            .collect(),
        delay_reason_code: details.delay_reason_codes.into_iter().next(),
        reason: shipment.reason,
    })
}

/// Reads the `events` array of a 3.0 body (a bad event is rejected with its index and reason,
/// the others are kept).
pub(super) fn parse_items(items: Vec<Value>, now_us: i64) -> Parsed {
    let mut out = Parsed {
        version: Version::V3_0,
        ..Parsed::default()
    };
    let mut seen = std::collections::HashSet::new();
    for (index, item) in items.into_iter().enumerate() {
        let reject = |code: &'static str, reason: String, event_id: Option<String>| Rejected {
            index,
            code,
            reason,
            event_id,
        };
        match item.get("eventID") {
            Some(id) if !id.is_string() => {
                out.rejected.push(reject(
                    "bad_event_id",
                    format!("eventID {id} is not a string"),
                    None,
                ));
                continue;
            }
            _ => {}
        }
        let key = item.to_string();
        let event_id = item
            .get("eventID")
            .and_then(Value::as_str)
            .map(str::to_string);
        let e: Event3 = match serde_json::from_value(item) {
            Ok(e) => e,
            Err(err) => {
                out.rejected
                    .push(reject("unreadable", err.to_string(), event_id));
                continue;
            }
        };
        if e.is_retracted {
            match event_id {
                Some(id) => {
                    out.notes.push(format!(
                        "event {index}: eventID {id} is retracted; what it said is withdrawn"
                    ));
                    out.retracted.push(retraction(id, &e));
                }
                None => out.rejected.push(reject(
                    "missing_field",
                    "a retracted event needs its eventID".into(),
                    None,
                )),
            }
            continue;
        }
        let kind = e
            .event_classification
            .as_ref()
            .and_then(|c| c.event_type_code.clone());
        if let Some(kind @ ("IOT" | "REEFER")) = kind.as_deref() {
            out.notes.push(format!(
                "event {index}: a {kind} event carries no container milestone; kept in the stored body only"
            ));
            continue;
        }
        match into_event(e) {
            Ok(e) => out.accept(index, e, key, now_us, Version::V3_0, &mut seen),
            Err((code, reason)) => out.rejected.push(reject(code, reason, event_id)),
        }
    }
    out
}

/// What a retracted event says of itself: its id, and the container and documents when given.
fn retraction(event_id: String, e: &Event3) -> super::Retraction {
    let docs = e.shipment_details.as_ref().map_or_else(Vec::new, |d| {
        d.document_reference
            .iter()
            .chain(&d.additional_document_references)
            .filter_map(|r| r.reference.clone())
            .collect()
    });
    super::Retraction {
        event_id,
        equipment_reference: e
            .equipment_details
            .as_ref()
            .and_then(|q| q.equipment_reference.as_deref())
            .map(boxtrack_core::ident::normalize),
        document_references: docs,
        observed_us: e
            .event_updated_date_time
            .as_deref()
            .and_then(boxtrack_core::time::parse_micros),
    }
}

/// `{typeCode, reference}` of a document reference.
fn doc_ref(d: &DocumentReference) -> Value {
    json!({"typeCode": d.document_reference_type, "reference": d.document_reference_value})
}

/// The 3.0 form of an event (the simulator's carriers that speak 3.0 serve and push this).
pub fn to_v3(e: &Event) -> Value {
    let mut out = serde_json::Map::new();
    let mut put = |k: &str, v: Value| {
        if !v.is_null() {
            out.insert(k.to_string(), v);
        }
    };
    put(
        "eventRouting",
        json!({"originatingParty": {"partyFunction": "CA"}}),
    );
    put("eventID", json!(e.event_id));
    put("eventDateTime", json!(e.event_date_time));
    put("eventUpdatedDateTime", json!(e.event_created_date_time));
    if let Some(l) = location_v3(e) {
        put("eventLocation", l);
    }
    put("eventClassification", classification_v3(e));
    if let Some(s) = shipment_details_v3(e) {
        put("shipmentDetails", s);
    }
    if let Some(tc) = &e.transport_call {
        put("transportDetails", transport_details_v3(tc, e));
    }
    if let Some(c) = &e.equipment_reference {
        put("equipmentDetails", equipment_details_v3(c, e));
    }
    Value::Object(out)
}

/// `eventLocation`: the event's location, or its transport call's (`None`: neither has one).
fn location_v3(e: &Event) -> Option<Value> {
    let loc = e
        .event_location
        .as_ref()
        .or_else(|| e.transport_call.as_ref().and_then(|t| t.location.as_ref()));
    let locode = loc.and_then(|l| l.un_location_code.clone()).or_else(|| {
        e.transport_call
            .as_ref()
            .and_then(|t| t.un_location_code.clone())
    });
    let facility = loc.and_then(|l| l.facility_code.clone()).or_else(|| {
        e.transport_call
            .as_ref()
            .and_then(|t| t.facility_code.clone())
    });
    if loc.is_none() && locode.is_none() {
        return None;
    }
    let mut l = serde_json::Map::new();
    if let Some(n) = loc.and_then(|l| l.location_name.clone()) {
        l.insert("locationName".into(), json!(n));
    }
    if let Some(c) = &locode {
        l.insert("UNLocationCode".into(), json!(c));
    }
    if let Some(f) = facility {
        l.insert(
            "facility".into(),
            json!({"facilityCode": f, "facilityCodeListProvider": "SMDG"}),
        );
    }
    if let (Some(lat), Some(lon)) = (
        loc.and_then(|l| l.latitude.clone()),
        loc.and_then(|l| l.longitude.clone()),
    ) {
        l.insert(
            "geoCoordinate".into(),
            json!({"latitude": lat, "longitude": lon}),
        );
    }
    Some(Value::Object(l))
}

/// `eventClassification`: the event's type, classifier and type code.
fn classification_v3(e: &Event) -> Value {
    let mut class = serde_json::Map::new();
    class.insert("eventTypeCode".into(), json!(e.event_type));
    class.insert("eventClassifierCode".into(), json!(e.event_classifier_code));
    for (k, v) in [
        ("transportEventTypeCode", &e.transport_event_type_code),
        ("equipmentEventTypeCode", &e.equipment_event_type_code),
        ("shipmentEventTypeCode", &e.shipment_event_type_code),
    ] {
        if let Some(v) = v {
            class.insert(k.into(), json!(v));
        }
    }
    Value::Object(class)
}

/// `shipmentDetails`: the document the event is about (its own, or the first of its
/// references) and the other references (`None`: no document at all).
fn shipment_details_v3(e: &Event) -> Option<Value> {
    let mut refs = e.document_references.iter();
    let primary = match (&e.document_type_code, &e.document_id) {
        (Some(t), Some(id)) => Some(json!({"typeCode": t, "reference": id})),
        _ => refs.next().map(doc_ref),
    }?;
    let additional: Vec<Value> = refs.map(doc_ref).collect();
    let mut s = json!({"documentReference": primary});
    if !additional.is_empty() {
        s["additionalDocumentReferences"] = json!(additional);
    }
    if let Some(reason) = &e.reason {
        s["reason"] = json!(reason);
    }
    Some(s)
}

/// `transportDetails`: the transport call with its voyages and vessel, and the event's
/// delay reason.
fn transport_details_v3(tc: &TransportCall, e: &Event) -> Value {
    let mut call = json!({
        "transportCallReference": tc.transport_call_id,
        "modeOfTransport": tc.mode_of_transport,
    });
    if let Some(v) = &tc.export_voyage_number {
        call["exportVoyageNumberOrReference"] = json!({"carrierVoyageNumber": v});
    }
    if let Some(v) = &tc.import_voyage_number {
        call["importVoyageNumberOrReference"] = json!({"carrierVoyageNumber": v});
    }
    if let Some(v) = &tc.vessel {
        let mut vt = serde_json::Map::new();
        for (k, x) in [
            ("vesselIMONumber", &v.vessel_imo_number),
            ("vesselName", &v.vessel_name),
            ("vesselFlag", &v.vessel_flag),
        ] {
            if let Some(x) = x {
                vt.insert(k.into(), json!(x));
            }
        }
        call["vesselTransport"] = Value::Object(vt);
    }
    let mut details = json!({"transportCall": call});
    if let Some(d) = &e.delay_reason_code {
        details["delayReasonCodes"] = json!([d]);
    }
    details
}

/// `equipmentDetails`: container `c` with its ISO code, whether it is empty, and its seals.
fn equipment_details_v3(c: &str, e: &Event) -> Value {
    let mut eq = json!({"equipmentReference": c});
    if let Some(iso) = &e.iso_equipment_code {
        eq["ISOEquipmentCode"] = json!(iso);
    }
    if let Some(x) = &e.empty_indicator_code {
        eq["emptyIndicatorCode"] = json!(x);
    }
    if !e.seals.is_empty() {
        eq["seals"] = json!(
            e.seals
                .iter()
                .map(|s| json!({"number": s.seal_number}))
                .collect::<Vec<_>>()
        );
    }
    eq
}

/// A 3.0 body (`{"events": [...]}`) of these events.
pub fn body<'a>(events: impl IntoIterator<Item = &'a Event>) -> Value {
    json!({"events": events.into_iter().map(to_v3).collect::<Vec<_>>()})
}

#[cfg(test)]
mod tests {
    use super::super::{Route, map, parse};
    use super::*;
    use boxtrack_core::tracking::{Fact, Milestone, Place};

    const NOW: i64 = 1_790_000_000_000_000;

    #[test]
    fn the_conformance_responses() {
        let first = parse(
            include_bytes!("../../../../fixtures/dcsa/tnt-3.0/tnt-300-response.json"),
            NOW,
        )
        .unwrap();
        assert_eq!(first.version, Version::V3_0);
        assert!(first.rejected.is_empty(), "{:?}", first.rejected);
        // SHIPMENT, TRANSPORT, EQUIPMENT kept; IOT and REEFER noted
        assert_eq!(first.events.len(), 3);
        assert_eq!(
            first
                .notes
                .iter()
                .filter(|n| n.contains("no container milestone"))
                .count(),
            2,
            "{:?}",
            first.notes
        );
        // IMO 7654321 fails its check digit: kept with a note
        assert!(first.notes.iter().any(|n| n.contains("7654321")));
        let depa = &first.events[1];
        assert_eq!(depa.event_id.as_deref(), Some("evt-resp-trans-001"));
        assert_eq!(depa.event_created_date_time, "2025-01-25T01:23:45Z");
        let tc = depa.transport_call.as_ref().unwrap();
        assert_eq!(tc.un_location_code.as_deref(), Some("GBSOU"));
        assert_eq!(tc.export_voyage_number.as_deref(), Some("V002E"));
        assert_eq!(
            depa.document_references
                .iter()
                .map(|d| d.document_reference_value.as_str())
                .collect::<Vec<_>>(),
            ["ABC709951", "HHL71800000"]
        );
        let route = Route {
            pol: Some("GBSOU".into()),
            pod: Some("DEHAM".into()),
            destination: None,
        };
        let (obs, _) = map(&first.events, &route);
        let facts: Vec<(Option<&str>, Milestone, Place)> = obs
            .iter()
            .filter_map(|(c, o)| match &o.fact {
                Fact::Event(e) => Some((c.as_deref(), e.milestone, e.place)),
                _ => None,
            })
            .collect();
        assert!(facts.contains(&(None, Milestone::VesselDeparted, Place::Origin)));
        assert!(facts.contains(&(Some("APZU4812090"), Milestone::EmptyIn, Place::Pod)));

        let next = parse(
            include_bytes!("../../../../fixtures/dcsa/tnt-3.0/tnt-300-response-nextpage.json"),
            NOW,
        )
        .unwrap();
        assert!(next.rejected.is_empty(), "{:?}", next.rejected);
        assert!(
            next.events
                .iter()
                .any(|e| e.event_classifier_code == "EST" && e.event_type == "TRANSPORT")
        );
    }

    #[test]
    fn the_producer_requests_are_push_bodies() {
        for (body, kept) in [
            (
                &include_bytes!("../../../../fixtures/dcsa/tnt-3.0/tnt-300-request-transport.json")
                    [..],
                1,
            ),
            (
                include_bytes!("../../../../fixtures/dcsa/tnt-3.0/tnt-300-request-equipment.json"),
                1,
            ),
            (
                include_bytes!("../../../../fixtures/dcsa/tnt-3.0/tnt-300-request-shipment.json"),
                1,
            ),
            (
                include_bytes!("../../../../fixtures/dcsa/tnt-3.0/tnt-300-request-iot.json"),
                0,
            ),
            (
                include_bytes!("../../../../fixtures/dcsa/tnt-3.0/tnt-300-request-reefer.json"),
                0,
            ),
        ] {
            let p = parse(body, NOW).unwrap();
            assert!(p.rejected.is_empty(), "{:?}", p.rejected);
            assert_eq!(p.events.len(), kept, "{:?}", p.notes);
        }
    }

    #[test]
    fn bad_events_are_refused_one_by_one() {
        let body = br#"{"events": [
            {"eventID": 7},
            {"eventID": "a", "eventDateTime": "2026-01-01T00:00:00Z"},
            {"eventID": "b", "eventDateTime": "2026-01-01T00:00:00Z", "eventUpdatedDateTime": "2026-01-01T00:00:00Z",
             "eventClassification": {"eventTypeCode": "EQUIPMENT", "eventClassifierCode": "ACT", "equipmentEventTypeCode": "HOLD"}},
            {"eventID": "c", "isRetracted": true},
            {"eventID": "d", "eventDateTime": "2026-01-01T00:00:00Z", "eventUpdatedDateTime": "2026-01-01T00:00:00Z",
             "eventClassification": {"eventTypeCode": "EQUIPMENT", "eventClassifierCode": "ACT", "equipmentEventTypeCode": "AVPU"},
             "equipmentDetails": {"equipmentReference": "APZU4812090"}}
        ]}"#;
        let p = parse(body, NOW).unwrap();
        let codes: Vec<(usize, &str)> = p.rejected.iter().map(|r| (r.index, r.code)).collect();
        assert_eq!(
            codes,
            [
                (0, "bad_event_id"),
                (1, "missing_field"),
                (2, "unknown_code")
            ]
        );
        assert!(p.rejected[2].reason.contains("DCSA 3.0"));
        assert!(p.notes.iter().any(|n| n.contains("retracted")));
        assert_eq!(p.events.len(), 1);
        // the withdrawn event names neither a container nor a document
        let r: Vec<(&str, bool)> = p
            .retracted
            .iter()
            .map(|r| (r.event_id.as_str(), r.equipment_reference.is_none()))
            .collect();
        assert_eq!(r, [("c", true)]);
        assert!(p.retracted[0].about("APZU4812090"));
    }

    #[test]
    fn written_and_read_back_an_event_is_the_same() {
        let p = parse(
            include_bytes!("../../../../fixtures/dcsa/valid/tnt-220-response.json"),
            NOW,
        )
        .unwrap();
        let written = serde_json::to_vec(&body(&p.events)).unwrap();
        let back = parse(&written, NOW).unwrap();
        assert!(back.rejected.is_empty(), "{:?}", back.rejected);
        assert_eq!(back.events.len(), p.events.len());
        let route = Route {
            pol: Some("NLRTM".into()),
            pod: Some("FRPAR".into()),
            destination: None,
        };
        // the same observations, whichever version carried them
        assert_eq!(map(&back.events, &route).0, map(&p.events, &route).0);
    }
}
