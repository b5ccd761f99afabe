//! Which accounts' data changed: a version per account that moves whenever a row that a cached
//! response is rendered from changes, in this process or in another, on either backend.
//!
//! A cache stores what it rendered under the [`Version`] it read *before* rendering, and serves
//! it only while [`Changes::version`] still answers the same: a change that commits after the
//! version was read makes the entry stale even if the render already saw the change (which only
//! costs a render), and a change that commits before was seen by the render.
//!
//! - **SQLite** (migration 0030): triggers on the tables responses are rendered from (accounts,
//!   shipments, containers, transport events, tracking requests, parties) raise the changed
//!   account's row in `account_changes` to the next sequence number. [`Changes::version`]
//!   asks `PRAGMA data_version` on a connection of its own whether any other connection, of
//!   this process or another, has committed since it last asked (a read of the shared WAL
//!   index, no I/O); only then does it read the rows past the last sequence it saw. Writers
//!   commit one at a time, so sequence order is commit order. It asks at most once per
//!   [`SQLITE_BOUND`] (a millisecond, the bound PostgreSQL's notifications keep): under load
//!   one answer in dozens pays for the question, and a change made elsewhere is seen by every
//!   read that starts a bound after its commit. Changes made through this process's API are
//!   applied before the response leaves ([`Changes::touch`]), so its clients read their own
//!   writes at once, as on PostgreSQL.
//! - **PostgreSQL** (migration 0030): the same triggers send a notification on
//!   `boxtrack_changes` carrying the account's id, which PostgreSQL delivers when the
//!   transaction commits; a task of this process listens. A change made by another process, or
//!   by this process's background work, is seen when its notification arrives (within about a
//!   millisecond of its commit on a local network: the same bound as a read replica's lag);
//!   changes made through this process's API are applied before the response leaves
//!   ([`Changes::touch`]). While the listener is not connected there is no version, so nothing is
//!   cached or served from a cache; every reconnection forgets everything.
//! - An in-memory SQLite database has no version (each connection would see its own database).

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, Weak};
use std::time::Duration;

use rusqlite::{Connection, OpenFlags};
use sqlx::postgres::{PgListener, PgPoolOptions};
use uuid::Uuid;

use crate::Db;

/// How long a SQLite feed goes without asking the database whether anything changed: a
/// change committed by another connection is seen by every [`Changes::version`] that starts
/// this long after it.
pub const SQLITE_BOUND: Duration = Duration::from_millis(1);

/// The PostgreSQL notification channel the triggers of migration 0030 send on.
pub const CHANNEL: &str = "boxtrack_changes";

/// The state of one account's data at one instant, as far as caches are concerned: equal
/// versions mean nothing it is rendered from changed in between.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Version {
    epoch: u64,
    account: u64,
}

/// The change feed of one database (cheap to clone: clones share it).
#[derive(Clone, Debug)]
pub struct Changes {
    inner: Arc<Inner>,
}

#[derive(Debug)]
struct Inner {
    /// Raised whenever the feed may have missed a change: every version changes.
    epoch: AtomicU64,
    /// The last number handed out to an account (numbers never repeat, so a version never
    /// comes back).
    counter: AtomicU64,
    accounts: Mutex<HashMap<Uuid, u64>>,
    feed: Feed,
    /// Ends the PostgreSQL listener when the last handle goes.
    stop: Arc<tokio::sync::Notify>,
}

impl Drop for Inner {
    fn drop(&mut self) {
        self.stop.notify_one();
    }
}

#[derive(Debug)]
enum Feed {
    /// No feed: no versions.
    Off,
    Sqlite(Mutex<SqliteFeed>),
    /// Whether the listener is connected and listening.
    Postgres(AtomicBool),
}

#[derive(Debug)]
struct SqliteFeed {
    path: PathBuf,
    conn: Option<Connection>,
    /// `PRAGMA data_version` when last asked (`None`: not yet, or lost track).
    data_version: Option<i64>,
    /// When it was last asked and answered.
    asked: Option<std::time::Instant>,
    /// The highest `account_changes.seq` applied.
    seq: i64,
}

impl Changes {
    /// A feed that gives no versions (caches built on it store nothing).
    pub fn off() -> Changes {
        Changes::with(Feed::Off)
    }

