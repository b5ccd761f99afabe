//! DCSA Track & Trace: the event model of `GET /v2/events` and of push notifications (2.2,
//! and 3.0 through [`v3`], read into the same model), validation of what carriers send, the
//! `Notification-Signature` check, and the mapping of events to observations.
//!
//! A body's shape says its version: a JSON array of events is 2.2, an object with an `events`
//! array is 3.0 ([`parse`] reads either).
//!
//! Validation (per event; a bad event is rejected with its index and reason, the others are
//! kept; a body that is neither shape is rejected whole):
//! - `eventType` must be `SHIPMENT`, `TRANSPORT` or `EQUIPMENT`, `eventClassifierCode`
//!   `ACT`/`EST`/`PLN`, each with its required code (3.0: its `eventClassification`; its
//!   `IOT` and `REEFER` events carry no milestone and are only noted);
//! - `eventID` must be a UUID string in 2.2, any string in 3.0 (boxtrack de-duplicates on it:
//!   a repeated id in one answer is dropped with a note);
//! - `eventCreatedDateTime` and `eventDateTime` must be RFC 3339 with an offset; a creation
//!   time more than a day after the source's own clock (`now_us` is the clock of the source
//!   that sent the body: the `Date` of its answer, not the wall clock) or before 2000 is
//!   refused as implausible;
//! - container numbers that fail ISO 6346 and IMO numbers that fail their check digit are kept
//!   with a note (real carriers send them).

use boxtrack_core::ident;
use boxtrack_core::time::parse_micros;
use hmac::{Hmac, Mac};
use serde::{Deserialize, Serialize};
use serde_json::Value;

mod observe;
mod retraction;
pub mod v3;

pub use observe::{Route, Targeted, map};
pub use retraction::Retraction;

/// The version of DCSA Track & Trace a carrier speaks (`dcsa_version` in its
/// `[carriers.SCAC]` table).
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default, Serialize, Deserialize,
)]
pub enum Version {
    /// 2.2: `GET {url}/v2/events` answers an array, `Next-Page` pages.
    #[default]
    #[serde(rename = "2.2")]
    V2_2,
    /// 3.0: `GET {url}/v3/events` answers `{"events": [...]}`, `Next-Page-Cursor` pages.
    #[serde(rename = "3.0")]
    V3_0,
}

impl Version {
    /// Reads `2.2`, `2.2.0`, `3`, `3.0` or `3.0.0`.
    pub fn parse(s: &str) -> Option<Version> {
        match s.trim() {
            "2" | "2.2" | "2.2.0" => Some(Version::V2_2),
            "3" | "3.0" | "3.0.0" => Some(Version::V3_0),
            _ => None,
        }
    }

    /// The events path after the carrier's base URL.
    pub fn events_path(self) -> &'static str {
        match self {
            Version::V2_2 => "/v2/events",
            Version::V3_0 => "/v3/events",
        }
    }

    /// The `API-Version` header value.
    pub fn api_version(self) -> &'static str {
        match self {
            Version::V2_2 => "2.2.0",
            Version::V3_0 => "3.0.0",
        }
    }

    /// The name of the field that says when the carrier recorded an event.
    fn created_field(self) -> &'static str {
        match self {
            Version::V2_2 => "eventCreatedDateTime",
            Version::V3_0 => "eventUpdatedDateTime",
        }
    }
}

impl std::fmt::Display for Version {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Version::V2_2 => "2.2",
            Version::V3_0 => "3.0",
        })
    }
}

/// A vessel.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "camelCase")]
pub struct Vessel {
    /// IMO number (7 digits).
    #[serde(rename = "vesselIMONumber")]
    pub vessel_imo_number: Option<String>,
    /// Name.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub vessel_name: Option<String>,
    /// Flag.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub vessel_flag: Option<String>,
}

/// A location.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
pub struct Location {
    /// Name.
    #[serde(rename = "locationName", skip_serializing_if = "Option::is_none")]
    pub location_name: Option<String>,
    /// Latitude (a string, as the standard has it).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub latitude: Option<String>,
    /// Longitude.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub longitude: Option<String>,
    /// UN/LOCODE.
    #[serde(rename = "UNLocationCode", skip_serializing_if = "Option::is_none")]
    pub un_location_code: Option<String>,
    /// Facility code (SMDG or BIC).
    #[serde(rename = "facilityCode", skip_serializing_if = "Option::is_none")]
    pub facility_code: Option<String>,
}

