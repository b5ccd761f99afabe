//! History that does not grow forever: how long the append-only tables keep their rows, and
//! the sweep that removes what is older (run by the worker every hour and by
//! `boxtrack prune`).
//!
//! | table | kept | on PostgreSQL |
//! |---|---|---|
//! | `events` (the accounts' event log, what `/v2/events` and webhook replays read) | [`Retention::events_days`] | partitioned by month: whole months dropped |
//! | `source_payloads` (upstream payloads verbatim) | [`Retention::payloads_days`] | partitioned by month: whole months dropped |
//! | `webhook_notifications` with their bodies and attempts, once delivered or failed | [`Retention::notifications_days`] | the three partitioned by month of the notification: a month with nothing pending dropped whole, finished ones of a month still holding a pending one deleted in batches |
//!
//! What a container's page shows (its transport and raw events) is the container's own
//! history: it stays as long as the container does, whatever its age.
//!
//! Rows older than the cutoff in a month that is not wholly past it (and in a table's
//! DEFAULT partition, where rows outside every month made land) go by batched deletes, so
//! both backends keep exactly the same rows: everything at or after `now - days`.

use jiff::ToSpan;
use jiff::tz::TimeZone;
use serde::Serialize;
use uuid::Uuid;

use crate::{Db, PgTx, Result, StoreError, on_db};

const DAY_US: i64 = 86_400 * 1_000_000;

/// Rows deleted per transaction: small enough that a writer waits at most a few
/// milliseconds behind a batch.
pub const BATCH: i64 = 2_000;

/// How many days each kind of history is kept; 0 keeps it forever.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Retention {
    /// The event log (`/v2/events`, webhook replays): a client can replay this far back.
    pub events_days: u32,
    /// Upstream payloads as received.
    pub payloads_days: u32,
    /// Webhook notifications once delivered or failed, with their bodies and attempts.
    pub notifications_days: u32,
}

impl Default for Retention {
    /// A year of the event log, 90 days of payloads, 30 days of finished notifications.
    fn default() -> Retention {
        Retention {
            events_days: 365,
            payloads_days: 90,
            notifications_days: 30,
        }
    }
}

/// One append-only table and how its rows age.
struct Table {
    name: &'static str,
    /// The time column (Unix microseconds) the cutoff applies to.
    key: &'static str,
    /// Partitioned by month of `key` on PostgreSQL.
    partitioned: bool,
    /// Rows that stay whatever their age (SQL condition).
    keep: Option<&'static str>,
    /// Tables whose rows belong to a row of this one, and go with it.
    owned: &'static [Owned],
}

/// A table whose rows belong to rows of another, partitioned by the same months.
struct Owned {
    name: &'static str,
    /// The column naming the owning row's id.
    owner_id: &'static str,
    /// The owning row's time, copied: the partition key on PostgreSQL.
    key: &'static str,
}

const EVENTS: Table = Table {
    name: "events",
    key: "created_us",
    partitioned: true,
    keep: None,
    owned: &[],
};
const PAYLOADS: Table = Table {
    name: "source_payloads",
    key: "received_us",
    partitioned: true,
    keep: None,
    owned: &[],
};
const NOTIFICATIONS: Table = Table {
    name: "webhook_notifications",
    key: "created_us",
    partitioned: true,
    keep: Some("delivery_status = 'pending'"),
    owned: &[
        Owned {
            name: "webhook_attempts",
            owner_id: "notification_id",
            key: "notification_created_us",
        },
        Owned {
            name: "webhook_bodies",
            owner_id: "notification_id",
            key: "notification_created_us",
        },
    ],
};

/// The tables partitioned by month on PostgreSQL, with their time column.
pub const PARTITIONED: [(&str, &str); 5] = [
    (EVENTS.name, EVENTS.key),
    (PAYLOADS.name, PAYLOADS.key),
    (NOTIFICATIONS.name, NOTIFICATIONS.key),
    ("webhook_bodies", "notification_created_us"),
    ("webhook_attempts", "notification_created_us"),
];

