//! The contents of 315 (Status Details, Ocean) and 322 (Terminal Operations and Intermodal
//! Ramp Activity) transaction sets, version 004010: reading them from segments and writing
//! them back. `read(write(m)) == m` is a property test.

use super::{Finding, Segment, Severity, TransactionSet, Writer};

/// Which transaction set.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub enum SetKind {
    /// 315, from ocean carriers.
    Ocean315,
    /// 322, from rail carriers and terminals.
    Ramp322,
}

impl SetKind {
    /// ST01.
    pub fn code(self) -> &'static str {
        match self {
            SetKind::Ocean315 => "315",
            SetKind::Ramp322 => "322",
        }
    }

    /// The GS01 functional id that carries it.
    pub fn functional_id(self) -> &'static str {
        match self {
            SetKind::Ocean315 => "QO",
            SetKind::Ramp322 => "SO",
        }
    }
}

/// A date (and time) as sent: local to the place unless the time code says otherwise.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Stamp {
    /// DTM01 qualifier (`139` estimated, `140` actual, `371` estimated arrival, ...); empty for
    /// the status segment's own date.
    pub qualifier: String,
    /// CCYYMMDD.
    pub date: String,
    /// HHMM or HHMMSS.
    pub time: Option<String>,
    /// `LT` local, `UT` UTC, or a US zone code (`ET`, `CT`, `MT`, `PT`, ...).
    pub time_code: Option<String>,
}

/// A place.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Location {
    /// `UN` (UN/LOCODE), `SL` (SPLC), `CI` (city name), `D`/`K` (US Census schedules).
    pub qualifier: String,
    /// The code or name.
    pub id: String,
    /// Name.
    pub name: Option<String>,
    /// Country.
    pub country: Option<String>,
    /// State or province.
    pub state: Option<String>,
}

impl Location {
    /// The UN/LOCODE, when the place is given as one.
    pub fn locode(&self) -> Option<&str> {
        (self.qualifier == "UN" && self.id.len() == 5).then_some(self.id.as_str())
    }
}

/// A route point (R4) with its dates.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct RoutePoint {
    /// R401: `L` port of loading, `D` discharge, `T` transshipment, `E` place of delivery,
    /// `R` receipt, `I` interim, `5` activity location, `6` origin ramp, `7` destination ramp.
    pub function: String,
    /// The place.
    pub location: Location,
    /// R406 terminal.
    pub terminal: Option<String>,
    /// DTM segments of the loop.
    pub dates: Vec<Stamp>,
}

/// The vessel (Q2 in a 315, V1 in a 322).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Vessel {
    /// Vessel code (IMO / Lloyd's number when the qualifier is `L`).
    pub code: Option<String>,
    /// Flag country.
    pub flag: Option<String>,
    /// Voyage.
    pub voyage: Option<String>,
    /// Vessel code qualifier.
    pub code_qualifier: Option<String>,
    /// Name.
    pub name: Option<String>,
}

/// One status message: what one 315 or 322 transaction set says.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct StatusMessage {
    /// 315 or 322.
    pub kind: SetKind,
    /// ST02.
    pub control_number: String,
    /// B403 / Q501 status code (X12 element 157).
    pub status: String,
    /// B404-B405 / Q502-Q504.
    pub at: Stamp,
    /// Where: B411/B412 in a 315; Q506-Q508 city in a 322.
    pub location: Option<Location>,
    /// Equipment initial (owner + category), e.g. `MRSU`.
    pub equipment_initial: Option<String>,
    /// Equipment serial, e.g. `437163`.
    pub equipment_number: Option<String>,
    /// Check digit.
    pub check_digit: Option<String>,
    /// `L` laden or `E` empty.
    pub equipment_status: Option<String>,
    /// ISO size-type, e.g. `45G1`.
    pub iso_type: Option<String>,
    /// N9 references (qualifier, value): `BM` bill of lading, `BN` booking, `EQ` container...
    pub references: Vec<(String, String)>,
    /// Vessel.
    pub vessel: Option<Vessel>,
    /// R4 loops.
    pub route: Vec<RoutePoint>,
    /// DTM segments of the equipment loop (322).
    pub dates: Vec<Stamp>,
    /// N1 parties (qualifier, name, id): `RR` rail carrier, `MC` motor carrier...
    pub parties: Vec<(String, String, Option<String>)>,
    /// Seal numbers.
    pub seals: Vec<String>,
}