/// A transport call.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "camelCase")]
pub struct TransportCall {
    /// Id.
    #[serde(rename = "transportCallID")]
    pub transport_call_id: String,
    /// `VESSEL`, `RAIL`, `TRUCK`, `BARGE`.
    pub mode_of_transport: String,
    /// UN/LOCODE.
    #[serde(rename = "UNLocationCode", skip_serializing_if = "Option::is_none")]
    pub un_location_code: Option<String>,
    /// Facility code, without the LOCODE.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub facility_code: Option<String>,
    /// Voyage out.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub export_voyage_number: Option<String>,
    /// Voyage in.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub import_voyage_number: Option<String>,
    /// Location.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub location: Option<Location>,
    /// Vessel.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub vessel: Option<Vessel>,
}

/// A document reference (`BKG` booking, `TRD` transport document).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DocumentReference {
    /// `BKG` or `TRD`.
    pub document_reference_type: String,
    /// The number.
    pub document_reference_value: String,
}

/// A reference (`EQ` equipment, `FF`, `SI`, ...).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Reference {
    /// Type.
    pub reference_type: String,
    /// Value.
    pub reference_value: String,
}

/// A seal.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Seal {
    /// Number.
    pub seal_number: String,
}

/// One DCSA 2.2 event.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Event {
    /// UUID (optional in 2.2).
    #[serde(rename = "eventID", skip_serializing_if = "Option::is_none")]
    pub event_id: Option<String>,
    /// When the carrier recorded it.
    pub event_created_date_time: String,
    /// `SHIPMENT`, `TRANSPORT` or `EQUIPMENT`.
    pub event_type: String,
    /// `ACT`, `EST` or `PLN`.
    pub event_classifier_code: String,
    /// When it happened or will happen.
    pub event_date_time: String,
    /// `ARRI` / `DEPA`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub transport_event_type_code: Option<String>,
    /// `LOAD`, `DISC`, `GTIN`, `GTOT`, ...
    #[serde(skip_serializing_if = "Option::is_none")]
    pub equipment_event_type_code: Option<String>,
    /// `DRFT`, `ISSU`, ...
    #[serde(skip_serializing_if = "Option::is_none")]
    pub shipment_event_type_code: Option<String>,
    /// Document type of a shipment event.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub document_type_code: Option<String>,
    /// Document id of a shipment event.
    #[serde(rename = "documentID", skip_serializing_if = "Option::is_none")]
    pub document_id: Option<String>,
    /// Container number.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub equipment_reference: Option<String>,
    /// ISO size-type.
    #[serde(rename = "ISOEquipmentCode", skip_serializing_if = "Option::is_none")]
    pub iso_equipment_code: Option<String>,
    /// `EMPTY` / `LADEN`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub empty_indicator_code: Option<String>,
    /// Where (equipment events).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub event_location: Option<Location>,
    /// The transport call.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub transport_call: Option<TransportCall>,
    /// Bookings and transport documents.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub document_references: Vec<DocumentReference>,
    /// Other references.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub references: Vec<Reference>,
    /// Seals.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub seals: Vec<Seal>,
    /// SMDG delay reason.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub delay_reason_code: Option<String>,
    /// Why (free text, on a shipment event: why it is held or released).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

/// A rejected event.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Rejected {
    /// Index in the array.
    pub index: usize,
    /// Why, as a short code to count by: `bad_event_id`, `bad_date_time`,
    /// `created_in_future`, `created_before_2000`, `bad_classifier`, `unknown_code`,
    /// `missing_field` or `unreadable`.
    pub code: &'static str,
    /// Why, in words.
    pub reason: String,
    /// The event's `eventID`, when it had a readable one.
    pub event_id: Option<String>,
}

impl Rejected {
    /// As a refusal to count (`Upstreams::refused`): keyed by its `eventID`, or by `scope` and
    /// its index in the body when it had none.
    pub fn refusal(&self, scope: &str) -> (String, &'static str, String) {
        let key = self
            .event_id
            .clone()
            .unwrap_or_else(|| format!("{scope}#{}", self.index));
        (key, self.code, self.reason.clone())
    }
}

/// What a body held.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize)]
pub struct Parsed {
    /// The version its shape says.
    pub version: Version,
    /// Valid events, in order, duplicates removed.
    pub events: Vec<Event>,
    /// Rejected events.
    pub rejected: Vec<Rejected>,
    /// Caveats about accepted events.
    pub notes: Vec<String>,
    /// Events the carrier withdrew (3.0 `isRetracted`).
    pub retracted: Vec<Retraction>,
}

