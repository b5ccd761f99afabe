//! Shipping lines and carrier inference from a tracking number.

use std::sync::LazyLock;

use serde::Serialize;

use crate::ident::{self, ContainerNumberError};

/// The sandbox carrier: `scac: "TEST"` numbers behave as documented test numbers.
pub const SANDBOX_SCAC: &str = "TEST";

/// A shipping line boxtrack knows.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ShippingLine {
    /// Standard Carrier Alpha Code.
    pub scac: String,
    /// Full name.
    pub name: String,
    /// Short name.
    pub short_name: String,
    /// Other SCACs the line uses (requests naming one are for this line).
    pub alternative_scacs: Vec<String>,
    /// Bill-of-lading prefix, when known.
    pub bill_of_lading_prefix: Option<String>,
    /// Whether any identifier can be tracked with this line.
    pub supported: bool,
    /// Whether bills of lading can be tracked.
    pub bill_of_lading_tracking: bool,
    /// Whether booking numbers can be tracked.
    pub booking_number_tracking: bool,
    /// Whether container numbers can be tracked with this line.
    pub container_number_tracking: bool,
    /// `public` (on for every account) or `account` (enabled per account by the carrier).
    pub access: String,
    /// What to know about tracking it, when there is something.
    pub notes: Option<String>,
    /// Its public web-tracking page, `${BLNUM}` standing for the bill of lading number.
    pub tracking_url: Option<String>,
    /// Its public contact page.
    pub contact_url: Option<String>,
}

impl ShippingLine {
    /// Whether requests of this type can be tracked with this line.
    pub fn tracks(&self, request_type: crate::requests::RequestType) -> bool {
        use crate::requests::RequestType;
        match request_type {
            RequestType::BillOfLading => self.bill_of_lading_tracking,
            RequestType::BookingNumber => self.booking_number_tracking,
            RequestType::Container => self.container_number_tracking,
        }
    }
}

/// Parses `data/shipping-lines.csv` (see `scripts/refresh-carriers.py` for its sources).
fn parse_lines(text: &str) -> Vec<ShippingLine> {
    let mut out: Vec<ShippingLine> = Vec::new();
    for line in text.lines().skip(1) {
        let f: Vec<&str> = line.split(',').map(str::trim).collect();
        if f.len() < 9 || f[0].is_empty() {
            continue;
        }
        let yes = |i: usize| f[i] == "true";
        let (bl, booking, container) = (yes(5), yes(6), yes(7));
        let mut notes: Vec<String> = Vec::new();
        if !bl {
            notes.push(
                "Bills of lading cannot be tracked; use a booking or container number".into(),
            );
        }
        if !container {
            notes.push("No container numbers".into());
        }
        if f[8] == "account" {
            notes.push("Enabled per account by the carrier".into());
        }
        out.push(ShippingLine {
            scac: f[0].to_string(),
            name: f[1].to_string(),
            short_name: f[2].to_string(),
            alternative_scacs: f[3].split_whitespace().map(str::to_string).collect(),
            bill_of_lading_prefix: Some(f[4].to_string()).filter(|p| !p.is_empty()),
            supported: bl || booking || container,
            bill_of_lading_tracking: bl,
            booking_number_tracking: booking,
            container_number_tracking: container,
            access: f[8].to_string(),
            notes: (!notes.is_empty()).then(|| notes.join("; ")),
            tracking_url: None,
            contact_url: None,
        });
    }
    out
}

/// Adds the web pages of `data/carrier-links.csv` (scac, tracking URL, contact URL) to `lines`.
fn add_links(lines: &mut [ShippingLine], text: &str) {
    for row in text.lines().skip(1) {
        let f: Vec<&str> = row.split(',').map(str::trim).collect();
        let url = |i: usize| f.get(i).filter(|u| !u.is_empty()).map(|u| (*u).to_string());
        if let Some(line) = lines
            .iter_mut()
            .find(|l| Some(&l.scac.as_str()) == f.first())
        {
            line.tracking_url = url(1);
            line.contact_url = url(2);
        }
    }
}

static LINES: LazyLock<Vec<ShippingLine>> = LazyLock::new(|| {
    let mut out = parse_lines(include_str!("../data/shipping-lines.csv"));
    add_links(&mut out, include_str!("../data/carrier-links.csv"));
    out.push(ShippingLine {
        scac: SANDBOX_SCAC.into(),
        name: "boxtrack sandbox".into(),
        short_name: "Sandbox".into(),
        alternative_scacs: Vec::new(),
        bill_of_lading_prefix: None,
        supported: true,
        bill_of_lading_tracking: true,
        booking_number_tracking: true,
        container_number_tracking: true,
        access: "public".into(),
        notes: Some("Test numbers; see GET /v2/sandbox/scenarios".into()),
        tracking_url: None,
        contact_url: None,
    });
    out
});

