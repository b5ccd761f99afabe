//! Which formats the simulator's carriers speak: one rule, shared by `boxtrack sim` (which
//! serves and sends each carrier's reports in its format) and by `serve --sim-url` (whose
//! default carrier endpoints must ask in the same version). Fixed by SCAC, so a world mixes
//! formats the same way on every run.

use crate::dcsa::Version;

fn byte_sum(scac: &str) -> u32 {
    scac.bytes().map(u32::from).sum()
}

/// The DCSA Track & Trace version a simulated carrier speaks: about half of the carriers
/// 3.0, the others 2.2.
pub fn dcsa_version(scac: &str) -> Version {
    if (byte_sum(scac) / 2) % 2 == 1 {
        Version::V3_0
    } else {
        Version::V2_2
    }
}

/// Whether a simulated carrier reports its statuses as UN/EDIFACT IFTSTA rather than X12 315
/// (when the simulator has somewhere to send EDIFACT): about half of them.
pub fn speaks_edifact(scac: &str) -> bool {
    byte_sum(scac) % 2 == 1
}

/// Whether a simulated terminal reports its container moves as UN/EDIFACT CODECO (gate) and
/// COARRI (discharge) messages (when the simulator has somewhere to send EDIFACT): about half
/// of them.
pub fn terminal_speaks_edifact(code: &str) -> bool {
    (byte_sum(code) / 3).is_multiple_of(2)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_formats_mix() {
        let scacs = [
            "MAEU", "CMDU", "HLCU", "ONEY", "EGLV", "COSU", "MSCU", "ZIMU",
        ];
        let v3 = scacs
            .iter()
            .filter(|s| dcsa_version(s) == Version::V3_0)
            .count();
        let edi = scacs.iter().filter(|s| speaks_edifact(s)).count();
        assert!(v3 > 0 && v3 < scacs.len(), "{v3}");
        assert!(edi > 0 && edi < scacs.len(), "{edi}");
        // every pairing occurs: 3.0 with EDIFACT, 3.0 with X12, ...
        let pairs: std::collections::BTreeSet<(bool, bool)> = scacs
            .iter()
            .map(|s| (dcsa_version(s) == Version::V3_0, speaks_edifact(s)))
            .collect();
        assert_eq!(pairs.len(), 4, "{pairs:?}");
    }
}
