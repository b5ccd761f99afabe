//! COSCO Shipping Lines' own tracking API, COP ("Cosco shipping lines Open-api Platform"):
//! how a request is signed and what an answer says, as the line's public repository documents
//! them (`docs/carriers-research.md`, "COSCO"; the profile `cosco`).
//!
//! **Signing.** Every request carries `X-Coscon-Date` (an HTTP date), `X-Coscon-Digest`
//! (`SHA-256=` and the base64 of the body's SHA-256, an empty body's on a GET),
//! `X-Coscon-Content-Md5` and `X-Coscon-Hmac` (one random 32-hex-digit value, a nonce), and
//! `X-Coscon-Authorization`: the HMAC-SHA1, in base64, under the secret key, of the date, the
//! digest and the nonce as `Name: value` lines and the request line
//! (`GET /service/info/tracking/N?numberType=bl HTTP/1.1`), joined by newlines.
//!
//! **Answers.** `GET {base}/info/tracking/{number}?numberType=bl|bkg|cntr` answers
//! `{code, message, data: {type, numberType, content}}`. For a bill or a booking, `content`
//! holds the vessel legs (`actualShipment`: ports by name, departures and arrivals, actual or
//! expected) and each container's latest status (`containerStatus`); for a container, the
//! events of its current trip (`containerCircleStatus`; `containerHistorys` are its earlier
//! trips, another shipment's, and are not read). `type: none` is a number the line does not
//! know. Places are names (`Facility,City,State,Country`), resolved to a port of boxtrack's
//! list where it has one; times carry no offset and are read at the clock of their port, or
//! as UTC where the port is unknown (as every source's local time without a zone is).

use std::collections::BTreeMap;

use base64::Engine;
use boxtrack_core::reference::{self, Port};
use boxtrack_core::requests::RequestType;
use boxtrack_core::tracking::precedence::Precision;
use boxtrack_core::tracking::{DataSource, EventFact, Fact, Milestone, Observation, Place, Route};
use hmac::{Hmac, Mac};
use serde_json::Value;
use sha2::Digest as _;

use crate::carrier::Digest;

/// The path of the tracking call after the base URL.
pub const TRACKING_PATH: &str = "/info/tracking";

/// The headers a signed request carries, in the order they are signed.
pub const SIGNED: &str = "X-Coscon-Date X-Coscon-Digest X-Coscon-Content-Md5 request-line";

/// `numberType` for a kind of number.
pub fn number_type(kind: RequestType) -> &'static str {
    match kind {
        RequestType::BillOfLading => "bl",
        RequestType::BookingNumber => "bkg",
        RequestType::Container => "cntr",
    }
}

/// `X-Coscon-Digest` of a body: `SHA-256=` and the base64 of its SHA-256.
pub fn body_digest(body: &[u8]) -> String {
    let sum = sha2::Sha256::digest(body);
    format!(
        "SHA-256={}",
        base64::engine::general_purpose::STANDARD.encode(sum)
    )
}

/// The text signed: the three headers as `Name: value` lines, then the request line, joined by
/// `\n` without a newline at the end.
pub fn string_to_sign(date: &str, digest: &str, nonce: &str, request_line: &str) -> String {
    format!(
        "X-Coscon-Date: {date}\nX-Coscon-Digest: {digest}\nX-Coscon-Content-Md5: {nonce}\n{request_line}"
    )
}

/// The HMAC-SHA1 of `text` under `secret`, in base64.
pub fn signature(secret: &str, text: &str) -> String {
    // HMAC takes a key of any length, so this cannot fail
    let mut mac = <Hmac<sha1::Sha1> as Mac>::new_from_slice(secret.as_bytes())
        .unwrap_or_else(|_| unreachable!("HMAC keys have any length"));
    mac.update(text.as_bytes());
    base64::engine::general_purpose::STANDARD.encode(mac.finalize().into_bytes())
}

/// `X-Coscon-Authorization` for `api_key` and a signature.
pub fn authorization(api_key: &str, signature: &str) -> String {
    format!(
        "hmac username=\"{api_key}\",algorithm=\"hmac-sha1\",headers=\"{SIGNED}\",signature=\"{signature}\""
    )
}

