//! COSCO's COP as the simulator speaks it (`sim --carrier-profiles cosco`): the world's events
//! of COSU's shipments told the way COP's documentation shows its answers
//! (`boxtrack_sources::cosco` reads them), behind its request signature.
//!
//! `GET /sim/v1/lines/cosco/service/info/tracking/{number}?numberType=bl|bkg|cntr`:
//! - every request must carry COP's five headers, a date within 2 minutes of the wall clock,
//!   and an HMAC-SHA1 signature of the path and query as sent, under the test secret key
//!   `sim-cosco-secret_key` of the API key `sim-cosco-api_key` (the unsubscribed and expired
//!   keys sign with the same secret);
//! - a bill or a booking answers the vessel legs (actual times, else the latest estimate) and
//!   each container's latest status; a container answers the statuses of its current trip,
//!   newest first; a number COP does not know answers `type: none`;
//! - places are names (`Facility,City,State,Country`) and times local, without an offset.
//!
//! The simulator's choices where COP's documentation is silent: a refused signature is 401
//! with the words `Illegal Request: …` (COP says 401 or 500, body not documented); an expired
//! key is 401 saying so, an unsubscribed one 403; faults (503, 429) answer
//! `{"code": 5500, "message": …}` with their status; a `numberType` other than the three is
//! `{"code": 5400, "message": "Parameter is Error"}`.

use std::collections::HashMap;
use std::sync::atomic::Ordering;

use axum::Json;
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use boxtrack_core::reference;
use boxtrack_core::time::{format_local_with, parse_micros};
use boxtrack_sources::cosco;
use boxtrack_sources::dcsa::Event;
use serde_json::{Value, json};

use super::Line;
use crate::Sim;
use crate::feeds::{asked_shipment, visible_events};
use crate::world::Shipment;

/// A request COP refuses, counted.
fn illegal(sim: &Sim, status: StatusCode, why: &str) -> Response {
    sim.0.refused.fetch_add(1, Ordering::Relaxed);
    (status, format!("Illegal Request: {why}")).into_response()
}

/// The answer to a request whose signature COP would not accept, if it would not.
fn refused(sim: &Sim, line: &Line, headers: &HeaderMap, path_and_query: &str) -> Option<Response> {
    let h = |n: &str| {
        headers
            .get(n)
            .and_then(|v| v.to_str().ok())
            .unwrap_or_default()
    };
    let unauthorized = |why: &str| Some(illegal(sim, StatusCode::UNAUTHORIZED, why));
    let Some((key, signature)) = cosco::parse_authorization(h("X-Coscon-Authorization")) else {
        return unauthorized("X-Coscon-Authorization is missing or not COP's hmac form");
    };
    let fresh = boxtrack_core::time::parse_http_date(h("X-Coscon-Date"))
        .is_some_and(|d| (d - boxtrack_core::time::now_us()).abs() <= 120_000_000);
    if !fresh {
        return unauthorized("X-Coscon-Date is missing or more than 2 minutes off");
    }
    let nonce = h("X-Coscon-Content-Md5");
    if nonce.len() != 32 || h("X-Coscon-Hmac") != nonce {
        return unauthorized(
            "X-Coscon-Content-Md5 and X-Coscon-Hmac must carry one 32-digit value",
        );
    }
    if h("X-Coscon-Digest") != cosco::body_digest(b"") {
        return unauthorized("X-Coscon-Digest is not the SHA-256 of the body");
    }
    let known = [
        line.credential("api_key"),
        line.unsubscribed(),
        line.expired(),
    ];
    if !known.contains(&key) {
        return unauthorized("the apiKey is unknown");
    }
    let text = cosco::string_to_sign(
        h("X-Coscon-Date"),
        h("X-Coscon-Digest"),
        nonce,
        &format!("GET {path_and_query} HTTP/1.1"),
    );
    if signature != cosco::signature(&line.credential("secret_key"), &text) {
        return unauthorized("the signature does not match");
    }
    if key == line.expired() {
        return unauthorized("the apiKey expired; apply for new keys");
    }
    if key == line.unsubscribed() {
        return Some(illegal(
            sim,
            StatusCode::FORBIDDEN,
            "the application is not allowed the cargo tracking service",
        ));
    }
    None
}

