//! ANSI X12: a tokenizer that takes its delimiters from the ISA segment, envelope checks
//! (ISA/GS/ST/SE/GE/IEA counts and control numbers), and a writer for the same format.
//!
//! Real interchanges are imperfect. What a trading partner's translator would accept is
//! accepted with a [`Severity::Warning`]; what it would refuse is a [`Severity::Error`]:
//!
//! | quirk | decision |
//! |---|---|
//! | ISA not fixed-width (padding missing) | warning: delimiters are still unambiguous (the element separator is the 4th character, the segment terminator follows ISA16) |
//! | line breaks between segments, or none at all | accepted silently |
//! | SE01 segment count wrong | warning: segment boundaries come from the terminators, the count adds nothing |
//! | GE01 / IEA01 group or set count wrong | warning, for the same reason |
//! | ST02 ≠ SE02 | that transaction set is rejected (two sets were probably spliced together); the others are kept |
//! | GS06 ≠ GE02 | that group is rejected; the other groups are kept |
//! | ISA13 ≠ IEA02, or IEA missing | the whole interchange is rejected |
//! | ISA12 version differs from GS08 | warning |
//! | control numbers reused across files | accepted: duplicates are found by content, not by control number |
//! | characters outside the X12 basic set | warning |
//! | segment after IEA, or data before ISA | error: not an interchange |
//!
//! Transaction-set contents (315 and 322) are read by [`status`], and mapped to observations by
//! [`map`].

pub mod map;
pub mod status;

use std::fmt;

/// How serious a finding is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Severity {
    /// Accepted, but worth telling the sender.
    Warning,
    /// The enclosing transaction set, group or interchange is refused.
    Error,
}

/// A finding about one segment.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Finding {
    /// Warning or error.
    pub severity: Severity,
    /// 1-based position of the segment in the file.
    pub segment_position: usize,
    /// The segment id (`ISA`, `SE`, ...).
    pub segment: String,
    /// What is wrong.
    pub reason: String,
}

impl fmt::Display for Finding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "segment {} ({}): {}",
            self.segment_position, self.segment, self.reason
        )
    }
}

/// The file is not an X12 interchange that can be read at all.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct X12Error(pub Finding);

/// The delimiters an interchange declares in its ISA segment.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Delimiters {
    /// Between elements (ISA position 4), usually `*`.
    pub element: char,
    /// Between components (ISA16), usually `>` or `:`.
    pub component: char,
    /// After each segment, usually `~`.
    pub segment: char,
}

impl Default for Delimiters {
    fn default() -> Self {
        Delimiters {
            element: '*',
            component: '>',
            segment: '~',
        }
    }
}

/// One segment: its id and elements (element `n` is `elements[n - 1]`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Segment {
    /// 1-based position in the file.
    pub position: usize,
    /// Segment id.
    pub id: String,
    /// Elements after the id.
    pub elements: Vec<String>,
}

impl Segment {
    /// Element `n` (1-based), trimmed; empty when absent.
    pub fn el(&self, n: usize) -> &str {
        n.checked_sub(1)
            .and_then(|i| self.elements.get(i))
            .map_or("", |s| s.trim())
    }

    /// Element `n` when present and not blank.
    pub fn opt(&self, n: usize) -> Option<String> {
        let v = self.el(n);
        (!v.is_empty()).then(|| v.to_string())
    }
}

/// A transaction set (ST … SE).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TransactionSet {
    /// ST01, e.g. `315`.
    pub code: String,
    /// ST02.
    pub control_number: String,
    /// The segments between ST and SE.
    pub segments: Vec<Segment>,
    /// Position of the ST segment.
    pub position: usize,
}

/// A functional group (GS … GE).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Group {
    /// GS01, e.g. `QO` (315) or `SO` (322).
    pub functional_id: String,
    /// GS02.
    pub sender: String,
    /// GS03.
    pub receiver: String,
    /// GS04 (CCYYMMDD).
    pub date: String,
    /// GS05 (HHMM, HHMMSS).
    pub time: String,
    /// GS06.
    pub control_number: String,
    /// GS08, e.g. `004010`.
    pub version: String,
    /// Its accepted transaction sets.
    pub sets: Vec<TransactionSet>,
}