static PREFIXES: LazyLock<Vec<(String, String)>> = LazyLock::new(|| {
    include_str!("../data/container-prefixes.csv")
        .lines()
        .skip(1)
        .filter_map(|l| {
            let mut f = l.split(',');
            Some((f.next()?.trim().to_string(), f.next()?.trim().to_string()))
        })
        .collect()
});

/// Every shipping line, in reference order (the sandbox carrier last).
pub fn shipping_lines() -> &'static [ShippingLine] {
    &LINES
}

/// The line with this SCAC, or that uses it as an alternative SCAC (`MEDU` is MSC's).
pub fn by_scac(scac: &str) -> Option<&'static ShippingLine> {
    LINES.iter().find(|l| l.scac == scac).or_else(|| {
        LINES
            .iter()
            .find(|l| l.alternative_scacs.iter().any(|a| a == scac))
    })
}

/// What a number looks like.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum NumberType {
    /// An ISO 6346 container number.
    Container,
    /// A bill of lading.
    BillOfLading,
    /// A booking number.
    Booking,
}

impl NumberType {
    /// The `request_type` a tracking request for this number uses.
    pub fn request_type(self) -> &'static str {
        match self {
            NumberType::Container => "container",
            NumberType::BillOfLading => "bill_of_lading",
            NumberType::Booking => "booking_number",
        }
    }
}

/// How sure the inference is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Decision {
    /// Confidence at least 0.95.
    AutoSelect,
    /// Confidence from 0.70 to 0.95.
    NeedsConfirmation,
    /// Below 0.70 or no candidate.
    NoPrediction,
}

/// A carrier candidate.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Candidate {
    /// SCAC.
    pub scac: String,
    /// Name.
    pub name: String,
    /// 0..=1.
    pub confidence: f64,
}

/// The result of inferring a number's type and carrier.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Inference {
    /// The normalised number.
    pub number: String,
    /// What the number looks like.
    pub number_type: NumberType,
    /// Whether the number is valid (`None`: cannot be known offline).
    pub is_valid: Option<bool>,
    /// ISO 6346 check digit result (containers only).
    pub check_digit_passed: Option<bool>,
    /// Why it is not valid, when it is not.
    pub reason: Option<String>,
    /// Candidates, most likely first.
    pub candidates: Vec<Candidate>,
    /// The decision for the best candidate.
    pub decision: Decision,
}

fn decide(c: Option<&Candidate>) -> Decision {
    match c.map(|c| c.confidence) {
        Some(x) if x >= 0.95 => Decision::AutoSelect,
        Some(x) if x >= 0.70 => Decision::NeedsConfirmation,
        _ => Decision::NoPrediction,
    }
}

fn candidate(scac: &str, confidence: f64) -> Option<Candidate> {
    by_scac(scac).map(|l| Candidate {
        scac: l.scac.clone(),
        name: l.name.clone(),
        confidence,
    })
}

/// An input that is not a trackable number at all.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("This reference number is not valid.")]
pub struct InvalidNumber;

/// Infers the number type and ranked carrier candidates, offline.
///
/// Order: a valid ISO 6346 number is a container (carrier from the owner prefix of carrier-owned
/// equipment; lessor prefixes give no prediction); a number starting with a known SCAC or
/// bill-of-lading prefix is that carrier's bill of lading; a 9-digit number is likely a Maersk
/// booking; anything else is a booking number without a prediction.
pub fn infer(raw: &str) -> Result<Inference, InvalidNumber> {
    let number = ident::normalize(raw);
    if !ident::is_reference_shape(&number) {
        return Err(InvalidNumber);
    }
    if ident::looks_like_container(&number) {
        let check = ident::validate_container(&number);
        let passed = check.is_ok();
        let owner = &number[..4];
        let mut candidates: Vec<Candidate> = PREFIXES
            .iter()
            .filter(|(p, _)| p == owner)
            .filter_map(|(_, scac)| candidate(scac, if passed { 0.97 } else { 0.75 }))
            .collect();
        candidates.dedup_by(|a, b| a.scac == b.scac);
        let decision = decide(candidates.first());
        return Ok(Inference {
            number,
            number_type: NumberType::Container,
            is_valid: Some(passed),
            check_digit_passed: Some(passed),
            reason: match check {
                Err(e @ ContainerNumberError::CheckDigit { .. }) => Some(e.to_string()),
                _ => None,
            },
            candidates,
            decision,
        });
    }
    let mut candidates: Vec<Candidate> = Vec::new();
    for line in LINES.iter().filter(|l| l.scac != SANDBOX_SCAC) {
        let by_scac = number.len() > 4 && number.starts_with(&line.scac);
        let by_prefix = line
            .bill_of_lading_prefix
            .as_deref()
            .is_some_and(|p| number.len() > p.len() && number.starts_with(p));
        if (by_scac || by_prefix) && !candidates.iter().any(|c| c.scac == line.scac) {
            candidates.extend(candidate(&line.scac, if by_prefix { 0.97 } else { 0.9 }));
        }
    }
    if !candidates.is_empty() {
        candidates.sort_by(|a, b| b.confidence.total_cmp(&a.confidence));
        let decision = decide(candidates.first());
        return Ok(Inference {
            number,
            number_type: NumberType::BillOfLading,
            is_valid: None,
            check_digit_passed: None,
            reason: None,
            candidates,
            decision,
        });
    }
    let candidates: Vec<Candidate> =
        if number.len() == 9 && number.bytes().all(|b| b.is_ascii_digit()) {
            candidate("MAEU", 0.75).into_iter().collect()
        } else {
            Vec::new()
        };
    let decision = decide(candidates.first());
    Ok(Inference {
        number,
        number_type: NumberType::Booking,
        is_valid: None,
        check_digit_passed: None,
        reason: None,
        candidates,
        decision,
    })
}

