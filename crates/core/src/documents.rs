//! Documents an account attaches to its shipments (bills of lading, invoices, arrival
//! notices …): the rules of the upload handshake and of naming, classifying and linking
//! them. Pure; storage is `store::documents`, the HTTP edge `api::routes::documents`.
//!
//! The handshake is the one of Rails ActiveStorage direct uploads, which the reference's
//! clients speak: the client announces the file (`filename`, `content_type`, `byte_size`,
//! `checksum` = base64 of its MD5), receives an upload URL and a `signed_id`, PUTs the bytes
//! to the URL, then creates the document with the `signed_id`.

use base64::Engine;
use base64::engine::general_purpose::{STANDARD, URL_SAFE_NO_PAD};
use md5::Md5;
use sha2::{Digest as _, Sha256};

/// The largest file accepted (25 MiB).
pub const MAX_BYTES: i64 = 25 * 1024 * 1024;

/// How long an announced upload waits for its bytes (1 hour).
pub const UPLOAD_TTL_US: i64 = 3_600_000_000;

/// How long a download URL works (10 minutes).
pub const DOWNLOAD_TTL_US: i64 = 600_000_000;

/// Document types with their labels (`GET /v2/documents/types`).
pub const TYPES: &[(&str, &str)] = &[
    ("bill_of_lading", "Bill of Lading"),
    ("sea_waybill", "Sea Waybill"),
    ("booking_confirmation", "Booking Confirmation"),
    ("commercial_invoice", "Commercial Invoice"),
    ("packing_list", "Packing List"),
    ("arrival_notice", "Arrival Notice"),
    ("delivery_order", "Delivery Order"),
    ("customs_entry", "Customs Entry"),
    ("isf_filing", "ISF Filing"),
    ("certificate_of_origin", "Certificate of Origin"),
    ("freight_invoice", "Freight Invoice"),
    ("proof_of_delivery", "Proof of Delivery"),
    ("other", "Other"),
];

/// Whether `code` names a document type.
pub fn is_type(code: &str) -> bool {
    TYPES.iter().any(|(c, _)| *c == code)
}

/// The type a document's name and file name suggest, by the words carriers, brokers and
/// forwarders put in them (`MAEU123 BL.pdf`, `arrival notice.pdf`, `CI-2231.xlsx`); `other`
/// when nothing matches. It reads names only, never contents.
pub fn classify(name: &str, file_name: &str) -> &'static str {
    let text = format!(" {} {} ", name, file_name).to_lowercase();
    let words: String = text
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { ' ' })
        .collect();
    let words = format!(
        " {} ",
        words.split_whitespace().collect::<Vec<_>>().join(" ")
    );
    let has = |phrases: &[&str]| phrases.iter().any(|p| words.contains(&format!(" {p} ")));
    // the more specific phrases first: "freight invoice" before "invoice"
    const RULES: &[(&str, &[&str])] = &[
        ("arrival_notice", &["arrival notice", "arrival"]),
        ("delivery_order", &["delivery order"]),
        ("proof_of_delivery", &["proof of delivery", "pod receipt"]),
        (
            "sea_waybill",
            &["sea waybill", "seawaybill", "waybill", "swb"],
        ),
        (
            "bill_of_lading",
            &["bill of lading", "bol", "bl", "hbl", "mbl", "obl"],
        ),
        ("booking_confirmation", &["booking confirmation", "booking"]),
        ("freight_invoice", &["freight invoice", "freight bill"]),
        (
            "commercial_invoice",
            &["commercial invoice", "invoice", "ci", "inv"],
        ),
        ("packing_list", &["packing list", "packinglist", "pl"]),
        (
            "customs_entry",
            &["customs entry", "entry summary", "7501", "3461", "entry"],
        ),
        ("isf_filing", &["isf"]),
        ("certificate_of_origin", &["certificate of origin", "coo"]),
    ];
    RULES
        .iter()
        .find(|(_, phrases)| has(phrases))
        .map_or("other", |(code, _)| code)
}

/// What a client announces before uploading.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Announced {
    /// File name, as given (trimmed).
    pub filename: String,
    /// MIME type.
    pub content_type: String,
    /// Size in bytes.
    pub byte_size: i64,
    /// Base64 of the MD5 of the bytes.
    pub checksum: String,
}

/// A rule an announcement breaks: the JSON pointer of the field and what is wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Invalid {
    /// JSON pointer, e.g. `/blob/byte_size`.
    pub pointer: &'static str,
    /// What is wrong.
    pub detail: String,
}

