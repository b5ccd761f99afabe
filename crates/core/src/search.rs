//! Ranking of search results over numbers and references.

/// How well `candidate` (a number, or one of its ref numbers) matches `query`, ignoring case
/// and separators: 3 exact, 2 prefix, 1 anywhere inside, 0 not at all.
pub fn score(query: &str, candidate: &str) -> u8 {
    let q = crate::ident::normalize(query);
    let c = crate::ident::normalize(candidate);
    if q.is_empty() {
        0
    } else if c == q {
        3
    } else if c.starts_with(&q) {
        2
    } else if c.contains(&q) {
        1
    } else {
        0
    }
}

/// The best score of a record's number and its ref numbers (a ref match counts one less, so
/// the record's own number wins ties).
pub fn rank(query: &str, number: &str, refs: &[String]) -> u8 {
    let own = score(query, number) * 2;
    let by_ref = refs
        .iter()
        .map(|r| score(query, r) * 2)
        .max()
        .unwrap_or(0)
        .saturating_sub(1);
    own.max(by_ref)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exact_beats_prefix_beats_contains() {
        assert_eq!(score("mscu1234566", "MSCU 123456-6"), 3);
        assert_eq!(score("MSCU12", "MSCU1234566"), 2);
        assert_eq!(score("1234", "MSCU1234566"), 1);
        assert_eq!(score("ZZ", "MSCU1234566"), 0);
        assert_eq!(score("", "MSCU1234566"), 0);
        assert!(rank("PO-7", "X", &["PO-7".into()]) < rank("PO-7", "PO-7", &[]));
        assert!(rank("PO-7", "X", &["PO-7".into()]) > rank("PO", "XPO", &[]));
    }
}
