//! UN/EDIFACT (ISO 9735) syntax: the service string advice (`UNA`), release characters, the
//! interchange (`UNB` … `UNZ`), functional groups (`UNG` … `UNE`) and messages (`UNH` …
//! `UNT`), with their counts and references checked. What the messages say is read by
//! [`iftsta`] (a carrier's status reports) and [`terminal`] (a terminal's CODECO gate moves and
//! COARRI discharges and loadings).
//!
//! A file that cannot be read at all is an [`EdifactError`]; otherwise every problem is a
//! [`Finding`]: a message whose `UNT` count or reference is wrong is refused, an interchange
//! whose `UNZ` count or reference is wrong is refused with every message in it, and nothing of
//! a refused part is applied.

pub mod iftsta;
pub mod terminal;

use crate::x12::{Finding, Severity};

/// The separators an interchange uses (`UNA`, or the defaults `:+.? '`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Syntax {
    /// Between the components of a composite element (`:`).
    pub component: char,
    /// Between elements (`+`).
    pub element: char,
    /// Makes the next character literal (`?`).
    pub release: char,
    /// Ends a segment (`'`).
    pub terminator: char,
}

impl Default for Syntax {
    fn default() -> Self {
        Syntax {
            component: ':',
            element: '+',
            release: '?',
            terminator: '\'',
        }
    }
}

/// One segment: its tag and its elements, each a list of components (release characters
/// already removed).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Segment {
    /// 1-based position in the file (`UNA` not counted).
    pub position: usize,
    /// `UNB`, `STS`, …
    pub tag: String,
    /// Elements after the tag, each with its components.
    pub elements: Vec<Vec<String>>,
}

impl Segment {
    /// Component `c` of element `e` (0-based, after the tag), or `""`.
    pub fn get(&self, e: usize, c: usize) -> &str {
        self.elements
            .get(e)
            .and_then(|el| el.get(c))
            .map_or("", String::as_str)
    }

    /// Component `c` of element `e`, if not empty.
    pub fn opt(&self, e: usize, c: usize) -> Option<String> {
        let v = self.get(e, c).trim();
        (!v.is_empty()).then(|| v.to_string())
    }
}

/// One message (`UNH` … `UNT`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Message {
    /// UNH 0062: the message reference.
    pub reference: String,
    /// UNH S009: type (`IFTSTA`), version (`D`), release (`00B`), agency (`UN`).
    pub kind: String,
    /// `D:00B`.
    pub version: String,
    /// Every segment from UNH to UNT, both included.
    pub segments: Vec<Segment>,
}

/// One interchange (`UNB` … `UNZ`), or the messages of a file without one.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Interchange {
    /// UNB 0020: the interchange control reference (empty without a UNB).
    pub reference: String,
    /// UNB S002: the sender.
    pub sender: String,
    /// UNB S004: date (YYMMDD or CCYYMMDD).
    pub date: String,
    /// UNB S004: time (HHMM).
    pub time: String,
    /// The messages that are not refused.
    pub messages: Vec<Message>,
}

/// A whole file.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Parsed {
    /// Interchanges that are not refused.
    pub interchanges: Vec<Interchange>,
    /// Everything worth saying about the file, errors first in the order found.
    pub findings: Vec<Finding>,
    /// Messages refused on their own (their interchange accepted).
    pub messages_refused: usize,
}

/// The file is not EDIFACT that can be read at all.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct EdifactError(pub Finding);

fn finding(severity: Severity, position: usize, segment: &str, reason: String) -> Finding {
    Finding {
        severity,
        segment_position: position,
        segment: segment.to_string(),
        reason,
    }
}

fn fatal(position: usize, segment: &str, reason: impl Into<String>) -> EdifactError {
    EdifactError(finding(Severity::Error, position, segment, reason.into()))
}

/// Reads the service string advice, if the file starts with one: `UNA` and six characters
/// (component, element, decimal mark, release, reserved, terminator). Returns the syntax and
/// the rest of the input.
pub fn syntax(input: &str) -> Result<(Syntax, &str), EdifactError> {
    let s = input.trim_start_matches(['\u{feff}', ' ', '\t', '\r', '\n']);
    let Some(rest) = s.strip_prefix("UNA") else {
        return Ok((Syntax::default(), s));
    };
    let chars: Vec<char> = rest.chars().take(6).collect();
    let [component, element, _decimal, release, _reserved, terminator] = chars[..] else {
        return Err(fatal(0, "UNA", "the UNA segment is cut off"));
    };
    let used = [component, element, release, terminator];
    if used
        .iter()
        .any(|c| c.is_alphanumeric() || c.is_whitespace())
        || (1..used.len()).any(|i| used[..i].contains(&used[i]))
    {
        return Err(fatal(
            0,
            "UNA",
            "the UNA separators must be four different non-alphanumeric characters",
        ));
    }
    let skip: usize = chars.iter().map(|c| c.len_utf8()).sum();
    Ok((
        Syntax {
            component,
            element,
            release,
            terminator,
        },
        &rest[skip..],
    ))
}

