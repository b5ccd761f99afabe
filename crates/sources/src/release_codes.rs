//! The release and hold vocabularies of the sources, in one table per format: what each code
//! says of which release gate (`core::tracking::release`), with the code's own name as the
//! wording kept beside it.
//!
//! Sources (read 2026-12-06; `docs/precedence.md`, "Release gates", lists them):
//! - X12 315 B403 (element 157): `CT`, `CR`, `CU`, the agency holds `PA`–`PP`, `A1`, `A3`,
//!   `AC`, `GO` from the X12 code lists (stedi.com/edi/x12-004010/element/157 and earlier
//!   releases); `PQ`–`PX`, `C1`, `IB`, `HR` from carriers' published 315 implementation guides
//!   (APL, Swire) where the X12 list could not be read in full.
//! - DCSA Track & Trace 3.0 equipment events `CUSR`, `CUSI`, `CUSS` (and their long names);
//!   2.2 shipment events `HOLD` / `RELS` with `documentTypeCode` `SRM` (the line's release)
//!   or `CUS` (customs).
//! - UN/EDIFACT IFTSTA `STS` status event (element 9011, D96A–D00B): `8`, `10`, `12`, `17`,
//!   `39`, `46`. It has no code for the line's release (`38` is freight paid only).
//!
//! Codes that say less than a release of the whole gate (an agency's partial release, freight
//! paid while documents are still owed) are not read as one.

use boxtrack_core::tracking::release::{Gate, GateStatus};

/// What one code says: the gate, its status there, and the code's own name.
pub type Said = (Gate, GateStatus, &'static str);

const C: Gate = Gate::Customs;
const L: Gate = Gate::Line;
const HELD: GateStatus = GateStatus::Held;
const RELEASED: GateStatus = GateStatus::Released;
const PENDING: GateStatus = GateStatus::Pending;

/// X12 315 / 322 status codes (B403 / Q501) that speak of a gate.
const X12: &[(&str, &[Said])] = &[
    ("CT", &[(C, RELEASED, "Customs Released")]),
    ("CR", &[(L, RELEASED, "Carrier Release")]),
    (
        "CU",
        &[
            (C, RELEASED, "Carrier and Customs Release"),
            (L, RELEASED, "Carrier and Customs Release"),
        ],
    ),
    ("AC", &[(C, PENDING, "Awaiting Clearance")]),
    (
        "IB",
        &[(C, PENDING, "U.S. Customs, In-bond Movement Authorized")],
    ),
    ("HR", &[(C, PENDING, "Hold Released")]),
    ("GO", &[(C, HELD, "General Order")]),
    ("A1", &[(C, HELD, "Agriculture Canada Hold")]),
    ("A3", &[(C, HELD, "Agriculture Canada Refused Entry")]),
    ("C1", &[(C, HELD, "Canada Customs Hold")]),
    (
        "PA",
        &[(C, HELD, "U.S. Customs Hold, Intensive Examination")],
    ),
    (
        "PB",
        &[(C, HELD, "U.S. Customs Hold, Insufficient Paperwork")],
    ),
    (
        "PC",
        &[(C, HELD, "U.S. Customs Hold, Discrepancy in Paperwork")],
    ),
    (
        "PD",
        &[(C, HELD, "U.S. Customs Hold, Discrepancy in Piece Count")],
    ),
    ("PE", &[(C, HELD, "U.S. Customs Hold, Coast Guard")]),
    ("PF", &[(C, HELD, "U.S. Customs Hold, F.B.I.")]),
    (
        "PG",
        &[(C, HELD, "U.S. Customs Hold, Local Law Enforcement")],
    ),
    ("PH", &[(C, HELD, "U.S. Customs Hold, Court Imposed Lien")]),
    ("PI", &[(C, HELD, "U.S. Customs Hold, Food and Drug")]),
    ("PJ", &[(C, HELD, "U.S. Customs Hold, Fish and Wildlife")]),
    ("PK", &[(C, HELD, "U.S. Customs Hold, Drug Enforcement")]),
    (
        "PL",
        &[(
            C,
            HELD,
            "U.S. Dept. of Agriculture Hold, Intensive Investigation",
        )],
    ),
    (
        "PM",
        &[(
            C,
            HELD,
            "U.S. Dept. of Agriculture Hold, Unregistered Producer",
        )],
    ),
    (
        "PN",
        &[(
            C,
            HELD,
            "U.S. Dept. of Agriculture Hold, Restricted Commodity",
        )],
    ),
    (
        "PO",
        &[(
            C,
            HELD,
            "U.S. Dept. of Agriculture Hold, Insect Infestation",
        )],
    ),
    (
        "PP",
        &[(
            C,
            HELD,
            "U.S. Dept. of Agriculture Hold, Bacterial Contamination",
        )],
    ),
    (
        "PQ",
        &[(C, HELD, "U.S. Customs Hold at Place of Vessel Arrival")],
    ),
    (
        "PR",
        &[(C, HELD, "U.S. Customs Hold at In-Bond Destination")],
    ),
    (
        "PS",
        &[(
            C,
            HELD,
            "U.S. Dept. of Agriculture Hold at Place of Vessel Arrival",
        )],
    ),
    (
        "PT",
        &[(
            C,
            HELD,
            "U.S. Dept. of Agriculture Hold at In-Bond Destination",
        )],
    ),
    (
        "PU",
        &[(C, HELD, "Other U.S. Agency Hold at Place of Vessel Arrival")],
    ),
    (
        "PV",
        &[(C, HELD, "Other U.S. Agency Hold at In-Bond Destination")],
    ),
    (
        "PW",
        &[(C, HELD, "U.S. Dept. of Agriculture Hold for Fumigation")],
    ),
    (
        "PX",
        &[(
            C,
            HELD,
            "U.S. Dept. of Agriculture Hold for Inspection or Documentation Review",
        )],
    ),
];

/// What an X12 status code says of the gates (none for a code that is not about release).
pub fn x12(code: &str) -> &'static [Said] {
    X12.iter()
        .find(|(c, _)| *c == code)
        .map_or(&[], |(_, said)| said)
}

