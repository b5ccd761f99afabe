//! Rate limits: buckets, per-account limits and the rolling-window admission rule.
//!
//! A bucket admits at most `limit` requests in any rolling window of [`WINDOW_US`]. The rule is
//! a sliding log: the admission times of the requests still inside the window are kept (never
//! more than `limit` of them), so the answer is exact and `Retry-After` is the precise moment
//! the oldest admitted request leaves the window. The log is small (at most a few hundred
//! integers per account and bucket) and is kept in memory or in a database row by the caller.

use std::collections::BTreeMap;
use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

/// The length of the rolling window, in microseconds (60 seconds).
pub const WINDOW_US: i64 = 60_000_000;

/// A named rate-limit bucket; every endpoint belongs to exactly one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Bucket {
    /// Every endpoint without a bucket of its own.
    #[serde(rename = "default")]
    Default,
    /// `POST /v2/tracking_requests`.
    #[serde(rename = "tracking_requests.create")]
    CreateTrackingRequest,
    /// `POST /v2/tracking_requests/infer_number`.
    #[serde(rename = "tracking_requests.infer_number")]
    InferNumber,
    /// `PATCH /v2/containers/{id}/refresh`.
    #[serde(rename = "containers.refresh")]
    RefreshContainer,
}

impl Bucket {
    /// Every bucket.
    pub const ALL: [Bucket; 4] = [
        Bucket::Default,
        Bucket::CreateTrackingRequest,
        Bucket::InferNumber,
        Bucket::RefreshContainer,
    ];

    /// The name used in configuration, headers and metrics.
    pub fn as_str(self) -> &'static str {
        match self {
            Bucket::Default => "default",
            Bucket::CreateTrackingRequest => "tracking_requests.create",
            Bucket::InferNumber => "tracking_requests.infer_number",
            Bucket::RefreshContainer => "containers.refresh",
        }
    }

    /// The limit per rolling minute unless an account overrides it.
    pub fn default_limit(self) -> u32 {
        match self {
            Bucket::Default => 100,
            Bucket::CreateTrackingRequest => 100,
            Bucket::InferNumber => 200,
            Bucket::RefreshContainer => 10,
        }
    }

    /// The bucket of a request, from its method and matched route template
    /// (for example `PATCH` and `/v2/containers/{id}/refresh`).
    pub fn for_route(method: &str, route: &str) -> Bucket {
        match (method, route.trim_end_matches('/')) {
            ("POST", "/v2/tracking_requests") => Bucket::CreateTrackingRequest,
            ("POST", "/v2/tracking_requests/infer_number") => Bucket::InferNumber,
            ("PATCH", "/v2/containers/{id}/refresh") => Bucket::RefreshContainer,
            _ => Bucket::Default,
        }
    }
}

impl fmt::Display for Bucket {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A word that names no bucket, or a malformed `BUCKET=N` override.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LimitParseError {
    /// Unknown bucket name.
    #[error(
        "unknown rate-limit bucket {0:?}; expected one of: default, tracking_requests.create, tracking_requests.infer_number, containers.refresh"
    )]
    Bucket(String),
    /// Not of the form `BUCKET=N` with N a non-negative integer.
    #[error("rate limit {0:?} is not of the form BUCKET=REQUESTS_PER_MINUTE")]
    Shape(String),
}

impl FromStr for Bucket {
    type Err = LimitParseError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Bucket::ALL
            .into_iter()
            .find(|b| b.as_str() == s.trim())
            .ok_or_else(|| LimitParseError::Bucket(s.to_string()))
    }
}

/// Per-account overrides of the bucket limits (requests per rolling minute).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Limits(pub BTreeMap<Bucket, u32>);

impl Limits {
    /// The limit in force for a bucket.
    pub fn limit(&self, bucket: Bucket) -> u32 {
        self.0
            .get(&bucket)
            .copied()
            .unwrap_or_else(|| bucket.default_limit())
    }