impl StatusMessage {
    /// The container number: initial + serial + check digit, upper case without spaces.
    pub fn container_number(&self) -> Option<String> {
        let i = self.equipment_initial.as_deref()?;
        let n = self.equipment_number.as_deref()?;
        let c = self.check_digit.as_deref().unwrap_or("");
        Some(format!("{i}{n}{c}").to_uppercase().replace(' ', ""))
    }

    /// The first reference with this qualifier.
    pub fn reference(&self, qualifier: &str) -> Option<&str> {
        self.references
            .iter()
            .find(|(q, _)| q == qualifier)
            .map(|(_, v)| v.as_str())
    }

    /// The route point with this function.
    pub fn route_point(&self, function: &str) -> Option<&RoutePoint> {
        self.route.iter().find(|r| r.function == function)
    }
}

fn bad(s: &Segment, reason: impl Into<String>) -> Finding {
    Finding {
        severity: Severity::Error,
        segment_position: s.position,
        segment: s.id.clone(),
        reason: reason.into(),
    }
}

fn stamp(s: &Segment) -> Stamp {
    Stamp {
        qualifier: s.el(1).to_string(),
        date: s.el(2).to_string(),
        time: s.opt(3),
        time_code: s.opt(4),
    }
}

fn location(s: &Segment) -> Location {
    Location {
        qualifier: s.el(2).to_string(),
        id: s.el(3).to_string(),
        name: s.opt(4),
        country: s.opt(5),
        state: s.opt(8),
    }
}

fn valid_date(d: &str) -> bool {
    d.len() == 8 && d.bytes().all(|c| c.is_ascii_digit())
}

fn valid_time(t: &Option<String>) -> bool {
    t.as_deref()
        .is_none_or(|t| matches!(t.len(), 4 | 6) && t.bytes().all(|c| c.is_ascii_digit()))
}

/// Reads a 315 or 322. Missing mandatory segments or unreadable dates reject the set.
pub fn read(set: &TransactionSet) -> Result<StatusMessage, Finding> {
    let kind = match set.code.as_str() {
        "315" => SetKind::Ocean315,
        "322" => SetKind::Ramp322,
        other => {
            return Err(Finding {
                severity: Severity::Error,
                segment_position: set.position,
                segment: "ST".into(),
                reason: format!("transaction set {other} is not supported (315 and 322 are)"),
            });
        }
    };
    let mut m = StatusMessage {
        kind,
        control_number: set.control_number.clone(),
        status: String::new(),
        at: Stamp {
            qualifier: String::new(),
            date: String::new(),
            time: None,
            time_code: None,
        },
        location: None,
        equipment_initial: None,
        equipment_number: None,
        check_digit: None,
        equipment_status: None,
        iso_type: None,
        references: vec![],
        vessel: None,
        route: vec![],
        dates: vec![],
        parties: vec![],
        seals: vec![],
    };
    let head = match kind {
        SetKind::Ocean315 => "B4",
        SetKind::Ramp322 => "Q5",
    };
    let mut found_head = false;
    for s in &set.segments {
        match s.id.as_str() {
            "B4" if kind == SetKind::Ocean315 => {
                found_head = true;
                read_b4(&mut m, s)?;
            }
            "Q5" if kind == SetKind::Ramp322 => {
                found_head = true;
                read_q5(&mut m, s)?;
            }
            _ => read_detail(&mut m, s)?,
        }
    }
    if !found_head || m.status.is_empty() {
        return Err(Finding {
            severity: Severity::Error,
            segment_position: set.position,
            segment: "ST".into(),
            reason: format!(
                "transaction set {} has no {head} status segment with a status code",
                set.control_number
            ),
        });
    }
    Ok(m)
}