/// An interchange (ISA … IEA).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Interchange {
    /// Delimiters declared by the ISA.
    pub delimiters: Delimiters,
    /// ISA06, trimmed.
    pub sender: String,
    /// ISA08, trimmed.
    pub receiver: String,
    /// ISA13.
    pub control_number: String,
    /// ISA12.
    pub version: String,
    /// ISA15: `P` production or `T` test.
    pub usage: String,
    /// Accepted groups.
    pub groups: Vec<Group>,
}

/// The result of reading a file: what was accepted, and every finding.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Parsed {
    /// Accepted interchanges (a rejected group or set is left out of its interchange).
    pub interchanges: Vec<Interchange>,
    /// Warnings and errors, in file order.
    pub findings: Vec<Finding>,
}

impl Parsed {
    /// Every accepted transaction set, with its group.
    pub fn sets(&self) -> impl Iterator<Item = (&Group, &TransactionSet)> {
        self.interchanges
            .iter()
            .flat_map(|i| i.groups.iter())
            .flat_map(|g| g.sets.iter().map(move |s| (g, s)))
    }

    /// The errors only.
    pub fn errors(&self) -> impl Iterator<Item = &Finding> {
        self.findings
            .iter()
            .filter(|f| f.severity == Severity::Error)
    }
}

fn finding(severity: Severity, position: usize, segment: &str, reason: String) -> Finding {
    Finding {
        severity,
        segment_position: position,
        segment: segment.to_string(),
        reason,
    }
}

fn fatal(position: usize, segment: &str, reason: impl Into<String>) -> X12Error {
    X12Error(finding(Severity::Error, position, segment, reason.into()))
}

/// Reads the delimiters from the ISA at the start of `input` (leading whitespace allowed).
/// The ISA has 16 elements; the element separator is the character after `ISA`, the component
/// separator is ISA16 and the segment terminator is the character right after it.
pub fn delimiters(input: &str) -> Result<(Delimiters, bool), X12Error> {
    let s = input.trim_start_matches(['\u{feff}', ' ', '\t', '\r', '\n']);
    if !s.starts_with("ISA") {
        return Err(fatal(
            1,
            "ISA",
            "the file does not start with an ISA segment",
        ));
    }
    let mut chars = s.char_indices().skip(3);
    let Some((_, element)) = chars.next() else {
        return Err(fatal(1, "ISA", "the ISA segment ends after its id"));
    };
    if element.is_alphanumeric() || element.is_whitespace() {
        return Err(fatal(
            1,
            "ISA",
            format!("'{element}' cannot be an element separator"),
        ));
    }
    // walk to the 16th separator
    let mut seen = 0;
    let mut after_16 = None;
    for (i, c) in s.char_indices().skip(3) {
        if c == element {
            seen += 1;
            if seen == 16 {
                after_16 = Some(i + c.len_utf8());
                break;
            }
        }
    }
    let Some(start) = after_16 else {
        return Err(fatal(
            1,
            "ISA",
            "the ISA segment has fewer than 16 elements",
        ));
    };
    let mut rest = s[start..].chars();
    let (Some(component), Some(segment)) = (rest.next(), rest.next()) else {
        return Err(fatal(1, "ISA", "the ISA segment is cut off after ISA16"));
    };
    if segment == element || component == element || segment.is_alphanumeric() {
        return Err(fatal(
            1,
            "ISA",
            "ISA16 and the segment terminator must be single characters different from the element separator",
        ));
    }
    let fixed_width = start + 2 == 106;
    Ok((
        Delimiters {
            element,
            component,
            segment,
        },
        fixed_width,
    ))
}

/// Splits `input` into segments with the ISA's delimiters. Line breaks around segment
/// terminators are ignored.
pub fn tokenize(input: &str) -> Result<(Delimiters, Vec<Segment>, bool), X12Error> {
    let (d, fixed_width) = delimiters(input)?;
    let mut out = Vec::new();
    for raw in input.split(d.segment) {
        let raw = raw.trim_matches(['\u{feff}', '\r', '\n', ' ', '\t']);
        if raw.is_empty() {
            continue;
        }
        let mut parts = raw.split(d.element);
        let id = parts.next().unwrap_or_default().trim().to_string();
        let elements: Vec<String> = parts.map(str::to_string).collect();
        out.push(Segment {
            position: out.len() + 1,
            id,
            elements,
        });
    }
    Ok((d, out, fixed_width))
}

fn same_number(a: &str, b: &str) -> bool {
    let (a, b) = (a.trim(), b.trim());
    a == b
        || (!a.is_empty()
            && a.bytes().all(|c| c.is_ascii_digit())
            && b.bytes().all(|c| c.is_ascii_digit())
            && a.trim_start_matches('0') == b.trim_start_matches('0')
            && a.len() == b.len())
}