/// What a sweep removed (or, dry, would remove) from one table.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Swept {
    /// The table.
    pub table: &'static str,
    /// Rows older than this (Unix microseconds) went; `None`: the table is kept forever.
    pub cutoff_us: Option<i64>,
    /// Rows removed, those of dropped partitions included (dry: rows that would go).
    pub rows: u64,
    /// Whole monthly partitions dropped (dry: that would be), PostgreSQL only.
    pub partitions: Vec<String>,
}

/// Whether a sweep removes rows or only counts them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// Count what would go; change nothing.
    DryRun,
    /// Remove it.
    Apply,
}

/// The cutoff for `days` at `now_us`: rows strictly older go. `None` for 0 (kept forever).
pub fn cutoff(now_us: i64, days: u32) -> Option<i64> {
    (days > 0).then(|| now_us.saturating_sub(i64::from(days).saturating_mul(DAY_US)))
}

/// Removes (or counts, with [`Mode::DryRun`]) the history older than `keep` says at `now_us`.
pub async fn sweep(db: &Db, now_us: i64, keep: &Retention, mode: Mode) -> Result<Vec<Swept>> {
    let mut out = Vec::new();
    for (table, days) in [
        (&EVENTS, keep.events_days),
        (&PAYLOADS, keep.payloads_days),
        (&NOTIFICATIONS, keep.notifications_days),
    ] {
        out.push(sweep_table(db, table, cutoff(now_us, days), mode).await?);
    }
    Ok(out)
}

async fn sweep_table(db: &Db, t: &Table, cutoff: Option<i64>, mode: Mode) -> Result<Swept> {
    let mut swept = Swept {
        table: t.name,
        cutoff_us: cutoff,
        rows: 0,
        partitions: Vec::new(),
    };
    let Some(cutoff) = cutoff else {
        return Ok(swept);
    };
    if let (true, Db::Postgres(pool)) = (t.partitioned, db) {
        for p in partitions(db, t.name).await? {
            let (Some(lo), Some(hi)) = (p.lo, p.hi) else {
                continue;
            };
            if hi > cutoff {
                continue;
            }
            let dropped = match mode {
                Mode::Apply => drop_month(pool, t, &p.name, lo, hi).await?,
                Mode::DryRun => (!holds_kept(pool, t, &p.name).await?).then_some(0),
            };
            if let Some(rows) = dropped {
                swept.rows += rows;
                swept.partitions.push(p.name);
            }
        }
    }
    swept.rows += match mode {
        // the rows of the partitions that would be dropped are among these
        Mode::DryRun => count_older(db, t, cutoff).await?,
        Mode::Apply => delete_older(db, t, cutoff).await?,
    };
    Ok(swept)
}

/// Rows of `t` older than `cutoff` that may go (not among those that stay).
async fn count_older(db: &Db, t: &Table, cutoff: i64) -> Result<u64> {
    let mut sql = format!("SELECT COUNT(*) FROM {} WHERE {} < $1", t.name, t.key);
    if let Some(keep) = t.keep {
        sql.push_str(&format!(" AND NOT ({keep})"));
    }
    let n: i64 = on_db!(db, c => sqlx::query_scalar(sqlx::AssertSqlSafe(sql)).bind(cutoff).fetch_one(c).await?);
    Ok(u64::try_from(n).unwrap_or(0))
}

