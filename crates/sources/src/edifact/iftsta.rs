//! IFTSTA (international multimodal status report, D:95B to D:00B and later): what a carrier's
//! status message says, as the status messages the X12 mapper reads
//! ([`crate::x12::status::StatusMessage`]), so that one set of status rules serves 315s, 322s
//! and IFTSTA.
//!
//! Read per consignment (`CNI` group): the status (`STS`: the status code in C555, which
//! carriers send in the X12 315/322 vocabulary — `VD`, `VA`, `UV`, `AL`, `P`, … — or as the
//! numeric transport status codes of UN/ECE Recommendation 24, read by [`rec24`]), its time
//! (`DTM` 334, else 7 or 178), its place (`LOC` 175), the equipment (`EQD` CN: number, ISO
//! size-type, full or empty), references (`RFF` BM, BN, EQ, also in the header), the
//! transport (`TDT`: voyage, mode, vessel) and the route (`LOC` 9 loading, 11 discharge, 13
//! transshipment, 7/8 delivery, each with its `DTM` 186/178 actual and 133/132 estimated).
//! Times are `DTM` format 203 (to the minute), 204 (to the second) or 102 (a date), local to
//! their place.

use crate::x12::status::{Location, RoutePoint, SetKind, Stamp, StatusMessage, Vessel};
use crate::x12::{Finding, Severity};

use super::{Message, Segment};

/// A `DTM` as the X12 reader's stamp (`qualifier` as given; `date` CCYYMMDD; `time`).
pub(super) fn stamp(s: &Segment, qualifier: &str) -> Option<Stamp> {
    let value = s.get(0, 1).trim();
    let format = s.get(0, 2).trim();
    let digits = value.bytes().all(|b| b.is_ascii_digit());
    if !digits {
        return None;
    }
    let (date, time) = match (format, value.len()) {
        ("102", 8) | ("", 8) => (value, None),
        ("203", 12) | ("", 12) => (&value[..8], Some(&value[8..12])),
        ("204", 14) | ("", 14) => (&value[..8], Some(&value[8..14])),
        _ => return None,
    };
    Some(Stamp {
        qualifier: qualifier.to_string(),
        date: date.to_string(),
        time: time.map(str::to_string),
        time_code: Some("LT".into()),
    })
}

pub(super) fn location(s: &Segment) -> Location {
    let id = s.get(1, 0).trim().to_string();
    let unlocode = id.len() == 5 && id.bytes().all(|b| b.is_ascii_alphanumeric());
    Location {
        qualifier: if unlocode { "UN" } else { "CI" }.into(),
        name: s.opt(1, 3).or_else(|| (!unlocode).then(|| id.clone())),
        country: unlocode.then(|| id[..2].to_string()),
        state: None,
        id,
    }
}

/// The X12 route function and date qualifier of an IFTSTA place and date: loading (9) with
/// its departure, discharge (11) and delivery (7, 8) with their arrivals, transshipment (13).
fn route_function(loc_qualifier: &str) -> Option<&'static str> {
    match loc_qualifier {
        "9" => Some("L"),
        "11" => Some("D"),
        "13" => Some("T"),
        "7" | "8" => Some("E"),
        _ => None,
    }
}

fn route_date(function: &str, dtm_qualifier: &str) -> Option<&'static str> {
    match (function, dtm_qualifier) {
        ("L" | "T", "186") | ("D" | "E" | "T", "178") => Some("140"),
        ("L", "133") | ("D" | "E", "132") => Some("139"),
        _ => None,
    }
}