/// Splits the input into segments, honouring the release character. Line breaks between
/// segments are ignored.
pub fn tokenize(input: &str) -> Result<(Syntax, Vec<Segment>), EdifactError> {
    let (sx, body) = syntax(input)?;
    let mut segments = Vec::new();
    let mut elements: Vec<Vec<String>> = vec![vec![String::new()]];
    let mut released = false;
    let mut any = false;
    for ch in body.chars() {
        if released {
            push_char(&mut elements, ch);
            released = false;
            any = true;
            continue;
        }
        match ch {
            c if c == sx.release => {
                released = true;
            }
            c if c == sx.terminator => {
                let done = std::mem::replace(&mut elements, vec![vec![String::new()]]);
                segments.push(segment_of(segments.len() + 1, done)?);
                any = false;
            }
            c if c == sx.element => {
                elements.push(vec![String::new()]);
                any = true;
            }
            c if c == sx.component => {
                if let Some(last) = elements.last_mut() {
                    last.push(String::new());
                }
                any = true;
            }
            '\r' | '\n' if !any => {}
            c => {
                push_char(&mut elements, c);
                if !c.is_whitespace() {
                    any = true;
                }
            }
        }
    }
    if released {
        return Err(fatal(
            segments.len() + 1,
            "",
            "the file ends with a release character",
        ));
    }
    if any {
        return Err(fatal(
            segments.len() + 1,
            "",
            "the last segment has no terminator (the file is cut off)",
        ));
    }
    if segments.is_empty() {
        return Err(fatal(1, "", "the file holds no EDIFACT segment"));
    }
    Ok((sx, segments))
}

fn push_char(elements: &mut [Vec<String>], ch: char) {
    if let Some(component) = elements.last_mut().and_then(|e| e.last_mut()) {
        component.push(ch);
    }
}

fn segment_of(position: usize, mut elements: Vec<Vec<String>>) -> Result<Segment, EdifactError> {
    let tag = elements
        .first()
        .and_then(|e| e.first())
        .map(|t| t.trim().to_string())
        .unwrap_or_default();
    if tag.len() != 3
        || !tag
            .bytes()
            .all(|b| b.is_ascii_uppercase() || b.is_ascii_digit())
    {
        return Err(fatal(
            position,
            &tag,
            format!("{tag:?} is not a segment tag (three capital letters or digits)"),
        ));
    }
    elements.remove(0);
    Ok(Segment {
        position,
        tag,
        elements,
    })
}

/// Reads a whole file: interchanges of messages. Returns an error only when nothing can be
/// read at all; refused messages and interchanges are in [`Parsed::findings`] and left out.
pub fn parse(input: &str) -> Result<Parsed, EdifactError> {
    let (_, segments) = tokenize(input)?;
    let mut r = Reader::default();
    for s in segments {
        match s.tag.as_str() {
            "UNB" => r.unb(s),
            "UNG" => {
                if let Some(o) = r.open.as_mut() {
                    o.3 += 1;
                }
            }
            "UNE" => {}
            "UNH" => r.unh(s),
            "UNT" => r.unt(s),
            "UNZ" => r.unz(s),
            _ => r.other(s),
        }
    }
    Ok(r.finish())
}

/// A file being read: what is read so far, the open interchange (its UNB position, whether it
/// is refused, its functional groups) and the open message.
#[derive(Default)]
struct Reader {
    parsed: Parsed,
    open: Option<(Interchange, usize, bool, usize)>,
    message: Option<Message>,
}

impl Reader {
    /// An interchange header: the one before without its UNZ is refused.
    fn unb(&mut self, s: Segment) {
        if let Some((i, at, _, _)) = self.open.take() {
            self.parsed.findings.push(finding(
                Severity::Error,
                at,
                "UNB",
                format!(
                    "interchange {} has no UNZ before the next UNB; refused",
                    i.reference
                ),
            ));
        }
        let interchange = Interchange {
            reference: s.get(4, 0).trim().to_string(),
            sender: s.get(1, 0).trim().to_string(),
            date: s.get(3, 0).trim().to_string(),
            time: s.get(3, 1).trim().to_string(),
            messages: vec![],
        };
        if interchange.reference.is_empty() {
            self.parsed.findings.push(finding(
                Severity::Error,
                s.position,
                "UNB",
                "the UNB has no interchange control reference; refused".into(),
            ));
            self.open = Some((interchange, s.position, true, 0));
        } else {
            self.open = Some((interchange, s.position, false, 0));
        }
    }