/// Deletes the rows older than `cutoff` (and those they own) in batches of [`BATCH`], each
/// in its own transaction; returns how many rows of `t` went.
async fn delete_older(db: &Db, t: &Table, cutoff: i64) -> Result<u64> {
    let keep = t
        .keep
        .map(|k| format!(" AND NOT ({k})"))
        .unwrap_or_default();
    // Citus cannot lock rows of many shards: a row deleted twice is deleted once
    let citus = matches!(db, Db::Postgres(p) if crate::citus::on_citus(p));
    let lock = if matches!(db, Db::Postgres(_)) && !citus {
        " FOR UPDATE SKIP LOCKED"
    } else {
        ""
    };
    // rows of an account go by (account, id), their key on PostgreSQL; source payloads, of
    // no account, by id
    let account = if t.name == PAYLOADS.name {
        "NULL::uuid"
    } else {
        "account_id"
    };
    let account = if matches!(db, Db::Sqlite(..)) {
        "NULL"
    } else {
        account
    };
    let pick = format!(
        "SELECT {account} AS account_id, id FROM {} WHERE {} < $1{keep} LIMIT {BATCH}{lock}",
        t.name, t.key
    );
    let mut gone = 0u64;
    loop {
        let mut tx = db.begin().await?;
        let rows: Vec<(Option<Uuid>, Uuid)> = crate::on_tx!(&mut tx, c => sqlx::query_as(sqlx::AssertSqlSafe(pick.clone()))
            .bind(cutoff)
            .fetch_all(c)
            .await?);
        if rows.is_empty() {
            tx.commit().await?;
            return Ok(gone);
        }
        for o in t.owned {
            delete_rows(&mut tx, o.name, o.owner_id, &rows, citus).await?;
        }
        gone += delete_rows(&mut tx, t.name, "id", &rows, citus).await?;
        tx.commit().await?;
    }
}

/// Deletes the rows of `table` whose `column` is one of `rows`' ids, by account where the
/// row names one (the key on PostgreSQL): on Citus one router statement each.
async fn delete_rows(
    tx: &mut crate::Tx,
    table: &str,
    column: &str,
    rows: &[(Option<Uuid>, Uuid)],
    citus: bool,
) -> Result<u64> {
    let ids: Vec<Uuid> = rows.iter().map(|(_, id)| *id).collect();
    let (crate::Tx::Postgres(t), true) = (&mut *tx, rows.iter().all(|(a, _)| a.is_some())) else {
        return delete_ids(tx, table, column, &ids).await;
    };
    let accounts: Vec<Uuid> = rows.iter().filter_map(|(a, _)| *a).collect();
    if !citus {
        return Ok(sqlx::query(sqlx::AssertSqlSafe(format!(
            "DELETE FROM {table} t USING unnest($1::uuid[], $2::uuid[]) AS v(account_id, id) \
             WHERE t.account_id = v.account_id AND t.{column} = v.id"
        )))
        .bind(&accounts)
        .bind(&ids)
        .execute(&mut **t)
        .await?
        .rows_affected());
    }
    let mut gone = 0;
    for (account, id) in accounts.iter().zip(&ids) {
        gone += sqlx::query(sqlx::AssertSqlSafe(format!(
            "DELETE FROM {table} WHERE account_id = $1 AND {column} = $2"
        )))
        .bind(account)
        .bind(id)
        .execute(&mut **t)
        .await?
        .rows_affected();
    }
    Ok(gone)
}

/// `DELETE FROM table WHERE column IN ids` on either backend.
async fn delete_ids(tx: &mut crate::Tx, table: &str, column: &str, ids: &[Uuid]) -> Result<u64> {
    Ok(match tx {
        crate::Tx::Postgres(t) => sqlx::query(sqlx::AssertSqlSafe(format!(
            "DELETE FROM {table} WHERE {column} = ANY($1)"
        )))
        .bind(ids)
        .execute(&mut **t)
        .await?
        .rows_affected(),
        crate::Tx::Sqlite(t) => {
            let marks = vec!["?"; ids.len()].join(", ");
            let sql = format!("DELETE FROM {table} WHERE {column} IN ({marks})");
            let mut q = sqlx::query(sqlx::AssertSqlSafe(sql));
            for id in ids {
                q = q.bind(*id);
            }
            q.execute(&mut **t).await?.rows_affected()
        }
    })
}

