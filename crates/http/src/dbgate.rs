//! Failing fast while the database cannot be reached.
//!
//! A database that refuses connections (a PostgreSQL server restarting) makes every request
//! wait for a connection up to the pool's acquire timeout (10 s) before its 503: under load
//! the waiting requests pile up, holding connections and memory, and every client waits the
//! full timeout for an answer it could have had at once. Once a request has found the
//! database unreachable, the gate is closed: REST, MCP and console requests are answered a
//! 503 `database_unavailable` at once, without touching the database. Whether it is back is
//! found out by the server itself, never by a client's request: while the gate is closed a
//! background task pings the database once a [`PROBE_EVERY`], each ping bounded by
//! [`PROBE_TIMEOUT`] whatever the pool's acquire timeout, and the first ping answered opens
//! the gate, so the first request after the recovery is served.
//!
//! [`Gate`] is the state machine, with the clock passed in; [`DbGate`] shares it between
//! requests and runs the prober.

use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// How often the database is pinged while the gate is closed.
pub const PROBE_EVERY: Duration = Duration::from_secs(1);

/// How long a ping may take before it counts as "still down".
pub const PROBE_TIMEOUT: Duration = Duration::from_secs(2);

/// What becomes of a request at the gate.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Admission {
    /// The database is taken to be up: the request goes through.
    Pass,
    /// The gate is closed: answered 503 at once.
    Refuse,
}

/// The gate's state: open, or closed since a request found the database unreachable.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Gate {
    /// `Some(time of the last ping's start, or of the closing)` while closed.
    closed_at: Option<Instant>,
    /// A ping is in flight.
    probing: bool,
}

impl Gate {
    /// Whether the gate is closed.
    pub fn is_closed(&self) -> bool {
        self.closed_at.is_some()
    }

    /// Admits a request: through while open, refused while closed (a client's request never
    /// probes).
    pub fn admit(&self) -> Admission {
        if self.is_closed() {
            Admission::Refuse
        } else {
            Admission::Pass
        }
    }

    /// Whether a ping is due at `now` (closed, none in flight, the last one
    /// [`PROBE_EVERY`] ago); if so, it is taken to start.
    pub fn probe_due(&mut self, now: Instant) -> bool {
        match self.closed_at {
            Some(last) if !self.probing && now.saturating_duration_since(last) >= PROBE_EVERY => {
                self.probing = true;
                self.closed_at = Some(now);
                true
            }
            _ => false,
        }
    }

    /// Records a ping's outcome: answered (`back`) opens the gate. Returns whether it opened.
    pub fn probed(&mut self, back: bool) -> bool {
        self.probing = false;
        if back && self.is_closed() {
            self.closed_at = None;
            return true;
        }
        false
    }

    /// Records the end of a request admitted through the open gate, at `now`: one that found
    /// the database unreachable closes it. Returns whether it closed.
    pub fn ended(&mut self, admission: Admission, now: Instant, unreachable: bool) -> bool {
        if admission == Admission::Pass && unreachable && self.closed_at.is_none() {
            self.closed_at = Some(now);
            return true;
        }
        false
    }
}

/// A [`Gate`] shared by the requests of a process. While it is open (nearly always) a
/// request reads one atomic flag on its way in and, unless it found the database
/// unreachable, touches nothing on its way out; the lock is taken only around an outage.
#[derive(Debug, Default)]
pub struct DbGate {
    /// Mirrors `gate.is_closed()`, written under the lock.
    closed: AtomicBool,
    /// The prober runs.
    watching: AtomicBool,
    gate: Mutex<Gate>,
}

impl DbGate {
    /// Admits a request arriving now.
    pub fn admit(&self) -> Admission {
        if self.closed.load(Ordering::Acquire) {
            Admission::Refuse
        } else {
            Admission::Pass
        }
    }

    /// Records the end of a request (see [`Gate::ended`]); when it closes the gate, logs it
    /// and starts the prober on `db` (one per process).
    pub fn ended(
        self: &std::sync::Arc<Self>,
        admission: Admission,
        unreachable: bool,
        db: &boxtrack_store::Db,
    ) {
        // a request let through an open gate that found the database can change nothing
        if !unreachable {
            return;
        }
        let closed = {
            let Ok(mut g) = self.gate.lock() else { return };
            let closed = g.ended(admission, Instant::now(), unreachable);
            self.closed.store(g.is_closed(), Ordering::Release);
            closed
        };
        if closed {
            tracing::warn!(
                "the database cannot be reached: REST, MCP and console requests are answered 503 at once; the server pings it every second to find out when it is back"
            );
            self.watch(db.clone());
        }
    }

    /// Starts the background prober unless it runs: a ping every [`PROBE_EVERY`] while the
    /// gate is closed, each bounded by [`PROBE_TIMEOUT`]; the first answered opens the gate.
    fn watch(self: &std::sync::Arc<Self>, db: boxtrack_store::Db) {
        if self.watching.swap(true, Ordering::AcqRel) {
            return;
        }
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            self.watching.store(false, Ordering::Release);
            return;
        };
        let gate = self.clone();
        runtime.spawn(async move {
            loop {
                tokio::time::sleep(PROBE_EVERY).await;
                let due = match gate.gate.lock() {
                    Ok(mut g) if g.is_closed() => g.probe_due(Instant::now()),
                    _ => break,
                };
                if !due {
                    continue;
                }
                let back = matches!(
                    tokio::time::timeout(PROBE_TIMEOUT, db.ping()).await,
                    Ok(Ok(()))
                );
                let Ok(mut g) = gate.gate.lock() else { break };
                let opened = g.probed(back);
                gate.closed.store(g.is_closed(), Ordering::Release);
                if opened {
                    tracing::info!("the database answers again: requests go through");
                    break;
                }
            }
            gate.watching.store(false, Ordering::Release);
        });
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
        assert_eq!(g.admit(), Admission::Pass);
        assert!(!g.ended(Admission::Pass, t, false), "a 500 is no outage");
        assert_eq!(g.admit(), Admission::Pass);
        assert!(!g.probe_due(t + PROBE_EVERY * 5), "nothing to probe");
    }

    #[test]
    fn a_closed_gate_refuses_every_request_and_is_opened_by_a_ping() {
        let mut g = Gate::default();
        let t = Instant::now();
        assert!(g.ended(Admission::Pass, t, true), "closed");
        // every request refused at once, however long the outage
        for k in 0..10 {
            assert_eq!(g.admit(), Admission::Refuse);
            assert!(!g.ended(Admission::Refuse, t + PROBE_EVERY * k, false));
        }
        // the server pings once a second, one ping at a time
        assert!(!g.probe_due(t + PROBE_EVERY / 2));
        let p = t + PROBE_EVERY;
        assert!(g.probe_due(p));
        assert!(!g.probe_due(p + PROBE_EVERY * 3), "one ping in flight");
        // still down: the next ping a second after this one started
        assert!(!g.probed(false));
        assert!(g.is_closed());
        assert!(g.probe_due(p + PROBE_EVERY));
        // back
        assert!(g.probed(true));
        assert_eq!(g.admit(), Admission::Pass);
    }

    #[test]
    fn requests_that_were_waiting_when_it_closed_do_not_reopen_it() {
        let mut g = Gate::default();
        let t = Instant::now();
        g.ended(Admission::Pass, t, true);
        // another request admitted before the closing ends well (it had its connection)
        assert!(!g.ended(Admission::Pass, t, false));
        assert!(g.is_closed());
    }
}
