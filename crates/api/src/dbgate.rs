//! Failing fast while the database cannot be reached.
//!
//! A database that refuses connections (a PostgreSQL server restarting) makes every request
//! wait for a connection up to the pool's acquire timeout (10 s) before its 503: under load
//! the waiting requests pile up, holding connections and memory, and every client waits the
//! full timeout for an answer it could have had at once. Once a REST request has found the
//! database unreachable, the gate is closed: REST requests are answered a JSON:API 503
//! `database_unavailable` at once, without touching the database, except one request at a
//! time, at most one a [`PROBE_EVERY`], which goes through as a probe. The first probe that
//! is answered without a server error opens the gate again.
//!
//! [`Gate`] is the state machine, with the clock passed in; [`DbGate`] shares it between
//! requests.

use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// How often a request goes through to the database while the gate is closed.
pub const PROBE_EVERY: Duration = Duration::from_secs(1);

/// What becomes of a request at the gate.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Admission {
    /// The database is taken to be up: the request goes through.
    Pass,
    /// The gate is closed, and this request goes through to find out whether the database
    /// is back.
    Probe,
    /// The gate is closed: answered 503 at once.
    Refuse,
}

/// The gate's state: open, or closed since a request found the database unreachable.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Gate {
    /// `Some(time of the last probe's start, or of the closing)` while closed.
    closed_at: Option<Instant>,
    /// A probe is in flight.
    probing: bool,
}

impl Gate {
    /// Whether the gate is closed.
    pub fn is_closed(&self) -> bool {
        self.closed_at.is_some()
    }

    /// Admits a request arriving at `now`.
    pub fn admit(&mut self, now: Instant) -> Admission {
        match self.closed_at {
            None => Admission::Pass,
            Some(last) if !self.probing && now.saturating_duration_since(last) >= PROBE_EVERY => {
                self.probing = true;
                self.closed_at = Some(now);
                Admission::Probe
            }
            Some(_) => Admission::Refuse,
        }
    }

    /// Records what became of a request admitted as `admission` that ended at `now`:
    /// whether it found the database unreachable, and whether it was answered a server error.
    /// Returns whether the gate changed (closed or opened).
    pub fn ended(
        &mut self,
        admission: Admission,
        now: Instant,
        unreachable: bool,
        server_error: bool,
    ) -> bool {
        if admission == Admission::Probe {
            self.probing = false;
        }
        match (admission, unreachable) {
            (Admission::Refuse, _) => false,
            (_, true) => {
                let was_open = self.closed_at.is_none();
                if was_open {
                    self.closed_at = Some(now);
                }
                was_open
            }
            // a probe answered without a server error: the database is back
            (Admission::Probe, false) if !server_error => {
                self.closed_at = None;
                true
            }
            _ => false,
        }
    }

    /// A probe that never ended (its request was abandoned) lets the next one go.
    pub fn abandoned(&mut self, admission: Admission) {
        if admission == Admission::Probe {
            self.probing = false;
        }
    }
}

/// A [`Gate`] shared by the requests of a process. While it is open (nearly always) a
/// request reads one atomic flag on its way in and, unless it found the database
/// unreachable, touches nothing on its way out; the lock is taken only around an outage.
#[derive(Debug, Default)]
pub struct DbGate {
    /// Mirrors `gate.is_closed()`, written under the lock.
    closed: AtomicBool,
    gate: Mutex<Gate>,
}

impl DbGate {
    /// Admits a request arriving now.
    pub fn admit(&self) -> Admission {
        if !self.closed.load(Ordering::Acquire) {
            return Admission::Pass;
        }
        match self.gate.lock() {
            Ok(mut g) => g.admit(Instant::now()),
            // a poisoned lock (a panic while held, which the code above cannot do) lets
            // every request through, as without a gate
            Err(_) => Admission::Pass,
        }
    }

