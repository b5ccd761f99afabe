//! Time as boxtrack stores it (integer Unix microseconds) and shows it (ISO 8601 UTC with `Z`).

use jiff::Timestamp;

/// Formats Unix microseconds as ISO 8601 UTC with a `Z` suffix and whole seconds,
/// e.g. `2026-11-22T08:41:23Z`. Out-of-range inputs are clamped to the representable range.
pub fn format_micros(us: i64) -> String {
    if let Some(text) = write_micros(us, &mut [0u8; 20]) {
        return text.to_string();
    }
    let secs = us.div_euclid(1_000_000);
    let ts = Timestamp::from_second(secs).unwrap_or(if secs < 0 {
        Timestamp::MIN
    } else {
        Timestamp::MAX
    });
    ts.strftime("%Y-%m-%dT%H:%M:%SZ").to_string()
}

/// The first second of year 9999: [`utc_seconds`] writes the instants before it (jiff's own
/// range ends a day before year 10000, and past it `format_micros` clamps as jiff does).
const YEAR_9999: i64 = 253_370_764_800;

/// Unix second `secs` as `YYYY-MM-DDTHH:MM:SS` in UTC, written by arithmetic (no formatter:
/// every timestamp of every rendered resource goes through here), for instants from 1970
/// up to the start of year 9999; `None` outside them.
pub fn utc_seconds(secs: i64) -> Option<[u8; 19]> {
    if !(0..YEAR_9999).contains(&secs) {
        return None;
    }
    let (days, in_day) = (secs / 86_400, secs % 86_400);
    let (year, month, day) = civil_from_days(days);
    let mut text = *b"0000-00-00T00:00:00";
    // two digits at a time; every field is below 100 (the year in two halves, below 9999)
    let mut two = |at: usize, n: i64| {
        let n = n.rem_euclid(100) as u8;
        text[at] = b'0' + n / 10;
        text[at + 1] = b'0' + n % 10;
    };
    two(0, year / 100);
    two(2, year % 100);
    two(5, month);
    two(8, day);
    two(11, in_day / 3600);
    two(14, in_day / 60 % 60);
    two(17, in_day % 60);
    Some(text)
}

/// [`format_micros`] written into `buf` instead of a new string, for the instants
/// [`utc_seconds`] writes (`None` outside them: then use [`format_micros`]).
pub fn write_micros(us: i64, buf: &mut [u8; 20]) -> Option<&str> {
    let text = utc_seconds(us.div_euclid(1_000_000))?;
    buf[..19].copy_from_slice(&text);
    buf[19] = b'Z';
    std::str::from_utf8(buf).ok()
}