    /// A message header: the one before without its UNT is refused.
    fn unh(&mut self, s: Segment) {
        if let Some(m) = self.message.take() {
            self.parsed.messages_refused += 1;
            self.parsed.findings.push(finding(
                Severity::Error,
                m.segments.first().map_or(0, |s| s.position),
                "UNH",
                format!("message {} has no UNT; refused", m.reference),
            ));
        }
        if self.open.is_none() && self.parsed.interchanges.is_empty() {
            self.parsed.findings.push(finding(
                Severity::Warning,
                s.position,
                "UNH",
                "no UNB interchange header: the messages are read without an envelope".into(),
            ));
        }
        self.message = Some(Message {
            reference: s.get(0, 0).trim().to_string(),
            kind: s.get(1, 0).trim().to_string(),
            version: format!("{}:{}", s.get(1, 1).trim(), s.get(1, 2).trim()),
            segments: vec![s],
        });
    }

    /// A message trailer: its count and reference checked against its header.
    fn unt(&mut self, s: Segment) {
        let Some(mut m) = self.message.take() else {
            self.parsed.findings.push(finding(
                Severity::Error,
                s.position,
                "UNT",
                "a UNT without its UNH".into(),
            ));
            return;
        };
        let count = s.get(0, 0).trim();
        let reference = s.get(1, 0).trim();
        let n = m.segments.len() + 1;
        let problem = if count.parse::<usize>().ok() != Some(n) {
            Some(format!(
                "UNT says {count:?} segments, message {} has {n}; refused",
                m.reference
            ))
        } else if reference != m.reference {
            Some(format!(
                "UNT reference {reference:?} does not match UNH {:?}; refused",
                m.reference
            ))
        } else {
            None
        };
        m.segments.push(s.clone());
        match problem {
            Some(reason) => {
                self.parsed.messages_refused += 1;
                self.parsed
                    .findings
                    .push(finding(Severity::Error, s.position, "UNT", reason));
            }
            None => match self.open.as_mut() {
                Some(o) => o.0.messages.push(m),
                None => {
                    // a file of bare messages: one interchange without a reference
                    if self.parsed.interchanges.is_empty() {
                        self.parsed.interchanges.push(Interchange::default());
                    }
                    if let Some(i) = self.parsed.interchanges.last_mut() {
                        i.messages.push(m);
                    }
                }
            },
        }
    }

    /// An interchange trailer: its count and reference checked against its header.
    fn unz(&mut self, s: Segment) {
        let Some((interchange, at, refused, groups)) = self.open.take() else {
            self.parsed.findings.push(finding(
                Severity::Error,
                s.position,
                "UNZ",
                "a UNZ without its UNB".into(),
            ));
            return;
        };
        let count = s.get(0, 0).trim();
        let reference = s.get(1, 0).trim();
        // UNZ counts the functional groups when there are any, else the messages
        // (refused messages count too: they were sent)
        let sent = if groups > 0 {
            groups
        } else {
            interchange.messages.len() + refused_in(&self.parsed.findings, at, s.position)
        };
        let problem = if reference != interchange.reference {
            Some(format!(
                "UNZ reference {reference:?} does not match UNB {:?}; the interchange is refused",
                interchange.reference
            ))
        } else if count.parse::<usize>().ok() != Some(sent) {
            Some(format!(
                "UNZ says {count:?} messages, the interchange has {sent}; the interchange is refused"
            ))
        } else {
            None
        };
        match (problem, refused) {
            (Some(reason), _) => {
                self.parsed
                    .findings
                    .push(finding(Severity::Error, s.position, "UNZ", reason));
            }
            (None, true) => {}
            (None, false) => self.parsed.interchanges.push(interchange),
        }
    }

    /// Any other segment: part of the open message, or ignored with a finding.
    fn other(&mut self, s: Segment) {
        match self.message.as_mut() {
            Some(m) => m.segments.push(s),
            None => self.parsed.findings.push(finding(
                Severity::Error,
                s.position,
                &s.tag,
                "a segment outside any message; ignored".into(),
            )),
        }
    }

