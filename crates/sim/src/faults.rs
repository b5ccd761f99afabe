//! Deliberate misbehaviour of the simulated upstreams: slow, failing, rate-limited or
//! malformed answers, silent booking queries, and deliveries sent twice.

/// Deliberate misbehaviour, as shares of answers (0.0 – 1.0).
#[derive(Debug, Clone, Default)]
pub struct Faults {
    /// 503 answers.
    pub server_errors: f64,
    /// 429 answers with `Retry-After: 1`.
    pub rate_limited: f64,
    /// Answers delayed by `slow_ms`.
    pub slow: f64,
    /// Delay of a slow answer.
    pub slow_ms: u64,
    /// Bodies that are not JSON.
    pub malformed: f64,
    /// Virtual days after the world's origin during which booking queries answer `[]`.
    pub silent_booking_days: i64,
    /// Share of DCSA pushes and X12 files that are delivered once more a round later, after
    /// newer ones (the same reports twice, out of order).
    pub redeliver: f64,
}

impl Faults {
    /// Whether delivery `n` is to be redelivered (deterministic, about `redeliver` of them).
    pub(crate) fn redeliver(&self, n: u64) -> bool {
        let x = n.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 11;
        (x as f64 / (1u64 << 53) as f64) < self.redeliver
    }
}

impl Faults {
    /// Parses `5xx=0.1,429=0.05,slow=0.1:800,malformed=0.02,silent-bookings=2,redeliver=0.2`.
    pub fn parse(s: &str) -> Result<Faults, String> {
        let mut f = Faults {
            slow_ms: 500,
            ..Faults::default()
        };
        for part in s.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            let (k, v) = part
                .split_once('=')
                .ok_or_else(|| format!("{part:?}: expected NAME=VALUE"))?;
            let share = |v: &str| -> Result<f64, String> {
                let x: f64 = v
                    .parse()
                    .map_err(|_| format!("{k}: {v:?} is not a number"))?;
                if (0.0..=1.0).contains(&x) {
                    Ok(x)
                } else {
                    Err(format!("{k}: {x} is not between 0 and 1"))
                }
            };
            match k {
                "5xx" => f.server_errors = share(v)?,
                "429" => f.rate_limited = share(v)?,
                "malformed" => f.malformed = share(v)?,
                "slow" => {
                    let (p, ms) = v.split_once(':').unwrap_or((v, "500"));
                    f.slow = share(p)?;
                    f.slow_ms = ms
                        .parse()
                        .map_err(|_| format!("slow: {ms:?} is not milliseconds"))?;
                }
                "redeliver" => f.redeliver = share(v)?,
                "silent-bookings" => {
                    f.silent_booking_days = v
                        .parse()
                        .map_err(|_| format!("silent-bookings: {v:?} is not a number of days"))?
                }
                other => {
                    return Err(format!(
                        "unknown fault {other:?} (5xx, 429, slow, malformed, silent-bookings, redeliver)"
                    ));
                }
            }
        }
        Ok(f)
    }
}