/// The headers of one signed request: `method` and `path_and_query` as sent on the wire
/// (the base URL's path included), the body, the HTTP date and a nonce (32 hex digits).
pub fn signed_headers(
    api_key: &str,
    secret: &str,
    method: &str,
    path_and_query: &str,
    body: &[u8],
    date: &str,
    nonce: &str,
) -> Vec<(&'static str, String)> {
    let digest = body_digest(body);
    let line = format!("{method} {path_and_query} HTTP/1.1");
    let sig = signature(secret, &string_to_sign(date, &digest, nonce, &line));
    vec![
        ("X-Coscon-Date", date.to_string()),
        ("X-Coscon-Digest", digest),
        ("X-Coscon-Content-Md5", nonce.to_string()),
        ("X-Coscon-Hmac", nonce.to_string()),
        ("X-Coscon-Authorization", authorization(api_key, &sig)),
    ]
}

/// What `X-Coscon-Authorization` names: the API key and the signature (`None`: not that
/// header's form).
pub fn parse_authorization(value: &str) -> Option<(String, String)> {
    let rest = value.trim().strip_prefix("hmac ")?;
    let mut key = None;
    let mut sig = None;
    for part in rest.split(',') {
        let (name, v) = part.trim().split_once('=')?;
        let v = v.trim().trim_matches('"').to_string();
        match name.trim() {
            "username" => key = Some(v),
            "signature" => sig = Some(v),
            _ => {}
        }
    }
    Some((key?, sig?))
}

/// What one answer says, read.
#[derive(Debug, Clone, Default)]
pub struct Read {
    /// Route, containers and observations, as a DCSA answer's digest says them.
    pub digest: Digest,
    /// Milestones read (the answer's size, for the diagnosis).
    pub milestones: usize,
    /// The line does not know the number (`type: none`).
    pub not_found: bool,
}

/// Reads one tracking answer for `number` of `kind`. `observed_us` is when it was asked (the
/// line's clock): the time its estimates are reported at; an actual milestone is reported at
/// its own time, so the same answer read again says the same. `known`: the route already
/// stored, whose ports win over the answer's names. An answer that is not COP's tracking
/// answer, or whose `code` is not 0, is an error in words.
pub fn read(
    body: &str,
    kind: RequestType,
    number: &str,
    observed_us: i64,
    known: Option<&Route>,
) -> Result<Read, String> {
    let v: Value =
        serde_json::from_str(body).map_err(|e| format!("not JSON ({e}): {}", clip(body)))?;
    let code = v
        .get("code")
        .and_then(Value::as_i64)
        .ok_or_else(|| format!("not a COP answer (no numeric code): {}", clip(body)))?;
    if code != 0 {
        let message = text(&v, "message").unwrap_or("no message");
        return Err(format!("COP answered code {code}: {message}"));
    }
    let data = v.get("data");
    let content = data.and_then(|d| d.get("content")).filter(|c| !c.is_null());
    let answered_type = data.and_then(|d| text(d, "type")).unwrap_or("none");
    let Some(content) = content.filter(|_| answered_type != "none") else {
        return Ok(Read {
            not_found: true,
            ..Read::default()
        });
    };
    let mut r = Reader {
        observed_us,
        ..Reader::default()
    };
    let path = content.get("trackingPath");
    let destination = path.and_then(|p| text(p, "toCity")).and_then(port_of_place);
    if content.get("containers").is_some() {
        r.route = route_of(&[], known);
        r.containers(content);
    } else {
        let legs = legs(content);
        r.route = route_of(&legs, known);
        if r.route.destination_locode.is_none()
            && let Some(d) =
                destination.filter(|d| r.route.pod_locode.as_deref() != Some(&d.locode))
        {
            r.route.destination_locode = Some(d.locode.clone());
            r.route.destination_name = d.name.clone();
            r.route.destination_timezone = Some(d.time_zone.clone());
        }
        r.legs(&legs);
        r.latest_statuses(content, &legs);
    }
    let mut digest = Digest {
        route: r.route.clone(),
        notes: r.notes,
        per_container: r.per_container,
        shipment_wide: r.shipment_wide,
        ..Digest::default()
    };
    digest.bill_of_lading = path
        .and_then(|p| text(p, "trackingGroupReferenceCode"))
        .map(str::to_string)
        .or_else(|| (kind == RequestType::BillOfLading).then(|| number.to_string()));
    Ok(Read {
        digest,
        milestones: r.milestones,
        not_found: false,
    })
}