    /// The end of the file: a message or an interchange left open is refused.
    fn finish(mut self) -> Parsed {
        if let Some(m) = self.message {
            self.parsed.messages_refused += 1;
            self.parsed.findings.push(finding(
                Severity::Error,
                m.segments.first().map_or(0, |s| s.position),
                "UNH",
                format!(
                    "message {} has no UNT (the file is cut off); refused",
                    m.reference
                ),
            ));
        }
        if let Some((i, at, _, _)) = self.open {
            self.parsed.findings.push(finding(
                Severity::Error,
                at,
                "UNB",
                format!(
                    "interchange {} has no UNZ (the file is cut off); refused",
                    i.reference
                ),
            ));
        }
        self.parsed
    }
}

/// A container number as a status message carries it: owner and category (4 letters), serial
/// (6 digits) and check digit when there is one. Sliced only when ASCII: a multi-byte character
/// has no place in a container number (it is then kept whole as the first part).
pub(super) fn split_number(n: &str) -> (&str, &str, Option<String>) {
    match (n.is_ascii(), n.len()) {
        (true, 11) => (&n[..4], &n[4..10], Some(n[10..].to_string())),
        (true, 10) => (&n[..4], &n[4..10], None),
        _ => (n, "", None),
    }
}

/// Messages refused between two positions (the UNT findings of one interchange).
fn refused_in(findings: &[Finding], from: usize, to: usize) -> usize {
    findings
        .iter()
        .filter(|f| {
            f.severity == Severity::Error
                && f.segment == "UNT"
                && f.segment_position > from
                && f.segment_position < to
        })
        .count()
}

#[cfg(test)]
mod tests {
    use super::*;

    const FIXTURE: &str = include_str!("../../../../fixtures/edifact/iftsta/d00b_iftsta.edi");

    #[test]
    fn release_characters_and_una_are_honoured() {
        let (_, segs) = tokenize("UNA:+.? 'FTX+AAA+++PLASTICS?:ARTICLES?'S?+MORE'").unwrap();
        assert_eq!(segs.len(), 1);
        assert_eq!(segs[0].get(3, 0), "PLASTICS:ARTICLES'S+MORE");
        let (sx, segs) = tokenize("UNA|*.# ~FTX*A|B#~C~\r\nUNT*2*1~").unwrap();
        assert_eq!(sx.element, '*');
        assert_eq!(
            segs[0].elements,
            vec![vec!["A".to_string(), "B~C".to_string()]]
        );
        assert_eq!(segs[1].tag, "UNT");
    }

    #[test]
    fn a_cut_off_or_foreign_file_is_refused_at_once() {
        assert!(tokenize("UNB+UNOC:2+A+B+220101:1021+1'UNH+1+IFTSTA").is_err());
        assert!(tokenize("ISA*00*").is_err());
        assert!(tokenize("").is_err());
        assert!(tokenize("UNA:+").is_err());
    }

    #[test]
    fn the_fixture_s_unz_reference_is_wrong_so_its_interchange_is_refused() {
        let p = parse(FIXTURE).unwrap();
        assert!(p.interchanges.is_empty());
        let f = p.findings.iter().find(|f| f.segment == "UNZ").unwrap();
        assert!(
            f.reason.contains("2805570") && f.reason.contains("2803570"),
            "{f}"
        );
        // mended, it is read: one IFTSTA D:00B of 31 segments
        let mended = FIXTURE.replace("UNZ+1+2805570'", "UNZ+1+2803570'");
        let p = parse(&mended).unwrap();
        assert_eq!(p.interchanges.len(), 1, "{:?}", p.findings);
        let m = &p.interchanges[0].messages[0];
        assert_eq!((m.kind.as_str(), m.version.as_str()), ("IFTSTA", "D:00B"));
        assert_eq!(m.segments.len(), 31);
        assert_eq!(p.interchanges[0].date, "220101");
    }

    #[test]
    fn a_wrong_segment_count_refuses_that_message_only() {
        let text = "UNB+UNOC:2+S+R+220101:1021+7'\
            UNH+1+IFTSTA:D:00B:UN'BGM+23+X+9'UNT+3+1'\
            UNH+2+IFTSTA:D:00B:UN'BGM+23+Y+9'UNT+9+2'\
            UNZ+2+7'";
        let p = parse(text).unwrap();
        assert_eq!(p.interchanges[0].messages.len(), 1);
        assert_eq!(p.messages_refused, 1);
        assert!(
            p.findings
                .iter()
                .any(|f| f.segment == "UNT" && f.reason.contains("\"9\""))
        );
    }
}