/// `GET …/info/tracking/{number}`: the answer COP gives, signed requests only.
pub(crate) async fn tracking(
    sim: &Sim,
    line: &Line,
    headers: &HeaderMap,
    path_and_query: &str,
    number: &str,
    q: &HashMap<String, String>,
) -> Response {
    if let Some(r) = refused(sim, line, headers, path_and_query) {
        return r;
    }
    sim.maybe_slow().await;
    if let Some(r) = super::serve::fault(sim, line, path_and_query) {
        return r;
    }
    let kind = q.get("numberType").map(String::as_str).unwrap_or_default();
    let param = match kind {
        "bl" => "transportDocumentReference",
        "bkg" => "carrierBookingReference",
        "cntr" => "equipmentReference",
        _ => return Json(json!({"code": 5400, "message": "Parameter is Error"})).into_response(),
    };
    let now = sim.clock().now_us();
    let asked = HashMap::from([(param.to_string(), number.to_string())]);
    let found = asked_shipment(sim, &asked, now).and_then(|(shipment, equipment)| {
        let i = shipment?;
        let events = visible_events(
            sim,
            line.profile.scacs,
            Some(i),
            equipment.as_deref(),
            None,
            now,
        );
        (!events.is_empty()).then(|| (&sim.world().shipments[i], events, equipment))
    });
    let Some((shipment, events, equipment)) = found else {
        return Json(json!({"code": 0, "message": "success",
            "data": {"type": "none", "numberType": "none", "content": null}}))
        .into_response();
    };
    let content = match equipment {
        Some(c) => container_content(shipment, &events, &c),
        None => bill_content(shipment, &events),
    };
    Json(json!({"code": 0, "message": "success",
        "data": {"type": kind, "numberType": kind, "content": content}}))
    .into_response()
}

/// Where an event happened, by code.
fn locode_of(e: &Event) -> Option<&str> {
    e.transport_call
        .as_ref()
        .and_then(|t| t.un_location_code.as_deref())
        .or_else(|| {
            e.event_location
                .as_ref()
                .and_then(|l| l.un_location_code.as_deref())
        })
}

/// A place as COP names it: `Facility,City,State,Country`.
fn place(locode: Option<&str>, facility: Option<&str>) -> String {
    let Some(p) = locode.and_then(reference::port) else {
        return locode.unwrap_or(" ").to_string();
    };
    let city = p.name.clone().unwrap_or_else(|| p.locode.clone());
    let facility = facility.map_or_else(|| format!("{city} Container Terminal"), str::to_string);
    format!(
        "{facility},{city},{},{}",
        p.subdivision.as_deref().unwrap_or_default(),
        reference::country_name(&p.country_code).unwrap_or(&p.country_code)
    )
}

/// A time as COP writes it: local to the place, to the minute, without an offset.
fn local(us: i64, locode: Option<&str>) -> String {
    let zone = locode
        .and_then(reference::port)
        .map(|p| p.time_zone.as_str());
    format_local_with(us, zone, "%Y-%m-%d %H:%M")
}

/// A port's name, as COP writes a leg's ports.
fn port_name(locode: &str) -> String {
    reference::port(locode)
        .and_then(|p| p.name.clone())
        .unwrap_or_else(|| locode.to_string())
}