/// Reads a whole file: one or more interchanges. Returns an error only when nothing can be
/// read at all; rejected sets, groups and interchanges are reported in
/// [`Parsed::findings`] and left out.
pub fn parse(input: &str) -> Result<Parsed, X12Error> {
    let (delimiters, segments, fixed_width) = tokenize(input)?;
    let mut parsed = Parsed::default();
    if !fixed_width {
        parsed.findings.push(finding(
            Severity::Warning,
            1,
            "ISA",
            "the ISA segment is not the fixed 106 characters; delimiters read from its elements"
                .into(),
        ));
    }
    for s in &segments {
        for e in &s.elements {
            if let Some(c) = e.chars().find(|c| !c.is_ascii() || c.is_ascii_control()) {
                warn(
                    &mut parsed,
                    s,
                    format!("character {c:?} is outside the X12 character set"),
                );
                break;
            }
        }
    }
    let mut i = 0;
    while i < segments.len() {
        let (ic, next) = read_interchange(&segments, i, delimiters, &mut parsed)?;
        i = next;
        parsed.interchanges.extend(ic);
    }
    Ok(parsed)
}

fn warn(p: &mut Parsed, s: &Segment, reason: String) {
    p.findings
        .push(finding(Severity::Warning, s.position, &s.id, reason));
}

fn err(p: &mut Parsed, s: &Segment, reason: String) {
    p.findings
        .push(finding(Severity::Error, s.position, &s.id, reason));
}

/// Reads ISA … IEA from `start`; returns the interchange unless it is rejected, and the index
/// after it.
fn read_interchange(
    segments: &[Segment],
    start: usize,
    delimiters: Delimiters,
    parsed: &mut Parsed,
) -> Result<(Option<Interchange>, usize), X12Error> {
    let isa = &segments[start];
    let mut i = start;
    if isa.id != "ISA" {
        return Err(fatal(
            isa.position,
            &isa.id,
            format!("expected ISA, found {}", isa.id),
        ));
    }
    let mut ic = Interchange {
        delimiters,
        sender: isa.el(6).to_string(),
        receiver: isa.el(8).to_string(),
        control_number: isa.el(13).to_string(),
        version: isa.el(12).to_string(),
        usage: isa.el(15).to_string(),
        groups: vec![],
    };
    if isa.elements.len() < 16 {
        return Err(fatal(
            isa.position,
            "ISA",
            "the ISA segment needs 16 elements",
        ));
    }
    i += 1;
    let mut groups_seen = 0usize;
    let mut rejected = false;
    let mut closed = false;
    while i < segments.len() {
        let s = &segments[i];
        match s.id.as_str() {
            "GS" => {
                groups_seen += 1;
                let (group, next, ok) = read_group(segments, i, parsed);
                i = next;
                if ok {
                    if !ic.version.is_empty()
                        && !group.version.starts_with(&ic.version)
                        && !group.version.is_empty()
                    {
                        warn(
                            parsed,
                            s,
                            format!(
                                "GS08 version {} differs from ISA12 {}",
                                group.version, ic.version
                            ),
                        );
                    }
                    ic.groups.push(group);
                }
            }
            "IEA" => {
                if !same_number(s.el(2), &ic.control_number) {
                    err(
                        parsed,
                        s,
                        format!(
                            "IEA02 {} does not match ISA13 {}: interchange rejected",
                            s.el(2),
                            ic.control_number
                        ),
                    );
                    rejected = true;
                } else if s.el(1).parse::<usize>().ok() != Some(groups_seen) {
                    warn(
                        parsed,
                        s,
                        format!(
                            "IEA01 says {} groups, the interchange has {groups_seen}",
                            s.el(1)
                        ),
                    );
                }
                i += 1;
                closed = true;
                break;
            }
            "ISA" => break,
            other => {
                err(
                    parsed,
                    s,
                    format!("{other} outside a functional group: interchange rejected"),
                );
                rejected = true;
                i += 1;
            }
        }
    }
    if !closed {
        let last = segments.get(i.saturating_sub(1)).unwrap_or(isa);
        err(
            parsed,
            last,
            "the interchange has no IEA trailer: interchange rejected".into(),
        );
        rejected = true;
    }
    if !rejected {
        return Ok((Some(ic), i));
    }
    Ok((None, i))
}