/// A 315's status segment (B4): status, time, equipment and place.
fn read_b4(m: &mut StatusMessage, s: &Segment) -> Result<(), Finding> {
    m.status = s.el(3).to_string();
    m.at.date = s.el(4).to_string();
    m.at.time = s.opt(5);
    m.equipment_initial = s.opt(7);
    m.equipment_number = s.opt(8);
    m.equipment_status = s.opt(9);
    m.iso_type = s.opt(10);
    m.location = s.opt(11).map(|id| Location {
        qualifier: s.el(12).to_string(),
        id,
        name: None,
        country: None,
        state: None,
    });
    m.check_digit = s.opt(13);
    if !valid_date(&m.at.date) || !valid_time(&m.at.time) {
        return Err(bad(
            s,
            format!(
                "B404/B405 {:?} {:?} is not CCYYMMDD HHMM[SS]",
                m.at.date, m.at.time
            ),
        ));
    }
    Ok(())
}

/// A 322's status segment (Q5): status, time and place.
fn read_q5(m: &mut StatusMessage, s: &Segment) -> Result<(), Finding> {
    m.status = s.el(1).to_string();
    m.at.date = s.el(2).to_string();
    m.at.time = s.opt(3);
    m.at.time_code = s.opt(4);
    m.location = s.opt(6).map(|id| Location {
        qualifier: "CI".into(),
        id,
        name: None,
        country: s.opt(8),
        state: s.opt(7),
    });
    if !valid_date(&m.at.date) || !valid_time(&m.at.time) {
        return Err(bad(
            s,
            format!(
                "Q502/Q503 {:?} {:?} is not CCYYMMDD HHMM[SS]",
                m.at.date, m.at.time
            ),
        ));
    }
    Ok(())
}

/// Any other segment of a 315 or 322: equipment, references, vessel, route, dates, seals,
/// parties (an unknown one is left alone).
fn read_detail(m: &mut StatusMessage, s: &Segment) -> Result<(), Finding> {
    match s.id.as_str() {
        "N7" => {
            m.equipment_initial = s.opt(1);
            m.equipment_number = s.opt(2);
            if matches!(s.el(17), "L" | "E") {
                m.equipment_status = s.opt(17);
            }
            m.check_digit = s.opt(18).filter(|c| c.len() == 1);
            m.iso_type = s.opt(22);
        }
        "W2" => {
            if m.equipment_initial.is_none() {
                m.equipment_initial = s.opt(1);
                m.equipment_number = s.opt(2);
            }
            if m.equipment_status.is_none() && matches!(s.el(5), "L" | "E") {
                m.equipment_status = s.opt(5);
            }
        }
        "N9" => {
            if let (Some(q), Some(v)) = (s.opt(1), s.opt(2)) {
                m.references.push((q, v));
            }
        }
        "Q2" => {
            m.vessel = Some(Vessel {
                code: s.opt(1),
                flag: s.opt(2),
                voyage: s.opt(9),
                code_qualifier: s.opt(12),
                name: s.opt(13),
            });
        }
        "V1" => {
            m.vessel = Some(Vessel {
                code: s.opt(1),
                name: s.opt(2),
                flag: s.opt(3),
                voyage: s.opt(4),
                code_qualifier: None,
            });
        }
        "R4" => m.route.push(RoutePoint {
            function: s.el(1).to_string(),
            location: location(s),
            terminal: s.opt(6),
            dates: vec![],
        }),
        "DTM" => {
            let st = stamp(s);
            if !valid_date(&st.date) || !valid_time(&st.time) {
                return Err(bad(
                    s,
                    format!(
                        "DTM02/DTM03 {:?} {:?} is not CCYYMMDD HHMM[SS]",
                        st.date, st.time
                    ),
                ));
            }
            match m.route.last_mut() {
                Some(r) => r.dates.push(st),
                None => m.dates.push(st),
            }
        }
        "M7" => m.seals.extend((1..=4).filter_map(|i| s.opt(i))),
        "N1" => {
            if let Some(q) = s.opt(1) {
                m.parties.push((q, s.el(2).to_string(), s.opt(4)));
            }
        }
        _ => {}
    }
    Ok(())
}

