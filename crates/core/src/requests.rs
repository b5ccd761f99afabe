//! Tracking requests: their types, states, and the validation of a new request.

use serde::{Deserialize, Serialize};

use crate::carriers::{self, SANDBOX_SCAC};
use crate::ident;

/// What a request number is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RequestType {
    /// An ISO 6346 container number.
    Container,
    /// A master bill of lading.
    BillOfLading,
    /// A booking number.
    BookingNumber,
}

impl RequestType {
    /// The wire spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            RequestType::Container => "container",
            RequestType::BillOfLading => "bill_of_lading",
            RequestType::BookingNumber => "booking_number",
        }
    }

    /// Parses the wire spelling.
    pub fn parse(s: &str) -> Option<RequestType> {
        [
            RequestType::Container,
            RequestType::BillOfLading,
            RequestType::BookingNumber,
        ]
        .into_iter()
        .find(|t| t.as_str() == s)
    }
}

/// The `status` of a tracking request.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    /// Accepted, being processed.
    Pending,
    /// The carrier has not manifested the shipment yet; rechecked on a schedule.
    AwaitingManifest,
    /// The shipment and its containers exist.
    Created,
    /// Permanently failed (`failed_reason`).
    Failed,
    /// Tracking of the shipment was stopped.
    TrackingStopped,
}

impl Status {
    /// Every status.
    pub const ALL: [Status; 5] = [
        Status::Pending,
        Status::AwaitingManifest,
        Status::Created,
        Status::Failed,
        Status::TrackingStopped,
    ];

    /// The wire spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Pending => "pending",
            Status::AwaitingManifest => "awaiting_manifest",
            Status::Created => "created",
            Status::Failed => "failed",
            Status::TrackingStopped => "tracking_stopped",
        }
    }

    /// Parses the wire spelling.
    pub fn parse(s: &str) -> Option<Status> {
        Status::ALL.into_iter().find(|t| t.as_str() == s)
    }
}

/// Attempts allowed for transient upstream trouble before `retries_exhausted`.
pub const MAX_ATTEMPTS: i64 = 14;

/// Seconds to wait after failed attempt number `attempt` (1-based): growing from one minute
/// to four hours, about 24 hours over all [`MAX_ATTEMPTS`]; `None` once attempts are used up.
pub fn retry_delay_secs(attempt: i64) -> Option<i64> {
    const SCHEDULE: [i64; 13] = [
        60, 120, 300, 600, 1200, 1800, 3600, 3600, 7200, 10800, 14400, 21600, 21600,
    ];
    if !(1..MAX_ATTEMPTS).contains(&attempt) {
        return None;
    }
    SCHEDULE.get((attempt - 1) as usize).copied()
}

/// How often a bill of lading or booking awaiting its manifest is checked again, by default
/// (setting `manifest_recheck_secs`): every four hours of the carrier's time. A carrier
/// manifests a bill within hours of its booking being loaded; a day between checks left the
/// bill untracked for most of that day (`docs/polling.md`).
pub const MANIFEST_RECHECK_SECS: i64 = 4 * 3600;
/// How long after creation a request may await its manifest before it fails `expired`.
pub const MANIFEST_WINDOW_SECS: i64 = 7 * 24 * 3600;

/// When a request that awaits its manifest is next checked, and whether its window is over,
/// on the clock of the carrier that is asked: `recheck_secs` and [`MANIFEST_WINDOW_SECS`] are
/// the carrier's seconds, and that clock runs `speed` times as fast as the wall clock (1 for a
/// real carrier, more for a simulator), so the next check is `recheck_secs / speed` real
/// seconds after `now_us` (at least a second), and the window is over when the real time
/// waited since `created_us`, at that speed, reaches a week.
pub fn manifest_recheck(
    now_us: i64,
    created_us: i64,
    speed: f64,
    recheck_secs: i64,
) -> (i64, bool) {
    let speed = if speed.is_finite() && speed > 0.0 {
        speed
    } else {
        1.0
    };
    let real_us = ((recheck_secs.max(1) as f64 * 1e6) / speed).max(1e6);
    let waited = (now_us.saturating_sub(created_us)) as f64 * speed;
    (
        now_us.saturating_add(real_us as i64),
        waited >= (MANIFEST_WINDOW_SECS as f64) * 1e6,
    )
}