/// The container owner prefixes known to belong to this carrier.
pub fn container_prefixes(scac: &str) -> Vec<&'static str> {
    PREFIXES
        .iter()
        .filter(|(_, s)| s == scac)
        .map(|(p, _)| p.as_str())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reference_lines_load_without_duplicates() {
        let lines = shipping_lines();
        // the reference's 38 lines of its coverage list, Hamburg Sud and the sandbox
        assert_eq!(lines.len(), 40);
        let mut scacs: Vec<&str> = lines.iter().map(|l| l.scac.as_str()).collect();
        scacs.sort_unstable();
        let n = scacs.len();
        scacs.dedup();
        assert_eq!(n, scacs.len());
        assert_eq!(
            by_scac("MSCU").unwrap().bill_of_lading_prefix.as_deref(),
            Some("MEDU")
        );
        // what the integrators could not track
        for scac in ["ACLU", "CULU", "GOSU", "SMLM", "TRKU"] {
            assert!(by_scac(scac).is_some_and(|l| l.supported), "{scac}");
        }
        assert!(by_scac("HDMU").unwrap().container_number_tracking);
        let evergreen = by_scac("EGLV").unwrap();
        assert!(!evergreen.bill_of_lading_tracking && evergreen.container_number_tracking);
        // alternative SCACs name their line
        assert_eq!(by_scac("MEDU").unwrap().scac, "MSCU");
        assert_eq!(by_scac("YMJA").unwrap().scac, "YMLU");
        assert_eq!(by_scac("SMLU").unwrap().access, "account");
        assert!(by_scac("TEST").is_some());
        // SeaLand by the reference's alternative code, and its owner prefix
        assert_eq!(by_scac("SEAL").unwrap().scac, "SEAU");
        assert_eq!(container_prefixes("SEAU"), ["SEAU"]);
        // web pages, where the line has them
        let maersk = by_scac("MAEU").unwrap();
        assert!(
            maersk
                .tracking_url
                .as_deref()
                .is_some_and(|u| u.contains("${BLNUM}"))
        );
        assert!(by_scac("SEAU").unwrap().contact_url.is_some());
        assert!(by_scac("TEST").unwrap().tracking_url.is_none());
        let with_links = lines.iter().filter(|l| l.tracking_url.is_some()).count();
        assert!(with_links >= 15, "{with_links}");
    }

    #[test]
    fn containers_infer_from_owner_prefix() {
        let i = infer("mscu 123456-6").unwrap();
        assert_eq!(i.number, "MSCU1234566");
        assert_eq!(i.number_type, NumberType::Container);
        assert_eq!(i.check_digit_passed, Some(true));
        assert_eq!(i.candidates[0].scac, "MSCU");
        assert_eq!(i.decision, Decision::AutoSelect);

        let bad = infer("MSCU1234567").unwrap();
        assert_eq!(bad.is_valid, Some(false));
        assert!(bad.reason.as_deref().unwrap().contains("check digit"));
        assert_eq!(bad.decision, Decision::NeedsConfirmation);

        let lessor = infer("TCKU7248999").unwrap();
        assert!(lessor.candidates.is_empty());
        assert_eq!(lessor.decision, Decision::NoPrediction);
    }

    #[test]
    fn bills_of_lading_infer_from_prefixes() {
        let msc = infer("MEDUJ1234567").unwrap();
        assert_eq!(msc.number_type, NumberType::BillOfLading);
        assert_eq!(msc.candidates[0].scac, "MSCU");
        assert_eq!(msc.decision, Decision::AutoSelect);
        let hl = infer("HLCUHAM240912345").unwrap();
        assert_eq!(hl.candidates[0].scac, "HLCU");
        let maersk = infer("241234567").unwrap();
        assert_eq!(maersk.number_type, NumberType::Booking);
        assert_eq!(maersk.decision, Decision::NeedsConfirmation);
        let unknown = infer("QQ12345678").unwrap();
        assert_eq!(unknown.decision, Decision::NoPrediction);
        assert_eq!(infer("x!"), Err(InvalidNumber));
        assert_eq!(infer(""), Err(InvalidNumber));
    }
}