fn o(v: &Option<String>) -> &str {
    v.as_deref().unwrap_or("")
}

/// Writes `m` as one transaction set (ST … SE) into `w`.
pub fn write(w: &mut Writer, m: &StatusMessage, control: u32) {
    w.start_set(m.kind.code(), control);
    match m.kind {
        SetKind::Ocean315 => {
            let (lid, lq) = m
                .location
                .as_ref()
                .map_or(("", ""), |l| (l.id.as_str(), l.qualifier.as_str()));
            w.segment(
                "B4",
                &[
                    "",
                    "",
                    &m.status,
                    &m.at.date,
                    o(&m.at.time),
                    "",
                    o(&m.equipment_initial),
                    o(&m.equipment_number),
                    o(&m.equipment_status),
                    o(&m.iso_type),
                    lid,
                    lq,
                    o(&m.check_digit),
                ],
            );
            for (q, v) in &m.references {
                w.segment("N9", &[q, v]);
            }
            if let Some(v) = &m.vessel {
                w.segment(
                    "Q2",
                    &[
                        o(&v.code),
                        o(&v.flag),
                        "",
                        "",
                        "",
                        "",
                        "",
                        "",
                        o(&v.voyage),
                        "",
                        "",
                        o(&v.code_qualifier),
                        o(&v.name),
                    ],
                );
            }
        }
        SetKind::Ramp322 => {
            let (city, state, country) = m.location.as_ref().map_or(("", "", ""), |l| {
                (l.id.as_str(), o(&l.state), o(&l.country))
            });
            w.segment(
                "Q5",
                &[
                    &m.status,
                    &m.at.date,
                    o(&m.at.time),
                    o(&m.at.time_code),
                    "",
                    city,
                    state,
                    country,
                ],
            );
            let mut n7 = vec![""; 22];
            n7[0] = o(&m.equipment_initial);
            n7[1] = o(&m.equipment_number);
            n7[10] = "CN";
            n7[16] = o(&m.equipment_status);
            n7[17] = o(&m.check_digit);
            n7[21] = o(&m.iso_type);
            w.segment("N7", &n7);
            for d in &m.dates {
                w.segment("DTM", &[&d.qualifier, &d.date, o(&d.time), o(&d.time_code)]);
            }
            for chunk in m.seals.chunks(4) {
                let refs: Vec<&str> = chunk.iter().map(String::as_str).collect();
                w.segment("M7", &refs);
            }
            if let Some(v) = &m.vessel {
                w.segment("V1", &[o(&v.code), o(&v.name), o(&v.flag), o(&v.voyage)]);
            }
        }
    }
    for r in &m.route {
        let l = &r.location;
        w.segment(
            "R4",
            &[
                &r.function,
                &l.qualifier,
                &l.id,
                o(&l.name),
                o(&l.country),
                o(&r.terminal),
                "",
                o(&l.state),
            ],
        );
        for d in &r.dates {
            w.segment("DTM", &[&d.qualifier, &d.date, o(&d.time), o(&d.time_code)]);
        }
    }
    if m.kind == SetKind::Ramp322 {
        for (q, name, id) in &m.parties {
            w.segment(
                "N1",
                &[q, name, if id.is_some() { "ZZ" } else { "" }, o(id)],
            );
        }
        for (q, v) in &m.references {
            w.segment("N9", &[q, v]);
        }
    }
    w.end_set(control);
}