/// Reads GS … GE from `start`; returns the group, the index after it, and whether it is kept.
fn read_group(segments: &[Segment], start: usize, parsed: &mut Parsed) -> (Group, usize, bool) {
    let gs = &segments[start];
    let mut g = Group {
        functional_id: gs.el(1).to_string(),
        sender: gs.el(2).to_string(),
        receiver: gs.el(3).to_string(),
        date: gs.el(4).to_string(),
        time: gs.el(5).to_string(),
        control_number: gs.el(6).to_string(),
        version: gs.el(8).to_string(),
        sets: vec![],
    };
    if gs.el(7) != "X" {
        parsed.findings.push(finding(
            Severity::Warning,
            gs.position,
            "GS",
            format!("GS07 agency {:?} is not X", gs.el(7)),
        ));
    }
    let mut i = start + 1;
    let mut sets_seen = 0usize;
    while i < segments.len() {
        let s = &segments[i];
        match s.id.as_str() {
            "ST" => {
                sets_seen += 1;
                let (set, next) = read_set(segments, i, parsed);
                g.sets.extend(set);
                i = next;
            }
            "GE" => {
                let ok = same_number(s.el(2), &g.control_number);
                if !ok {
                    parsed.findings.push(finding(
                        Severity::Error,
                        s.position,
                        "GE",
                        format!(
                            "GE02 {} does not match GS06 {}: group rejected",
                            s.el(2),
                            g.control_number
                        ),
                    ));
                } else if s.el(1).parse::<usize>().ok() != Some(sets_seen) {
                    parsed.findings.push(finding(
                        Severity::Warning,
                        s.position,
                        "GE",
                        format!(
                            "GE01 says {} transaction sets, the group has {sets_seen}",
                            s.el(1)
                        ),
                    ));
                }
                return (g, i + 1, ok);
            }
            "IEA" | "ISA" | "GS" => break,
            other => {
                parsed.findings.push(finding(
                    Severity::Error,
                    s.position,
                    other,
                    format!("{other} outside a transaction set: skipped"),
                ));
                i += 1;
            }
        }
    }
    parsed.findings.push(finding(
        Severity::Error,
        gs.position,
        "GS",
        format!(
            "group {} has no GE trailer: group rejected",
            g.control_number
        ),
    ));
    (g, i, false)
}

/// Reads ST … SE from `start`; returns the transaction set unless it is rejected, and the
/// index after it.
fn read_set(
    segments: &[Segment],
    i: usize,
    parsed: &mut Parsed,
) -> (Option<TransactionSet>, usize) {
    let s = &segments[i];
    let mut j = i + 1;
    while j < segments.len()
        && !matches!(
            segments[j].id.as_str(),
            "SE" | "ST" | "GE" | "IEA" | "GS" | "ISA"
        )
    {
        j += 1;
    }
    let set = TransactionSet {
        code: s.el(1).to_string(),
        control_number: s.el(2).to_string(),
        segments: segments[i + 1..j].to_vec(),
        position: s.position,
    };
    match segments.get(j) {
        Some(se) if se.id == "SE" => {
            let count = j - i + 1;
            let mut ok = true;
            if se.el(2) != s.el(2) {
                parsed.findings.push(finding(
                    Severity::Error,
                    se.position,
                    "SE",
                    format!(
                        "SE02 {} does not match ST02 {}: transaction set rejected",
                        se.el(2),
                        s.el(2)
                    ),
                ));
                ok = false;
            } else if se.el(1).parse::<usize>().ok() != Some(count) {
                parsed.findings.push(finding(
                    Severity::Warning,
                    se.position,
                    "SE",
                    format!(
                        "SE01 says {} segments, the transaction set has {count}",
                        se.el(1)
                    ),
                ));
            }
            (ok.then_some(set), j + 1)
        }
        _ => {
            parsed.findings.push(finding(
                Severity::Error,
                s.position,
                "ST",
                format!(
                    "transaction set {} has no SE trailer: transaction set rejected",
                    s.el(2)
                ),
            ));
            (None, j)
        }
    }
}

/// Writes segments with these delimiters, one per line.
#[derive(Debug, Clone)]
pub struct Writer {
    d: Delimiters,
    out: String,
    set_start: usize,
    set_count: usize,
    group_sets: usize,
    groups: usize,
}

fn clean(v: &str, d: &Delimiters) -> String {
    v.chars()
        .map(|c| {
            if c == d.element || c == d.segment || c == d.component || c.is_control() {
                ' '
            } else {
                c
            }
        })
        .collect()
}