/// The proleptic Gregorian date (year, month 1–12, day 1–31) of day `days` after
/// 1970-01-01, for `days >= 0`: counted in 400-year eras of 146,097 days from 0000-03-01,
/// so that the leap day ends each counted year.
fn civil_from_days(days: i64) -> (i64, i64, i64) {
    let z = days + 719_468;
    let era = z / 146_097;
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

/// Formats Unix microseconds as the wall-clock time of the IANA zone `zone`, with the zone's
/// abbreviation and UTC offset, e.g. `2026-03-08 03:30 PDT (UTC-07:00)`: what a person at
/// that place read on a clock. Without a zone, or with one that is not known, it is the UTC
/// time (`2026-11-22 08:41 UTC`).
pub fn format_local(us: i64, zone: Option<&str>) -> String {
    let secs = us.div_euclid(1_000_000);
    let ts = Timestamp::from_second(secs).unwrap_or(if secs < 0 {
        Timestamp::MIN
    } else {
        Timestamp::MAX
    });
    match zone.and_then(|z| jiff::tz::TimeZone::get(z).ok()) {
        Some(tz) => ts
            .to_zoned(tz)
            .strftime("%Y-%m-%d %H:%M %Z (UTC%:z)")
            .to_string(),
        None => ts.strftime("%Y-%m-%d %H:%M UTC").to_string(),
    }
}

/// A date and time without a zone (`2026-03-12T10:00`, as an HTML `datetime-local` input sends
/// it) read at the clock of the IANA zone `zone` (UTC when none), in Unix microseconds.
pub fn parse_local(text: &str, zone: Option<&str>) -> Option<i64> {
    let civil: jiff::civil::DateTime = text.trim().parse().ok()?;
    let tz = match zone {
        Some(z) => jiff::tz::TimeZone::get(z).ok()?,
        None => jiff::tz::TimeZone::UTC,
    };
    Some(civil.to_zoned(tz).ok()?.timestamp().as_microsecond())
}

/// `us` at the clock of the IANA zone `zone` in the `strftime` form `format` (`%Z` names
/// the zone's abbreviation); in UTC, its `%Z` written `UTC`, when the zone is unknown.
pub fn format_local_with(us: i64, zone: Option<&str>, format: &str) -> String {
    let Ok(ts) = Timestamp::from_microsecond(us) else {
        return String::new();
    };
    match zone.and_then(|z| jiff::tz::TimeZone::get(z).ok()) {
        Some(tz) => ts.to_zoned(tz).strftime(format).to_string(),
        None => ts
            .to_zoned(jiff::tz::TimeZone::UTC)
            .strftime(format)
            .to_string(),
    }
}

/// The current time as Unix microseconds.
pub fn now_us() -> i64 {
    Timestamp::now().as_microsecond()
}

/// Parses an instant (RFC 3339, any offset) or a date (`YYYY-MM-DD`, its midnight UTC) into
/// Unix microseconds.
pub fn parse_instant_or_date(s: &str) -> Option<i64> {
    parse_micros(s).or_else(|| {
        let d: jiff::civil::Date = s.trim().parse().ok()?;
        Some(
            d.to_zoned(jiff::tz::TimeZone::UTC)
                .ok()?
                .timestamp()
                .as_microsecond(),
        )
    })
}

/// Parses an ISO 8601 / RFC 3339 instant (any offset) into Unix microseconds.
pub fn parse_micros(s: &str) -> Option<i64> {
    let ts: Timestamp = s.trim().parse().ok()?;
    Some(ts.as_microsecond())
}

/// The last microsecond of the whole second `us` falls in: a range that ends at a time shown
/// in seconds ends there.
pub fn end_of_second(us: i64) -> i64 {
    us.div_euclid(1_000_000)
        .saturating_mul(1_000_000)
        .saturating_add(999_999)
}

/// Formats Unix microseconds as an HTTP date (RFC 9110 IMF-fixdate, whole seconds), e.g.
/// `Sun, 22 Nov 2026 08:41:23 GMT`.
pub fn format_http_date(us: i64) -> String {
    let ts = Timestamp::from_second(us.div_euclid(1_000_000)).unwrap_or(Timestamp::UNIX_EPOCH);
    jiff::fmt::rfc2822::DateTimePrinter::new()
        .timestamp_to_rfc9110_string(&ts)
        .unwrap_or_default()
}

/// Parses an HTTP `Date` header (RFC 9110 IMF-fixdate, or RFC 2822) into Unix microseconds.
pub fn parse_http_date(s: &str) -> Option<i64> {
    static PARSER: jiff::fmt::rfc2822::DateTimeParser = jiff::fmt::rfc2822::DateTimeParser::new();
    PARSER
        .parse_timestamp(s.trim())
        .ok()
        .map(|t| t.as_microsecond())
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    /// What jiff writes for Unix second `secs`.
    fn by_jiff(secs: i64) -> String {
        jiff::Timestamp::from_second(secs)
            .map(|t| t.strftime("%Y-%m-%dT%H:%M:%SZ").to_string())
            .unwrap_or_default()
    }

    proptest! {
        #[test]
        fn seconds_are_written_as_jiff_writes_them(secs in 0i64..super::YEAR_9999, micros in 0i64..1_000_000) {
            prop_assert_eq!(super::format_micros(secs * 1_000_000 + micros), by_jiff(secs));
        }

        #[test]
        fn written_in_place_as_in_a_new_string(us in proptest::num::i64::ANY) {
            let mut buf = [0u8; 20];
            let in_range = (0..super::YEAR_9999 * 1_000_000).contains(&us);
            match super::write_micros(us, &mut buf) {
                Some(text) => prop_assert_eq!(text.to_string(), super::format_micros(us)),
                None => prop_assert!(!in_range),
            }
            let near = us.rem_euclid(super::YEAR_9999 * 1_000_000);
            prop_assert_eq!(super::write_micros(near, &mut buf).map(str::to_string), Some(super::format_micros(near)));
        }
    }

    #[test]
    fn the_edges_of_days_years_and_the_range_are_written_as_jiff_writes_them() {
        let at = |iso: &str| super::parse_micros(iso).unwrap() / 1_000_000;
        for secs in [
            0,
            at("1972-02-29T23:59:59Z"),
            at("2000-02-29T00:00:00Z"),
            at("2000-12-31T23:59:59Z"),
            at("2100-03-01T00:00:00Z"),
            at("2026-12-31T23:59:59Z"),
            super::YEAR_9999 - 1,
        ] {
            for s in secs.saturating_sub(1)..=secs + 1 {
                assert_eq!(super::format_micros(s * 1_000_000), by_jiff(s), "{s}");
            }
        }
        // before 1970 and past 9999 jiff writes them (clamped at the end of its range)
        assert_eq!(super::format_micros(-1), "1969-12-31T23:59:59Z");
        assert_eq!(super::format_micros(-1_000_000), by_jiff(-1));
        assert_eq!(
            super::format_micros(i64::MAX),
            jiff::Timestamp::MAX
                .strftime("%Y-%m-%dT%H:%M:%SZ")
                .to_string()
        );
    }

    #[test]
    fn local_times_follow_the_place_s_clock_across_dst() {
        let at = |iso: &str| super::parse_micros(iso).unwrap();
        // Los Angeles springs forward at 02:00 local on 2026-03-08 (10:00 UTC)
        assert_eq!(
            super::format_local(at("2026-03-08T09:59:00Z"), Some("America/Los_Angeles")),
            "2026-03-08 01:59 PST (UTC-08:00)"
        );
        assert_eq!(
            super::format_local(at("2026-03-08T10:00:00Z"), Some("America/Los_Angeles")),
            "2026-03-08 03:00 PDT (UTC-07:00)"
        );
        // past midnight in Shanghai while still the day before in UTC
        assert_eq!(
            super::format_local(at("2026-11-25T16:30:00Z"), Some("Asia/Shanghai")),
            "2026-11-26 00:30 CST (UTC+08:00)"
        );
        assert_eq!(
            super::format_local(at("2026-11-25T16:30:00Z"), Some("Not/AZone")),
            "2026-11-25 16:30 UTC"
        );
        assert_eq!(
            super::format_local(at("2026-11-25T16:30:00Z"), None),
            "2026-11-25 16:30 UTC"
        );
    }

    use super::*;

    #[test]
    fn a_second_ends_at_its_last_microsecond() {
        assert_eq!(end_of_second(1_700_000_000_000_000), 1_700_000_000_999_999);
        assert_eq!(end_of_second(1_700_000_000_123_456), 1_700_000_000_999_999);
        assert_eq!(end_of_second(-1), -1);
    }

    #[test]
    fn http_dates_round_trip_to_the_second() {
        let us = 1_700_000_000_123_456;
        let s = format_http_date(us);
        assert_eq!(s, "Tue, 14 Nov 2023 22:13:20 GMT");
        assert_eq!(parse_http_date(&s), Some(1_700_000_000_000_000));
        assert_eq!(parse_http_date("yesterday"), None);
    }

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