fn clip(body: &str) -> String {
    body.chars().take(120).collect()
}

/// A member as text, `None` when absent, not text, or blank (COP writes `" "` for none).
fn text<'a>(v: &'a Value, key: &str) -> Option<&'a str> {
    v.get(key)
        .and_then(Value::as_str)
        .map(str::trim)
        .filter(|s| !s.is_empty())
}

/// One vessel leg of a bill's answer.
#[derive(Debug, Clone, Default)]
struct Leg {
    vessel: Option<String>,
    voyage: Option<String>,
    from: Option<String>,
    to: Option<String>,
    /// The country of the leg's port of discharge, where `city` names it.
    to_country: Option<String>,
    departed: Option<(String, bool)>,
    arrived: Option<(String, bool)>,
}

fn legs(content: &Value) -> Vec<Leg> {
    let mut rows: Vec<(i64, Leg)> = content
        .get("actualShipment")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .enumerate()
        .map(|(i, l)| {
            let when = |actual: &str, expected: &str| {
                text(l, actual)
                    .map(|t| (t.to_string(), false))
                    .or_else(|| text(l, expected).map(|t| (t.to_string(), true)))
            };
            let row = text(l, "rownum")
                .and_then(|n| n.parse().ok())
                .unwrap_or(i as i64);
            let leg = Leg {
                vessel: text(l, "vesselName").map(str::to_string),
                voyage: text(l, "voyageNo").map(str::to_string),
                from: text(l, "portOfLoading").map(str::to_string),
                to: text(l, "portOfDischarge").map(str::to_string),
                to_country: text(l, "city")
                    .and_then(|c| c.rsplit(',').next())
                    .map(|c| c.trim().to_string()),
                departed: when("actualDepartureDate", "expectedDateOfDeparture"),
                arrived: when("actualArrivalDate", "estimatedDateOfArrival"),
            };
            (row, leg)
        })
        .collect();
    rows.sort_by_key(|(n, _)| *n);
    rows.into_iter().map(|(_, l)| l).collect()
}

fn route_of(legs: &[Leg], known: Option<&Route>) -> Route {
    let port = |name: Option<&String>, country: Option<&String>| {
        name.and_then(|n| reference::port_named(n, country.map(String::as_str)))
    };
    let first = legs.first();
    let last = legs.last();
    let pol = port(first.and_then(|l| l.from.as_ref()), None);
    let pod = port(
        last.and_then(|l| l.to.as_ref()),
        last.and_then(|l| l.to_country.as_ref()),
    );
    let mut route = known.cloned().unwrap_or_default();
    if route.pol_locode.is_none() {
        route.pol_locode = pol.map(|p| p.locode.clone());
        route.pol_name = pol
            .and_then(|p| p.name.clone())
            .or_else(|| first.and_then(|l| l.from.clone()));
        route.pol_timezone = pol.map(|p| p.time_zone.clone());
    }
    if route.pod_locode.is_none() {
        route.pod_locode = pod.map(|p| p.locode.clone());
        route.pod_name = pod
            .and_then(|p| p.name.clone())
            .or_else(|| last.and_then(|l| l.to.clone()));
        route.pod_timezone = pod.map(|p| p.time_zone.clone());
    }
    route
}

/// A place COP names (`Facility,City,State,Country`, `City,Country`, or a port's name): the
/// port of boxtrack's list it is in, where the list has it.
fn port_of_place(place: &str) -> Option<&'static Port> {
    let parts: Vec<&str> = place.split(',').map(str::trim).collect();
    let (city, country) = match parts.len() {
        0 | 1 => (parts.first().copied().unwrap_or(""), None),
        2 | 3 => (parts[0], parts.last().copied()),
        n => (parts[n - 3], parts.last().copied()),
    };
    reference::port_named(city, country).or_else(|| reference::port_named(city, None))
}