impl Writer {
    /// Starts an interchange: ISA (fixed width) and nothing else yet.
    pub fn interchange(
        sender: &str,
        receiver: &str,
        control: u32,
        date_yymmdd: &str,
        time_hhmm: &str,
    ) -> Writer {
        let d = Delimiters::default();
        let mut w = Writer {
            d,
            out: String::new(),
            set_start: 0,
            set_count: 0,
            group_sets: 0,
            groups: 0,
        };
        let isa = format!(
            "ISA*00*{:<10}*00*{:<10}*ZZ*{:<15}*ZZ*{:<15}*{}*{}*U*00401*{:09}*0*P*>",
            "",
            "",
            clean(sender, &d).chars().take(15).collect::<String>(),
            clean(receiver, &d).chars().take(15).collect::<String>(),
            date_yymmdd,
            time_hhmm,
            control
        );
        w.out.push_str(&isa);
        w.out.push(d.segment);
        w.out.push('\n');
        w
    }

    /// Writes one segment; trailing empty elements are dropped.
    pub fn segment(&mut self, id: &str, elements: &[&str]) -> &mut Self {
        let mut els: Vec<String> = elements.iter().map(|e| clean(e, &self.d)).collect();
        while els.last().is_some_and(|e| e.is_empty()) {
            els.pop();
        }
        self.out.push_str(id);
        for e in els {
            self.out.push(self.d.element);
            self.out.push_str(&e);
        }
        self.out.push(self.d.segment);
        self.out.push('\n');
        self.set_count += 1;
        self
    }

    /// GS with functional id (`QO` for 315, `SO` for 322).
    pub fn group(&mut self, functional_id: &str, control: u32, date: &str, time: &str) {
        self.groups += 1;
        self.group_sets = 0;
        let c = control.to_string();
        self.segment(
            "GS",
            &[
                functional_id,
                "BOXTRACK",
                "RECEIVER",
                date,
                time,
                &c,
                "X",
                "004010",
            ],
        );
    }

    /// ST.
    pub fn start_set(&mut self, code: &str, control: u32) {
        self.group_sets += 1;
        self.set_count = 0;
        self.set_start = self.out.len();
        let c = format!("{control:04}");
        self.segment("ST", &[code, &c]);
    }

    /// SE with the right count and control number.
    pub fn end_set(&mut self, control: u32) {
        let n = (self.set_count + 1).to_string();
        let c = format!("{control:04}");
        self.segment("SE", &[&n, &c]);
    }

    /// GE.
    pub fn end_group(&mut self, control: u32) {
        let n = self.group_sets.to_string();
        let c = control.to_string();
        self.segment("GE", &[&n, &c]);
    }

