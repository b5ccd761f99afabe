//! A terminal's container moves: CODECO (gate-in and gate-out report, D:95B and later) and
//! COARRI (discharge and loading report), read as the status messages the X12 mapper reads
//! ([`crate::x12::status::StatusMessage`], in the 315 vocabulary: gate-in `I`, gate-out `OA`,
//! discharged `UV`, loaded `AE`), so that one set of status rules serves every format. The
//! ingest marks what they say as the terminal's word ([`DataSource::Terminal`]), which decides
//! lifts and gate moves in the precedence table (`docs/precedence.md`).
//!
//! Read as SMDG's user manuals lay them out:
//! - `BGM` 1001 says what the message reports: CODECO `34` gate-in, `36` gate-out; COARRI
//!   `44` discharge, `46` loading. Any other code refuses the message, naming it; a
//!   cancellation (`BGM` 1225 `1`) is noted and not applied.
//! - The header's `TDT` (main carriage, `20`) names the voyage and the vessel (C222: IMO or
//!   call sign, and its name); its `LOC` and `DTM` stand for every container that has none.
//! - Each `EQD+CN` starts a container: number, ISO size-type, trade (`2` export, `3` import,
//!   `6` transshipment) and full or empty (`5` / `4`); then its `RFF` (`BM`, `BN`), its `DTM`
//!   (`203` execution, `7` effective, `334`, `178`, `186`), its `LOC`s: where the move happened
//!   (CODECO `165`; COARRI discharge `11`, loading `9`; element 2 names the terminal) and the
//!   route (`9` loading, `11` discharge, `7`/`8` delivery).
//!
//! [`DataSource::Terminal`]: boxtrack_core::tracking::DataSource::Terminal

use crate::x12::status::{Location, RoutePoint, SetKind, Stamp, StatusMessage, Vessel};
use crate::x12::{Finding, Severity};

use super::iftsta::{dtm, esc, location, stamp};
use super::{Message, Segment};

/// What a terminal reports about one container.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Move {
    /// Into the terminal through its gate (CODECO `34`).
    GateIn,
    /// Out through its gate (CODECO `36`).
    GateOut,
    /// Lifted off a vessel (COARRI `44`).
    Discharged,
    /// Lifted onto a vessel (COARRI `46`).
    Loaded,
}

impl Move {
    /// The move a message reports: its type and `BGM` document name code.
    pub fn of(kind: &str, bgm: &str) -> Option<Move> {
        match (kind, bgm) {
            ("CODECO", "34") => Some(Move::GateIn),
            ("CODECO", "36") => Some(Move::GateOut),
            ("COARRI", "44") => Some(Move::Discharged),
            ("COARRI", "46") => Some(Move::Loaded),
            _ => None,
        }
    }

    /// The message type and `BGM` code that report it.
    pub fn message(self) -> (&'static str, &'static str) {
        match self {
            Move::GateIn => ("CODECO", "34"),
            Move::GateOut => ("CODECO", "36"),
            Move::Discharged => ("COARRI", "44"),
            Move::Loaded => ("COARRI", "46"),
        }
    }

    /// The X12 315 status code of the move.
    fn status(self) -> &'static str {
        match self {
            Move::GateIn => "I",
            Move::GateOut => "OA",
            Move::Discharged => "UV",
            Move::Loaded => "AE",
        }
    }

    /// The `LOC` qualifier of the place where the move happens.
    fn place_qualifier(self) -> &'static str {
        match self {
            Move::GateIn | Move::GateOut => "165",
            Move::Discharged => "11",
            Move::Loaded => "9",
        }
    }
}

/// The route function of a `LOC` qualifier in these messages.
fn route_function(q: &str) -> Option<&'static str> {
    match q {
        "9" => Some("L"),
        "11" => Some("D"),
        "13" => Some("T"),
        "7" | "8" => Some("E"),
        _ => None,
    }
}

/// The date qualifiers that say when a move happened, best first.
const WHEN: [&str; 5] = ["203", "7", "334", "178", "186"];

