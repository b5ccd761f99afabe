//! Where rate-limit windows live: in this process, or shared by every process in the database
//! or in Redis.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use boxtrack_core::ratelimit::{Bucket, Decision, SlotWindow, WINDOW_US};
use boxtrack_store::ratelimit_redis::RedisLimits;
use boxtrack_store::{Db, now_us};
use uuid::Uuid;

use crate::error::ApiResult;

/// Admission windows by account and bucket, for the in-process limiter.
pub type MemoryLogs = Arc<Mutex<HashMap<(Uuid, Bucket), SlotWindow>>>;

/// Where rate-limit logs live.
#[derive(Clone)]
pub enum Limiter {
    /// In this process only (one process on SQLite).
    Memory(MemoryLogs),
    /// In the database, shared by every process on it.
    Database(Db),
    /// In a Redis server, shared by every process that uses it.
    Redis(RedisLimits),
}

impl Limiter {
    /// An in-process limiter.
    pub fn memory() -> Limiter {
        Limiter::Memory(Arc::default())
    }

    /// Checks and records one request.
    pub async fn check(&self, account: Uuid, bucket: Bucket, limit: u32) -> ApiResult<Decision> {
        let now = now_us();
        match self {
            Limiter::Memory(map) => {
                let mut g = map.lock().unwrap_or_else(|p| p.into_inner());
                let window = g.entry((account, bucket)).or_default();
                Ok(window.admit(now, limit, WINDOW_US))
            }
            Limiter::Database(db) => {
                Ok(boxtrack_store::ratelimit::check(db, account, bucket, limit, now).await?)
            }
            Limiter::Redis(r) => Ok(r.check(account, bucket, limit, now).await?),
        }
    }
}