    /// The feed of `db`. On PostgreSQL this starts the listener task, which needs a Tokio
    /// runtime (without one the feed is off) and a connection of its own, outside the pool.
    pub fn start(db: &Db) -> Changes {
        match db {
            Db::Sqlite(pool, _) => {
                let path = pool.connect_options().get_filename().to_path_buf();
                if path.as_os_str().is_empty() || path.as_os_str() == ":memory:" {
                    return Changes::off();
                }
                Changes::with(Feed::Sqlite(Mutex::new(SqliteFeed {
                    path,
                    conn: None,
                    data_version: None,
                    asked: None,
                    seq: 0,
                })))
            }
            Db::Postgres(pool) => {
                let Ok(rt) = tokio::runtime::Handle::try_current() else {
                    return Changes::off();
                };
                let changes = Changes::with(Feed::Postgres(AtomicBool::new(false)));
                // one connection of its own, so the listener never takes one of the pool's
                let own = PgPoolOptions::new()
                    .max_connections(1)
                    .acquire_timeout(Duration::from_secs(10))
                    .connect_lazy_with((*pool.connect_options()).clone());
                rt.spawn(listen(
                    Arc::downgrade(&changes.inner),
                    changes.inner.stop.clone(),
                    own,
                ));
                changes
            }
        }
    }

    /// A feed whose versions change only through [`Changes::touch`]: for a caller that sees
    /// every write itself, and for tests.
    pub fn manual() -> Changes {
        Changes::with(Feed::Postgres(AtomicBool::new(true)))
    }

    fn with(feed: Feed) -> Changes {
        Changes {
            inner: Arc::new(Inner {
                epoch: AtomicU64::new(1),
                counter: AtomicU64::new(0),
                accounts: Mutex::default(),
                feed,
                stop: Arc::default(),
            }),
        }
    }

    /// The current version of `account`'s data, or `None` when the feed cannot tell (off,
    /// not connected, or the database could not be asked): then nothing may be cached.
    pub fn version(&self, account: Uuid) -> Option<Version> {
        match &self.inner.feed {
            Feed::Off => return None,
            Feed::Postgres(live) => {
                if !live.load(Ordering::Acquire) {
                    return None;
                }
            }
            Feed::Sqlite(feed) => {
                let mut feed = feed.lock().unwrap_or_else(|p| p.into_inner());
                let now = std::time::Instant::now();
                let fresh = feed
                    .asked
                    .is_some_and(|at| now.saturating_duration_since(at) < SQLITE_BOUND);
                if !fresh {
                    if let Err(e) = self.catch_up(&mut feed) {
                        tracing::debug!(error = %e, "change feed: cannot read the SQLite change log");
                        feed.conn = None;
                        feed.data_version = None;
                        feed.asked = None;
                        self.inner.epoch.fetch_add(1, Ordering::AcqRel);
                        return None;
                    }
                    feed.asked = Some(now);
                }
            }
        }
        let epoch = self.inner.epoch.load(Ordering::Acquire);
        let accounts = self
            .inner
            .accounts
            .lock()
            .unwrap_or_else(|p| p.into_inner());
        Some(Version {
            epoch,
            account: accounts.get(&account).copied().unwrap_or(0),
        })
    }

    /// Records that `account`'s data changed (a write this process made and committed).
    pub fn touch(&self, account: Uuid) {
        let n = self.inner.counter.fetch_add(1, Ordering::AcqRel) + 1;
        self.inner
            .accounts
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .insert(account, n);
    }

    /// Records that any account's data may have changed: every version moves, so nothing
    /// cached before is served again. For a caller in this process that wrote without going
    /// through the API and must see the write in its very next read (a test's worker run).
    pub fn touch_all(&self) {
        self.inner.epoch.fetch_add(1, Ordering::AcqRel);
    }

    /// Whether this feed gives versions at all (a SQLite file, or PostgreSQL).
    pub fn enabled(&self) -> bool {
        !matches!(self.inner.feed, Feed::Off)
    }