/// One partition of a table: its name and range (`None` bounds: the DEFAULT partition).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Partition {
    /// The partition's table name.
    pub name: String,
    /// First time (Unix microseconds) it holds.
    pub lo: Option<i64>,
    /// First time past it.
    pub hi: Option<i64>,
}

/// The partitions of `parent` (PostgreSQL), oldest first, the DEFAULT one last.
pub async fn partitions(db: &Db, parent: &str) -> Result<Vec<Partition>> {
    let Db::Postgres(p) = db else {
        return Ok(Vec::new());
    };
    let rows: Vec<(String, String)> = sqlx::query_as(
        "SELECT c.relname::text, pg_get_expr(c.relpartbound, c.oid) FROM pg_inherits i \
         JOIN pg_class c ON c.oid = i.inhrelid WHERE i.inhparent = to_regclass($1)",
    )
    .bind(parent)
    .fetch_all(p)
    .await?;
    let mut out: Vec<Partition> = rows
        .into_iter()
        .map(|(name, bound)| {
            let (lo, hi) = parse_bound(&bound).unzip();
            Partition { name, lo, hi }
        })
        .collect();
    out.sort_by_key(|p| (p.lo.is_none(), p.lo));
    Ok(out)
}

/// Reads PostgreSQL's `FOR VALUES FROM ('a') TO ('b')` (quotes or not); `None` for
/// `DEFAULT` or anything else.
pub fn parse_bound(bound: &str) -> Option<(i64, i64)> {
    let rest = bound.trim().strip_prefix("FOR VALUES FROM (")?;
    let (lo, rest) = rest.split_once(") TO (")?;
    let hi = rest.strip_suffix(')')?;
    let num = |s: &str| s.trim().trim_matches('\'').parse::<i64>().ok();
    Some((num(lo)?, num(hi)?))
}

/// Whether a month of `t` holds rows that stay whatever their age (a notification still
/// pending), asked on a pool or inside a transaction.
async fn holds_kept<'e>(e: impl sqlx::PgExecutor<'e>, t: &Table, partition: &str) -> Result<bool> {
    let Some(keep) = t.keep else {
        return Ok(false);
    };
    Ok(sqlx::query_scalar(sqlx::AssertSqlSafe(format!(
        "SELECT EXISTS (SELECT 1 FROM {} WHERE {keep})",
        quote_ident(partition)
    )))
    .fetch_one(e)
    .await?)
}

/// Drops one month of `t` (the partition `name`, from `lo` to `hi`) and the same month of
/// the tables it owns, in one transaction; `None`, changing nothing, when the month holds a
/// row that stays (checked once the month is detached, so no row can become one meanwhile).
/// Returns the rows of `t` that went.
async fn drop_month(
    p: &sqlx::PgPool,
    t: &Table,
    name: &str,
    lo: i64,
    hi: i64,
) -> Result<Option<u64>> {
    let mut tx = p.begin().await?;
    for o in t.owned {
        let month = partition_name(o.name, lo)?;
        let exists: bool = sqlx::query_scalar("SELECT to_regclass($1) IS NOT NULL")
            .bind(&month)
            .fetch_one(&mut *tx)
            .await?;
        if exists {
            detach(&mut tx, o.name, &month).await?;
            drop_table(&mut tx, &month).await?;
        }
        // rows of the month that wait in the DEFAULT partition
        sqlx::query(sqlx::AssertSqlSafe(format!(
            "DELETE FROM {} WHERE {} >= $1 AND {} < $2",
            o.name, o.key, o.key
        )))
        .bind(lo)
        .bind(hi)
        .execute(&mut *tx)
        .await?;
    }
    detach(&mut tx, t.name, name).await?;
    if holds_kept(&mut *tx, t, name).await? {
        tx.rollback().await?;
        return Ok(None);
    }
    let rows: i64 = sqlx::query_scalar(sqlx::AssertSqlSafe(format!(
        "SELECT COUNT(*) FROM {}",
        quote_ident(name)
    )))
    .fetch_one(&mut *tx)
    .await?;
    drop_table(&mut tx, name).await?;
    tx.commit().await?;
    tracing::info!(
        table = t.name,
        partition = name,
        "retention dropped a month"
    );
    Ok(Some(u64::try_from(rows).unwrap_or(0)))
}