/// A COP time (`2014-12-29 11:00`, seconds optional) at the clock of `zone` (UTC without one).
fn at(time: &str, zone: Option<&str>) -> Option<i64> {
    boxtrack_core::time::parse_local(&time.trim().replacen(' ', "T", 1), zone)
}

/// A container status COP names, as a milestone and where on the journey (`None`: a status
/// boxtrack does not read, such as `Cargo Received`, the paperwork's receipt).
fn status_milestone(label: &str, transport: Option<&str>) -> Option<(Milestone, Place)> {
    let label = label.to_ascii_lowercase();
    let by_rail = transport.is_some_and(|t| t.eq_ignore_ascii_case("rail"));
    Some(match label.trim() {
        "empty equipment despatched" | "empty equipment dispatched" => {
            (Milestone::EmptyOut, Place::Origin)
        }
        "gate-in at first pol" => (Milestone::FullIn, Place::Origin),
        "loaded at first pol" => (Milestone::VesselLoaded, Place::Origin),
        "discharged at t/s pod" => (Milestone::TransshipmentDischarged, Place::Transshipment),
        "loaded at t/s pol" => (Milestone::TransshipmentLoaded, Place::Transshipment),
        "discharged at last pod" => (Milestone::VesselDischarged, Place::Pod),
        "gate-out from last pod" if by_rail => (Milestone::RailLoaded, Place::Pod),
        "gate-out from last pod" => (Milestone::FullOut, Place::Pod),
        "gate-in at final hub" => (Milestone::ArrivedAtInlandDestination, Place::Inland),
        "gate-out from final hub" => (Milestone::FullOut, Place::Inland),
        "empty equipment returned" => (Milestone::EmptyIn, Place::Pod),
        _ => return None,
    })
}

#[derive(Default)]
struct Reader {
    observed_us: i64,
    route: Route,
    per_container: BTreeMap<String, Vec<Observation>>,
    shipment_wide: Vec<Observation>,
    notes: Vec<String>,
    milestones: usize,
}

/// One milestone to observe.
struct Seen<'a> {
    milestone: Milestone,
    place: Place,
    time: &'a str,
    estimated: bool,
    /// The place as COP names it.
    named: Option<&'a str>,
    vessel: Option<&'a Leg>,
}

impl Reader {
    /// The port of the route at `place`, for a milestone COP names no resolvable place of.
    fn route_port(&self, place: Place) -> (Option<String>, Option<String>) {
        match place {
            Place::Origin => (
                self.route.pol_locode.clone(),
                self.route.pol_timezone.clone(),
            ),
            Place::Pod => (
                self.route.pod_locode.clone(),
                self.route.pod_timezone.clone(),
            ),
            Place::Inland => (
                self.route.destination_locode.clone(),
                self.route.destination_timezone.clone(),
            ),
            Place::Transshipment => (None, None),
        }
    }

    fn observe(&mut self, s: Seen<'_>) -> Option<Observation> {
        let found = s.named.and_then(port_of_place);
        // an empty's moves happen at depots anywhere: only a port's moves fall back on the
        // route's port
        let at_port = !matches!(s.milestone, Milestone::EmptyOut | Milestone::EmptyIn);
        let (locode, timezone) = match found {
            Some(p) => (Some(p.locode.clone()), Some(p.time_zone.clone())),
            None if at_port => self.route_port(s.place),
            None => (None, None),
        };
        if timezone.is_none()
            && let Some(name) = s.named
            && !self.notes.iter().any(|n| n.contains(name))
        {
            self.notes.push(format!(
                "COP place {name:?} is not a port boxtrack knows; its times are read as UTC"
            ));
        }
        let Some(at_us) = at(s.time, timezone.as_deref()) else {
            self.notes.push(format!(
                "COP time {:?} is not yyyy-MM-dd HH:mm; left out",
                s.time
            ));
            return None;
        };
        self.milestones += 1;
        Some(Observation {
            observed_us: if s.estimated { self.observed_us } else { at_us },
            source: DataSource::ShippingLine,
            fact: Fact::Event(EventFact {
                milestone: s.milestone,
                estimated: s.estimated,
                at_us: Some(at_us),
                place: s.place,
                locode,
                timezone,
                terminal: None,
                vessel_name: s.vessel.and_then(|l| l.vessel.clone()),
                vessel_imo: None,
                voyage: s.vessel.and_then(|l| l.voyage.clone()),
            }),
            precision: Precision::Minute,
            upstream_id: None,
        })
    }

