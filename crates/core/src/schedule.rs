//! When to ask upstreams again, and how much to ask them: the polling cadence of a subject
//! (carrier + reference) from where its containers are, backoff after failures, and a token
//! bucket per upstream.

const MIN: i64 = 60_000_000;
const HOUR: i64 = 60 * MIN;

/// Seconds-level cadence of a subject whose containers are in these states (the
/// `current_status` values), with the current ETA at the port of discharge. `None`: nothing
/// more to learn (every container returned empty, delivered or stopped).
///
/// - sparse at sea (every 12 h) while the ETA is more than 3 days away;
/// - every hour within 3 days of the ETA and while containers wait at a terminal;
/// - every 3 h on rail and before departure;
/// - every 12 h after pickup, until the empty is returned.
pub fn cadence_us(statuses: &[&str], pod_eta_us: Option<i64>, now_us: i64) -> Option<i64> {
    if statuses.is_empty() {
        return Some(6 * HOUR);
    }
    let mut best: Option<i64> = None;
    for s in statuses {
        let c = match *s {
            "empty_returned" | "delivered" => None,
            "picked_up" => Some(12 * HOUR),
            "grounded" | "available" | "not_available" | "awaiting_inland_transfer" => Some(HOUR),
            "on_rail" => Some(3 * HOUR),
            "on_ship" => match pod_eta_us {
                Some(eta) if eta - now_us <= 3 * 24 * HOUR => Some(HOUR),
                _ => Some(12 * HOUR),
            },
            _ => Some(3 * HOUR),
        };
        best = match (best, c) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
    }
    best
}

/// Delay before the next attempt after `failures` failures in a row: 5 minutes doubling up
/// to 6 hours, or what the upstream's `Retry-After` asked when that is longer.
pub fn backoff_us(failures: u32, retry_after_secs: Option<u64>) -> i64 {
    let exp = 5 * MIN * (1i64 << failures.saturating_sub(1).min(7));
    let asked =
        retry_after_secs.map_or(0, |s| i64::try_from(s).unwrap_or(i64::MAX / 2) * 1_000_000);
    exp.min(6 * HOUR).max(asked)
}

/// A token bucket: `capacity` requests at once, refilled at `per_sec`.
#[derive(Debug, Clone, PartialEq)]
pub struct TokenBucket {
    capacity: f64,
    per_sec: f64,
    tokens: f64,
    last_us: i64,
}

impl TokenBucket {
    /// A full bucket.
    pub fn new(capacity: u32, per_sec: f64, now_us: i64) -> TokenBucket {
        TokenBucket {
            capacity: f64::from(capacity.max(1)),
            per_sec: per_sec.max(0.001),
            tokens: f64::from(capacity.max(1)),
            last_us: now_us,
        }
    }

    /// The requests it allows at once when full.
    pub fn capacity(&self) -> f64 {
        self.capacity
    }

    /// Its refill rate, requests per second.
    pub fn per_sec(&self) -> f64 {
        self.per_sec
    }

    /// How many requests it would allow at `now_us` (whole tokens), taking none.
    pub fn available(&self, now_us: i64) -> u32 {
        let elapsed = (now_us - self.last_us).max(0) as f64 / 1e6;
        (self.tokens + elapsed * self.per_sec)
            .min(self.capacity)
            .floor()
            .max(0.0) as u32
    }

    /// Takes a token at `now_us`, or says how many microseconds until one is there.
    pub fn take(&mut self, now_us: i64) -> Result<(), i64> {
        let elapsed = (now_us - self.last_us).max(0) as f64 / 1e6;
        self.tokens = (self.tokens + elapsed * self.per_sec).min(self.capacity);
        self.last_us = self.last_us.max(now_us);
        if self.tokens >= 1.0 {
            self.tokens -= 1.0;
            Ok(())
        } else {
            Err((((1.0 - self.tokens) / self.per_sec) * 1e6).ceil() as i64)
        }
    }
}

/// The clock of a source: what time it is where the data comes from. A real carrier's clock is
/// the wall clock (read from the `Date` of its answers); a simulator's runs ahead of it, and
/// faster (`speed` source seconds per real second). Every freshness and plausibility check
/// compares a source's data with this clock, and every delay the schedule asks for in source
/// time becomes `1/speed` of it in real time.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct SourceClock {
    /// Real time of the reading (Unix microseconds).
    pub wall_us: i64,
    /// The source's time at that moment.
    pub source_us: i64,
    /// Source seconds per real second (1 for every real upstream).
    pub speed: f64,
}

impl SourceClock {
    /// The wall clock itself.
    pub fn wall(now_us: i64) -> SourceClock {
        SourceClock {
            wall_us: now_us,
            source_us: now_us,
            speed: 1.0,
        }
    }

    /// A reading: the source said `source_us` at real time `wall_us`, running at `speed`
    /// (anything not a positive finite number counts as 1).
    pub fn reading(wall_us: i64, source_us: i64, speed: f64) -> SourceClock {
        SourceClock {
            wall_us,
            source_us,
            speed: if speed.is_finite() && speed > 0.0 {
                speed
            } else {
                1.0
            },
        }
    }