fn when(segments: &[&Segment]) -> Option<Stamp> {
    WHEN.iter().find_map(|q| {
        segments
            .iter()
            .filter(|s| s.tag == "DTM" && s.get(0, 0).trim() == *q)
            .find_map(|s| stamp(s, ""))
    })
}

fn vessel(s: &Segment) -> Vessel {
    Vessel {
        code: s.opt(7, 0),
        flag: s.opt(7, 4),
        voyage: s.opt(1, 0),
        code_qualifier: s.opt(7, 0).map(|_| "L".to_string()),
        name: s.opt(7, 3),
    }
}

fn error(position: usize, segment: &str, reason: String) -> Finding {
    Finding {
        severity: Severity::Error,
        segment_position: position,
        segment: segment.into(),
        reason,
    }
}

fn warning(position: usize, segment: &str, reason: String) -> Finding {
    Finding {
        severity: Severity::Warning,
        segment_position: position,
        segment: segment.into(),
        reason,
    }
}

/// Reads one CODECO or COARRI message: a status message per container. An error finding
/// refuses the whole message (a `BGM` that names no move this reader knows).
pub fn read(m: &Message) -> (Vec<StatusMessage>, Vec<Finding>) {
    let (mv, bgm) = match move_of(m) {
        Ok(found) => found,
        Err(finding) => return (vec![], vec![finding]),
    };
    // the header: everything before the first EQD
    let split = m
        .segments
        .iter()
        .position(|s| s.tag == "EQD")
        .unwrap_or(m.segments.len());
    let (header, body) = m.segments.split_at(split);
    let header: Vec<&Segment> = header.iter().collect();
    let mut groups: Vec<Vec<&Segment>> = Vec::new();
    for s in body {
        match s.tag.as_str() {
            "EQD" => groups.push(vec![s]),
            "CNT" | "UNT" => {}
            _ => {
                if let Some(g) = groups.last_mut() {
                    g.push(s);
                }
            }
        }
    }
    let mut findings = Vec::new();
    if groups.is_empty() {
        findings.push(error(
            bgm.position,
            "BGM",
            format!("{} {} names no container (EQD)", m.kind, m.reference),
        ));
    }
    let out = groups
        .iter()
        .filter_map(|group| read_equipment(m, mv, &header, group, &mut findings))
        .collect();
    (out, findings)
}

/// The move a message reports, from its BGM (and the BGM): a finding when it has none this
/// reader knows, or cancels an earlier report.
fn move_of(m: &Message) -> Result<(Move, &Segment), Finding> {
    let first = m.segments.first().map_or(0, |s| s.position);
    let Some(bgm) = m.segments.iter().find(|s| s.tag == "BGM") else {
        return Err(error(
            first,
            "UNH",
            format!("{} {} has no BGM", m.kind, m.reference),
        ));
    };
    let code = bgm.get(0, 0).trim();
    let Some(mv) = Move::of(&m.kind, code) else {
        let known = match m.kind.as_str() {
            "CODECO" => "34 (gate-in report) or 36 (gate-out report)",
            _ => "44 (discharge report) or 46 (loading report)",
        };
        return Err(error(
            bgm.position,
            "BGM",
            format!(
                "{} {}: document name code {code:?} is not {known}; refused",
                m.kind, m.reference
            ),
        ));
    };
    if bgm.get(2, 0).trim() == "1" {
        return Err(warning(
            bgm.position,
            "BGM",
            format!(
                "{} {} cancels an earlier report; a cancellation is not applied",
                m.kind, m.reference
            ),
        ));
    }
    Ok((mv, bgm))
}