    /// Parses one `BUCKET=N` override.
    pub fn parse_override(s: &str) -> Result<(Bucket, u32), LimitParseError> {
        let (name, n) = s
            .split_once('=')
            .ok_or_else(|| LimitParseError::Shape(s.to_string()))?;
        let bucket: Bucket = name.parse()?;
        let n: u32 = n
            .trim()
            .parse()
            .map_err(|_| LimitParseError::Shape(s.to_string()))?;
        Ok((bucket, n))
    }
}

/// The outcome of one admission check.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Decision {
    /// Whether the request may proceed (and was recorded).
    pub allowed: bool,
    /// The limit that applied.
    pub limit: u32,
    /// Requests still admissible in the current window after this one.
    pub remaining: u32,
    /// Microseconds until the oldest recorded request leaves the window (0 when none).
    pub reset_after_us: i64,
    /// For a refused request: microseconds until the bucket admits the next call.
    pub retry_after_us: i64,
}

impl Decision {
    /// `Retry-After` in whole seconds, rounded up, at least 1.
    pub fn retry_after_secs(&self) -> u64 {
        ceil_secs(self.retry_after_us).max(1)
    }

    /// Seconds until the window resets, rounded up (for the `RateLimit` header).
    pub fn reset_after_secs(&self) -> u64 {
        ceil_secs(self.reset_after_us)
    }
}

fn ceil_secs(us: i64) -> u64 {
    u64::try_from(us.max(0)).unwrap_or(0).div_ceil(1_000_000)
}