/// A new request as the client sent it (already JSON-decoded).
#[derive(Debug, Clone, Default)]
pub struct NewRequest {
    /// `request_number`
    pub request_number: Option<String>,
    /// `request_type`
    pub request_type: Option<String>,
    /// `scac`
    pub scac: Option<String>,
    /// `auto_detect_vocc_scac`
    pub auto_detect: bool,
    /// `ref_numbers`
    pub ref_numbers: Vec<String>,
    /// `shipment_tags`
    pub shipment_tags: Vec<String>,
}

/// A validated, normalised request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ValidRequest {
    /// Trimmed, upper-cased number.
    pub number: String,
    /// Type.
    pub request_type: RequestType,
    /// Carrier; `None` while auto-detection is pending.
    pub scac: Option<String>,
    /// Whether the carrier is to be inferred.
    pub auto_detect: bool,
    /// Client references.
    pub ref_numbers: Vec<String>,
    /// Tags for the shipment.
    pub shipment_tags: Vec<String>,
}

/// One rejected field.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FieldError {
    /// JSON pointer into the request document.
    pub pointer: &'static str,
    /// Machine code: `blank`, `invalid`, `not_recognized`, `not_supported`, `too_long`.
    pub code: &'static str,
    /// Human text.
    pub detail: String,
}

fn err(pointer: &'static str, code: &'static str, detail: impl Into<String>) -> FieldError {
    FieldError {
        pointer,
        code,
        detail: detail.into(),
    }
}

/// Cleans a list of client references or tags: trimmed, blanks dropped, duplicates removed,
/// at most 50 entries of at most 100 characters (anything else is a [`FieldError`] at `pointer`).
pub fn clean_refs(list: &[String], pointer: &'static str) -> Result<Vec<String>, FieldError> {
    let mut errors = Vec::new();
    let out = clean_list(list, pointer, &mut errors);
    errors.into_iter().next().map_or(Ok(out), Err)
}

fn clean_list(list: &[String], pointer: &'static str, errors: &mut Vec<FieldError>) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for given in list {
        let s = given.trim();
        if s.is_empty() {
            continue;
        }
        // the length as given, then trimmed
        if given.chars().count() > 100 {
            errors.push(err(
                pointer,
                "too_long",
                "each entry must be at most 100 characters",
            ));
        } else if !out.iter().any(|o| o == s) {
            out.push(s.to_string());
        }
    }
    if out.len() > 50 {
        errors.push(err(pointer, "too_long", "at most 50 entries"));
    }
    out
}

/// Validates and normalises a new tracking request; returns every problem found.
pub fn validate(input: &NewRequest) -> Result<ValidRequest, Vec<FieldError>> {
    let mut errors = Vec::new();
    let request_type = request_type_of(input, &mut errors);
    let number = request_number_of(input, request_type, &mut errors);
    let scac = scac_of(input, request_type, &mut errors);
    let ref_numbers = clean_list(
        &input.ref_numbers,
        "/data/attributes/ref_numbers",
        &mut errors,
    );
    let shipment_tags = clean_list(
        &input.shipment_tags,
        "/data/attributes/shipment_tags",
        &mut errors,
    );
    match (errors.is_empty(), request_type) {
        (true, Some(request_type)) => Ok(ValidRequest {
            number,
            request_type,
            auto_detect: input.auto_detect && scac.is_none(),
            scac,
            ref_numbers,
            shipment_tags,
        }),
        _ => Err(errors),
    }
}

/// The request type asked for (`None`, with an error, when blank or not one boxtrack tracks).
fn request_type_of(input: &NewRequest, errors: &mut Vec<FieldError>) -> Option<RequestType> {
    match input.request_type.as_deref().map(str::trim) {
        None | Some("") => {
            errors.push(err(
                "/data/attributes/request_type",
                "blank",
                "Request type can't be blank",
            ));
            None
        }
        Some(t) => {
            let parsed = RequestType::parse(t);
            if parsed.is_none() {
                errors.push(err(
                    "/data/attributes/request_type",
                    "invalid",
                    format!("Request type '{t}' is not supported; use container, bill_of_lading or booking_number"),
                ));
            }
            parsed
        }
    }
}