/// Writes one interchange holding these messages (one group per kind).
pub fn write_interchange(
    messages: &[StatusMessage],
    control: u32,
    date: &str,
    time: &str,
) -> String {
    let yymmdd = date.get(2..).unwrap_or("000101");
    let mut w = Writer::interchange(
        "BOXTRACKSIM",
        "BOXTRACK",
        control,
        yymmdd,
        time.get(..4).unwrap_or(time),
    );
    let mut group = 0;
    for kind in [SetKind::Ocean315, SetKind::Ramp322] {
        let of_kind: Vec<&StatusMessage> = messages.iter().filter(|m| m.kind == kind).collect();
        if of_kind.is_empty() {
            continue;
        }
        group += 1;
        w.group(kind.functional_id(), group, date, time);
        for (i, m) in of_kind.iter().enumerate() {
            write(&mut w, m, i as u32 + 1);
        }
        w.end_group(group);
    }
    w.finish(control)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::x12::parse;
    use proptest::prelude::*;

    fn messages(text: &str) -> Vec<StatusMessage> {
        let p = parse(text).unwrap();
        p.sets().map(|(_, s)| read(s).unwrap()).collect()
    }

    #[test]
    fn reads_the_hamburg_sud_315() {
        let m = &messages(include_str!(
            "../../../../fixtures/x12/315/004010_315_singleline_hamsud-krpus-mxzlo.edi"
        ))[0];
        assert_eq!(m.status, "UV");
        assert_eq!(m.container_number().as_deref(), Some("MRSU4371639"));
        assert_eq!(m.at.date, "20221121");
        assert_eq!(m.at.time.as_deref(), Some("0124"));
        assert_eq!(m.location.as_ref().and_then(|l| l.locode()), Some("MXZLO"));
        assert_eq!(m.iso_type.as_deref(), Some("45G1"));
        assert_eq!(m.reference("BM"), Some("SUDUN2SL008733AF"));
        assert_eq!(
            m.vessel.as_ref().and_then(|v| v.name.as_deref()),
            Some("MAERSK STEPNICA")
        );
        let funcs: Vec<&str> = m.route.iter().map(|r| r.function.as_str()).collect();
        assert_eq!(funcs, ["L", "D", "E", "5"]);
        assert_eq!(m.route[2].dates[0].qualifier, "139");
        assert_eq!(m.route[2].location.state.as_deref(), Some("QU"));
    }

    #[test]
    fn reads_the_hamburg_sud_322() {
        let m = &messages(include_str!(
            "../../../../fixtures/x12/322/004010_322_hamsud_1_A.edi"
        ))[0];
        assert_eq!((m.kind, m.status.as_str()), (SetKind::Ramp322, "A"));
        assert_eq!(m.container_number().as_deref(), Some("HASU4316170"));
        assert_eq!(m.equipment_status.as_deref(), Some("L"));
        assert_eq!(m.iso_type.as_deref(), Some("451G"));
        assert_eq!(m.dates.len(), 3);
        assert_eq!(m.seals, ["SN1234567", "SN1234568"]);
        assert_eq!(
            m.parties[0],
            (
                "RR".to_string(),
                "BNSF Railway".to_string(),
                Some("BNSF".to_string())
            )
        );
        assert_eq!(
            m.route_point("7").map(|r| r.location.id.as_str()),
            Some("USCHI")
        );
    }

    fn text() -> impl Strategy<Value = String> {
        "[A-Z0-9][A-Z0-9 ]{0,10}[A-Z0-9]"
    }

    fn opt() -> impl Strategy<Value = Option<String>> {
        proptest::option::of(text())
    }

    fn stamp_s(q: bool) -> impl Strategy<Value = Stamp> {
        (
            if q {
                "[0-9]{3}".boxed()
            } else {
                Just(String::new()).boxed()
            },
            "20[0-9]{2}(0[1-9]|1[0-2])(0[1-9]|1[0-9]|2[0-8])",
            proptest::option::of("([01][0-9]|2[0-3])[0-5][0-9]([0-5][0-9])?"),
            proptest::option::of(prop_oneof![
                Just("LT".to_string()),
                Just("UT".to_string()),
                Just("CT".to_string())
            ]),
        )
            .prop_map(|(qualifier, date, time, time_code)| Stamp {
                qualifier,
                date,
                time,
                time_code,
            })
    }

    fn message() -> impl Strategy<Value = StatusMessage> {
        let loc = (text(), text(), opt(), opt(), opt()).prop_map(
            |(qualifier, id, name, country, state)| Location {
                qualifier,
                id,
                name,
                country,
                state,
            },
        );
        let route = proptest::collection::vec(
            (
                "[LDTE567]",
                loc,
                opt(),
                proptest::collection::vec(stamp_s(true), 0..3),
            )
                .prop_map(|(function, location, terminal, dates)| RoutePoint {
                    function,
                    location,
                    terminal,
                    dates,
                }),
            0..4,
        );
        (
            any::<bool>(),
            "[A-Z]{1,2}",
            stamp_s(false),
            proptest::option::of((text(), text(), opt(), opt())),
            (
                "[A-Z]{4}",
                "[0-9]{6}",
                proptest::option::of("[0-9]"),
                proptest::option::of("[LE]"),
                opt(),
            ),
            proptest::collection::vec(("[A-Z0-9]{2,3}", text()), 0..4),
            proptest::option::of((opt(), opt(), opt(), opt(), opt())),
            route,
            proptest::collection::vec(stamp_s(true), 0..3),
            proptest::collection::vec(("[A-Z]{2}", text(), opt()), 0..3),
            proptest::collection::vec(text(), 0..4),
        )
            .prop_map(
                |(
                    is315,
                    status,
                    mut at,
                    loc,
                    (ini, num, cd, es, iso),
                    references,
                    vessel,
                    route,
                    dates,
                    parties,
                    seals,
                )| {
                    let kind = if is315 {
                        SetKind::Ocean315
                    } else {
                        SetKind::Ramp322
                    };
                    if is315 {
                        at.time_code = None;
                    }
                    let location = loc.map(|(q, id, c, s)| match kind {
                        SetKind::Ocean315 => Location {
                            qualifier: q,
                            id,
                            name: None,
                            country: None,
                            state: None,
                        },
                        SetKind::Ramp322 => Location {
                            qualifier: "CI".into(),
                            id,
                            name: None,
                            country: c,
                            state: s,
                        },
                    });
                    let vessel = vessel.map(|(code, flag, voyage, cq, name)| Vessel {
                        code,
                        flag,
                        voyage,
                        code_qualifier: if is315 { cq } else { None },
                        name,
                    });
                    StatusMessage {
                        kind,
                        control_number: "0001".into(),
                        status,
                        at,
                        location,
                        equipment_initial: Some(ini),
                        equipment_number: Some(num),
                        check_digit: cd,
                        equipment_status: es,
                        iso_type: iso,
                        references,
                        vessel,
                        route,
                        dates: if is315 { vec![] } else { dates },
                        parties: if is315 { vec![] } else { parties },
                        seals: if is315 { vec![] } else { seals },
                    }
                },
            )
    }

    proptest! {
        #[test]
        fn read_of_write_is_identity(msgs in proptest::collection::vec(message(), 1..4)) {
            let mut msgs = msgs;
            // the writer numbers sets per group: 315s first, then 322s
            msgs.sort_by_key(|m| m.kind == SetKind::Ramp322);
            let mut n = [0u32; 2];
            for m in &mut msgs {
                let k = usize::from(m.kind == SetKind::Ramp322);
                n[k] += 1;
                m.control_number = format!("{:04}", n[k]);
            }
            let text = write_interchange(&msgs, 7, "20260101", "1200");
            let p = parse(&text).unwrap();
            prop_assert!(p.findings.is_empty(), "{:?}\n{}", p.findings, text);
            let back: Vec<StatusMessage> = p.sets().map(|(_, s)| read(s).unwrap()).collect();
            prop_assert_eq!(back, msgs);
        }
    }
}