/// Decides whether a request at `now_us` fits in the bucket whose admission log is `log`
/// (ascending admission times), and records it if so.
///
/// Invariants: after the call `log` holds only times inside the window ending at `now_us`
/// (plus any from the future, which a clock step backwards can leave), never more than
/// `max(limit, previous length)` entries, and a refused request is not recorded.
pub fn admit(log: &mut Vec<i64>, now_us: i64, limit: u32, window_us: i64) -> Decision {
    let horizon = now_us.saturating_sub(window_us);
    let expired = log.partition_point(|&t| t <= horizon);
    log.drain(..expired);
    let limit_usize = limit as usize;
    if log.len() < limit_usize {
        let at = log.partition_point(|&t| t <= now_us);
        log.insert(at, now_us);
        Decision {
            allowed: true,
            limit,
            remaining: (limit_usize - log.len()) as u32,
            reset_after_us: log[0].saturating_add(window_us).saturating_sub(now_us),
            retry_after_us: 0,
        }
    } else {
        // The request becomes admissible once enough old entries leave the window that
        // fewer than `limit` remain: that is when entry number len-limit expires.
        let retry_after_us = match log.get(log.len() - limit_usize) {
            Some(&t) => t.saturating_add(window_us).saturating_sub(now_us),
            None => window_us,
        };
        Decision {
            allowed: false,
            limit,
            remaining: 0,
            reset_after_us: log.first().map_or(window_us, |&t| {
                t.saturating_add(window_us).saturating_sub(now_us)
            }),
            retry_after_us: retry_after_us.max(1),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    const S: i64 = 1_000_000;

    #[test]
    fn routes_map_to_buckets() {
        assert_eq!(
            Bucket::for_route("POST", "/v2/tracking_requests"),
            Bucket::CreateTrackingRequest
        );
        assert_eq!(
            Bucket::for_route("GET", "/v2/tracking_requests"),
            Bucket::Default
        );
        assert_eq!(
            Bucket::for_route("POST", "/v2/tracking_requests/infer_number"),
            Bucket::InferNumber
        );
        assert_eq!(
            Bucket::for_route("PATCH", "/v2/containers/{id}/refresh"),
            Bucket::RefreshContainer
        );
        assert_eq!(
            Bucket::for_route("GET", "/v2/containers/{id}"),
            Bucket::Default
        );
    }

    #[test]
    fn overrides_parse_and_apply() {
        let (b, n) = Limits::parse_override("containers.refresh=3").unwrap();
        let limits = Limits([(b, n)].into_iter().collect());
        assert_eq!(limits.limit(Bucket::RefreshContainer), 3);
        assert_eq!(limits.limit(Bucket::Default), 100);
        assert!(matches!(
            Limits::parse_override("nope=3"),
            Err(LimitParseError::Bucket(_))
        ));
        assert!(matches!(
            Limits::parse_override("default=lots"),
            Err(LimitParseError::Shape(_))
        ));
        let json = serde_json::to_string(&limits).unwrap();
        assert_eq!(json, r#"{"containers.refresh":3}"#);
    }

    #[test]
    fn third_call_of_two_is_refused_until_the_first_leaves() {
        let mut log = Vec::new();
        assert!(admit(&mut log, 0, 2, WINDOW_US).allowed);
        let d = admit(&mut log, 10 * S, 2, WINDOW_US);
        assert!(d.allowed);
        assert_eq!(d.remaining, 0);
        let refused = admit(&mut log, 20 * S, 2, WINDOW_US);
        assert!(!refused.allowed);
        assert_eq!(refused.retry_after_secs(), 40);
        assert_eq!(log.len(), 2);
        // just before the first call leaves the window: still refused
        assert!(!admit(&mut log, 60 * S - 1, 2, WINDOW_US).allowed);
        let again = admit(&mut log, 60 * S, 2, WINDOW_US);
        assert!(again.allowed);
        assert_eq!(log, vec![10 * S, 60 * S]);
    }

    #[test]
    fn zero_limit_refuses_everything() {
        let mut log = Vec::new();
        let d = admit(&mut log, 5, 0, WINDOW_US);
        assert!(!d.allowed);
        assert_eq!(d.retry_after_secs(), 60);
    }

    #[test]
    fn lowering_a_limit_waits_for_enough_entries_to_expire() {
        let mut log = vec![0, S, 2 * S, 3 * S];
        let d = admit(&mut log, 4 * S, 2, WINDOW_US);
        assert!(!d.allowed);
        // four recorded, limit two: admissible once the 3rd oldest (index 2) expires
        assert_eq!(d.retry_after_us, 2 * S + WINDOW_US - 4 * S);
    }

    proptest! {
        /// No window of length WINDOW_US ever contains more than `limit` admitted requests,
        /// and a refused request becomes admissible exactly after `retry_after_us`.
        #[test]
        fn never_more_than_limit_in_any_window(
            limit in 0u32..8,
            gaps in proptest::collection::vec(0i64..30 * S, 1..120),
        ) {
            let mut log = Vec::new();
            let mut admitted: Vec<i64> = Vec::new();
            let mut now = 0i64;
            for gap in gaps {
                now += gap;
                let d = admit(&mut log, now, limit, WINDOW_US);
                prop_assert!(log.len() <= limit as usize);
                prop_assert!(log.windows(2).all(|w| w[0] <= w[1]));
                if d.allowed {
                    admitted.push(now);
                    prop_assert_eq!(d.remaining as usize, limit as usize - log.len());
                } else {
                    prop_assert!(d.retry_after_us >= 1);
                    let mut probe = log.clone();
                    if d.retry_after_us > 1 {
                        prop_assert!(!admit(&mut probe.clone(), now + d.retry_after_us - 1, limit, WINDOW_US).allowed);
                    }
                    if limit > 0 {
                        prop_assert!(admit(&mut probe, now + d.retry_after_us, limit, WINDOW_US).allowed);
                    }
                }
            }
            for (i, &t) in admitted.iter().enumerate() {
                let in_window = admitted[i..].iter().take_while(|&&u| u < t + WINDOW_US).count();
                prop_assert!(in_window <= limit as usize);
            }
        }
    }
}