/// Detaches the partition `name` of `parent`, inside `tx`.
async fn detach(tx: &mut PgTx, parent: &str, name: &str) -> Result<()> {
    sqlx::query(sqlx::AssertSqlSafe(format!(
        "ALTER TABLE {parent} DETACH PARTITION {}",
        quote_ident(name)
    )))
    .execute(&mut **tx)
    .await?;
    Ok(())
}

/// Drops the (detached) table `name`, inside `tx`.
async fn drop_table(tx: &mut PgTx, name: &str) -> Result<()> {
    sqlx::query(sqlx::AssertSqlSafe(format!(
        "DROP TABLE {}",
        quote_ident(name)
    )))
    .execute(&mut **tx)
    .await?;
    Ok(())
}

/// `"name"` with inner quotes doubled (partition names come from the catalog).
fn quote_ident(name: &str) -> String {
    format!("\"{}\"", name.replace('"', "\"\""))
}

/// The UTC month holding `us`: its first microsecond and the first of the next month.
pub fn month_of(us: i64) -> Result<(i64, i64)> {
    let bad = |e: jiff::Error| StoreError::Corrupt {
        what: "partition month",
        detail: e.to_string(),
    };
    let first = jiff::Timestamp::from_microsecond(us)
        .map_err(bad)?
        .to_zoned(TimeZone::UTC)
        .date()
        .first_of_month();
    let next = first.checked_add(1_i32.month()).map_err(bad)?;
    let at = |d: jiff::civil::Date| -> Result<i64> {
        Ok(d.to_zoned(TimeZone::UTC)
            .map_err(bad)?
            .timestamp()
            .as_microsecond())
    };
    Ok((at(first)?, at(next)?))
}

/// `events_p202611`: the name of the partition of `parent` for the month starting at `lo`.
pub fn partition_name(parent: &str, lo: i64) -> Result<String> {
    let d = jiff::Timestamp::from_microsecond(lo)
        .map_err(|e| StoreError::Corrupt {
            what: "partition month",
            detail: e.to_string(),
        })?
        .to_zoned(TimeZone::UTC)
        .date();
    Ok(format!("{parent}_p{:04}{:02}", d.year(), d.month()))
}

/// Makes the monthly partitions of every partitioned table from this month to `ahead`
/// months on (PostgreSQL; nothing on SQLite), moving in any rows of those months that
/// landed in the DEFAULT partition, and the past months of rows the DEFAULT partition holds
/// (after `boxtrack copy` from SQLite, or a row written with an old time), at most three
/// years back. Returns the partitions made.
pub async fn make_partitions(db: &Db, now_us: i64, ahead: u32) -> Result<Vec<String>> {
    let Db::Postgres(p) = db else {
        return Ok(Vec::new());
    };
    let mut made = Vec::new();
    for (parent, key) in PARTITIONED {
        let mut at = now_us;
        for _ in 0..=ahead {
            let (lo, hi) = month_of(at)?;
            let name = partition_name(parent, lo)?;
            let new: bool =
                sqlx::query_scalar("SELECT boxtrack_month_partition($1, $2, $3, $4, $5)")
                    .bind(parent)
                    .bind(key)
                    .bind(&name)
                    .bind(lo)
                    .bind(hi)
                    .fetch_one(p)
                    .await?;
            if new {
                made.push(name);
            }
            at = hi;
        }
        made.extend(settle_default(p, parent, key, now_us).await?);
    }
    Ok(made)
}