/// The body is neither an array of 2.2 events nor a 3.0 `{"events": [...]}` object.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct DcsaError(pub String);

fn is_uuid(s: &str) -> bool {
    let b = s.as_bytes();
    b.len() == 36
        && b.iter().enumerate().all(|(i, c)| match i {
            8 | 13 | 18 | 23 => *c == b'-',
            _ => c.is_ascii_hexdigit(),
        })
}

/// The equipment event codes of DCSA 2.2.
const EQUIPMENT_CODES_2_2: [&str; 12] = [
    "LOAD", "DISC", "GTIN", "GTOT", "STUF", "STRP", "PICK", "DROP", "INSP", "RSEA", "RMVD", "HOLD",
];

/// The equipment event codes of DCSA 3.0.
const EQUIPMENT_CODES_3_0: [&str; 17] = [
    "AVDO", "AVPU", "CROS", "CUSI", "CUSR", "CUSS", "DISC", "DROP", "GTIN", "GTOT", "INSP", "LOAD",
    "PICK", "RMVD", "RSEA", "STRP", "STUF",
];

/// Why an event is refused: a reason code and the reason in words.
type Refusal = (&'static str, String);

/// Whether an event is one to keep: its id, its times, its classifier, and what its type
/// needs, in the version's words.
fn check(e: &Event, now_us: i64, version: Version) -> Result<(), Refusal> {
    if let Some(id) = &e.event_id
        && version == Version::V2_2
        && !is_uuid(id)
    {
        return Err(("bad_event_id", format!("eventID {id:?} is not a UUID")));
    }
    check_times(e, now_us, version)?;
    if !matches!(e.event_classifier_code.as_str(), "ACT" | "EST" | "PLN") {
        return Err((
            "bad_classifier",
            format!(
                "eventClassifierCode {:?} is not ACT, EST or PLN",
                e.event_classifier_code
            ),
        ));
    }
    match e.event_type.as_str() {
        "TRANSPORT" => check_transport(e, version),
        "EQUIPMENT" => check_equipment(e, version),
        "SHIPMENT" => check_shipment(e, version),
        other => Err((
            "unknown_code",
            format!("eventType {other:?} is not SHIPMENT, TRANSPORT or EQUIPMENT"),
        )),
    }
}

/// The event was created at a readable time, after 2000 and not more than a day after the
/// source's clock, and happens at a readable time.
fn check_times(e: &Event, now_us: i64, version: Version) -> Result<(), Refusal> {
    let field = version.created_field();
    let created = parse_micros(&e.event_created_date_time).ok_or_else(|| {
        (
            "bad_date_time",
            format!(
                "{field} {:?} is not an RFC 3339 date-time",
                e.event_created_date_time
            ),
        )
    })?;
    if created > now_us + 86_400_000_000 {
        return Err((
            "created_in_future",
            format!(
                "{field} {} is more than a day after the source's clock ({})",
                e.event_created_date_time,
                boxtrack_core::time::format_micros(now_us)
            ),
        ));
    }
    if created < 946_684_800_000_000 {
        return Err((
            "created_before_2000",
            format!("{field} {} is before 2000", e.event_created_date_time),
        ));
    }
    parse_micros(&e.event_date_time).ok_or_else(|| {
        (
            "bad_date_time",
            format!(
                "eventDateTime {:?} is not an RFC 3339 date-time",
                e.event_date_time
            ),
        )
    })?;
    Ok(())
}

/// A TRANSPORT event is an arrival or a departure, with its transport call.
fn check_transport(e: &Event, version: Version) -> Result<(), Refusal> {
    if !matches!(
        e.transport_event_type_code.as_deref(),
        Some("ARRI" | "DEPA")
    ) {
        return Err((
            "unknown_code",
            "a TRANSPORT event needs transportEventTypeCode ARRI or DEPA".into(),
        ));
    }
    if e.transport_call.is_none() {
        return Err((
            "missing_field",
            match version {
                Version::V2_2 => "a TRANSPORT event needs a transportCall",
                Version::V3_0 => "a TRANSPORT event needs transportDetails.transportCall",
            }
            .into(),
        ));
    }
    Ok(())
}

/// An EQUIPMENT event has a code of its version and (2.2) says whether the box is empty.
fn check_equipment(e: &Event, version: Version) -> Result<(), Refusal> {
    let codes: &[&str] = match version {
        Version::V2_2 => &EQUIPMENT_CODES_2_2,
        Version::V3_0 => &EQUIPMENT_CODES_3_0,
    };
    match e.equipment_event_type_code.as_deref() {
        Some(c) if codes.contains(&c) => {}
        other => {
            return Err((
                "unknown_code",
                format!("equipmentEventTypeCode {other:?} is not a DCSA {version} code"),
            ));
        }
    }
    // optional in 3.0 (laden unless said otherwise)
    if version == Version::V2_2
        && !matches!(e.empty_indicator_code.as_deref(), Some("EMPTY" | "LADEN"))
    {
        return Err((
            "missing_field",
            "an EQUIPMENT event needs emptyIndicatorCode EMPTY or LADEN".into(),
        ));
    }
    Ok(())
}

/// A SHIPMENT event names its event type and the document it is about.
fn check_shipment(e: &Event, version: Version) -> Result<(), Refusal> {
    if e.shipment_event_type_code.is_none()
        || e.document_type_code.is_none()
        || e.document_id.is_none()
    {
        return Err((
            "missing_field",
            match version {
                Version::V2_2 => {
                    "a SHIPMENT event needs shipmentEventTypeCode, documentTypeCode and documentID"
                }
                Version::V3_0 => {
                    "a SHIPMENT event needs shipmentEventTypeCode and shipmentDetails.documentReference"
                }
            }
            .into(),
        ));
    }
    Ok(())
}

/// Reads a `GET` answer or a push body: a JSON array of 2.2 events, or a 3.0
/// `{"events": [...]}` object.
pub fn parse(body: &[u8], now_us: i64) -> Result<Parsed, DcsaError> {
    let v: Value = serde_json::from_slice(body)
        .map_err(|e| DcsaError(format!("the body is not JSON: {e}")))?;
    match v {
        Value::Array(items) => parse_v2(items, now_us),
        Value::Object(mut o) => match o.remove("events") {
            Some(Value::Array(items)) => {
                // an event that cannot be applied is reported in the answer's feedback; an
                // item that is no object at all makes the body no 3.0 push
                if let Some(index) = items.iter().position(|i| !i.is_object()) {
                    return Err(DcsaError(format!(
                        "events[{index}] is not an object: the body is not a DCSA 3.0 events object"
                    )));
                }
                Ok(v3::parse_items(items, now_us))
            }
            _ => Err(DcsaError(
                "the body is an object without an events array: neither DCSA 2.2 (an array of events) nor 3.0 ({\"events\": [...]})".into(),
            )),
        },
        _ => Err(DcsaError(
            "the body is not a JSON array of events (2.2) or an object with an events array (3.0)"
                .into(),
        )),
    }
}

fn parse_v2(items: Vec<Value>, now_us: i64) -> Result<Parsed, DcsaError> {
    let mut out = Parsed::default();
    let mut seen = std::collections::HashSet::new();
    for (index, item) in items.into_iter().enumerate() {
        if !item.get("eventType").is_some_and(Value::is_string) {
            return Err(DcsaError(format!(
                "item {index} has no eventType: the body is not an array of DCSA events"
            )));
        }
        if let Some(id) = item.get("eventID").filter(|v| !v.is_string()) {
            out.rejected.push(Rejected {
                index,
                code: "bad_event_id",
                reason: format!("eventID {id} is not a string UUID"),
                event_id: None,
            });
            continue;
        }
        let key = item.to_string();
        let event_id = item
            .get("eventID")
            .and_then(Value::as_str)
            .map(str::to_string);
        let e: Event = match serde_json::from_value(item) {
            Ok(e) => e,
            Err(err) => {
                out.rejected.push(Rejected {
                    index,
                    code: "unreadable",
                    reason: err.to_string(),
                    event_id,
                });
                continue;
            }
        };
        out.accept(index, e, key, now_us, Version::V2_2, &mut seen);
    }
    Ok(out)
}

impl Parsed {
    /// Checks one read event and keeps it, rejects it, or drops it as a repeat of an earlier
    /// one in the same body (`key` identifies an event without an id).
    fn accept(
        &mut self,
        index: usize,
        e: Event,
        key: String,
        now_us: i64,
        version: Version,
        seen: &mut std::collections::HashSet<String>,
    ) {
        if let Err((code, reason)) = check(&e, now_us, version) {
            self.rejected.push(Rejected {
                index,
                code,
                reason,
                event_id: e.event_id.clone(),
            });
            return;
        }
        if !seen.insert(e.event_id.clone().unwrap_or(key)) {
            self.notes.push(format!(
                "event {index}: eventID {} repeated; the first copy is kept",
                e.event_id.as_deref().unwrap_or("(none, same content)")
            ));
            return;
        }
        if let Some(c) = &e.equipment_reference
            && ident::validate_container(&ident::normalize(c)).is_err()
        {
            self.notes.push(format!(
                "event {index}: container {c} fails the ISO 6346 check digit; kept as sent"
            ));
        }
        if let Some(imo) = e
            .transport_call
            .as_ref()
            .and_then(|t| t.vessel.as_ref())
            .and_then(|v| v.vessel_imo_number.as_deref())
            && !crate::x12::map::imo_valid(imo)
        {
            self.notes.push(format!(
                "event {index}: vessel IMO {imo} fails its check digit; kept as sent"
            ));
        }
        self.events.push(e);
    }
}

/// Checks a push call's `Notification-Signature` header (`sha256=<hex>`): HMAC-SHA256 of the
/// exact body bytes keyed with the base64-decoded subscription secret, compared in constant
/// time.
pub fn verify_signature(secret_b64: &str, body: &[u8], header: &str) -> bool {
    use base64::Engine;
    let Ok(key) = base64::engine::general_purpose::STANDARD.decode(secret_b64.trim()) else {
        return false;
    };
    let Some(hex_sig) = header.trim().strip_prefix("sha256=") else {
        return false;
    };
    let Ok(sig) = hex::decode(hex_sig) else {
        return false;
    };
    let Ok(mut mac) = Hmac::<sha2::Sha256>::new_from_slice(&key) else {
        return false;
    };
    mac.update(body);
    mac.verify_slice(&sig).is_ok()
}

/// The `Notification-Signature` value for `body` (what a carrier sends; the simulator uses it).
pub fn sign(secret_b64: &str, body: &[u8]) -> Option<String> {
    use base64::Engine;
    let key = base64::engine::general_purpose::STANDARD
        .decode(secret_b64.trim())
        .ok()?;
    let mut mac = Hmac::<sha2::Sha256>::new_from_slice(&key).ok()?;
    mac.update(body);
    Some(format!(
        "sha256={}",
        hex::encode(mac.finalize().into_bytes())
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use boxtrack_core::tracking::{EventFact, Fact, Milestone, Observation, Place};

    const NOW: i64 = 1_790_000_000_000_000;

    #[test]
    fn the_valid_response() {
        let p = parse(
            include_bytes!("../../../../fixtures/dcsa/valid/tnt-220-response.json"),
            NOW,
        )
        .unwrap();
        assert_eq!(p.events.len(), 7);
        assert!(p.rejected.is_empty(), "{:?}", p.rejected);
        let route = Route {
            pol: Some("NLRTM".into()),
            pod: Some("FRPAR".into()),
            destination: None,
        };
        let (obs, notes) = map(&p.events, &route);
        // 2 vessel arrivals, 2 estimated loads (+ their equipment); 3 document events noted
        assert_eq!(notes.len(), 3, "{notes:?}");
        let arrivals: Vec<&Observation> = obs
            .iter()
            .filter(|(c, _)| c.is_none())
            .map(|(_, o)| o)
            .collect();
        assert_eq!(arrivals.len(), 2);
        match &arrivals[0].fact {
            Fact::Event(e) => {
                assert_eq!(
                    (e.milestone, e.place, e.estimated),
                    (Milestone::VesselArrived, Place::Pod, false)
                );
                assert_eq!(e.vessel_imo.as_deref(), Some("9321483"));
                assert_eq!(
                    boxtrack_core::time::format_micros(e.at_us.unwrap()),
                    "2021-01-09T13:12:56Z"
                );
                assert_eq!(e.voyage.as_deref(), Some("2103N"));
            }
            other => panic!("{other:?}"),
        }
        let loads: Vec<&EventFact> = obs
            .iter()
            .filter_map(|(c, o)| match &o.fact {
                Fact::Event(e) if c.as_deref() == Some("APZU4812090") => Some(e),
                _ => None,
            })
            .collect();
        assert_eq!(loads.len(), 2);
        // LOAD at the port of discharge of this route is still a load, estimated
        assert!(
            loads
                .iter()
                .all(|e| e.estimated && e.milestone == Milestone::VesselLoaded)
        );
    }

    #[test]
    fn the_invalid_responses() {
        let wrong_structure = parse(
            include_bytes!(
                "../../../../fixtures/dcsa/invalid/tnt-220-response-wrong-structure.json"
            ),
            NOW,
        );
        assert!(wrong_structure.unwrap_err().0.contains("no eventType"));
        // a 3.0 events object whose item is no object is no push either
        let e = parse(br#"[{"eventType": {}}]"#, NOW).unwrap_err();
        assert!(e.0.contains("item 0 has no eventType"), "{e:?}");
        for body in [r#"{"events": [[null, null]]}"#, r#"{"events": [{}, 7]}"#] {
            let e = parse(body.as_bytes(), NOW).unwrap_err();
            assert!(e.0.contains("] is not an object"), "{e:?}");
        }

        let ids = parse(
            include_bytes!(
                "../../../../fixtures/dcsa/invalid/tnt-220-response-wrong-event-ids.json"
            ),
            NOW,
        )
        .unwrap();
        let reasons: Vec<&str> = ids.rejected.iter().map(|r| r.reason.as_str()).collect();
        assert!(
            reasons.iter().any(|r| r.contains("123456789")),
            "{reasons:?}"
        );
        assert!(
            reasons.iter().any(|r| r.contains("\"incorrect\"")),
            "{reasons:?}"
        );
        assert_eq!(
            ids.notes.iter().filter(|n| n.contains("repeated")).count(),
            2,
            "{:?}",
            ids.notes
        );
        assert_eq!(ids.events.len(), 3);

        let dates = parse(
            include_bytes!(
                "../../../../fixtures/dcsa/invalid/tnt-220-response-wrong-date-times.json"
            ),
            NOW,
        )
        .unwrap();
        assert_eq!(dates.events.len(), 1, "{:?}", dates.rejected);
        assert_eq!(dates.rejected.len(), 6, "{:?}", dates.rejected);
        assert!(
            dates
                .rejected
                .iter()
                .any(|r| r.code == "created_in_future" && r.reason.contains("source's clock"))
        );
        // the same events from a source whose clock runs far ahead (a fast simulator) pass
        // that check: plausibility is judged on the clock of the source that sent them
        let ahead = parse(
            include_bytes!(
                "../../../../fixtures/dcsa/invalid/tnt-220-response-wrong-date-times.json"
            ),
            NOW + 80 * 365 * 86_400_000_000,
        )
        .unwrap();
        assert!(ahead.rejected.iter().all(|r| r.code != "created_in_future"));
        assert!(
            dates.rejected.iter().all(|r| !r.code.is_empty()),
            "every refusal has a reason code"
        );
        assert!(
            dates
                .rejected
                .iter()
                .any(|r| r.reason.contains("before 2000"))
        );
        assert!(
            dates
                .rejected
                .iter()
                .any(|r| r.reason.contains("missing field"))
        );

        let attrs = parse(
            include_bytes!(
                "../../../../fixtures/dcsa/invalid/tnt-220-response-wrong-attribute-values.json"
            ),
            NOW,
        )
        .unwrap();
        assert!(attrs.rejected.is_empty(), "{:?}", attrs.rejected);
        assert_eq!(attrs.events.len(), 3);
        assert!(
            attrs.notes.iter().any(|n| n.contains("APZU2134567")),
            "{:?}",
            attrs.notes
        );

        assert!(parse(b"{\"event\": []}", NOW).is_err());
        assert!(parse(b"42", NOW).is_err());
        assert!(parse(b"not json", NOW).is_err());
    }

    #[test]
    fn signatures() {
        let secret = "c2VjcmV0LXNlY3JldC1zZWNyZXQtc2VjcmV0LXNlY3JldA==";
        let body = br#"[{"eventID":"x"}]"#;
        let header = sign(secret, body).unwrap();
        assert!(header.starts_with("sha256="));
        assert!(verify_signature(secret, body, &header));
        assert!(!verify_signature(secret, b"[]", &header));
        assert!(!verify_signature(secret, body, "sha256=00"));
        assert!(!verify_signature(
            secret,
            body,
            &header.replace("sha256=", "")
        ));
        // independent: HMAC-SHA256 over the body keyed with the decoded secret
        let mut mac =
            Hmac::<sha2::Sha256>::new_from_slice(b"secret-secret-secret-secret-secret").unwrap();
        mac.update(body);
        assert_eq!(
            header,
            format!("sha256={}", hex::encode(mac.finalize().into_bytes()))
        );
    }
}