    /// Applies the SQLite change log's rows committed since the last call.
    fn catch_up(&self, feed: &mut SqliteFeed) -> rusqlite::Result<()> {
        if feed.conn.is_none() {
            let conn = Connection::open_with_flags(
                &feed.path,
                OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX,
            )?;
            conn.busy_timeout(Duration::from_secs(1))?;
            feed.conn = Some(conn);
        }
        let Some(conn) = feed.conn.as_ref() else {
            return Ok(());
        };
        let data_version: i64 = conn
            .prepare_cached("PRAGMA data_version")?
            .query_row([], |r| r.get(0))?;
        if feed.data_version == Some(data_version) {
            return Ok(());
        }
        if feed.data_version.is_none() {
            // nothing was cached while the feed had no version: start from the log's end
            feed.seq = conn
                .prepare_cached("SELECT COALESCE(MAX(seq), 0) FROM account_changes")?
                .query_row([], |r| r.get(0))?;
        } else {
            let mut stmt = conn.prepare_cached(
                "SELECT account_id, seq FROM account_changes WHERE seq > ?1 ORDER BY seq",
            )?;
            let rows = stmt.query_map([feed.seq], |r| {
                Ok((r.get::<_, Uuid>(0)?, r.get::<_, i64>(1)?))
            })?;
            for row in rows {
                let (account, seq) = row?;
                self.touch(account);
                feed.seq = feed.seq.max(seq);
            }
        }
        feed.data_version = Some(data_version);
        Ok(())
    }
}

/// The PostgreSQL listener: applies notifications until the feed is dropped, reconnecting
/// (and forgetting everything) whenever its connection is lost.
async fn listen(inner: Weak<Inner>, stop: Arc<tokio::sync::Notify>, pool: sqlx::PgPool) {
    let changes = |inner: &Weak<Inner>| inner.upgrade().map(|inner| Changes { inner });
    // on Citus the rows change on the workers, which cannot notify inside a distributed
    // commit (`citus::lay_out` drops those triggers): no version, so nothing is cached
    if matches!(crate::citus::is_citus(&pool).await, Ok(true)) {
        tracing::info!("change feed: on Citus responses are not cached");
        return;
    }
    loop {
        let connected = async {
            let mut l = PgListener::connect_with(&pool).await?;
            l.listen(CHANNEL).await?;
            Ok::<_, sqlx::Error>(l)
        };
        let mut listener = tokio::select! {
            _ = stop.notified() => break,
            l = connected => match l {
                Ok(l) => l,
                Err(e) => {
                    tracing::warn!(error = %e, "change feed: cannot listen on PostgreSQL; responses are not cached until it can");
                    tokio::select! {
                        _ = stop.notified() => break,
                        _ = tokio::time::sleep(Duration::from_secs(1)) => continue,
                    }
                }
            },
        };
        let Some(c) = changes(&inner) else { break };
        c.inner.epoch.fetch_add(1, Ordering::AcqRel);
        set_live(&c, true);
        drop(c);
        loop {
            let next = tokio::select! {
                _ = stop.notified() => {
                    pool.close().await;
                    return;
                }
                n = listener.try_recv() => n,
            };
            let Some(c) = changes(&inner) else { return };
            match next {
                Ok(Some(n)) => match n.payload().parse::<Uuid>() {
                    Ok(account) => c.touch(account),
                    Err(_) => {
                        c.inner.epoch.fetch_add(1, Ordering::AcqRel);
                    }
                },
                Ok(None) | Err(_) => {
                    // the connection is gone and notifications with it: forget everything
                    set_live(&c, false);
                    c.inner.epoch.fetch_add(1, Ordering::AcqRel);
                    break;
                }
            }
        }
    }
    pool.close().await;
}

fn set_live(c: &Changes, value: bool) {
    if let Feed::Postgres(live) = &c.inner.feed {
        live.store(value, Ordering::Release);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn off_gives_no_version() {
        let c = Changes::off();
        assert_eq!(c.version(Uuid::nil()), None);
        assert!(!c.enabled());
    }

    #[test]
    fn touching_an_account_changes_its_version_only() {
        let c = Changes::manual();
        let (a, b) = (Uuid::from_u128(1), Uuid::from_u128(2));
        let (va, vb) = (c.version(a), c.version(b));
        assert!(va.is_some());
        c.touch(a);
        assert_ne!(c.version(a), va);
        assert_eq!(c.version(b), vb);
        set_live(&c, false);
        assert_eq!(c.version(b), None);
    }
}