/// The status message of one container's group (from its EQD), or a finding.
fn read_equipment(
    m: &Message,
    mv: Move,
    header: &[&Segment],
    group: &[&Segment],
    findings: &mut Vec<Finding>,
) -> Option<StatusMessage> {
    let eqd = group[0];
    if eqd.get(0, 0).trim() != "CN" {
        return None;
    }
    let Some(number) = eqd.opt(1, 0) else {
        findings.push(warning(
            eqd.position,
            "EQD",
            "an EQD without a container number; nothing to read".into(),
        ));
        return None;
    };
    let Some(at) = when(group).or_else(|| when(header)) else {
        findings.push(warning(
            eqd.position,
            "EQD",
            format!("{number}: no date of the move (DTM 203 or 7); nothing to read"),
        ));
        return None;
    };
    let (route, here) = route_of(mv, eqd, header, group);
    let header_vessel = header
        .iter()
        .find(|s| s.tag == "TDT" && s.get(0, 0).trim() == "20")
        .map(|s| vessel(s));
    let header_refs: Vec<(String, String)> = header
        .iter()
        .filter(|s| s.tag == "RFF")
        .filter_map(|s| Some((s.opt(0, 0)?, s.opt(0, 1)?)))
        .collect();
    let mut references = header_refs.clone();
    for s in group.iter().filter(|s| s.tag == "RFF") {
        if let (Some(q), Some(v)) = (s.opt(0, 0), s.opt(0, 1)) {
            references.retain(|(rq, _)| *rq != q);
            references.push((q, v));
        }
    }
    let n = number.to_uppercase().replace(' ', "");
    if !references.iter().any(|(q, _)| q == "EQ") {
        references.push(("EQ".into(), n.clone()));
    }
    let (initial, serial, check) = super::split_number(&n);
    let group_vessel = group
        .iter()
        .find(|s| s.tag == "TDT" && s.get(0, 0).trim() == "20")
        .map(|s| vessel(s));
    let carries_vessel = matches!(mv, Move::Discharged | Move::Loaded);
    Some(StatusMessage {
        kind: SetKind::Ocean315,
        control_number: m.reference.clone(),
        status: mv.status().into(),
        at,
        location: here.map(|(l, _)| l),
        equipment_initial: Some(initial.to_string()),
        equipment_number: Some(serial.to_string()),
        check_digit: check,
        equipment_status: match eqd.get(5, 0).trim() {
            "4" => Some("E".into()),
            "5" => Some("L".into()),
            _ => None,
        },
        iso_type: eqd.opt(2, 0),
        references,
        vessel: group_vessel
            .or(header_vessel.clone())
            .filter(|_| carries_vessel),
        route,
        dates: vec![],
        parties: vec![],
        seals: vec![],
    })
}

/// Where the move happened, and the route as the group and the header say it.
fn route_of(
    mv: Move,
    eqd: &Segment,
    header: &[&Segment],
    group: &[&Segment],
) -> (Vec<RoutePoint>, Option<(Location, Option<String>)>) {
    let mut route: Vec<RoutePoint> = Vec::new();
    let mut here: Option<(Location, Option<String>)> = None;
    for s in group.iter().chain(header.iter()).filter(|s| s.tag == "LOC") {
        let q = s.get(0, 0).trim();
        if q == mv.place_qualifier() && here.is_none() {
            here = Some((location(s), s.opt(2, 0)));
        }
        if let Some(f) = route_function(q)
            && !route.iter().any(|r| r.function == f)
        {
            route.push(RoutePoint {
                function: f.into(),
                location: location(s),
                terminal: s.opt(2, 0),
                dates: vec![],
            });
        }
    }
    // where the move happened is on the route as the trade says: an import's is its port
    // of discharge, an export's its port of loading, a transshipment's in between
    let trade = match (eqd.get(4, 0).trim(), mv) {
        ("6", _) => Some("T"),
        ("3", _) | ("", Move::Discharged) => Some("D"),
        ("2", _) | ("", Move::Loaded) => Some("L"),
        _ => None,
    };
    if let (Some((loc, terminal)), Some(f)) = (&here, trade) {
        // (the place is one thing only: a transshipment port is not also the discharge port)
        route.retain(|r| r.function != f && r.location.id != loc.id);
        route.push(RoutePoint {
            function: f.into(),
            location: loc.clone(),
            terminal: terminal.clone(),
            dates: vec![],
        });
    }
    (route, here)
}

