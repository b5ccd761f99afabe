//! Rate limits: buckets, per-account limits and the rolling-window admission rule.
//!
//! A bucket admits at most `limit` requests in any rolling window of [`WINDOW_US`]. The rule,
//! [`SlotWindow`], counts admissions per 5-second slot over the window: constant space (13
//! counters) whatever the limit, so the state is as cheap to keep in a database row or a
//! shared store as in memory, and `Retry-After` is the moment the slot that blocks leaves the
//! window (at most one slot later than an exact log of every admission time would say).

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
    /// The embeddable map and widget (`/embed/v1/*`), counted per publishable key.
    #[serde(rename = "embed")]
    Embed,
}

impl Bucket {
    /// Every bucket.
    pub const ALL: [Bucket; 5] = [
        Bucket::Default,
        Bucket::CreateTrackingRequest,
        Bucket::InferNumber,
        Bucket::RefreshContainer,
        Bucket::Embed,
    ];

    /// The name used in configuration, headers and metrics.
    pub fn as_str(self) -> &'static str {
        match self {
            Bucket::Default => "default",
            Bucket::CreateTrackingRequest => "tracking_requests.create",
            Bucket::InferNumber => "tracking_requests.infer_number",
            Bucket::RefreshContainer => "containers.refresh",
            Bucket::Embed => "embed",
        }
    }

    /// The limit per rolling minute unless an account overrides it.
    pub fn default_limit(self) -> u32 {
        match self {
            Bucket::Default => 100,
            Bucket::CreateTrackingRequest => 100,
            Bucket::InferNumber => 200,
            Bucket::RefreshContainer => 10,
            Bucket::Embed => 600,
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
        "unknown rate-limit bucket {0:?}; expected one of: default, tracking_requests.create, tracking_requests.infer_number, containers.refresh, embed"
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

/// How many slots [`SlotWindow`] divides time into: 12 per window plus the current one.
pub const SLOTS: usize = 13;

/// The rolling window in constant space: admissions counted per slot of a twelfth of the
/// window (5 s), over the current slot and the twelve before it.
///
/// What a slot counted stays counted until the slot is wholly older than the window, so a
/// bucket never admits more than `limit` requests in any rolling window (the sliding log's
/// guarantee) and admits again at most one slot (5 s) later than the exact log would. Its
/// state is 13 counters and a slot number whatever the limit, so a shared store (a database
/// row, a Redis hash) reads and writes the same few bytes for a limit of 100 or 100 million.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SlotWindow {
    /// The newest slot counted (`time / slot length`).
    pub slot: i64,
    /// Admissions per slot, at `slot % SLOTS`.
    pub counts: [u64; SLOTS],
}

impl SlotWindow {
    /// The length of one slot for a window.
    pub fn slot_len(window_us: i64) -> i64 {
        (window_us / (SLOTS as i64 - 1)).max(1)
    }

    /// Forgets the slots older than the window ending in `slot` (a clock that steps back
    /// keeps the newer slot).
    fn advance(&mut self, slot: i64) {
        if slot <= self.slot {
            return;
        }
        let steps = (slot - self.slot).min(SLOTS as i64);
        for k in 1..=steps {
            let i = (self.slot + k).rem_euclid(SLOTS as i64) as usize;
            self.counts[i] = 0;
        }
        self.slot = slot;
    }

    /// The slot that `now_us` falls in.
    pub fn slot_of(now_us: i64, window_us: i64) -> i64 {
        now_us.div_euclid(Self::slot_len(window_us))
    }

    /// The window whose newest slot is `newest`, from per-slot counts (as a shared store
    /// keeps them, one row per slot); slots outside the window are left out.
    pub fn from_slots(newest: i64, slots: impl IntoIterator<Item = (i64, u64)>) -> SlotWindow {
        let mut w = SlotWindow {
            slot: newest,
            counts: [0; SLOTS],
        };
        for (slot, count) in slots {
            if slot <= newest && slot > newest - SLOTS as i64 {
                w.counts[slot.rem_euclid(SLOTS as i64) as usize] += count;
            }
        }
        w
    }

    /// How many admissions the window holds.
    pub fn total(&self) -> u64 {
        self.counts.iter().sum()
    }

    /// How many admissions the window ending at `now_us` holds (what the account used of its
    /// limit), without counting one.
    pub fn used_at(&self, now_us: i64, window_us: i64) -> u64 {
        let mut w = self.clone();
        w.advance(Self::slot_of(now_us, window_us));
        w.total()
    }

    /// The count of the slot `age` slots before the newest.
    fn aged(&self, age: i64) -> u64 {
        self.counts[(self.slot - age).rem_euclid(SLOTS as i64) as usize]
    }

    /// Decides whether a request at `now_us` fits under `limit` and counts it if so.
    pub fn admit(&mut self, now_us: i64, limit: u32, window_us: i64) -> Decision {
        let len = Self::slot_len(window_us);
        let slot = now_us.div_euclid(len);
        self.advance(slot);
        let limit64 = u64::from(limit);
        let total = self.total();
        // when the oldest counted slot leaves: the slot `SLOTS - 1` before the newest is
        // forgotten once the newest is `SLOTS` past it
        let leaves = |age: i64| (self.slot - age + SLOTS as i64) * len - now_us;
        let oldest_age = (0..SLOTS as i64).rev().find(|&a| self.aged(a) > 0);
        if total < limit64 {
            // in the newest slot (a request from a clock that stepped back counts there too)
            self.counts[self.slot.rem_euclid(SLOTS as i64) as usize] += 1;
            let oldest_age = oldest_age.unwrap_or(0);
            return Decision {
                allowed: true,
                limit,
                remaining: u32::try_from(limit64 - total - 1).unwrap_or(0),
                reset_after_us: leaves(oldest_age).max(0),
                retry_after_us: 0,
            };
        }
        // refused: admissible once enough of the oldest slots have left
        let mut left = total;
        let mut retry = window_us;
        for age in (0..SLOTS as i64).rev() {
            left -= self.aged(age);
            if left < limit64 {
                retry = leaves(age);
                break;
            }
        }
        Decision {
            allowed: false,
            limit,
            remaining: 0,
            reset_after_us: oldest_age.map_or(window_us, |a| leaves(a).max(0)),
            retry_after_us: retry.max(1),
        }
    }
}

/// Admissions a process asks a shared store for at once: a thousandth of the limit, at least
/// one and at most a thousand. A limit of 100 a minute is checked request by request; a limit
/// of 100 million is checked once per thousand requests.
pub fn lease_want(limit: u32) -> u64 {
    u64::from(limit / 1000).clamp(1, 1000)
}

/// What a shared store grants of `want` admissions when the window holds `total` of `limit`:
/// nothing when it is full, else a hundredth of what remains, at least one and at most `want`.
/// Granted admissions count in the window at once, so the processes together never admit more
/// than the limit; what a process was granted and does not use before its slot ends is
/// stranded, at most a hundredth of what remained, so near the limit checks are exact.
pub fn lease_grant(want: u64, total: u64, limit: u64) -> u64 {
    let remaining = limit.saturating_sub(total);
    if remaining == 0 {
        return 0;
    }
    (remaining / 100).clamp(1, want.max(1))
}

/// Admissions a shared store granted to this process for one slot, taken one per request
/// without asking the store again.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Lease {
    /// The slot the admissions were counted in; they are good in that slot only (used later,
    /// they would leave the window early).
    pub slot: i64,
    /// Admissions not yet taken.
    pub left: u64,
    /// What the store said remained in the window after its last grant.
    pub shared_remaining: u32,
    /// When the store's window resets, in Unix microseconds.
    pub reset_at_us: i64,
}