/// The X12 status of a UN/ECE Recommendation 24 transport status code, given the mode of the
/// consignment's transport (`TDT` C220: `1` maritime, `2` rail, `3` road): arrival completed
/// (`1`) and arrival at port (`40`), departure completed (`24`), unloaded (`29`),
/// collection/pick-up completed (`13`), delivery completed (`21`). Other codes (bookings,
/// clearances, damage, …) carry no milestone boxtrack keeps: `None`.
pub fn rec24(code: &str, mode: Option<&str>) -> Option<&'static str> {
    let rail = mode == Some("2");
    match code {
        "1" if rail => Some("AR"),
        "1" | "40" => Some("VA"),
        "24" if rail => Some("RL"),
        "24" if mode == Some("1") => Some("VD"),
        "24" => Some("P"),
        "29" if rail => Some("UR"),
        "29" => Some("UV"),
        "13" => Some("OA"),
        "21" => Some("D"),
        _ => None,
    }
}

/// Reads one IFTSTA message: a status message per consignment and piece of equipment. Findings
/// name what could not be read (a consignment without a status or without equipment).
pub fn read(m: &Message) -> (Vec<StatusMessage>, Vec<Finding>) {
    let mut findings = Vec::new();
    let (header_refs, groups) = consignments(m);
    if groups.is_empty() {
        findings.push(Finding {
            severity: Severity::Error,
            segment_position: m.segments.first().map_or(0, |s| s.position),
            segment: "UNH".into(),
            reason: format!("IFTSTA {} has no consignment (CNI)", m.reference),
        });
    }
    let mut out = Vec::new();
    for group in groups {
        read_consignment(m, &group, &header_refs, &mut out, &mut findings);
    }
    (out, findings)
}

/// The message's references before its first consignment, and its consignments (each from
/// its CNI to the next).
fn consignments(m: &Message) -> (Vec<(String, String)>, Vec<Vec<&Segment>>) {
    let mut header_refs: Vec<(String, String)> = Vec::new();
    let mut groups: Vec<Vec<&Segment>> = Vec::new();
    for s in &m.segments {
        match s.tag.as_str() {
            "CNI" => groups.push(vec![s]),
            "UNT" => {}
            _ => match groups.last_mut() {
                Some(g) => g.push(s),
                None if s.tag == "RFF" => {
                    if let (Some(q), Some(v)) = (s.opt(0, 0), s.opt(0, 1)) {
                        header_refs.push((q, v));
                    }
                }
                None => {}
            },
        }
    }
    (header_refs, groups)
}

/// What one consignment says, segment by segment.
#[derive(Default)]
struct Consignment {
    references: Vec<(String, String)>,
    at: Option<Stamp>,
    fallback_at: Option<Stamp>,
    here: Option<Location>,
    vessel: Option<Vessel>,
    mode: Option<String>,
    route: Vec<RoutePoint>,
    equipment: Vec<(String, Option<String>, Option<String>)>,
}