/// One move to write (what the simulator's terminals report).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Report {
    /// The move.
    pub kind: Move,
    /// The container number.
    pub container: String,
    /// Its ISO size-type.
    pub iso_type: Option<String>,
    /// Full (`true`) or empty.
    pub full: bool,
    /// `2` export, `3` import, `6` transshipment.
    pub trade: &'static str,
    /// When, local to the place (`date` CCYYMMDD, `time` HHMM).
    pub at: Stamp,
    /// Where (UN/LOCODE).
    pub locode: String,
    /// The terminal's code.
    pub terminal: Option<String>,
    /// The vessel (discharge and loading).
    pub vessel: Option<Vessel>,
    /// The bill of lading.
    pub bill_of_lading: Option<String>,
}

/// Writes reports as one interchange of CODECO and COARRI messages (one message per report),
/// as [`read`] reads them.
pub fn write_interchange(reports: &[Report], control: u32, date: &str, time: &str) -> String {
    let yymmdd = date.get(2..8).unwrap_or("000101");
    let mut out = format!(
        "UNA:+.? 'UNB+UNOC:3+BOXTRACKSIMTERM+BOXTRACK+{yymmdd}:{}+{control}'",
        time.get(..4).unwrap_or("0000")
    );
    for (i, r) in reports.iter().enumerate() {
        let reference = format!("{control}{:04}", i + 1);
        let (kind, bgm) = r.kind.message();
        let mut segs: Vec<String> = vec![
            format!("UNH+{reference}+{kind}:D:95B:UN:SMDG20'"),
            format!("BGM+{bgm}+{reference}+9'"),
        ];
        if let Some(v) = &r.vessel {
            segs.push(format!(
                "TDT+20+{}+1+++++{}:146:11:{}'",
                esc(v.voyage.as_deref().unwrap_or("")),
                esc(v.code.as_deref().unwrap_or("")),
                esc(v.name.as_deref().unwrap_or(""))
            ));
        }
        segs.push(format!(
            "EQD+CN+{}+{}:102:5++{}+{}'",
            esc(&r.container),
            esc(r.iso_type.as_deref().unwrap_or("")),
            r.trade,
            if r.full { "5" } else { "4" }
        ));
        if let Some(bl) = &r.bill_of_lading {
            segs.push(format!("RFF+BM:{}'", esc(bl)));
        }
        let mut at = r.at.clone();
        at.qualifier.clear();
        segs.push(dtm(
            match r.kind {
                Move::GateIn | Move::GateOut => "7",
                _ => "203",
            },
            &at,
        ));
        segs.push(format!(
            "LOC+{}+{}:139:6{}'",
            r.kind.place_qualifier(),
            esc(&r.locode),
            r.terminal
                .as_deref()
                .map(|t| format!("+{}:TER:ZZZ", esc(t)))
                .unwrap_or_default()
        ));
        segs.push("CNT+16:1'".into());
        let count = segs.len() + 1;
        out.extend(segs);
        out.push_str(&format!("UNT+{count}+{reference}'"));
    }
    out.push_str(&format!("UNZ+{}+{control}'", reports.len()));
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::edifact::parse;
    use boxtrack_core::tracking::{Fact, Milestone, Place};

    /// A discharge report in the SMDG layout (as terminals send it: vessel in the header, a
    /// port of loading per container, the execution time).
    const COARRI: &str = "UNB+UNOA:2+USLGBTERM+MAEU+261127:1530+77'\
        UNH+1+COARRI:D:95B:UN:ITG12'BGM+44+DISC2611+9'\
        TDT+20+611N+1++MAEU:172:20+++9352004:146::MAERSK STEPNICA'NAD+CF+MAEU:160:166'\
        EQD+CN+MRSU4371639+45G1:102:5++3+5'RFF+BM:MAEU123456789'DTM+203:202611270815:203'\
        LOC+11+USLGB:139:6+PIER T:TER:ZZZ'LOC+9+KRPUS:139:6'\
        EQD+CN+MSKU1234565+22G1:102:5++6+4'DTM+203:202611270830:203'LOC+11+USLGB:139:6'\
        CNT+16:2'UNT+14+1'UNZ+1+77'";

    #[test]
    fn a_discharge_report_reads_as_discharges() {
        let p = parse(COARRI).unwrap();
        assert!(p.findings.is_empty(), "{:?}", p.findings);
        let (ms, findings) = read(&p.interchanges[0].messages[0]);
        assert!(findings.is_empty(), "{findings:?}");
        assert_eq!(ms.len(), 2);
        let m = &ms[0];
        assert_eq!(
            (m.status.as_str(), m.container_number().as_deref()),
            ("UV", Some("MRSU4371639"))
        );
        assert_eq!(m.reference("BM"), Some("MAEU123456789"));
        assert_eq!(
            m.vessel.as_ref().and_then(|v| v.name.as_deref()),
            Some("MAERSK STEPNICA")
        );
        let mapped = crate::x12::map::map(m, 0);
        let events: Vec<(Milestone, Place)> = mapped
            .observations
            .iter()
            .filter_map(|o| match &o.fact {
                Fact::Event(e) => Some((e.milestone, e.place)),
                _ => None,
            })
            .collect();
        assert_eq!(events, [(Milestone::VesselDischarged, Place::Pod)]);
        // trade 6: discharged in transshipment
        let mapped = crate::x12::map::map(&ms[1], 0);
        assert!(mapped.observations.iter().any(|o| matches!(
            &o.fact,
            Fact::Event(e) if e.milestone == Milestone::VesselDischarged.at_transshipment()
        )));
        assert_eq!(ms[1].equipment_status.as_deref(), Some("E"));
    }

    #[test]
    fn an_unknown_report_or_a_cancellation_applies_nothing() {
        let other = COARRI.replace("BGM+44+", "BGM+98+");
        let p = parse(&other).unwrap();
        let (ms, findings) = read(&p.interchanges[0].messages[0]);
        assert!(ms.is_empty());
        assert!(
            findings[0].severity == Severity::Error && findings[0].reason.contains("\"98\""),
            "{findings:?}"
        );
        let cancel = COARRI.replace("+DISC2611+9'", "+DISC2611+1'");
        let p = parse(&cancel).unwrap();
        let (ms, findings) = read(&p.interchanges[0].messages[0]);
        assert!(ms.is_empty());
        assert_eq!(findings[0].severity, Severity::Warning);
    }

    #[test]
    fn written_reports_read_back_as_their_moves() {
        let stamp = |t: &str| Stamp {
            qualifier: String::new(),
            date: "20261127".into(),
            time: Some(t.into()),
            time_code: Some("LT".into()),
        };
        let report = |kind: Move, full: bool, t: &str| Report {
            kind,
            container: "MRSU4371639".into(),
            iso_type: Some("45G1".into()),
            full,
            trade: "3",
            at: stamp(t),
            locode: "USLGB".into(),
            terminal: Some("Y+258".into()),
            vessel: Some(Vessel {
                code: Some("9352004".into()),
                flag: None,
                voyage: Some("611N".into()),
                code_qualifier: Some("L".into()),
                name: Some("MAERSK STEPNICA".into()),
            }),
            bill_of_lading: Some("MAEU123456789".into()),
        };
        let reports = [
            report(Move::Discharged, true, "0815"),
            report(Move::GateOut, true, "1400"),
            report(Move::GateIn, false, "0900"),
        ];
        let text = write_interchange(&reports, 5, "20261127", "1530");
        let p = parse(&text).unwrap();
        assert!(p.findings.is_empty(), "{:?}", p.findings);
        let milestones: Vec<(Milestone, Place, bool)> = p.interchanges[0]
            .messages
            .iter()
            .flat_map(|m| {
                let (ms, f) = read(m);
                assert!(f.is_empty(), "{f:?}");
                ms
            })
            .flat_map(|m| crate::x12::map::map(&m, 0).observations)
            .filter_map(|o| match o.fact {
                Fact::Event(e) => Some((e.milestone, e.place, e.vessel_name.is_some())),
                _ => None,
            })
            .collect();
        assert_eq!(
            milestones,
            [
                (Milestone::VesselDischarged, Place::Pod, true),
                (Milestone::FullOut, Place::Pod, false),
                (Milestone::EmptyIn, Place::Pod, false),
            ]
        );
    }
}