    /// The source's time at real time `wall_us`.
    pub fn now_at(&self, wall_us: i64) -> i64 {
        let elapsed = (wall_us - self.wall_us) as f64 * self.speed;
        self.source_us.saturating_add(elapsed as i64)
    }

    /// How long `source_us` of the source's time lasts in real time (at least 1 s, so a fast
    /// source is never polled in a loop).
    pub fn real_duration(&self, source_us: i64) -> i64 {
        ((source_us as f64 / self.speed) as i64).max(1_000_000)
    }

    /// Seconds from `data_us` to the source's now: how old its newest data is, never negative
    /// (data stamped a little ahead of the source's clock is fresh, not from the future).
    pub fn age_secs(&self, data_us: i64, wall_us: i64) -> i64 {
        ((self.now_at(wall_us) - data_us) / 1_000_000).max(0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn a_source_clock_runs_at_its_speed() {
        let wall = 1_000 * HOUR;
        let real = SourceClock::wall(wall);
        assert_eq!(real.now_at(wall + HOUR), wall + HOUR);
        assert_eq!(real.real_duration(12 * HOUR), 12 * HOUR);
        // a simulator three days ahead at an hour per second
        let sim = SourceClock::reading(wall, wall + 72 * HOUR, 3600.0);
        assert_eq!(sim.now_at(wall + 1_000_000), wall + 73 * HOUR);
        assert_eq!(sim.real_duration(12 * HOUR), 12_000_000, "12 h is 12 s");
        assert_eq!(sim.real_duration(MIN), 1_000_000, "never under a second");
        assert_eq!(sim.age_secs(wall + 72 * HOUR, wall), 0);
        assert_eq!(sim.age_secs(wall + 80 * HOUR, wall), 0, "never negative");
        assert_eq!(sim.age_secs(wall + 71 * HOUR, wall), 3600);
        assert_eq!(SourceClock::reading(0, 0, f64::NAN).speed, 1.0);
        assert_eq!(SourceClock::reading(0, 0, -2.0).speed, 1.0);
    }

    #[test]
    fn cadence_follows_the_journey() {
        let now = 1_000 * HOUR;
        assert_eq!(
            cadence_us(&["on_ship"], Some(now + 10 * 24 * HOUR), now),
            Some(12 * HOUR)
        );
        assert_eq!(
            cadence_us(&["on_ship"], Some(now + 24 * HOUR), now),
            Some(HOUR)
        );
        assert_eq!(cadence_us(&["on_ship", "available"], None, now), Some(HOUR));
        assert_eq!(cadence_us(&["on_rail"], None, now), Some(3 * HOUR));
        assert_eq!(
            cadence_us(&["empty_returned", "delivered"], None, now),
            None
        );
        assert_eq!(
            cadence_us(&["empty_returned", "picked_up"], None, now),
            Some(12 * HOUR)
        );
        assert_eq!(cadence_us(&[], None, now), Some(6 * HOUR));
    }

    #[test]
    fn backoff_doubles_and_honours_retry_after() {
        assert_eq!(backoff_us(1, None), 5 * MIN);
        assert_eq!(backoff_us(2, None), 10 * MIN);
        assert_eq!(backoff_us(30, None), 6 * HOUR);
        assert_eq!(backoff_us(1, Some(3600)), HOUR);
    }

    proptest! {
        /// Never more requests than the capacity plus what the rate refilled.
        #[test]
        fn the_bucket_never_lets_more_through_than_it_should(
            capacity in 1u32..20,
            per_sec in 0.1f64..50.0,
            steps in proptest::collection::vec(0i64..2_000_000, 1..300),
        ) {
            let mut b = TokenBucket::new(capacity, per_sec, 0);
            let mut now = 0;
            let mut taken = 0u64;
            for s in steps {
                now += s;
                if b.take(now).is_ok() {
                    taken += 1;
                }
                let allowed = f64::from(capacity) + per_sec * now as f64 / 1e6;
                prop_assert!(taken as f64 <= allowed + 1e-9);
            }
        }

        /// What it says is available is exactly what it then lets through at that instant.
        #[test]
        fn available_is_what_take_allows(
            capacity in 1u32..20,
            per_sec in 0.1f64..50.0,
            spent in 0u32..25,
            later in 0i64..3_000_000,
        ) {
            let mut b = TokenBucket::new(capacity, per_sec, 0);
            for _ in 0..spent {
                let _ = b.take(0);
            }
            let said = b.available(later);
            prop_assert!(said <= capacity);
            let mut let_through = 0;
            while b.take(later).is_ok() {
                let_through += 1;
            }
            prop_assert_eq!(said, let_through);
        }

        #[test]
        fn the_wait_it_names_is_enough(per_sec in 0.1f64..50.0) {
            let mut b = TokenBucket::new(1, per_sec, 0);
            prop_assert!(b.take(0).is_ok());
            let wait = b.take(0).unwrap_err();
            prop_assert!(b.take(wait).is_ok());
        }
    }
}
