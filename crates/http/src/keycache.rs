//! API keys recently seen by this process, so that a request does not read its key and
//! account from the database each time.
//!
//! An entry is trusted for [`FRESH`] (one second) and then read again, so a revoked key, a
//! changed plan or changed limits take effect in every process within a second; a key revoked
//! through this process is forgotten at once. A key in use is read again ahead of time: the
//! first request that finds its entry older than [`REFRESH`] still uses it and has it read in
//! the background, once, so busy keys never wait for the database (and never all of their
//! concurrent requests read it at the same instant). Only keys that authenticated are kept (an
//! unknown key is read every time, so guessing fills nothing), and the cache holds at most
//! [`CAPACITY`] keys (it starts over when full).

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use boxtrack_store::accounts::Account;
use uuid::Uuid;

/// How long an entry is trusted.
pub const FRESH: Duration = Duration::from_secs(1);
/// From what age a used entry is read again in the background.
pub const REFRESH: Duration = Duration::from_millis(500);
/// How many keys are kept at most.
pub const CAPACITY: usize = 10_000;

/// Authenticated keys by digest.
#[derive(Debug, Default)]
pub struct KeyCache {
    entries: Mutex<HashMap<String, Cached>>,
}

#[derive(Debug)]
struct Cached {
    at: Instant,
    key_id: Uuid,
    account: Arc<Account>,
    /// A background read of this entry is under way.
    refreshing: bool,
}

/// What the cache knows of a key.
#[derive(Debug)]
pub struct Found {
    /// The key's id.
    pub key_id: Uuid,
    /// Its account (shared: a request takes a reference count, not a copy).
    pub account: Arc<Account>,
    /// The caller should read the key again in the background (and [`KeyCache::put`] or
    /// [`KeyCache::forget`] it): the entry is getting old and nobody else is reading it.
    pub refresh: bool,
}

impl KeyCache {
    /// The key id and account of `digest`, if read less than [`FRESH`] ago.
    pub fn get(&self, digest: &str) -> Option<Found> {
        let mut g = self.entries.lock().unwrap_or_else(|p| p.into_inner());
        let e = g.get_mut(digest).filter(|e| e.at.elapsed() < FRESH)?;
        let refresh = !e.refreshing && e.at.elapsed() >= REFRESH;
        if refresh {
            e.refreshing = true;
        }
        Some(Found {
            key_id: e.key_id,
            account: e.account.clone(),
            refresh,
        })
    }

    /// Remembers what `digest` authenticated as.
    pub fn put(&self, digest: String, key_id: Uuid, account: Arc<Account>) {
        let mut g = self.entries.lock().unwrap_or_else(|p| p.into_inner());
        if g.len() >= CAPACITY && !g.contains_key(&digest) {
            g.clear();
        }
        g.insert(
            digest,
            Cached {
                at: Instant::now(),
                key_id,
                account,
                refreshing: false,
            },
        );
    }

    /// Forgets a key by digest (it no longer authenticates).
    pub fn forget(&self, digest: &str) {
        let mut g = self.entries.lock().unwrap_or_else(|p| p.into_inner());
        g.remove(digest);
    }

    /// Lets another request try the background read of `digest` again (this one failed).
    pub fn refresh_failed(&self, digest: &str) {
        let mut g = self.entries.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(e) = g.get_mut(digest) {
            e.refreshing = false;
        }
    }

    /// Forgets a key (revoked through this process).
    pub fn forget_key(&self, key_id: Uuid) {
        let mut g = self.entries.lock().unwrap_or_else(|p| p.into_inner());
        g.retain(|_, e| e.key_id != key_id);
    }
}

/// An account for the unit tests of this crate and of the REST crate's caches.
#[doc(hidden)]
pub mod testing {
    use boxtrack_store::accounts::Account;
    use uuid::Uuid;

    /// A standard account with the id 1 and no entitlements.
    pub fn account() -> Account {
        Account {
            id: Uuid::from_u128(1),
            name: "a".into(),
            plan: boxtrack_core::plan::Plan::Standard,
            entitlements: vec![],
            rate_limits: Default::default(),
            operator: false,
            created_us: 0,
            updated_us: 0,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::testing::account;
    use super::*;

    fn age(cache: &KeyCache, digest: &str, by: Duration) {
        let mut g = cache.entries.lock().unwrap();
        let e = g.get_mut(digest).unwrap();
        e.at = Instant::now().checked_sub(by).unwrap();
    }

    #[test]
    fn a_used_key_is_read_again_ahead_of_time_once() {
        let cache = KeyCache::default();
        cache.put("d".into(), Uuid::from_u128(9), Arc::new(account()));
        assert!(!cache.get("d").unwrap().refresh);
        age(&cache, "d", REFRESH + Duration::from_millis(10));
        // the first request past REFRESH reads it again; the others use the entry as it is
        assert!(cache.get("d").unwrap().refresh);
        assert!(!cache.get("d").unwrap().refresh);
        // a failed read lets the next request try again
        cache.refresh_failed("d");
        assert!(cache.get("d").unwrap().refresh);
        // a successful one starts the entry afresh
        cache.put("d".into(), Uuid::from_u128(9), Arc::new(account()));
        assert!(!cache.get("d").unwrap().refresh);
    }

    #[test]
    fn an_entry_is_never_used_past_fresh_and_a_key_that_fails_is_forgotten() {
        let cache = KeyCache::default();
        cache.put("d".into(), Uuid::from_u128(9), Arc::new(account()));
        age(&cache, "d", FRESH);
        assert!(cache.get("d").is_none());
        cache.put("d".into(), Uuid::from_u128(9), Arc::new(account()));
        cache.forget("d");
        assert!(cache.get("d").is_none());
        cache.put("e".into(), Uuid::from_u128(10), Arc::new(account()));
        cache.forget_key(Uuid::from_u128(10));
        assert!(cache.get("e").is_none());
    }
}