/// Checks an announcement; every broken rule is reported.
pub fn check(
    filename: Option<&str>,
    content_type: Option<&str>,
    byte_size: Option<i64>,
    checksum: Option<&str>,
) -> Result<Announced, Vec<Invalid>> {
    let mut bad = Vec::new();
    // the length as given (a limit is not dodged by padding that is trimmed away)
    let given = filename.map_or(0, |f| f.chars().count());
    let filename = filename.map(str::trim).unwrap_or_default();
    if filename.is_empty() || given > 255 {
        bad.push(Invalid {
            pointer: "/blob/filename",
            detail: "filename must be 1 to 255 characters".into(),
        });
    } else if filename
        .chars()
        .any(|c| c.is_control() || c == '/' || c == '\\')
    {
        bad.push(Invalid {
            pointer: "/blob/filename",
            detail: "filename must not contain control characters or path separators".into(),
        });
    }
    let content_type = content_type
        .map(str::trim)
        .filter(|c| !c.is_empty())
        .unwrap_or("application/octet-stream");
    let plausible = content_type.len() <= 255
        && content_type.split_once('/').is_some_and(|(a, b)| {
            !a.is_empty() && !b.is_empty() && content_type.bytes().all(|b| b.is_ascii_graphic())
        });
    if !plausible {
        bad.push(Invalid {
            pointer: "/blob/content_type",
            detail: format!(
                "content_type {content_type:?} is not a MIME type such as application/pdf"
            ),
        });
    }
    let byte_size = byte_size.unwrap_or(-1);
    if !(1..=MAX_BYTES).contains(&byte_size) {
        bad.push(Invalid {
            pointer: "/blob/byte_size",
            detail: format!("byte_size must be 1 to {MAX_BYTES} (25 MiB)"),
        });
    }
    let checksum = checksum.map(str::trim).unwrap_or_default();
    if STANDARD.decode(checksum).map(|d| d.len()) != Ok(16) {
        bad.push(Invalid {
            pointer: "/blob/checksum",
            detail: "checksum must be the base64 of the file's MD5 digest (16 bytes)".into(),
        });
    }
    if bad.is_empty() {
        Ok(Announced {
            filename: filename.to_string(),
            content_type: content_type.to_string(),
            byte_size,
            checksum: checksum.to_string(),
        })
    } else {
        Err(bad)
    }
}

/// Base64 of the MD5 of `bytes` (the ActiveStorage checksum).
pub fn checksum(bytes: &[u8]) -> String {
    STANDARD.encode(<Md5 as md5::Digest>::digest(bytes))
}

/// Why uploaded bytes do not match their announcement.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Mismatch {
    /// A different length.
    #[error("the upload has {got} bytes; {announced} were announced")]
    Size {
        /// Announced.
        announced: i64,
        /// Received.
        got: usize,
    },
    /// A different MD5.
    #[error("the upload's MD5 checksum is {got}; {announced} was announced")]
    Checksum {
        /// Announced.
        announced: String,
        /// Computed.
        got: String,
    },
}

/// Whether `bytes` are what was announced.
pub fn verify(announced_size: i64, announced_checksum: &str, bytes: &[u8]) -> Result<(), Mismatch> {
    if i64::try_from(bytes.len()).ok() != Some(announced_size) {
        return Err(Mismatch::Size {
            announced: announced_size,
            got: bytes.len(),
        });
    }
    let got = checksum(bytes);
    if got != announced_checksum {
        return Err(Mismatch::Checksum {
            announced: announced_checksum.to_string(),
            got,
        });
    }
    Ok(())
}

/// A new secret token (URL-safe) and the digest it is stored under; tokens authorize an
/// upload, an attachment (`signed_id`) or a download, and are never stored themselves.
pub fn token(prefix: &str) -> (String, String) {
    let mut raw = [0u8; 24];
    rand::fill(&mut raw);
    let t = format!("{prefix}{}", URL_SAFE_NO_PAD.encode(raw));
    let d = digest(&t);
    (t, d)
}

/// The stored digest of a token (hex SHA-256).
pub fn digest(token: &str) -> String {
    hex::encode(Sha256::digest(token.as_bytes()))
}