/// The request number, normalised (a sandbox test number keeps its dashes), with an error when
/// it is blank, too long, or not the shape its type needs.
fn request_number_of(
    input: &NewRequest,
    request_type: Option<RequestType>,
    errors: &mut Vec<FieldError>,
) -> String {
    let sandbox = input
        .scac
        .as_deref()
        .is_some_and(|s| s.trim().eq_ignore_ascii_case(SANDBOX_SCAC));
    let raw_number = input.request_number.as_deref().unwrap_or_default();
    // Sandbox test numbers keep their dashes (`TEST-TR-SUCCEEDED`).
    let number = if sandbox {
        raw_number.trim().to_ascii_uppercase()
    } else {
        ident::normalize(raw_number)
    };
    if number.is_empty() {
        errors.push(err(
            "/data/attributes/request_number",
            "blank",
            "Request number can't be blank",
        ));
    } else if sandbox {
        if number.len() > 40 {
            errors.push(err(
                "/data/attributes/request_number",
                "invalid",
                "Request number is too long",
            ));
        }
    } else if request_type == Some(RequestType::Container) {
        if let Err(e) = ident::validate_container(&number) {
            errors.push(err(
                "/data/attributes/request_number",
                "invalid",
                format!(
                    "Request number '{}' is not a valid container number: {e}",
                    echo(&number)
                ),
            ));
        }
    } else if !ident::is_reference_shape(&number) {
        errors.push(err(
            "/data/attributes/request_number",
            "invalid",
            format!(
                "Request number '{}' must be 4 to 40 letters and digits",
                echo(&number)
            ),
        ));
    }
    number
}

/// A number as an error message quotes it: whole up to 100 characters, else its first 100
/// and an ellipsis (a 10,000-character number is not sent back whole).
fn echo(number: &str) -> String {
    match number.char_indices().nth(100) {
        Some((i, _)) => format!("{}…", &number[..i]),
        None => number.to_string(),
    }
}

/// The carrier's SCAC, upper-cased (`None` when not given), with an error when it is missing
/// without auto-detection, unknown, not supported, or does not track this request type.
fn scac_of(
    input: &NewRequest,
    request_type: Option<RequestType>,
    errors: &mut Vec<FieldError>,
) -> Option<String> {
    let scac = input
        .scac
        .as_deref()
        .map(|s| s.trim().to_ascii_uppercase())
        .filter(|s| !s.is_empty());
    match &scac {
        None if !input.auto_detect => {
            errors.push(err(
                "/data/attributes/scac",
                "blank",
                "Scac can't be blank (set auto_detect_vocc_scac: true to detect the carrier from the number)",
            ));
        }
        None => {}
        Some(s) => match carriers::by_scac(s) {
            None => errors.push(err(
                "/data/attributes/scac",
                "not_recognized",
                format!("Scac '{s}' is not recognized"),
            )),
            Some(line) if !line.supported => errors.push(err(
                "/data/attributes/scac",
                "not_supported",
                format!(
                    "Scac '{s}' is not supported. We do not currently integrate with {}",
                    line.name
                ),
            )),
            Some(line) if request_type.is_some_and(|t| !line.tracks(t)) => {
                let what = match request_type {
                    Some(RequestType::Container) => "container number",
                    Some(RequestType::BookingNumber) => "booking number",
                    _ => "bill of lading",
                };
                errors.push(err(
                    "/data/attributes/request_type",
                    "not_supported",
                    format!("{} does not support tracking by {what}", line.name),
                ));
            }
            Some(_) => {}
        },
    }
    scac
}

#[cfg(test)]
mod tests {
    use super::*;

    const S: i64 = 1_000_000;

    #[test]
    fn a_manifest_is_rechecked_on_the_carrier_s_clock() {
        // a real carrier: four hours of wall clock; a week of waiting expires it
        assert_eq!(
            manifest_recheck(100 * S, 0, 1.0, 4 * 3600),
            (100 * S + 4 * 3600 * S, false)
        );
        assert!(manifest_recheck(7 * 86_400 * S, 0, 1.0, 3600).1);
        // a simulator a day a second ahead: the recheck comes after a sixth of a real second,
        // held at a second; a week of its time is seven real seconds
        assert_eq!(manifest_recheck(0, 0, 86_400.0, 4 * 3600).0, S);
        assert!(!manifest_recheck(6 * S, 0, 86_400.0, 3600).1);
        assert!(manifest_recheck(7 * S, 0, 86_400.0, 3600).1);
        // a nonsense speed counts as the wall clock
        assert_eq!(manifest_recheck(0, 0, f64::NAN, 60).0, 60 * S);
    }