impl Consignment {
    /// Reads a consignment's segments (the message's references first).
    fn of(group: &[&Segment], header_refs: &[(String, String)]) -> Consignment {
        let mut references = header_refs.to_vec();
        let mut at: Option<Stamp> = None;
        let mut fallback_at: Option<Stamp> = None;
        let mut here: Option<Location> = None;
        let mut vessel: Option<Vessel> = None;
        let mut mode: Option<String> = None;
        let mut route: Vec<RoutePoint> = Vec::new();
        let mut equipment: Vec<(String, Option<String>, Option<String>)> = Vec::new();
        let mut current: Option<usize> = None; // the route point the next DTMs belong to
        for s in group {
            match s.tag.as_str() {
                "RFF" => {
                    if let (Some(q), Some(v)) = (s.opt(0, 0), s.opt(0, 1)) {
                        references.retain(|(rq, _)| *rq != q);
                        references.push((q, v));
                    }
                    current = None;
                }
                "DTM" => {
                    let q = s.get(0, 0).trim();
                    match current.and_then(|i| route.get_mut(i)) {
                        Some(point) => {
                            if let Some(x12) = route_date(&point.function, q)
                                && let Some(st) = stamp(s, x12)
                            {
                                point.dates.push(st);
                            }
                        }
                        None if q == "334" => at = stamp(s, ""),
                        None if q == "7" || q == "178" => fallback_at = stamp(s, ""),
                        None => {}
                    }
                }
                "LOC" => {
                    let q = s.get(0, 0).trim();
                    if q == "175" {
                        here = Some(location(s));
                        current = None;
                    } else if let Some(function) = route_function(q) {
                        route.push(RoutePoint {
                            function: function.into(),
                            location: location(s),
                            terminal: s.opt(2, 0),
                            dates: vec![],
                        });
                        current = Some(route.len() - 1);
                    } else {
                        current = None;
                    }
                }
                "TDT" => {
                    current = None;
                    mode = mode.or(s.opt(2, 0));
                    // C220 mode 1: maritime; C222: the vessel (IMO, and name in component 4)
                    if s.get(2, 0).trim() == "1" {
                        vessel = Some(Vessel {
                            code: s.opt(7, 0),
                            flag: s.opt(7, 4),
                            voyage: s.opt(1, 0),
                            code_qualifier: s.opt(7, 0).map(|_| "L".to_string()),
                            name: s.opt(7, 3),
                        });
                    }
                }
                "EQD" if s.get(0, 0).trim() == "CN" => {
                    current = None;
                    if let Some(number) = s.opt(1, 0) {
                        let full = match s.get(5, 0).trim() {
                            "4" => Some("E".to_string()),
                            "5" => Some("L".to_string()),
                            _ => None,
                        };
                        equipment.push((number, s.opt(2, 0), full));
                    }
                }
                _ => {}
            }
        }
        if equipment.is_empty()
            && let Some((_, eq)) = references.iter().find(|(q, _)| q == "EQ")
        {
            equipment.push((eq.clone(), None, None));
        }
        Consignment {
            references,
            at,
            fallback_at,
            here,
            vessel,
            mode,
            route,
            equipment,
        }
    }
}

/// One consignment's status messages, one per piece of equipment; what cannot be read is a
/// finding.
fn read_consignment(
    m: &Message,
    group: &[&Segment],
    header_refs: &[(String, String)],
    out: &mut Vec<StatusMessage>,
    findings: &mut Vec<Finding>,
) {
    let cni = group.first().map_or(0, |s| s.position);
    let Some(sts) = group.iter().find(|s| s.tag == "STS") else {
        findings.push(Finding {
            severity: Severity::Warning,
            segment_position: cni,
            segment: "CNI".into(),
            reason: "a consignment without a status (STS); nothing to read".into(),
        });
        return;
    };
    let status = sts.get(1, 0).trim().to_string();
    let Consignment {
        references,
        at,
        fallback_at,
        here,
        vessel,
        mode,
        route,
        equipment,
    } = Consignment::of(group, header_refs);
    // a numeric status is a Recommendation 24 code: read in the X12 vocabulary
    let status = if !status.is_empty() && status.bytes().all(|b| b.is_ascii_digit()) {
        match rec24(&status, mode.as_deref()) {
            Some(x12) => x12.to_string(),
            // a clearance or a refusal: read by the release table
            None if crate::release_codes::edifact_status(&status).is_some() => {
                format!("{}{status}", crate::release_codes::EDIFACT_PREFIX)
            }
            None => {
                findings.push(Finding {
                    severity: Severity::Warning,
                    segment_position: sts.position,
                    segment: "STS".into(),
                    reason: format!(
                        "status {status} (UN/ECE Recommendation 24) carries no milestone; nothing to read"
                    ),
                });
                return;
            }
        }
    } else {
        status
    };
    let Some(at) = at.or(fallback_at) else {
        findings.push(Finding {
            severity: Severity::Warning,
            segment_position: sts.position,
            segment: "STS".into(),
            reason: format!("status {status} has no date (DTM 334); nothing to read"),
        });
        return;
    };
    if equipment.is_empty() {
        findings.push(Finding {
            severity: Severity::Warning,
            segment_position: cni,
            segment: "CNI".into(),
            reason: format!("status {status} names no container (EQD or RFF EQ)"),
        });
        return;
    }
    for (number, iso, full) in equipment {
        let n = number.to_uppercase().replace(' ', "");
        let (initial, serial, check) = super::split_number(&n);
        let mut refs = references.clone();
        if !refs.iter().any(|(q, _)| q == "EQ") {
            refs.push(("EQ".into(), n.clone()));
        }
        out.push(StatusMessage {
            kind: SetKind::Ocean315,
            control_number: m.reference.clone(),
            status: status.clone(),
            at: at.clone(),
            location: here.clone(),
            equipment_initial: Some(initial.to_string()),
            equipment_number: Some(serial.to_string()),
            check_digit: check,
            equipment_status: full,
            iso_type: iso,
            references: refs,
            vessel: vessel.clone(),
            route: route.clone(),
            dates: vec![],
            parties: vec![],
            seals: vec![],
        });
    }
}