impl Lease {
    /// A lease from a store's decision at `now_us` that granted `granted` admissions of
    /// which the request that asked takes the first.
    pub fn granted(now_us: i64, granted: u64, decision: &Decision) -> Lease {
        Lease {
            slot: SlotWindow::slot_of(now_us, WINDOW_US),
            left: granted.saturating_sub(1),
            shared_remaining: decision.remaining,
            reset_at_us: now_us + decision.reset_after_us,
        }
    }

    /// Adds a newer grant (for the same slot: what was left stays usable).
    pub fn add(&mut self, newer: Lease) {
        if newer.slot == self.slot {
            self.left += newer.left;
            self.shared_remaining = newer.shared_remaining;
            self.reset_at_us = newer.reset_at_us;
        } else if newer.slot > self.slot {
            *self = newer;
        }
    }

    /// Takes one admission at `now_us` if the lease has one for the slot of `now_us`.
    pub fn take(&mut self, now_us: i64, limit: u32) -> Option<Decision> {
        if self.left == 0 || SlotWindow::slot_of(now_us, WINDOW_US) != self.slot {
            return None;
        }
        self.left -= 1;
        let remaining = u64::from(self.shared_remaining) + self.left;
        Some(Decision {
            allowed: true,
            limit,
            remaining: u32::try_from(remaining).unwrap_or(u32::MAX).min(limit),
            reset_after_us: (self.reset_at_us - now_us).max(0),
            retry_after_us: 0,
        })
    }