    /// Records the end of a request (see [`Gate::ended`]) and logs a change of the gate.
    pub fn ended(&self, admission: Admission, unreachable: bool, server_error: bool) {
        // a request let through an open gate that found the database can change nothing
        if admission == Admission::Pass && !unreachable {
            return;
        }
        let Ok(mut g) = self.gate.lock() else { return };
        let changed = g.ended(admission, Instant::now(), unreachable, server_error);
        self.closed.store(g.is_closed(), Ordering::Release);
        if changed {
            if g.is_closed() {
                tracing::warn!(
                    "the database cannot be reached: REST requests are answered 503 at once, one a second goes through to find out when it is back"
                );
            } else {
                tracing::info!("the database answers again: REST requests go through");
            }
        }
    }

    /// Records a request that ended without an answer (see [`Gate::abandoned`]).
    pub fn abandoned(&self, admission: Admission) {
        if admission == Admission::Pass {
            return;
        }
        if let Ok(mut g) = self.gate.lock() {
            g.abandoned(admission);
        }
    }
}

/// Marks a response whose request found the database unreachable (set by
/// [`crate::error::ApiError`]'s conversion into a response).
#[derive(Debug, Clone, Copy)]
pub struct Unreachable;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_open_gate_lets_every_request_through() {
        let mut g = Gate::default();
        let t = Instant::now();
        assert_eq!(g.admit(t), Admission::Pass);
        assert!(
            !g.ended(Admission::Pass, t, false, true),
            "a 500 is no outage"
        );
        assert_eq!(g.admit(t), Admission::Pass);
    }

    #[test]
    fn an_unreachable_database_closes_the_gate_until_a_probe_gets_through() {
        let mut g = Gate::default();
        let t = Instant::now();
        assert!(g.ended(Admission::Pass, t, true, true), "closed");
        // refused at once until a probe is due
        assert_eq!(g.admit(t), Admission::Refuse);
        assert_eq!(g.admit(t + PROBE_EVERY / 2), Admission::Refuse);
        let p = t + PROBE_EVERY;
        assert_eq!(g.admit(p), Admission::Probe);
        // one probe at a time, however long it takes
        assert_eq!(g.admit(p + PROBE_EVERY * 3), Admission::Refuse);
        // the probe finds it still down: the next probe a while after
        assert!(!g.ended(Admission::Probe, p + PROBE_EVERY * 3, true, true));
        assert_eq!(g.admit(p + PROBE_EVERY * 3), Admission::Probe);
        let q = p + PROBE_EVERY * 3;
        // a probe that ends in another server error (a timeout) keeps it closed
        assert!(!g.ended(Admission::Probe, q, false, true));
        assert!(g.is_closed());
        assert_eq!(g.admit(q + PROBE_EVERY), Admission::Probe);
        // back
        assert!(g.ended(Admission::Probe, q + PROBE_EVERY, false, false));
        assert_eq!(g.admit(q + PROBE_EVERY), Admission::Pass);
    }

    #[test]
    fn the_shared_gate_closes_on_an_unreachable_database() {
        let gate = DbGate::default();
        assert_eq!(gate.admit(), Admission::Pass);
        gate.ended(Admission::Pass, false, false);
        assert_eq!(gate.admit(), Admission::Pass);
        gate.ended(Admission::Pass, true, true);
        assert_eq!(gate.admit(), Admission::Refuse);
    }

    #[test]
    fn an_abandoned_probe_lets_the_next_one_go() {
        let mut g = Gate::default();
        let t = Instant::now();
        g.ended(Admission::Pass, t, true, true);
        assert_eq!(g.admit(t + PROBE_EVERY), Admission::Probe);
        g.abandoned(Admission::Probe);
        assert_eq!(g.admit(t + PROBE_EVERY * 2), Admission::Probe);
    }

    #[test]
    fn requests_that_were_waiting_when_it_closed_do_not_reopen_it() {
        let mut g = Gate::default();
        let t = Instant::now();
        g.ended(Admission::Pass, t, true, true);
        // another request admitted before the closing ends well (it had its connection)
        assert!(!g.ended(Admission::Pass, t, false, false));
        assert!(g.is_closed());
    }
}
