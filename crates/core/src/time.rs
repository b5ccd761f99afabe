//! Time as boxtrack stores it (integer Unix microseconds) and shows it (ISO 8601 UTC with `Z`).

use jiff::Timestamp;

/// Formats Unix microseconds as ISO 8601 UTC with a `Z` suffix and whole seconds,
/// e.g. `2026-11-22T08:41:23Z`. Out-of-range inputs are clamped to the representable range.
pub fn format_micros(us: i64) -> String {
    let secs = us.div_euclid(1_000_000);
    let ts = Timestamp::from_second(secs).unwrap_or(if secs < 0 {
        Timestamp::MIN
    } else {
        Timestamp::MAX
    });
    ts.strftime("%Y-%m-%dT%H:%M:%SZ").to_string()
}

/// The current time as Unix microseconds.
pub fn now_us() -> i64 {
    Timestamp::now().as_microsecond()
}

/// Parses an ISO 8601 / RFC 3339 instant (any offset) into Unix microseconds.
pub fn parse_micros(s: &str) -> Option<i64> {
    let ts: Timestamp = s.trim().parse().ok()?;
    Some(ts.as_microsecond())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_utc_with_z() {
        assert_eq!(format_micros(0), "1970-01-01T00:00:00Z");
        assert_eq!(format_micros(1_700_000_000_123_456), "2023-11-14T22:13:20Z");
    }

    #[test]
    fn parses_offsets() {
        assert_eq!(parse_micros("1970-01-01T01:00:00+01:00"), Some(0));
        assert_eq!(parse_micros("not a time"), None);
    }

    proptest::proptest! {
        #[test]
        fn whole_seconds_round_trip(secs in -62_000_000_000i64..250_000_000_000i64) {
            let us = secs * 1_000_000;
            proptest::prop_assert_eq!(parse_micros(&format_micros(us)), Some(us));
        }
    }
}
