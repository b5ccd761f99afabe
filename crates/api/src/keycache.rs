//! API keys recently seen by this process, so that a request does not read its key and
//! account from the database each time.
//!
//! An entry is trusted for [`FRESH`] (one second) and then read again, so a revoked key, a
//! changed plan or changed limits take effect in every process within a second; a key revoked
//! through this process is forgotten at once. Only keys that authenticated are kept (an
//! unknown key is read every time, so guessing fills nothing), and the cache holds at most
//! [`CAPACITY`] keys (it starts over when full).

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use boxtrack_store::accounts::Account;
use uuid::Uuid;

/// How long an entry is trusted.
pub const FRESH: Duration = Duration::from_secs(1);
/// How many keys are kept at most.
pub const CAPACITY: usize = 10_000;

/// Authenticated keys by digest.
#[derive(Debug, Default)]
pub struct KeyCache {
    entries: Mutex<HashMap<String, (Instant, Uuid, Account)>>,
}

impl KeyCache {
    /// The key id and account of `digest`, if read less than [`FRESH`] ago.
    pub fn get(&self, digest: &str) -> Option<(Uuid, Account)> {
        let g = self.entries.lock().unwrap_or_else(|p| p.into_inner());
        g.get(digest)
            .filter(|(at, _, _)| at.elapsed() < FRESH)
            .map(|(_, id, account)| (*id, account.clone()))
    }

    /// Remembers what `digest` authenticated as.
    pub fn put(&self, digest: String, key_id: Uuid, account: Account) {
        let mut g = self.entries.lock().unwrap_or_else(|p| p.into_inner());
        if g.len() >= CAPACITY && !g.contains_key(&digest) {
            g.clear();
        }
        g.insert(digest, (Instant::now(), key_id, account));
    }

    /// Forgets a key (revoked through this process).
    pub fn forget_key(&self, key_id: Uuid) {
        let mut g = self.entries.lock().unwrap_or_else(|p| p.into_inner());
        g.retain(|_, (_, id, _)| *id != key_id);
    }
}