/// Escapes EDIFACT's separators and release character in a value (default syntax).
pub(super) fn esc(v: &str) -> String {
    let mut out = String::with_capacity(v.len());
    for c in v.chars() {
        if matches!(c, '?' | ':' | '+' | '\'') {
            out.push('?');
        }
        out.push(c);
    }
    out
}

/// `CCYYMMDD` + `HHMM[SS]` as a DTM value and its format code (203 or 204, 102 for a date).
pub(super) fn dtm(qualifier: &str, st: &Stamp) -> String {
    let time = st.time.as_deref().unwrap_or("");
    let format = match time.len() {
        0 => "102",
        6 => "204",
        _ => "203",
    };
    format!("DTM+{qualifier}:{}{}:{format}'", esc(&st.date), esc(time))
}

/// Writes status messages as one IFTSTA interchange (what a carrier that speaks EDIFACT
/// sends; the simulator uses it): one message per status, with its consignment, place,
/// transport, route and equipment, as [`read`] reads them. Route dates are written with
/// the IFTSTA qualifiers of their X12 ones (departure 186/133, arrival 178/132).
pub fn write_interchange(
    messages: &[StatusMessage],
    control: u32,
    date: &str,
    time: &str,
) -> String {
    let yymmdd = date.get(2..8).unwrap_or("000101");
    let mut out = format!(
        "UNA:+.? 'UNB+UNOC:3+BOXTRACKSIM+BOXTRACK+{yymmdd}:{}+{control}'",
        time.get(..4).unwrap_or("0000")
    );
    for (i, m) in messages.iter().enumerate() {
        let reference = format!("{control}{:04}", i + 1);
        let mut segs: Vec<String> = vec![
            format!("UNH+{reference}+IFTSTA:D:00B:UN'"),
            format!("BGM+23+{reference}+9'"),
            format!("DTM+137:{date}{}:203'", time.get(..4).unwrap_or("0000")),
        ];
        for (q, v) in &m.references {
            if q != "EQ" {
                segs.push(format!("RFF+{}:{}'", esc(q), esc(v)));
            }
        }
        segs.push("CNI+1'".into());
        segs.push(format!("STS+1+{}'", esc(&m.status)));
        let mut at = m.at.clone();
        at.qualifier.clear();
        segs.push(dtm("334", &at));
        if let Some(l) = &m.location {
            segs.push(format!("LOC+175+{}'", esc(&l.id)));
        }
        if let Some(v) = &m.vessel {
            segs.push(format!(
                "TDT+20+{}+1+++++{}:146:11:{}'",
                esc(v.voyage.as_deref().unwrap_or("")),
                esc(v.code.as_deref().unwrap_or("")),
                esc(v.name.as_deref().unwrap_or(""))
            ));
        }
        for r in &m.route {
            let q = match r.function.as_str() {
                "L" => "9",
                "D" => "11",
                "T" => "13",
                "E" | "7" => "7",
                _ => continue,
            };
            segs.push(format!("LOC+{q}+{}'", esc(&r.location.id)));
            for d in &r.dates {
                let arrival = matches!(r.function.as_str(), "D" | "E" | "7");
                let dq = match (d.qualifier.as_str(), arrival) {
                    ("140", false) => "186",
                    ("140", true) => "178",
                    (_, false) => "133",
                    (_, true) => "132",
                };
                segs.push(dtm(dq, d));
            }
        }
        if let Some(number) = m.container_number() {
            let full = match m.equipment_status.as_deref() {
                Some("E") => "4",
                _ => "5",
            };
            segs.push(format!(
                "EQD+CN+{}+{}+++{full}'",
                esc(&number),
                esc(m.iso_type.as_deref().unwrap_or(""))
            ));
        }
        let count = segs.len() + 1;
        out.extend(segs);
        out.push_str(&format!("UNT+{count}+{reference}'"));
    }
    out.push_str(&format!("UNZ+{}+{control}'", messages.len()));
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::edifact::parse;
    use boxtrack_core::tracking::{DataSource, Fact, Milestone, Place, Precision};

    const FIXTURE: &str = include_str!("../../../../fixtures/edifact/iftsta/d00b_iftsta.edi");

    fn mended() -> Vec<StatusMessage> {
        let text = FIXTURE.replace("UNZ+1+2805570'", "UNZ+1+2803570'");
        let p = parse(&text).unwrap();
        let (messages, findings) = read(&p.interchanges[0].messages[0]);
        assert!(findings.is_empty(), "{findings:?}");
        messages
    }

    #[test]
    fn recommendation_24_codes_read_as_their_milestones() {
        let msg = |code: &str, mode: &str| {
            format!(
                "UNA:+.? 'UNB+UNOC:3+S+R+261127:1530+5'UNH+1+IFTSTA:D:00B:UN'BGM+23+X+9'CNI+1'\
                 STS+1+{code}'DTM+334:202611270815:203'LOC+175+USLGB'TDT+20+611N+{mode}'\
                 EQD+CN+MRSU4371639+45G1+++5'UNT+9+1'UNZ+1+5'"
            )
        };
        let read_one = |code: &str, mode: &str| {
            let p = parse(&msg(code, mode)).unwrap();
            assert!(p.findings.is_empty(), "{:?}", p.findings);
            let (ms, f) = read(&p.interchanges[0].messages[0]);
            (ms.first().map(|m| m.status.clone()), f)
        };
        assert_eq!(read_one("29", "1").0.as_deref(), Some("UV"));
        assert_eq!(read_one("24", "1").0.as_deref(), Some("VD"));
        assert_eq!(read_one("24", "2").0.as_deref(), Some("RL"));
        assert_eq!(read_one("40", "1").0.as_deref(), Some("VA"));
        assert_eq!(read_one("13", "3").0.as_deref(), Some("OA"));
        // clearances are read by the release table, the X12 vocabulary's among them
        assert_eq!(read_one("12", "1").0.as_deref(), Some("9011:12"));
        assert_eq!(read_one("CT", "1").0.as_deref(), Some("CT"));
        let said = |code: &str| {
            let p = parse(&msg(code, "1")).unwrap();
            let (ms, _) = read(&p.interchanges[0].messages[0]);
            let mapped = crate::x12::map::map(&ms[0], 0);
            mapped
                .observations
                .iter()
                .filter_map(|o| match &o.fact {
                    boxtrack_core::tracking::Fact::Release {
                        gate,
                        status,
                        wording,
                        ..
                    } => Some(format!(
                        "{} {} {}",
                        gate.name(),
                        status.name(),
                        wording.as_deref().unwrap_or("")
                    )),
                    _ => None,
                })
                .collect::<Vec<_>>()
        };
        assert_eq!(said("12"), vec!["customs released 12 Cleared by customs"]);
        assert_eq!(said("17"), vec!["customs held 17 Customs refusal"]);
        assert_eq!(said("CR"), vec!["line released CR Carrier Release"]);
        // a booking confirmation (6) carries no milestone: a warning, nothing read
        let (none, findings) = read_one("6", "1");
        assert!(none.is_none());
        assert!(
            findings[0].severity == Severity::Warning
                && findings[0].reason.contains("Recommendation 24"),
            "{findings:?}"
        );
    }

    #[test]
    fn the_fixture_reads_as_one_status_of_its_container() {
        let m = mended();
        assert_eq!(m.len(), 1);
        let m = &m[0];
        assert_eq!(m.status, "P");
        assert_eq!(m.container_number().as_deref(), Some("TRHU4561222"));
        assert_eq!(m.at.date, "20221119");
        assert_eq!(m.at.time.as_deref(), Some("0710"));
        assert_eq!(m.location.as_ref().and_then(|l| l.locode()), Some("USSYR"));
        assert_eq!(m.reference("BM"), Some("ABCD224O4023815X"));
        assert_eq!(m.iso_type.as_deref(), Some("45G1"));
        assert_eq!(m.equipment_status.as_deref(), Some("L"));
        let functions: Vec<&str> = m.route.iter().map(|r| r.function.as_str()).collect();
        assert_eq!(functions, vec!["L", "D", "E"]);
        assert!(m.vessel.is_none(), "the leg is rail (TDT mode 2)");
    }

    #[test]
    fn what_is_written_reads_back_to_the_same_observations() {
        let m = mended().remove(0);
        let mut vd = m.clone();
        vd.status = "VD".into();
        vd.vessel = Some(Vessel {
            code: Some("9811000".into()),
            flag: None,
            voyage: Some("17?5E".into()),
            code_qualifier: Some("L".into()),
            name: Some("EVER+GIVEN".into()),
        });
        let text = write_interchange(&[m.clone(), vd.clone()], 42, "20221120", "0930");
        let p = parse(&text).unwrap();
        assert!(p.findings.is_empty(), "{:?}", p.findings);
        let back: Vec<StatusMessage> = p.interchanges[0]
            .messages
            .iter()
            .flat_map(|msg| read(msg).0)
            .collect();
        assert_eq!(back.len(), 2);
        for (a, b) in [(&m, &back[0]), (&vd, &back[1])] {
            assert_eq!(
                crate::x12::map::map(a, 7).observations,
                crate::x12::map::map(b, 7).observations
            );
        }
        assert_eq!(
            back[1].vessel.as_ref().and_then(|v| v.name.as_deref()),
            Some("EVER+GIVEN")
        );
    }

    #[test]
    fn a_container_number_of_other_characters_is_kept_as_sent() {
        let text = "UNH+1+IFTSTA:D:00B:UN'CNI+1'STS+1+VD'DTM+334:202211190710:203'EQD+CN+ÄÖÜBCU1234'UNT+6+1'";
        let p = parse(text).unwrap();
        let (m, _) = read(&p.interchanges[0].messages[0]);
        assert_eq!(m[0].equipment_initial.as_deref(), Some("ÄÖÜBCU1234"));
    }

    #[test]
    fn its_route_dates_become_observations_to_the_minute() {
        let m = &mended()[0];
        let mapped = crate::x12::map::map(m, 0);
        let events: Vec<(Milestone, bool, Place, Precision)> = mapped
            .observations
            .iter()
            .filter_map(|o| match &o.fact {
                Fact::Event(e) => Some((e.milestone, e.estimated, e.place, o.precision)),
                _ => None,
            })
            .collect();
        assert!(
            events.contains(&(
                Milestone::VesselDeparted,
                false,
                Place::Origin,
                Precision::Minute
            )),
            "{events:?}"
        );
        assert!(events.contains(&(
            Milestone::VesselArrived,
            false,
            Place::Pod,
            Precision::Minute
        )));
        assert!(
            mapped
                .observations
                .iter()
                .all(|o| o.source == DataSource::ShippingLine)
        );
        // the departure from Cartagena at 14:15 local (UTC-5)
        let departed = mapped
            .observations
            .iter()
            .find_map(|o| match &o.fact {
                Fact::Event(e) if e.milestone == Milestone::VesselDeparted => e.at_us,
                _ => None,
            })
            .unwrap();
        assert_eq!(
            boxtrack_core::time::format_micros(departed),
            "2022-11-09T19:15:00Z"
        );
    }
}