/// Moves the rows of past months out of `parent`'s DEFAULT partition into months of their
/// own (the SQL function makes each missing month, moving its rows in).
async fn settle_default(
    p: &sqlx::PgPool,
    parent: &str,
    key: &str,
    now_us: i64,
) -> Result<Vec<String>> {
    let oldest: Option<i64> = sqlx::query_scalar(sqlx::AssertSqlSafe(format!(
        "SELECT MIN({key}) FROM {parent}_default WHERE {key} < $1"
    )))
    .bind(now_us)
    .fetch_one(p)
    .await?;
    let Some(oldest) = oldest else {
        return Ok(Vec::new());
    };
    let before: Vec<String> = partitions(&Db::Postgres(p.clone()), parent)
        .await?
        .into_iter()
        .map(|p| p.name)
        .collect();
    sqlx::query("SELECT boxtrack_month_partitions($1, $2, $3, $4)")
        .bind(parent)
        .bind(key)
        .bind(oldest)
        .bind(now_us)
        .execute(p)
        .await?;
    Ok(partitions(&Db::Postgres(p.clone()), parent)
        .await?
        .into_iter()
        .map(|p| p.name)
        .filter(|n| !before.contains(n))
        .collect())
}

/// Drops the partitioned tables of the current schema with their partitions (PostgreSQL;
/// nothing on SQLite): what `boxtrack restore --force` does before `pg_restore --clean`,
/// whose own drops stop at a partition's inherited key ("cannot drop inherited
/// constraint"). Returns the tables dropped.
pub async fn drop_partitioned_tables(db: &Db) -> Result<Vec<String>> {
    let Db::Postgres(p) = db else {
        return Ok(Vec::new());
    };
    let mut tx = p.begin().await?;
    let tables: Vec<String> = sqlx::query_scalar(
        "SELECT c.relname::text FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace \
         WHERE n.nspname = current_schema() AND c.relkind = 'p' AND NOT c.relispartition ORDER BY 1",
    )
    .fetch_all(&mut *tx)
    .await?;
    for t in &tables {
        sqlx::query(sqlx::AssertSqlSafe(format!(
            "DROP TABLE {}",
            quote_ident(t)
        )))
        .execute(&mut *tx)
        .await?;
    }
    tx.commit().await?;
    Ok(tables)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bounds_read_with_or_without_quotes() {
        assert_eq!(
            parse_bound("FOR VALUES FROM ('1698796800000000') TO ('1701388800000000')"),
            Some((1_698_796_800_000_000, 1_701_388_800_000_000))
        );
        assert_eq!(parse_bound("FOR VALUES FROM (5) TO (9)"), Some((5, 9)));
        assert_eq!(parse_bound("DEFAULT"), None);
        assert_eq!(parse_bound("FOR VALUES FROM (MINVALUE) TO (9)"), None);
    }

    #[test]
    fn months_are_utc_calendar_months() {
        // 2026-11-28T12:00:00Z
        let (lo, hi) = month_of(1_795_867_200_000_000).unwrap();
        assert_eq!(lo, 1_793_491_200_000_000); // 2026-11-01
        assert_eq!(hi, 1_796_083_200_000_000); // 2026-12-01
        assert_eq!(partition_name("events", lo).unwrap(), "events_p202611");
        // the last microsecond of a month is in it, the next is not
        assert_eq!(month_of(hi - 1).unwrap(), (lo, hi));
        assert_eq!(month_of(hi).unwrap().0, hi);
        // December rolls into the next year
        let (_, next) = month_of(hi).unwrap();
        assert_eq!(partition_name("events", next).unwrap(), "events_p202701");
    }

    #[test]
    fn zero_days_keeps_forever_and_cutoffs_do_not_overflow() {
        assert_eq!(cutoff(1_000, 0), None);
        assert_eq!(cutoff(10 * DAY_US, 3), Some(7 * DAY_US));
        assert_eq!(cutoff(i64::MIN + 1, u32::MAX), Some(i64::MIN));
    }
}