/// The X12 status codes that speak of a gate (the simulator writes them).
pub fn x12_codes() -> impl Iterator<Item = &'static str> {
    X12.iter().map(|(c, _)| *c)
}

/// A DCSA 3.0 equipment event type (short or long spelling) that speaks of customs.
pub fn dcsa_equipment(code: &str) -> Option<Said> {
    match code {
        "CUSR" | "CUSTOMS_RELEASED" => Some((C, RELEASED, "Customs released")),
        "CUSI" | "CUSTOMS_SELECTED_FOR_INSPECTION" => {
            Some((C, HELD, "Customs selected for inspection"))
        }
        "CUSS" | "CUSTOMS_SELECTED_FOR_SCAN" => Some((C, HELD, "Customs selected for scan")),
        _ => None,
    }
}

/// A DCSA shipment event (`HOLD` or `RELS`, 2.2 and 3.0) about a document: the line's
/// release message (`SRM`, 3.0 also `CRO` container release order, `DEO` delivery order) or
/// customs (`CUS` customs inspection, `CUC` customs clearance).
pub fn dcsa_shipment(event: &str, document: &str) -> Option<Said> {
    let gate = match document {
        "SRM" | "CRO" | "DEO" => L,
        "CUS" | "CUC" => C,
        _ => return None,
    };
    match (event, gate) {
        ("HOLD" | "ON_HOLD", Gate::Line) => Some((L, HELD, "Line hold")),
        ("RELS" | "RELEASED", Gate::Line) => Some((L, RELEASED, "Released by the line")),
        ("HOLD" | "ON_HOLD", _) => Some((C, HELD, "Customs hold")),
        ("RELS" | "RELEASED", _) => Some((C, RELEASED, "Customs released")),
        _ => None,
    }
}

/// How an IFTSTA status event the release table reads is carried as a status code among the
/// X12 ones (`9011:12`), so that one status mapper reads 315s, 322s and IFTSTA.
pub const EDIFACT_PREFIX: &str = "9011:";

/// What a status code of the X12 mapper says of the gates: an X12 code, or an IFTSTA status
/// event carried as [`EDIFACT_PREFIX`] and its number.
pub fn of_status(code: &str) -> Vec<Said> {
    match code.strip_prefix(EDIFACT_PREFIX) {
        Some(n) => edifact_status(n).into_iter().collect(),
        None => x12(code).to_vec(),
    }
}

/// An EDIFACT IFTSTA status event (`STS`, element 9011) that speaks of a gate.
pub fn edifact_status(code: &str) -> Option<Said> {
    Some(match code {
        "8" => (C, RELEASED, "Cleared import restrictions"),
        "10" => (
            C,
            RELEASED,
            "Cleared by agriculture, food or fisheries authorities",
        ),
        "12" => (C, RELEASED, "Cleared by customs"),
        "17" => (C, HELD, "Customs refusal"),
        "39" => (C, RELEASED, "From bond"),
        "46" => (C, PENDING, "Into bond"),
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_tables_say_what_the_codes_mean() {
        assert_eq!(x12("CT"), &[(C, RELEASED, "Customs Released")]);
        assert_eq!(x12("CU").len(), 2);
        assert!(x12("VD").is_empty());
        assert!(x12_codes().all(|c| !x12(c).is_empty()));
        assert_eq!(dcsa_equipment("CUSI").map(|s| s.1), Some(HELD));
        assert_eq!(dcsa_equipment("LOAD"), None);
        assert_eq!(dcsa_shipment("RELS", "SRM").map(|s| s.0), Some(L));
        assert_eq!(dcsa_shipment("HOLD", "CUS").map(|s| s.1), Some(HELD));
        assert_eq!(
            dcsa_shipment("RELS", "CBR"),
            None,
            "a booking request is no release"
        );
        assert_eq!(edifact_status("12").map(|s| s.1), Some(RELEASED));
        assert_eq!(
            edifact_status("38"),
            None,
            "freight paid is not the line's release"
        );
    }
}
