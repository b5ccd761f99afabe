//! Where rate-limit windows live: in this process, or shared by every process in the database
//! or in Redis.
//!
//! A shared store is asked once per lease, not once per request: it grants a process up to a
//! thousandth of the limit at once (`boxtrack_core::ratelimit::lease_want`), counted in the
//! window at once, which the process then hands out one per request until the lease is used up
//! or its 5-second slot ends. Grants shrink to one admission as the window nears its limit
//! (`lease_grant`), so processes together never admit more than the limit and, near it, every
//! request is checked against the store. A limit of 100 a minute is checked request by request.

use std::collections::HashMap;
use std::collections::hash_map::Entry;
use std::sync::{Arc, Mutex};

use boxtrack_core::ratelimit::{
    Attempt, Bucket, Decision, Lease, SlotWindow, WINDOW_US, lease_want,
};
use boxtrack_store::ratelimit_redis::RedisLimits;
use boxtrack_store::{Db, now_us};
use uuid::Uuid;

use crate::error::ApiResult;

/// Admission windows by account and bucket, for the in-process limiter.
pub type MemoryLogs = Arc<Mutex<HashMap<(Uuid, Bucket), SlotWindow>>>;

/// Admissions granted to this process by a shared store, by account and bucket.
type Leases = Arc<Mutex<HashMap<(Uuid, Bucket), Lease>>>;

/// Where rate-limit windows live.
#[derive(Clone)]
pub enum Store {
    /// In this process only (one process on SQLite).
    Memory(MemoryLogs),
    /// In the database, shared by every process on it.
    Database(Db),
    /// In a Redis server, shared by every process that uses it.
    Redis(RedisLimits),
}

/// The rate limiter of one process: its store, and the admissions a shared store granted it.
#[derive(Clone)]
pub struct Limiter {
    store: Store,
    leases: Leases,
}

impl Limiter {
    /// An in-process limiter.
    pub fn memory() -> Limiter {
        Limiter::on(Store::Memory(Arc::default()))
    }

    /// A limiter shared by every process on `db`.
    pub fn database(db: Db) -> Limiter {
        Limiter::on(Store::Database(db))
    }

    /// A limiter shared by every process that uses the Redis server behind `redis`.
    pub fn redis(redis: RedisLimits) -> Limiter {
        Limiter::on(Store::Redis(redis))
    }

    fn on(store: Store) -> Limiter {
        Limiter {
            store,
            leases: Arc::default(),
        }
    }

    /// Where this limiter keeps its windows.
    pub fn store(&self) -> &Store {
        &self.store
    }

    /// How much of `bucket`'s limit `account` used in the last minute, as far as this
    /// limiter can tell without counting a request: the process's own window in memory, the
    /// shared window in the database (grants included), `None` for Redis (its windows are read
    /// only by the script that admits).
    pub async fn used(&self, account: Uuid, bucket: Bucket) -> ApiResult<Option<u64>> {
        let now = now_us();
        Ok(match &self.store {
            Store::Memory(map) => {
                let g = map.lock().unwrap_or_else(|p| p.into_inner());
                Some(
                    g.get(&(account, bucket))
                        .map_or(0, |w| w.used_at(now, WINDOW_US)),
                )
            }
            Store::Database(db) => {
                Some(boxtrack_store::ratelimit::used(db, account, bucket, now).await?)
            }
            Store::Redis(_) => None,
        })
    }

    /// Checks and records one attempt at something anyone may try without an API key (a
    /// sign-in, a token request, a client registration), in a window of its own keyed by what
    /// it names; shared by every process when the limiter is.
    pub async fn attempt(&self, attempt: Attempt<'_>) -> ApiResult<Decision> {
        self.check(
            Uuid::from_bytes(attempt.key()),
            Bucket::Default,
            attempt.per_minute(),
        )
        .await
    }

    /// Checks and records one request.
    pub async fn check(&self, account: Uuid, bucket: Bucket, limit: u32) -> ApiResult<Decision> {
        let now = now_us();
        let key = (account, bucket);
        let want = match self.store {
            Store::Memory(_) => 1,
            Store::Database(_) | Store::Redis(_) => lease_want(limit),
        };
        if want > 1 {
            let mut g = self.leases.lock().unwrap_or_else(|p| p.into_inner());
            if let Some(d) = g.get_mut(&key).and_then(|l| l.take(now, limit)) {
                return Ok(d);
            }
        }
        let (decision, granted) = match &self.store {
            Store::Memory(map) => {
                let mut g = map.lock().unwrap_or_else(|p| p.into_inner());
                let d = g.entry(key).or_default().admit(now, limit, WINDOW_US);
                (d, u64::from(d.allowed))
            }
            // boxed: taken once a lease runs out, and their futures would otherwise make every
            // request's (this one's, the guard's) as large as theirs
            Store::Database(db) => {
                Box::pin(boxtrack_store::ratelimit::check_lease(
                    db, account, bucket, limit, want, now,
                ))
                .await?
            }
            Store::Redis(r) => Box::pin(r.check_lease(account, bucket, limit, want, now)).await?,
        };
        if granted <= 1 {
            return Ok(decision);
        }
        let lease = Lease::granted(now, granted, &decision);
        let mut g = self.leases.lock().unwrap_or_else(|p| p.into_inner());
        let held = match g.entry(key) {
            Entry::Occupied(e) => {
                let held = e.into_mut();
                held.add(lease);
                held
            }
            Entry::Vacant(e) => e.insert(lease),
        };
        Ok(held.first(decision))
    }
}
