//! Rate-limit state shared by every process on one database.
//!
//! Each (account, bucket) counts its admissions per 5-second slot, one row per slot, at most
//! 13 live whatever the limit (the [`SlotWindow`] rule of `boxtrack_core::ratelimit`). A check
//! is one statement: it increments the current slot's row only while the window's total stays
//! under the limit, deciding on the latest count of that row (which it holds locked for the
//! statement only) and the older slots (which no longer change). Concurrent checks of one
//! account therefore wait only for each other's increment, never across round trips, and
//! every check commits on its own; on PostgreSQL the table is UNLOGGED, so no check waits for
//! a log flush. Several `serve` processes enforce one limit together.

use boxtrack_core::ratelimit::{Bucket, Decision, SLOTS, SlotWindow, WINDOW_US};
use uuid::Uuid;

use crate::{Db, Result, on_db};

/// Checks and records one request against the shared window of `(account, bucket)`.
pub async fn check(
    db: &Db,
    account_id: Uuid,
    bucket: Bucket,
    limit: u32,
    now_us: i64,
) -> Result<Decision> {
    Ok(check_lease(db, account_id, bucket, limit, 1, now_us)
        .await?
        .0)
}

/// Checks one request against the shared window of `(account, bucket)` and, if it is
/// admitted, grants up to `want` admissions at once (by the rule of
/// `boxtrack_core::ratelimit::lease_grant`), all counted in the current slot now; returns the
/// decision and how many were granted (0 when refused).
pub async fn check_lease(
    db: &Db,
    account_id: Uuid,
    bucket: Bucket,
    limit: u32,
    want: u64,
    now_us: i64,
) -> Result<(Decision, u64)> {
    let slot = SlotWindow::slot_of(now_us, WINDOW_US);
    let oldest_live = slot - (SLOTS as i64 - 1);
    // $3 the current slot, $4 the first slot of the window, $5 the limit, $6 the admissions
    // wanted; the grant is a hundredth of what remains, at least 1 and at most $6
    const OLDER: &str = "SELECT CAST(COALESCE(SUM(count), 0) AS BIGINT) FROM rate_limit_slots WHERE account_id = $1 AND bucket = $2 AND slot >= $4 AND slot < $3";
    let grant = |held: &str| {
        format!(
            "CASE WHEN ($5 - {held} - ({OLDER})) / 100 < 1 THEN 1 \
             WHEN ($5 - {held} - ({OLDER})) / 100 > $6 THEN $6 \
             ELSE ($5 - {held} - ({OLDER})) / 100 END"
        )
    };
    let sql = format!(
        "INSERT INTO rate_limit_slots AS r (account_id, bucket, slot, count, granted) \
         SELECT $1, $2, $3, {g0}, {g0} WHERE ({OLDER}) < $5 \
         ON CONFLICT (account_id, bucket, slot) DO UPDATE SET count = r.count + {g}, granted = {g} \
         WHERE r.count + ({OLDER}) < $5 \
         RETURNING count, granted, ({OLDER}), (SELECT MIN(slot) FROM rate_limit_slots WHERE account_id = $1 AND bucket = $2 AND slot >= $4)",
        g0 = grant("0"),
        g = grant("r.count"),
    );
    let admitted: Option<(i64, i64, i64, Option<i64>)> = on_db!(db, p => sqlx::query_as(sqlx::AssertSqlSafe(sql))
        .bind(account_id)
        .bind(bucket.as_str())
        .bind(slot)
        .bind(oldest_live)
        .bind(i64::from(limit))
        .bind(i64::try_from(want.max(1)).unwrap_or(i64::MAX))
        .fetch_optional(p)
        .await?);
    let len = SlotWindow::slot_len(WINDOW_US);
    if let Some((count, granted, older, oldest)) = admitted {
        // slots older than the window are forgotten now and then (when a slot opens)
        if count == granted {
            on_db!(db, p => sqlx::query(
                "DELETE FROM rate_limit_slots WHERE account_id = $1 AND bucket = $2 AND slot < $3",
            )
            .bind(account_id)
            .bind(bucket.as_str())
            .bind(oldest_live)
            .execute(p)
            .await
            .map(|_| ())?);
        }
        let total = u64::try_from(count + older).unwrap_or(u64::MAX);
        let oldest = oldest.unwrap_or(slot);
        let decision = Decision {
            allowed: true,
            limit,
            remaining: u32::try_from(u64::from(limit).saturating_sub(total)).unwrap_or(0),
            reset_after_us: ((oldest + SLOTS as i64) * len - now_us).max(0),
            retry_after_us: 0,
        };
        return Ok((decision, u64::try_from(granted).unwrap_or(0)));
    }
    // refused: when it may call again follows from the window's slots
    let rows: Vec<(i64, i64)> = on_db!(db, p => sqlx::query_as(
        "SELECT slot, count FROM rate_limit_slots WHERE account_id = $1 AND bucket = $2 AND slot >= $3",
    )
    .bind(account_id)
    .bind(bucket.as_str())
    .bind(oldest_live)
    .fetch_all(p)
    .await?);
    let mut window = SlotWindow::from_slots(
        slot,
        rows.into_iter()
            .map(|(s, c)| (s, u64::try_from(c).unwrap_or(0))),
    );
    let d = window.admit(now_us, limit, WINDOW_US);
    let refused = Decision {
        allowed: false,
        remaining: 0,
        retry_after_us: d.retry_after_us.max(1),
        ..d
    };
    Ok((refused, 0))
}

/// How many admissions of `bucket` the shared window of `account_id` holds at `now_us` (with
/// leases, what was granted to processes, used or not yet).
pub async fn used(db: &Db, account_id: Uuid, bucket: Bucket, now_us: i64) -> Result<u64> {
    let newest = SlotWindow::slot_of(now_us, WINDOW_US);
    let n: i64 = on_db!(db, p => sqlx::query_scalar(
        "SELECT CAST(COALESCE(SUM(count), 0) AS BIGINT) FROM rate_limit_slots WHERE account_id = $1 AND bucket = $2 AND slot > $3 AND slot <= $4",
    )
    .bind(account_id)
    .bind(bucket.as_str())
    .bind(newest - SLOTS as i64)
    .bind(newest)
    .fetch_one(p)
    .await?);
    Ok(u64::try_from(n).unwrap_or(0))
}
