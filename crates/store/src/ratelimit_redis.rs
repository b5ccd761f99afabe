//! Rate-limit state in Redis, shared by every process that points at one Redis server
//! (`--rate-limit-store redis://…`).
//!
//! Each (account, bucket) is one Redis hash whose fields are 5-second slots and whose values
//! are the admissions counted in them: the [`SlotWindow`] rule of
//! `boxtrack_core::ratelimit`, so at most 13 fields whatever the limit. A check is one Lua
//! script, which Redis runs atomically: it forgets the slots that left the window, sums the
//! rest, and counts the request in the current slot only while the sum is under the limit.
//! The script returns the window as it found it, and the decision's headers (`remaining`,
//! `Retry-After`) are computed from that by the same pure rule the in-process limiter uses.
//! The hash expires one window after its last admission, so idle accounts cost nothing.

use boxtrack_core::ratelimit::{Bucket, Decision, SLOTS, SlotWindow, WINDOW_US};
use std::time::Duration;

use redis::aio::{ConnectionManager, ConnectionManagerConfig};
use uuid::Uuid;

use crate::Result;

/// The check: KEYS[1] the hash; ARGV the current slot, the oldest slot in the window, the
/// limit, the hash's time to live in milliseconds and the admissions wanted. Returns
/// `{granted, {slot, count, …}}` with the window's slots before this request; the grant is
/// `boxtrack_core::ratelimit::lease_grant`'s rule (a hundredth of what remains, at least one
/// and at most the admissions wanted; none when the window is full).
const CHECK: &str = r"
local key = KEYS[1]
local slot = tonumber(ARGV[1])
local oldest = tonumber(ARGV[2])
local limit = tonumber(ARGV[3])
local fields = redis.call('HGETALL', key)
local total = 0
local live = {}
for i = 1, #fields, 2 do
  local s = tonumber(fields[i])
  local c = tonumber(fields[i + 1])
  if s < oldest then
    redis.call('HDEL', key, fields[i])
  else
    total = total + c
    live[#live + 1] = s
    live[#live + 1] = c
  end
end
local want = tonumber(ARGV[5])
local granted = 0
if total < limit then
  granted = math.floor((limit - total) / 100)
  if granted < 1 then granted = 1 end
  if granted > want then granted = want end
  redis.call('HINCRBY', key, ARGV[1], granted)
  redis.call('PEXPIRE', key, ARGV[4])
end
return {granted, live}
";

/// A connection to the Redis server that holds the shared windows (reconnects by itself).
#[derive(Clone)]
pub struct RedisLimits {
    conn: ConnectionManager,
    script: redis::Script,
    prefix: String,
}

impl RedisLimits {
    /// Connects to `url` (`redis://[user:password@]host[:port][/db]` or `rediss://…`); keys
    /// are named `boxtrack:rl:{account}:{bucket}`.
    pub async fn connect(url: &str) -> Result<RedisLimits> {
        RedisLimits::connect_with_prefix(url, "boxtrack:rl").await
    }

    /// Connects with another key prefix (tests keep their keys apart this way).
    pub async fn connect_with_prefix(url: &str, prefix: &str) -> Result<RedisLimits> {
        let client = redis::Client::open(url)?;
        // a check waits at most two seconds for Redis (then the request gets 503), and a
        // server that is not there stops the start after two quick retries
        let config = ConnectionManagerConfig::new()
            .set_number_of_retries(2)
            .set_max_delay(Duration::from_millis(500))
            .set_connection_timeout(Some(Duration::from_secs(2)))
            .set_response_timeout(Some(Duration::from_secs(2)));
        let conn = ConnectionManager::new_with_config(client, config).await?;
        Ok(RedisLimits {
            conn,
            script: redis::Script::new(CHECK),
            prefix: prefix.to_string(),
        })
    }

    /// Checks and records one request against the shared window of `(account, bucket)`.
    pub async fn check(
        &self,
        account_id: Uuid,
        bucket: Bucket,
        limit: u32,
        now_us: i64,
    ) -> Result<Decision> {
        Ok(self
            .check_lease(account_id, bucket, limit, 1, now_us)
            .await?
            .0)
    }

    /// Checks one request and, if it is admitted, grants up to `want` admissions at once, all
    /// counted in the current slot now; returns the decision and how many were granted.
    pub async fn check_lease(
        &self,
        account_id: Uuid,
        bucket: Bucket,
        limit: u32,
        want: u64,
        now_us: i64,
    ) -> Result<(Decision, u64)> {
        let slot = SlotWindow::slot_of(now_us, WINDOW_US);
        let oldest_live = slot - (SLOTS as i64 - 1);
        let ttl_ms = WINDOW_US / 1000 + SlotWindow::slot_len(WINDOW_US) / 1000;
        let key = format!("{}:{}:{}", self.prefix, account_id, bucket.as_str());
        let mut conn = self.conn.clone();
        let (granted, live): (i64, Vec<i64>) = self
            .script
            .key(key)
            .arg(slot)
            .arg(oldest_live)
            .arg(limit)
            .arg(ttl_ms)
            .arg(want.max(1))
            .invoke_async(&mut conn)
            .await?;
        let mut window = SlotWindow::from_slots(
            slot,
            live.chunks_exact(2)
                .map(|p| (p[0], u64::try_from(p[1]).unwrap_or(0))),
        );
        let d = window.admit(now_us, limit, WINDOW_US);
        let granted = u64::try_from(granted).unwrap_or(0);
        let mut decision = decide(granted > 0, d);
        // the rest of the grant is counted already
        decision.remaining =
            u32::try_from(u64::from(decision.remaining).saturating_sub(granted.saturating_sub(1)))
                .unwrap_or(0);
        Ok((decision, granted))
    }

    /// Forgets every window under this prefix (tests).
    pub async fn clear(&self) -> Result<()> {
        let mut conn = self.conn.clone();
        let keys: Vec<String> = redis::cmd("KEYS")
            .arg(format!("{}:*", self.prefix))
            .query_async(&mut conn)
            .await?;
        if !keys.is_empty() {
            let _: i64 = redis::cmd("DEL").arg(keys).query_async(&mut conn).await?;
        }
        Ok(())
    }
}

/// The decision: Redis decided whether the request is admitted; the local replay of the
/// same rule on the window Redis saw gives the headers. Where the two disagree (a process
/// whose clock is ahead wrote a slot this one does not count yet), Redis's word stands.
fn decide(admitted: bool, replay: Decision) -> Decision {
    if admitted {
        Decision {
            allowed: true,
            retry_after_us: 0,
            ..replay
        }
    } else {
        Decision {
            allowed: false,
            remaining: 0,
            retry_after_us: replay.retry_after_us.max(1),
            ..replay
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn redis_refusal_stands_over_a_replay_that_would_admit() {
        let replay = Decision {
            allowed: true,
            limit: 5,
            remaining: 2,
            reset_after_us: 10,
            retry_after_us: 0,
        };
        let d = decide(false, replay);
        assert!(!d.allowed);
        assert_eq!(d.remaining, 0);
        assert!(d.retry_after_us >= 1);
        assert!(decide(true, replay).allowed);
    }
}