/// COP's name of a container's move and how the box moved (`None`: a move COP does not name).
fn status(e: &Event, s: &Shipment) -> Option<(&'static str, &'static str)> {
    if e.event_classifier_code != "ACT" {
        return None;
    }
    let at = locode_of(e);
    let rail = e
        .transport_call
        .as_ref()
        .is_some_and(|t| t.mode_of_transport == "RAIL");
    let empty = e.empty_indicator_code.as_deref() == Some("EMPTY");
    Some(match e.equipment_event_type_code.as_deref()? {
        "LOAD" if rail => ("Gate-out from Last POD", "Rail"),
        "LOAD" if at == Some(s.pol.as_str()) => ("Loaded at First POL", "Vessel"),
        "LOAD" => ("Loaded at T/S POL", "Vessel"),
        "DISC" if rail => ("Gate-in at Final Hub", "Rail"),
        "DISC" if at == Some(s.pod.as_str()) => ("Discharged at Last POD", " "),
        "DISC" => ("Discharged at T/S POD", " "),
        "GTIN" if empty => ("Empty Equipment Returned", "Truck"),
        "GTIN" => ("Gate-In at First POL", "Truck"),
        "GTOT" if empty => ("Empty Equipment Despatched", "Truck"),
        "GTOT" if at == Some(s.pod.as_str()) => ("Gate-out from Last POD", "Truck"),
        "GTOT" => ("Gate-out from Final Hub", "Truck"),
        _ => return None,
    })
}

/// One of a container's moves as COP names it.
struct Move {
    at: i64,
    label: &'static str,
    by: &'static str,
    locode: Option<String>,
    facility: Option<String>,
}

impl Move {
    /// Where and when, as COP writes them.
    fn placed(&self) -> (String, String) {
        let locode = self.locode.as_deref();
        (
            place(locode, self.facility.as_deref()),
            local(self.at, locode),
        )
    }
}

/// One container's moves COP names, oldest first.
fn moves(s: &Shipment, events: &[&Event], number: &str) -> Vec<Move> {
    let mut out: Vec<Move> = events
        .iter()
        .filter(|e| e.equipment_reference.as_deref() == Some(number))
        .filter_map(|e| {
            let (label, by) = status(e, s)?;
            Some(Move {
                at: parse_micros(&e.event_date_time)?,
                label,
                by,
                locode: locode_of(e).map(str::to_string),
                facility: e
                    .transport_call
                    .as_ref()
                    .and_then(|t| t.facility_code.clone()),
            })
        })
        .collect();
    out.sort_by_key(|m| m.at);
    out
}

/// One vessel call: where, and when (actual, and the latest estimate).
#[derive(Default)]
struct Call {
    locode: String,
    actual: Option<i64>,
    estimate: Option<(String, i64)>,
    vessel: Option<String>,
    voyage: Option<String>,
}

/// The vessel's departures (`DEPA`) or arrivals (`ARRI`), in the order they happen.
fn calls(events: &[&Event], code: &str) -> Vec<Call> {
    let mut by_place: Vec<Call> = Vec::new();
    for e in events {
        let Some(tc) = e.transport_call.as_ref() else {
            continue;
        };
        if e.transport_event_type_code.as_deref() != Some(code)
            || !matches!(tc.mode_of_transport.as_str(), "VESSEL" | "BARGE")
        {
            continue;
        }
        let (Some(locode), Some(at)) = (
            tc.un_location_code.clone(),
            parse_micros(&e.event_date_time),
        ) else {
            continue;
        };
        let i = match by_place.iter().position(|c| c.locode == locode) {
            Some(i) => i,
            None => {
                by_place.push(Call {
                    locode,
                    ..Call::default()
                });
                by_place.len() - 1
            }
        };
        let call = &mut by_place[i];
        call.vessel = tc.vessel.as_ref().and_then(|v| v.vessel_name.clone());
        call.voyage = tc
            .export_voyage_number
            .clone()
            .or_else(|| tc.import_voyage_number.clone());
        match e.event_classifier_code.as_str() {
            "ACT" => call.actual = Some(at),
            _ if call
                .estimate
                .as_ref()
                .is_none_or(|(made, _)| *made <= e.event_created_date_time) =>
            {
                call.estimate = Some((e.event_created_date_time.clone(), at));
            }
            _ => {}
        }
    }
    by_place.sort_by_key(|c| c.actual.or(c.estimate.as_ref().map(|(_, at)| *at)));
    by_place
}