    proptest::proptest! {
        #[test]
        fn the_next_check_is_never_sooner_than_a_second_nor_later_than_the_setting(
            now in 0i64..4_000_000_000_000_000, speed in 0.001f64..1e6, secs in 1i64..1_000_000,
        ) {
            let (next, _) = manifest_recheck(now, 0, speed, secs);
            proptest::prop_assert!(next - now >= S);
            proptest::prop_assert!(next - now <= ((secs as f64 * 1e6 / speed).max(1e6)) as i64 + 1);
        }
    }

    fn req(number: &str, kind: &str, scac: Option<&str>) -> NewRequest {
        NewRequest {
            request_number: Some(number.into()),
            request_type: Some(kind.into()),
            scac: scac.map(String::from),
            ..Default::default()
        }
    }

    #[test]
    fn valid_requests_are_normalised() {
        let v = validate(&req(" mscu 1234566 ", "container", Some("mscu"))).unwrap();
        assert_eq!(v.number, "MSCU1234566");
        assert_eq!(v.scac.as_deref(), Some("MSCU"));
        let bl = validate(&req("MEDUJ1234567", "bill_of_lading", Some("MSCU"))).unwrap();
        assert_eq!(bl.request_type, RequestType::BillOfLading);
        let sandbox = validate(&req("TEST-TR-SUCCEEDED", "bill_of_lading", Some("TEST"))).unwrap();
        assert_eq!(sandbox.number, "TEST-TR-SUCCEEDED");
    }

    #[test]
    fn every_problem_is_named() {
        let e = validate(&NewRequest::default()).unwrap_err();
        let pointers: Vec<_> = e.iter().map(|e| (e.pointer, e.code)).collect();
        assert!(pointers.contains(&("/data/attributes/request_type", "blank")));
        assert!(pointers.contains(&("/data/attributes/request_number", "blank")));
        assert!(pointers.contains(&("/data/attributes/scac", "blank")));

        let e = validate(&req("MSCU1234567", "container", Some("MSCU"))).unwrap_err();
        assert_eq!(e[0].code, "invalid");
        assert!(e[0].detail.contains("check digit"));
        let e = validate(&req("MEDU1", "bill_of_lading", Some("XXXX"))).unwrap_err();
        assert!(
            e.iter()
                .any(|e| e.code == "not_recognized" && e.detail == "Scac 'XXXX' is not recognized")
        );
        let e = validate(&req("MEDU1234", "parcel", Some("MSCU"))).unwrap_err();
        assert_eq!(e[0].pointer, "/data/attributes/request_type");
        let e = validate(&req("EISU12345678", "bill_of_lading", Some("EGLV"))).unwrap_err();
        assert_eq!(e[0].code, "not_supported");
        assert_eq!(
            e[0].detail,
            "Evergreen does not support tracking by bill of lading"
        );
        let e = validate(&req("ZIMU1234569", "container", Some("ZIMU"))).unwrap_err();
        assert_eq!(e[0].pointer, "/data/attributes/request_type", "{e:?}");
        assert_eq!(e[0].code, "not_supported");
        assert!(validate(&req("HDMU1234561", "container", Some("HDMU"))).is_ok());
    }

    #[test]
    fn retries_span_about_a_day() {
        let total: i64 = (1..MAX_ATTEMPTS)
            .map(|a| retry_delay_secs(a).unwrap())
            .sum();
        assert!((20 * 3600..=26 * 3600).contains(&total), "{total}");
        assert_eq!(retry_delay_secs(MAX_ATTEMPTS), None);
        assert_eq!(retry_delay_secs(0), None);
    }

    #[test]
    fn a_long_number_is_quoted_short_in_its_error() {
        let r = req(&"A".repeat(10_000), "bill_of_lading", Some("MAEU"));
        let errors = validate(&r).unwrap_err();
        let detail = &errors[0].detail;
        assert!(detail.len() < 200, "{detail}");
        assert!(
            detail.contains(&format!("{}…", "A".repeat(100))),
            "{detail}"
        );
        assert_eq!(echo("MAEU123"), "MAEU123");
    }

    #[test]
    fn auto_detect_allows_a_missing_scac() {
        let mut r = req("MEDUJ1234567", "bill_of_lading", None);
        r.auto_detect = true;
        let v = validate(&r).unwrap();
        assert!(v.auto_detect && v.scac.is_none());
        r.scac = Some("MSCU".into());
        assert!(!validate(&r).unwrap().auto_detect, "a given scac wins");
    }
}