    /// The vessel legs: the first leg's departure is the departure from the port of lading,
    /// the last's arrival the arrival at the port of discharge, the others transshipments.
    fn legs(&mut self, legs: &[Leg]) {
        let last = legs.len().saturating_sub(1);
        for (i, leg) in legs.iter().enumerate() {
            let departure = if i == 0 {
                (Milestone::VesselDeparted, Place::Origin)
            } else {
                (Milestone::TransshipmentDeparted, Place::Transshipment)
            };
            let arrival = if i == last {
                (Milestone::VesselArrived, Place::Pod)
            } else {
                (Milestone::TransshipmentArrived, Place::Transshipment)
            };
            for (when, (milestone, place), named) in [
                (&leg.departed, departure, &leg.from),
                (&leg.arrived, arrival, &leg.to),
            ] {
                let Some((time, estimated)) = when else {
                    continue;
                };
                let seen = Seen {
                    milestone,
                    place,
                    time,
                    estimated: *estimated,
                    named: named.as_deref(),
                    vessel: Some(leg),
                };
                let o = self.observe(seen);
                self.shipment_wide.extend(o);
            }
        }
    }

    /// One container status, under its container.
    fn status(
        &mut self,
        number: &str,
        status: &Value,
        label_key: &str,
        time_key: &str,
        legs: &[Leg],
    ) {
        let Some(label) = text(status, label_key) else {
            return;
        };
        let transport = text(status, "transportation");
        let Some((milestone, place)) = status_milestone(label, transport) else {
            if !label.eq_ignore_ascii_case("cargo received") {
                self.notes.push(format!("COP status {label:?} is not read"));
            }
            return;
        };
        let Some(time) = text(status, time_key) else {
            return;
        };
        let vessel = match place {
            Place::Origin => legs.first(),
            Place::Pod => legs.last(),
            _ => None,
        }
        .filter(|_| {
            matches!(
                milestone,
                Milestone::VesselLoaded | Milestone::VesselDischarged
            )
        });
        let seen = Seen {
            milestone,
            place,
            time,
            estimated: false,
            named: text(status, "location"),
            vessel,
        };
        if let Some(o) = self.observe(seen) {
            self.per_container
                .entry(number.to_string())
                .or_default()
                .push(o);
        }
    }

    /// A bill's or a booking's answer: each container's latest status.
    fn latest_statuses(&mut self, content: &Value, legs: &[Leg]) {
        let groups = content.get("containerStatus").and_then(Value::as_array);
        for c in groups.into_iter().flatten().flat_map(|g| {
            g.get("containers")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
        }) {
            let Some(number) = text(c, "containerNumber").map(boxtrack_core::ident::normalize)
            else {
                continue;
            };
            self.per_container.entry(number.clone()).or_default();
            self.status(&number, c, "label", "locationDateTime", legs);
        }
    }

    /// A container's answer: the events of its current trip (not its earlier trips').
    fn containers(&mut self, content: &Value) {
        let boxes = content.get("containers").and_then(Value::as_array);
        for b in boxes.into_iter().flatten() {
            let events = b.get("containerCircleStatus").and_then(Value::as_array);
            let number = b
                .get("container")
                .and_then(|c| text(c, "containerNumber"))
                .or_else(|| {
                    events
                        .and_then(|e| e.first())
                        .and_then(|e| text(e, "containerNumber"))
                });
            let Some(number) = number.map(boxtrack_core::ident::normalize) else {
                continue;
            };
            self.per_container.entry(number.clone()).or_default();
            // newest first as COP lists them; observed oldest first
            for e in events.into_iter().flatten().rev() {
                self.status(&number, e, "containerNumberStatus", "timeOfIssue", &[]);
            }
        }
    }
}

#[cfg(test)]
#[path = "cosco_tests.rs"]
mod tests;