/// A time member pair of a leg: the actual time, or blank and the latest estimate.
fn when(call: Option<&Call>) -> (String, String) {
    let Some(c) = call else {
        return (" ".into(), " ".into());
    };
    let at = |us: i64| local(us, Some(&c.locode));
    (
        c.actual.map_or_else(|| " ".into(), at),
        c.estimate
            .as_ref()
            .map_or_else(|| " ".into(), |(_, us)| at(*us)),
    )
}

/// A bill's or a booking's content: the vessel legs and each container's latest status.
fn bill_content(s: &Shipment, events: &[&Event]) -> Value {
    let departures = calls(events, "DEPA");
    let arrivals = calls(events, "ARRI");
    let legs: Vec<Value> = departures
        .iter()
        .zip(arrivals.iter().map(Some).chain(std::iter::repeat(None)))
        .enumerate()
        .map(|(i, (from, to))| {
            let (atd, etd) = when(Some(from));
            let (ata, eta) = when(to);
            let to_code = to.map_or(s.pod.as_str(), |t| t.locode.as_str());
            let country = reference::port(to_code)
                .and_then(|p| reference::country_name(&p.country_code))
                .unwrap_or_default();
            json!({
                "rownum": (i + 1).to_string(),
                "vesselName": from.vessel,
                "voyageNo": from.voyage,
                "portOfLoading": port_name(&from.locode),
                "actualDepartureDate": atd,
                "expectedDateOfDeparture": etd,
                "portOfDischarge": port_name(to_code),
                "actualArrivalDate": ata,
                "estimatedDateOfArrival": eta,
                "city": format!("{},{country}", port_name(to_code)),
            })
        })
        .collect();
    let mut groups: Vec<(String, Vec<Value>)> = Vec::new();
    for number in &s.containers {
        let Some(latest) = moves(s, events, number).pop() else {
            continue;
        };
        let (location, at) = latest.placed();
        let c = json!({
            "containerNumber": number,
            "containerType": s.iso_type,
            "label": latest.label,
            "location": location,
            "locationDateTime": at,
            "transportation": latest.by,
        });
        match groups.iter_mut().find(|(l, _)| l == latest.label) {
            Some((_, list)) => list.push(c),
            None => groups.push((latest.label.to_string(), vec![c])),
        }
    }
    json!({
        "actualShipment": legs,
        "trackingPath": {
            "billOfladingRefCode": s.booking,
            "trackingGroupReferenceCode": s.bill_of_lading,
            "pol": format!("{} - {} Container Terminal", port_name(&s.pol), port_name(&s.pol)),
            "pod": format!("{} - {}", port_name(&s.pod), s.terminal),
        },
        "containerStatus": groups
            .into_iter()
            .map(|(label, containers)| json!({"label": label, "containers": containers}))
            .collect::<Vec<_>>(),
    })
}

/// A container's content: the statuses of its current trip, newest first.
fn container_content(s: &Shipment, events: &[&Event], number: &str) -> Value {
    let statuses: Vec<Value> = moves(s, events, number)
        .iter()
        .rev()
        .enumerate()
        .map(|(i, m)| {
            let (location, at) = m.placed();
            json!({
                "uuid": format!("{number}{i}"),
                "containerNumber": number,
                "containerNumberStatus": m.label,
                "location": location,
                "timeOfIssue": at,
                "transportation": m.by,
            })
        })
        .collect();
    let latest = statuses.first().cloned().unwrap_or(Value::Null);
    json!({
        "containers": [{
            "containerCircleStatus": statuses,
            "container": {
                "containerNumber": number,
                "containerType": s.iso_type,
                "label": latest.get("containerNumberStatus"),
                "location": latest.get("location"),
                "locationDateTime": latest.get("timeOfIssue"),
            },
            "containerHistorys": [],
        }],
        "notFound": "",
    })
}
