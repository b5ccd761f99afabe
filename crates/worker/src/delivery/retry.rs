//! When a failed delivery is tried again: the retry schedule with jitter, never sooner than
//! the receiver's `Retry-After`.

/// Seconds between attempts: 12 retries after the first attempt, about 57 hours in all.
pub const RETRY_SCHEDULE_SECS: [i64; 12] = [
    5, 30, 120, 300, 900, 1800, 3600, 7200, 18000, 36000, 50400, 72000,
];

/// The delay before retry number `retry` (1-based) of `schedule`, with ±20 % jitter from
/// `jitter` (0..1), at least the receiver's `Retry-After`; `None` when the retries are used up.
pub fn next_delay_secs_in(
    schedule: &[i64],
    retry: i64,
    jitter: f64,
    retry_after: Option<u64>,
) -> Option<i64> {
    let base = *schedule.get(usize::try_from(retry - 1).ok()?)?;
    let jittered = (base as f64 * (0.8 + 0.4 * jitter.clamp(0.0, 1.0))).round() as i64;
    Some(
        jittered
            .max(retry_after.map_or(0, |s| i64::try_from(s).unwrap_or(i64::MAX)))
            .max(1),
    )
}

/// [`next_delay_secs_in`] the default schedule.
pub fn next_delay_secs(retry: i64, jitter: f64, retry_after: Option<u64>) -> Option<i64> {
    next_delay_secs_in(&RETRY_SCHEDULE_SECS, retry, jitter, retry_after)
}