/// Words of a document's name that could be a bill of lading, booking or container number
/// (letters and digits, 8 to 20 of them, at least one digit), upper-cased: the document is
/// linked to the account's shipments and containers with those numbers.
pub fn reference_numbers(texts: &[&str]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for t in texts {
        for w in t.split(|c: char| !c.is_ascii_alphanumeric()) {
            if (8..=20).contains(&w.len())
                && w.bytes().any(|b| b.is_ascii_digit())
                && !out.iter().any(|o| o.eq_ignore_ascii_case(w))
            {
                out.push(w.to_ascii_uppercase());
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;
    use proptest::prelude::*;

    #[test]
    fn names_suggest_types() {
        assert_eq!(classify("MAEU123456789 BL", "scan.pdf"), "bill_of_lading");
        assert_eq!(classify("", "Arrival Notice - MSCU.pdf"), "arrival_notice");
        assert_eq!(classify("Freight invoice 7", "x.pdf"), "freight_invoice");
        assert_eq!(classify("", "CI-2231.xlsx"), "commercial_invoice");
        assert_eq!(classify("", "packing_list.pdf"), "packing_list");
        assert_eq!(classify("photo", "IMG_0001.jpg"), "other");
        // words, not substrings: "table" has no "bl"
        assert_eq!(classify("timetable", "blueprint.pdf"), "other");
        assert!(TYPES.iter().all(|(c, _)| is_type(c)));
        assert!(!is_type("nonsense"));
    }

    #[test]
    fn announcements_are_checked_field_by_field() {
        let ok = check(
            Some(" bl.pdf "),
            Some("application/pdf"),
            Some(3),
            Some(&checksum(b"abc")),
        )
        .unwrap();
        assert_eq!(ok.filename, "bl.pdf");
        let bad = check(Some("a/b"), Some("pdf"), Some(0), Some("xyz")).unwrap_err();
        let pointers: Vec<&str> = bad.iter().map(|b| b.pointer).collect();
        assert_eq!(
            pointers,
            [
                "/blob/filename",
                "/blob/content_type",
                "/blob/byte_size",
                "/blob/checksum"
            ]
        );
        assert!(check(Some("x"), None, Some(MAX_BYTES + 1), Some(&checksum(b""))).is_err());
        // no content type means bytes
        let none = check(Some("x"), None, Some(1), Some(&checksum(b"x"))).unwrap();
        assert_eq!(none.content_type, "application/octet-stream");
    }

    #[test]
    fn the_checksum_is_rails_base64_md5() {
        // MD5("hello world") = 5eb63bbbe01eeed093cb22bb8f5acdc3
        assert_eq!(checksum(b"hello world"), "XrY7u+Ae7tCTyyK7j1rNww==");
        assert_eq!(
            verify(11, "XrY7u+Ae7tCTyyK7j1rNww==", b"hello world"),
            Ok(())
        );
        assert!(matches!(
            verify(11, "XrY7u+Ae7tCTyyK7j1rNww==", b"hello worle"),
            Err(Mismatch::Checksum { .. })
        ));
        assert!(matches!(
            verify(12, "XrY7u+Ae7tCTyyK7j1rNww==", b"hello world"),
            Err(Mismatch::Size { .. })
        ));
    }

    #[test]
    fn tokens_are_distinct_and_stored_as_digests() {
        let (a, da) = token("up_");
        let (b, _) = token("up_");
        assert!(a.starts_with("up_") && a != b);
        assert_eq!(digest(&a), da);
        assert_eq!(da.len(), 64);
    }

    #[test]
    fn numbers_in_names_are_found_once() {
        assert_eq!(
            reference_numbers(&[
                "MAEU123456789 invoice",
                "scan-maeu123456789_MSCU1234566.pdf"
            ]),
            ["MAEU123456789", "MSCU1234566"]
        );
        assert!(reference_numbers(&["invoices", "abcdefghij"]).is_empty());
    }

    proptest! {
        #[test]
        fn any_bytes_verify_against_their_own_announcement(bytes in proptest::collection::vec(any::<u8>(), 0..2048)) {
            let c = checksum(&bytes);
            prop_assert_eq!(STANDARD.decode(&c).unwrap().len(), 16);
            prop_assert!(verify(bytes.len() as i64, &c, &bytes).is_ok());
            let mut other = bytes.clone();
            other.push(0);
            prop_assert!(verify(bytes.len() as i64, &c, &other).is_err());
        }

        #[test]
        fn classification_always_names_a_known_type(name in ".{0,40}", file in ".{0,40}") {
            prop_assert!(is_type(classify(&name, &file)));
        }
    }
}