    /// The decision for the request that asked for a grant: the store's, with what this
    /// process still holds counted as remaining.
    pub fn first(&self, decision: Decision) -> Decision {
        let remaining = u64::from(decision.remaining) + self.left;
        Decision {
            remaining: u32::try_from(remaining)
                .unwrap_or(u32::MAX)
                .min(decision.limit),
            ..decision
        }
    }
}

/// An attempt at something anyone may try without an API key, limited by what it names rather
/// than by an account: guessing one user's password, one client's token requests or one
/// address's client registrations go no faster than its limit, whichever endpoint is used.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Attempt<'a> {
    /// Signing in as an email, on the console or on the OAuth authorize page: one limit for
    /// both, case-insensitive, unknown emails included.
    SignIn(&'a str),
    /// A request to the OAuth token endpoint by a client id.
    Token(&'a str),
    /// A dynamic client registration from a peer address.
    Registration(std::net::IpAddr),
}

/// Sign-in attempts accepted per email a minute, counted before the password is checked.
pub const SIGN_IN_ATTEMPTS_PER_MINUTE: u32 = 10;
/// Token requests accepted per OAuth client a minute (a client refreshes once an hour).
pub const TOKEN_REQUESTS_PER_MINUTE: u32 = 60;
/// Client registrations accepted per peer address a minute.
pub const REGISTRATIONS_PER_MINUTE: u32 = 10;

impl Attempt<'_> {
    /// The limiter's key: 16 bytes of a digest of what the attempt names, so no account's id
    /// and no two kinds of attempt collide.
    pub fn key(&self) -> [u8; 16] {
        let named = match self {
            // the console's key since it had one, so windows survive an upgrade
            Attempt::SignIn(email) => format!("console sign-in {}", email.trim().to_lowercase()),
            Attempt::Token(client) => format!("oauth token {client}"),
            Attempt::Registration(ip) => format!("oauth register {ip}"),
        };
        let d = sha2::Digest::finalize(<sha2::Sha256 as sha2::Digest>::new_with_prefix(
            named.as_bytes(),
        ));
        let mut key = [0u8; 16];
        key.copy_from_slice(&d[..16]);
        key
    }

    /// Attempts of this kind accepted a minute.
    pub fn per_minute(&self) -> u32 {
        match self {
            Attempt::SignIn(_) => SIGN_IN_ATTEMPTS_PER_MINUTE,
            Attempt::Token(_) => TOKEN_REQUESTS_PER_MINUTE,
            Attempt::Registration(_) => REGISTRATIONS_PER_MINUTE,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    const S: i64 = 1_000_000;

    #[test]
    fn attempts_are_keyed_by_what_they_name() {
        assert_eq!(
            Attempt::SignIn("Ana@Example.com ").key(),
            Attempt::SignIn("ana@example.com").key()
        );
        assert_ne!(
            Attempt::SignIn("ana@example.com").key(),
            Attempt::SignIn("bo@example.com").key()
        );
        assert_ne!(
            Attempt::SignIn("x").key(),
            Attempt::Token("x").key(),
            "kinds never share a window"
        );
        let ip = std::net::IpAddr::from([10, 0, 0, 1]);
        assert_ne!(
            Attempt::Registration(ip).key(),
            Attempt::Registration(std::net::IpAddr::from([10, 0, 0, 2])).key()
        );
        // the console's key before attempts were shared: the first 16 bytes of the digest
        let old = crate::oauth::digest("console sign-in ana@example.com");
        assert_eq!(
            hex::encode(Attempt::SignIn("ana@example.com").key()),
            old[..32]
        );
    }

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
        let mut w = SlotWindow::default();
        assert!(w.admit(0, 2, WINDOW_US).allowed);
        let d = w.admit(10 * S, 2, WINDOW_US);
        assert!(d.allowed);
        assert_eq!(d.remaining, 0);
        let refused = w.admit(20 * S, 2, WINDOW_US);
        assert!(!refused.allowed);
        // the first call's slot [0, 5 s) leaves the window at 65 s
        assert_eq!(refused.retry_after_secs(), 45);
        assert_eq!(w.total(), 2);
        assert!(!w.admit(65 * S - 1, 2, WINDOW_US).allowed);
        let again = w.admit(65 * S, 2, WINDOW_US);
        assert!(again.allowed);
        assert_eq!(w.total(), 2);
    }

    #[test]
    fn zero_limit_refuses_everything() {
        let mut w = SlotWindow::default();
        let d = w.admit(5, 0, WINDOW_US);
        assert!(!d.allowed);
        assert_eq!(d.retry_after_secs(), 60);
    }

    #[test]
    fn lowering_a_limit_waits_for_enough_slots_to_leave() {
        let mut w = SlotWindow::default();
        for t in [0, 6 * S, 12 * S, 18 * S] {
            assert!(w.admit(t, 10, WINDOW_US).allowed);
        }
        let d = w.admit(19 * S, 2, WINDOW_US);
        assert!(!d.allowed);
        // four counted in slots 0, 1, 2 and 3, limit two: admissible once slot 2 ([10 s,
        // 15 s)) leaves, at 75 s
        assert_eq!(d.retry_after_us, 75 * S - 19 * S);
    }

    #[test]
    fn a_window_rebuilt_from_stored_slots_decides_as_the_one_in_memory() {
        let mut w = SlotWindow::default();
        let mut stored: Vec<(i64, u64)> = Vec::new();
        for t in [0, 4 * S, 9 * S, 31 * S, 59 * S] {
            assert!(w.admit(t, 5, WINDOW_US).allowed);
            let slot = SlotWindow::slot_of(t, WINDOW_US);
            match stored.iter_mut().find(|(s, _)| *s == slot) {
                Some((_, c)) => *c += 1,
                None => stored.push((slot, 1)),
            }
        }
        let now = 61 * S;
        let mut rebuilt = SlotWindow::from_slots(SlotWindow::slot_of(now, WINDOW_US), stored);
        let mut kept = w.clone();
        assert_eq!(
            rebuilt.admit(now, 5, WINDOW_US),
            kept.admit(now, 5, WINDOW_US)
        );
        // a slot older than the window is left out
        let old = SlotWindow::from_slots(20, [(7, 3), (8, 2)]);
        assert_eq!(old.total(), 2);
    }

    #[test]
    fn a_clock_that_steps_back_counts_in_the_newest_slot() {
        let mut w = SlotWindow::default();
        assert!(w.admit(30 * S, 2, WINDOW_US).allowed);
        assert!(w.admit(20 * S, 2, WINDOW_US).allowed);
        assert!(!w.admit(25 * S, 2, WINDOW_US).allowed);
        assert_eq!(w.slot, 6);
    }

    #[test]
    fn leases_are_single_admissions_at_small_limits_and_shrink_near_the_limit() {
        assert_eq!(lease_want(100), 1);
        assert_eq!(lease_want(100_000_000), 1000);
        assert_eq!(lease_grant(1000, 0, 100_000_000), 1000);
        // a hundredth of what remains near the limit, then one at a time
        assert_eq!(lease_grant(1000, 100_000_000 - 50_000, 100_000_000), 500);
        assert_eq!(lease_grant(1000, 100_000_000 - 99, 100_000_000), 1);
        assert_eq!(lease_grant(1000, 100_000_000, 100_000_000), 0);
        assert_eq!(lease_grant(1, 0, 100), 1);
    }

    #[test]
    fn a_lease_is_good_in_its_slot_only() {
        let d = Decision {
            allowed: true,
            limit: 1000,
            remaining: 900,
            reset_after_us: 60 * S,
            retry_after_us: 0,
        };
        let mut lease = Lease::granted(S, 3, &d);
        assert_eq!(lease.first(d).remaining, 902);
        let one = lease.take(2 * S, 1000).unwrap();
        assert_eq!((one.remaining, one.reset_after_us), (901, 59 * S));
        assert!(lease.take(2 * S, 1000).is_some());
        assert!(lease.take(2 * S, 1000).is_none(), "used up");
        let mut lease = Lease::granted(S, 3, &d);
        assert!(lease.take(6 * S, 1000).is_none(), "the next slot");
        lease.add(Lease::granted(S, 5, &d));
        assert_eq!(lease.left, 6);
    }

    proptest! {
        /// Processes that lease from one shared window never admit more than the limit in
        /// any rolling window, however their requests interleave.
        #[test]
        fn leasing_processes_never_admit_more_than_the_limit(
            limit in 1u32..5_000,
            calls in proptest::collection::vec((0usize..3, 0i64..3 * S), 1..3_000),
        ) {
            let mut shared = SlotWindow::default();
            let mut leases: [Option<Lease>; 3] = [None, None, None];
            let mut now = 0i64;
            let mut admitted: Vec<i64> = Vec::new();
            for (process, gap) in calls {
                now += gap;
                let local = leases[process].as_mut().and_then(|l| l.take(now, limit));
                let allowed = match local {
                    Some(_) => true,
                    None => {
                        // the store's rule: grant from the window as it stands
                        shared.advance(SlotWindow::slot_of(now, WINDOW_US));
                        let grant = lease_grant(lease_want(limit), shared.total(), u64::from(limit));
                        let mut d = None;
                        for _ in 0..grant {
                            d = Some(shared.admit(now, limit, WINDOW_US));
                        }
                        match d {
                            Some(d) if d.allowed => {
                                let l = Lease::granted(now, grant, &d);
                                match &mut leases[process] {
                                    Some(old) => old.add(l),
                                    slot => *slot = Some(l),
                                }
                                true
                            }
                            _ => false,
                        }
                    }
                };
                if allowed {
                    admitted.push(now);
                    let in_window = admitted.iter().filter(|t| **t > now - WINDOW_US).count();
                    prop_assert!(in_window <= limit as usize, "{in_window} > {limit}");
                }
            }
        }

        /// The window never admits more than `limit` in any rolling window, refuses only
        /// when `limit` were admitted within the window plus one slot, and admits again
        /// exactly after `retry_after_us`.
        #[test]
        fn slot_window_keeps_the_rolling_guarantee(
            limit in 0u32..8,
            gaps in proptest::collection::vec(0i64..20 * S, 1..150),
        ) {
            let len = SlotWindow::slot_len(WINDOW_US);
            let mut w = SlotWindow::default();
            let mut admitted: Vec<i64> = Vec::new();
            let mut now = 0i64;
            for gap in gaps {
                now += gap;
                let before = w.clone();
                let d = w.admit(now, limit, WINDOW_US);
                if d.allowed {
                    admitted.push(now);
                    prop_assert!(w.total() <= u64::from(limit));
                } else {
                    let recent = admitted.iter().filter(|&&t| t > now - WINDOW_US - len).count();
                    prop_assert!(recent >= limit as usize, "refused with {recent} recent");
                    prop_assert!(d.retry_after_us >= 1 && d.retry_after_us <= WINDOW_US + len);
                    if limit > 0 {
                        let mut probe = before.clone();
                        prop_assert!(probe.admit(now + d.retry_after_us, limit, WINDOW_US).allowed);
                        if d.retry_after_us > 1 {
                            let mut early = before.clone();
                            prop_assert!(!early.admit(now + d.retry_after_us - 1, limit, WINDOW_US).allowed);
                        }
                    }
                }
            }
            for (i, &t) in admitted.iter().enumerate() {
                let in_window = admitted[i..].iter().take_while(|&&u| u < t + WINDOW_US).count();
                prop_assert!(in_window <= limit as usize);
            }
        }
    }

    #[test]
    fn slot_window_state_does_not_grow_with_the_limit() {
        let mut w = SlotWindow::default();
        for i in 0..10_000 {
            assert!(w.admit(i, 100_000_000, WINDOW_US).allowed);
        }
        assert_eq!(w.total(), 10_000);
        assert!(serde_json::to_string(&w).unwrap().len() < 120);
        // a burst fills the limit, the next waits for the oldest slot to leave
        let mut w = SlotWindow::default();
        for _ in 0..3 {
            assert!(w.admit(7 * S, 3, WINDOW_US).allowed);
        }
        let d = w.admit(8 * S, 3, WINDOW_US);
        assert!(!d.allowed);
        // counted in the slot [5 s, 10 s): forgotten at 5 s + 13 slots of 5 s = 70 s
        assert_eq!(d.retry_after_us, 62 * S);
        assert!(w.admit(70 * S, 3, WINDOW_US).allowed);
    }

    #[test]
    fn used_counts_what_the_window_still_holds() {
        let mut w = SlotWindow::default();
        let len = SlotWindow::slot_len(WINDOW_US);
        for _ in 0..3 {
            assert!(w.admit(10 * len, 100, WINDOW_US).allowed);
        }
        assert!(w.admit(11 * len, 100, WINDOW_US).allowed);
        assert_eq!(w.used_at(11 * len, WINDOW_US), 4);
        // the first slot leaves once the newest is SLOTS past it; reading counts nothing
        assert_eq!(w.used_at((10 + SLOTS as i64) * len, WINDOW_US), 1);
        assert_eq!(w.used_at((11 + SLOTS as i64) * len, WINDOW_US), 0);
        assert_eq!(w.total(), 4);
    }
}
