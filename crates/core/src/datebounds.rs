//! Date filters as the reference's list tools write them: a value such as `2026-09-30`,
//! `>=today`, `<=3.days.from_now` or `>2.days.ago`, or a list of such bounds that must all
//! hold, read into one range of instants. Days are UTC calendar days.

/// A range of instants (Unix microseconds), each end inclusive when present.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Range {
    /// From (inclusive).
    pub start_us: Option<i64>,
    /// To (inclusive).
    pub end_us: Option<i64>,
}

const DAY_US: i64 = 86_400_000_000;

/// Why a bound cannot be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "{0:?} is not a date bound: write YYYY-MM-DD, today, N.days.ago or N.days.from_now, optionally after =, <, <=, > or >="
)]
pub struct BadBound(pub String);

/// The UTC day (its first microsecond) a date word names at `now_us`.
fn day(word: &str, now_us: i64) -> Option<i64> {
    let today = now_us.div_euclid(DAY_US) * DAY_US;
    let word = word.trim();
    if word.eq_ignore_ascii_case("today") {
        return Some(today);
    }
    for (suffix, sign) in [
        (".days.ago", -1),
        (".days.from_now", 1),
        (".day.ago", -1),
        (".day.from_now", 1),
    ] {
        if let Some(n) = word.strip_suffix(suffix) {
            let n: i64 = n
                .trim()
                .parse()
                .ok()
                .filter(|n: &i64| *n >= 0 && *n <= 36_500)?;
            return Some(today + sign * n * DAY_US);
        }
    }
    let d: jiff::civil::Date = word.parse().ok()?;
    let z = d.to_zoned(jiff::tz::TimeZone::UTC).ok()?;
    Some(z.timestamp().as_microsecond())
}

/// Reads one bound into `range` (narrowing it).
fn narrow(range: &mut Range, bound: &str, now_us: i64) -> Result<(), BadBound> {
    let b = bound.trim();
    let bad = || BadBound(b.to_string());
    let (op, rest) = [">=", "<=", ">", "<", "="]
        .iter()
        .find_map(|op| b.strip_prefix(op).map(|r| (*op, r)))
        .unwrap_or(("=", b));
    let start = day(rest, now_us).ok_or_else(bad)?;
    let end = start + DAY_US - 1;
    let (lo, hi) = match op {
        ">=" => (Some(start), None),
        ">" => (Some(end + 1), None),
        "<=" => (None, Some(end)),
        "<" => (None, Some(start - 1)),
        _ => (Some(start), Some(end)),
    };
    if let Some(lo) = lo {
        range.start_us = Some(range.start_us.map_or(lo, |s| s.max(lo)));
    }
    if let Some(hi) = hi {
        range.end_us = Some(range.end_us.map_or(hi, |e| e.min(hi)));
    }
    Ok(())
}

/// The range all `bounds` allow at `now_us` (each a bound as the module describes).
pub fn range<'a>(
    bounds: impl IntoIterator<Item = &'a str>,
    now_us: i64,
) -> Result<Range, BadBound> {
    let mut r = Range::default();
    for b in bounds {
        narrow(&mut r, b, now_us)?;
    }
    Ok(r)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(s: &str) -> i64 {
        s.parse::<jiff::Timestamp>().unwrap().as_microsecond()
    }

    #[test]
    fn bounds_read_as_days() {
        let now = at("2026-09-23T18:30:00Z");
        let r = |b: &[&str]| range(b.iter().copied(), now).unwrap();
        assert_eq!(
            r(&["2026-09-25"]),
            Range {
                start_us: Some(at("2026-09-25T00:00:00Z")),
                end_us: Some(at("2026-09-26T00:00:00Z") - 1)
            }
        );
        assert_eq!(r(&[">=today"]).start_us, Some(at("2026-09-23T00:00:00Z")));
        assert_eq!(
            r(&["<=3.days.from_now"]).end_us,
            Some(at("2026-09-27T00:00:00Z") - 1)
        );
        assert_eq!(
            r(&[">2.days.ago"]).start_us,
            Some(at("2026-09-22T00:00:00Z"))
        );
        assert_eq!(
            r(&["<2026-09-25"]).end_us,
            Some(at("2026-09-25T00:00:00Z") - 1)
        );
        // a list: every bound holds
        let both = r(&[">=today", "<=3.days.from_now"]);
        assert_eq!(
            both,
            Range {
                start_us: Some(at("2026-09-23T00:00:00Z")),
                end_us: Some(at("2026-09-27T00:00:00Z") - 1)
            }
        );
        for bad in ["soon", ">=2026-13-45", "x.days.ago", "", "=>today"] {
            assert!(range([bad], now).is_err(), "{bad}");
        }
    }
}