    /// IEA, and the text.
    pub fn finish(mut self, control: u32) -> String {
        let n = self.groups.to_string();
        let c = format!("{control:09}");
        self.segment("IEA", &[&n, &c]);
        self.out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn delimiters_come_from_the_isa_even_when_not_fixed_width() {
        let (d, fixed) =
            delimiters("ISA*00* *00* *ZZ*A*ZZ*B*160526*2245*U*00401*1*0*P*>~GS").unwrap();
        assert_eq!(
            (d.element, d.component, d.segment, fixed),
            ('*', '>', '~', false)
        );
        let (d, _) = delimiters("ISA|00|          |00|          |ZZ|A              |ZZ|B              |160526|2245|U|00401|000000001|0|P|:\nGS").unwrap();
        assert_eq!((d.element, d.component, d.segment), ('|', ':', '\n'));
        assert!(delimiters("GS*QO~").is_err());
        assert!(delimiters("ISA*00*").is_err());
    }

    #[test]
    fn a_bad_set_is_rejected_and_the_good_ones_kept() {
        let text = "ISA*00*          *00*          *ZZ*A              *ZZ*B              *220524*1120*U*00401*000000001*0*P*>~\nGS*QO*A*B*20220524*1600*7*X*004010~\nST*315*0001~B4***VA*20220901*0807~SE*3*0001~\nST*315*0002~B4***VD*20220901*0807~SE*3*0009~\nST*315*0003~B4***AE*20220901*0807~SE*9*0003~\nGE*3*7~IEA*1*000000001~";
        let p = parse(text).unwrap();
        let kept: Vec<&str> = p.sets().map(|(_, s)| s.control_number.as_str()).collect();
        assert_eq!(kept, ["0001", "0003"]);
        let errors: Vec<String> = p.errors().map(|f| f.to_string()).collect();
        assert_eq!(errors.len(), 1, "{errors:?}");
        assert!(
            errors[0].contains("SE02 0009 does not match ST02 0002"),
            "{errors:?}"
        );
        assert!(
            p.findings
                .iter()
                .any(|f| f.severity == Severity::Warning && f.reason.contains("SE01 says 9"))
        );
    }

    #[test]
    fn a_mismatched_interchange_trailer_rejects_the_interchange() {
        let text = "ISA*00*          *00*          *ZZ*A              *ZZ*B              *220524*1120*U*00401*000000001*0*P*>~GS*QO*A*B*20220524*1600*7*X*004010~ST*315*0001~B4***VA~SE*3*0001~GE*1*7~IEA*1*000000002~";
        let p = parse(text).unwrap();
        assert!(p.interchanges.is_empty());
        assert!(p.errors().any(|f| f.segment == "IEA"));
    }

    #[test]
    fn garbage_is_an_error_naming_the_segment() {
        let e = parse("hello").unwrap_err();
        assert_eq!(e.0.segment, "ISA");
        let e = parse("ISA*00*          *00*          *ZZ*A              *ZZ*B              *220524*1120*U*00401*000000001*0*P*>~IEA*0*000000001~XX*1~").unwrap_err();
        assert!(e.to_string().contains("expected ISA, found XX"), "{e}");
    }

    /// Every fixture, and the decision taken on its quirks.
    #[test]
    fn every_fixture() {
        let f = |name: &str| -> Parsed {
            let path = format!("{}/../../fixtures/x12/{name}", env!("CARGO_MANIFEST_DIR"));
            parse(&std::fs::read_to_string(path).unwrap()).unwrap()
        };
        let summary = |p: &Parsed| -> (usize, Vec<String>, Vec<String>) {
            let e = p.errors().map(|x| x.segment.clone()).collect();
            let w = p
                .findings
                .iter()
                .filter(|x| x.severity == Severity::Warning)
                .map(|x| x.segment.clone())
                .collect();
            (p.sets().count(), e, w)
        };
        // fixed-width, clean apart from bad check digits (those are the mapper's business)
        assert_eq!(
            summary(&f("315/004010_315_sample.edi")),
            (1, vec![], vec![])
        );
        // one line; SE02 differs from ST02: the set is rejected
        assert_eq!(
            summary(&f("315/004010_315_singleline_arbue-maptm-deham.edi")),
            (0, vec!["SE".into()], vec![])
        );
        assert_eq!(
            summary(&f("315/004010_315_singleline_hamsud-krpus-mxzlo.edi")),
            (1, vec![], vec![])
        );
        // short ISA: a warning; SE01 counts right
        for n in ["1_A", "2_OA", "3_NF"] {
            assert_eq!(
                summary(&f(&format!("322/004010_322_hamsud_{n}.edi"))),
                (1, vec![], vec!["ISA".into()])
            );
        }
        // SE01 says 12 for 14 segments: a warning, the set is kept
        assert_eq!(
            summary(&f("322/004010_322_hamsud_4_AL.edi")),
            (1, vec![], vec!["ISA".into(), "SE".into()])
        );
        // IEA02 differs from ISA13: the interchange is rejected (plus the other quirks, noted)
        let p = f("322/004010_322_1edisource_GI.edi");
        let (sets, errors, warnings) = summary(&p);
        assert_eq!((sets, errors), (0, vec!["IEA".to_string()]));
        assert!(warnings.contains(&"GS".to_string()), "{warnings:?}");
        assert!(
            p.findings
                .iter()
                .any(|x| x.reason.contains("outside the X12 character set"))
        );
    }

    #[test]
    fn the_writer_produces_what_the_parser_accepts_without_findings() {
        let mut w = Writer::interchange("SENDER", "RECEIVER", 42, "260101", "1200");
        w.group("QO", 42, "20260101", "1200");
        w.start_set("315", 1);
        w.segment("B4", &["", "", "VA", "20260101", "1200"]);
        w.end_set(1);
        w.end_group(42);
        let text = w.finish(42);
        let p = parse(&text).unwrap();
        assert!(p.findings.is_empty(), "{:?}", p.findings);
        assert_eq!(p.sets().count(), 1);
        assert_eq!(p.interchanges[0].sender, "SENDER");
    }
}
