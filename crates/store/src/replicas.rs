//! Reads from PostgreSQL streaming replicas.
//!
//! [`Replicas`] keeps one pool per replica beside the primary's and a health loop
//! ([`Replicas::run`]) that, about once a second, asks every replica how far it has replayed
//! the write-ahead log (`pg_last_wal_replay_lsn()`) and the primary how far it has written
//! (`pg_current_wal_lsn()`). A replica is in use while it answers, is a replica (in recovery)
//! and lags at most the bound: its lag is how long ago the primary first stood past the
//! position the replica has replayed ([`lag_behind`], from the primary's positions the loop
//! has seen; no clock of another machine is read). One that errors, cannot be reached or falls
//! behind is taken out, and back in once healthy; each change is a log line.
//!
//! Read-your-writes: after a write the edge records the primary's position for the account
//! ([`Replicas::wrote`]); [`Replicas::reader`] gives that account a replica only once the loop
//! has seen the replica replay past it, and the primary until then. The record is kept in this
//! process's memory: with several processes behind a balancer the guarantee holds per process,
//! so a balancer that spreads one client's requests must keep an account (or key) on one
//! process for it to hold across them.

use std::collections::{HashMap, VecDeque};
use std::str::FromStr;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use sqlx::postgres::PgConnectOptions;
use uuid::Uuid;

use crate::{Db, Result, StoreError};

/// How long one health question may take before the replica (or the primary) counts as
/// unreachable.
pub const CHECK_TIMEOUT: Duration = Duration::from_secs(2);

/// A position in the write-ahead log: PostgreSQL's `X/Y` (two hexadecimal halves of a 64-bit
/// byte position).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Default, Hash)]
pub struct Lsn(pub u64);

impl FromStr for Lsn {
    type Err = StoreError;

    fn from_str(s: &str) -> Result<Lsn> {
        let corrupt = || StoreError::Corrupt {
            what: "a WAL position",
            detail: format!("{s:?} is not X/Y in hexadecimal"),
        };
        let (hi, lo) = s.trim().split_once('/').ok_or_else(corrupt)?;
        let hi = u32::from_str_radix(hi, 16).map_err(|_| corrupt())?;
        let lo = u32::from_str_radix(lo, 16).map_err(|_| corrupt())?;
        Ok(Lsn((u64::from(hi) << 32) | u64::from(lo)))
    }
}

impl std::fmt::Display for Lsn {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:X}/{:X}", self.0 >> 32, self.0 & 0xffff_ffff)
    }
}

/// What the health loop last found of one replica.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Health {
    /// Whether reads go to it.
    pub in_use: bool,
    /// How far it had replayed at the last answer.
    pub replay: Option<Lsn>,
    /// How long ago the primary stood where the replica stands now (zero when caught up).
    pub lag: Duration,
    /// Bytes of the log the primary had written past the replica's position.
    pub lag_bytes: u64,
    /// Why it is out (`None` while in use, or before the first check).
    pub why_out: Option<String>,
}

/// One replica's pool and what the loop knows of it.
#[derive(Debug)]
struct Replica {
    /// `host:port`, for logs and metrics (no credential).
    name: String,
    db: Db,
    health: Mutex<Health>,
    /// Whether the loop has checked it once.
    checked: std::sync::atomic::AtomicBool,
}

/// A replica's state as `/metrics` shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReplicaStatus {
    /// `host:port`.
    pub name: String,
    /// The last check's findings.
    pub health: Health,
}

/// Where reads went, since the start.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ReadCounts {
    /// Served by a replica.
    pub replica: u64,
    /// Served by the primary because no replica was in use.
    pub primary_no_replica: u64,
    /// Served by the primary because no replica in use had replayed the account's last write.
    pub primary_behind_write: u64,
}

/// Where one read goes ([`choose`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Choice {
    /// The replica at this index.
    Replica(usize),
    /// The primary: no replica is in use.
    PrimaryNoReplica,
    /// The primary: the replicas in use have not replayed the write the read must see.
    PrimaryBehindWrite,
}

/// Which replica serves a read that must see the log up to `need`: the first in use, counting
/// round from `start`, that has replayed at least `need`; the primary when none has (or none
/// is in use).
pub fn choose(replicas: &[Health], need: Lsn, start: usize) -> Choice {
    let n = replicas.len();
    let mut any_in_use = false;
    for k in 0..n {
        let i = (start + k) % n;
        let h = &replicas[i];
        if !h.in_use {
            continue;
        }
        any_in_use = true;
        if h.replay.is_some_and(|r| r >= need) {
            return Choice::Replica(i);
        }
    }
    if any_in_use {
        Choice::PrimaryBehindWrite
    } else {
        Choice::PrimaryNoReplica
    }
}

/// A replica's lag: how long before `now` the primary was first seen (in `history`, oldest
/// first, its positions at the times they were read) past `replay`; zero when it has not been
/// seen past it.
pub fn lag_behind(history: &VecDeque<(Instant, Lsn)>, replay: Lsn, now: Instant) -> Duration {
    history
        .iter()
        .find(|(_, at)| *at > replay)
        .map_or(Duration::ZERO, |(when, _)| {
            now.saturating_duration_since(*when)
        })
}

/// What a health check found of a replica: its replay position, or why it has none.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Probe {
    /// It answered, having replayed up to this position.
    Replayed(Lsn),
    /// It answered but is not in recovery (a primary, or a promoted replica).
    NotReplica,
    /// It did not answer in time, or failed.
    Failed(String),
}

/// A replica's health from a check: in use when it answered as a replica at most `max_lag`
/// behind the primary (`history`, `primary_now`: the primary's positions, see [`lag_behind`]).
pub fn judge(
    probe: &Probe,
    history: &VecDeque<(Instant, Lsn)>,
    primary_now: Option<Lsn>,
    max_lag: Duration,
    now: Instant,
) -> Health {
    let replay = match probe {
        Probe::Replayed(l) => *l,
        Probe::NotReplica => return out("it is not in recovery (a primary, or promoted)".into()),
        Probe::Failed(e) => return out(format!("it cannot be reached: {e}")),
    };
    let lag = lag_behind(history, replay, now);
    let lag_bytes = primary_now.map_or(0, |p| p.0.saturating_sub(replay.0));
    let in_use = lag <= max_lag;
    Health {
        in_use,
        replay: Some(replay),
        lag,
        lag_bytes,
        why_out: (!in_use).then(|| {
            format!(
                "it lags {} ms behind the primary (bound {} ms)",
                lag.as_millis(),
                max_lag.as_millis()
            )
        }),
    }
}

fn out(why: String) -> Health {
    Health {
        why_out: Some(why),
        ..Health::default()
    }
}

/// The primary and its read replicas, with what the health loop knows of each and the
/// positions of the accounts' last writes (see the module's documentation).
#[derive(Debug)]
pub struct Replicas {
    primary: Db,
    replicas: Vec<Replica>,
    max_lag: Duration,
    /// The primary's position after each account's last write through this process.
    writes: Mutex<HashMap<Uuid, Lsn>>,
    /// What every read must see: writes whose account is not known, and the positions of
    /// records forgotten because every replica in use had replayed them.
    floor: AtomicU64,
    /// The primary's positions as the loop read them, oldest first.
    history: Mutex<VecDeque<(Instant, Lsn)>>,
    next: AtomicUsize,
    to_replica: AtomicU64,
    no_replica: AtomicU64,
    behind_write: AtomicU64,
    wake: tokio::sync::Notify,
}

/// A record of a write whose position could not be read: held until the loop reads the
/// primary's position again.
const UNKNOWN: u64 = u64::MAX;

impl Replicas {
    /// Pools for the replicas at `urls` (each `postgres://…`; connected when first used) beside
    /// `primary`, which must be PostgreSQL; reads go to a replica only while it lags at most
    /// `max_lag`. Each pool keeps at most `size` connections (`None`: 16), a read waiting
    /// `acquire` for one. Every replica is out until the loop's first check.
    pub fn open(
        primary: Db,
        urls: &[String],
        max_lag: Duration,
        size: Option<u32>,
        acquire: Duration,
    ) -> Result<Replicas> {
        if !matches!(primary, Db::Postgres(_)) {
            return Err(StoreError::Replicas(
                "read replicas need a PostgreSQL primary; this database is SQLite".into(),
            ));
        }
        let mut replicas = Vec::new();
        for url in urls {
            if !(url.starts_with("postgres://") || url.starts_with("postgresql://")) {
                return Err(StoreError::Replicas(format!(
                    "{} is not a postgres:// URL",
                    crate::db::redact_url(url)
                )));
            }
            let opts = PgConnectOptions::from_str(url)?;
            let name = format!("{}:{}", opts.get_host(), opts.get_port());
            let pool =
                crate::db::pg_pool_options(size.unwrap_or(16), acquire).connect_lazy_with(opts);
            replicas.push(Replica {
                name,
                db: Db::Postgres(pool),
                health: Mutex::new(out("not checked yet".into())),
                checked: Default::default(),
            });
        }
        Ok(Replicas {
            primary,
            replicas,
            max_lag,
            writes: Mutex::default(),
            floor: AtomicU64::new(0),
            history: Mutex::default(),
            next: AtomicUsize::new(0),
            to_replica: AtomicU64::new(0),
            no_replica: AtomicU64::new(0),
            behind_write: AtomicU64::new(0),
            wake: tokio::sync::Notify::new(),
        })
    }

    /// Whether there is any replica.
    pub fn is_empty(&self) -> bool {
        self.replicas.is_empty()
    }

    /// The primary.
    pub fn primary(&self) -> &Db {
        &self.primary
    }

    /// The database a read for `account` goes to: a replica in use that has replayed the
    /// account's last write (and every write whose account was not known), else the primary.
    pub fn reader(&self, account: Uuid) -> &Db {
        let need = {
            let writes = self.writes.lock().unwrap_or_else(|p| p.into_inner());
            writes.get(&account).copied().unwrap_or_default()
        };
        let need = need.max(Lsn(self.floor.load(Ordering::Acquire)));
        let health: Vec<Health> = self.replicas.iter().map(Replica::health).collect();
        let start = self.next.fetch_add(1, Ordering::Relaxed);
        match choose(&health, need, start) {
            Choice::Replica(i) => {
                self.to_replica.fetch_add(1, Ordering::Relaxed);
                &self.replicas[i].db
            }
            Choice::PrimaryNoReplica => {
                self.no_replica.fetch_add(1, Ordering::Relaxed);
                &self.primary
            }
            Choice::PrimaryBehindWrite => {
                self.behind_write.fetch_add(1, Ordering::Relaxed);
                &self.primary
            }
        }
    }

    /// Records that `account` (`None`: an account the edge does not know, which holds every
    /// account's reads) has just written: its reads stay on the primary until a replica has
    /// replayed the primary's position now. When the position cannot be read, they stay there
    /// until the loop reads it again.
    pub async fn wrote(&self, account: Option<Uuid>) {
        let at = match self.primary_position().await {
            Ok(l) => l,
            Err(e) => {
                tracing::warn!(error = %e, "read replicas: cannot read the primary's WAL position after a write; the account's reads stay on the primary until it can be read");
                Lsn(UNKNOWN)
            }
        };
        match account {
            Some(a) => {
                let mut writes = self.writes.lock().unwrap_or_else(|p| p.into_inner());
                let e = writes.entry(a).or_default();
                *e = (*e).max(at);
            }
            None => {
                self.floor.fetch_max(at.0, Ordering::AcqRel);
            }
        }
    }

    /// Asks the loop to check the replicas now (a read found one unreachable).
    pub fn check_soon(&self) {
        self.wake.notify_one();
    }

    /// Every replica's state, in the order configured.
    pub fn status(&self) -> Vec<ReplicaStatus> {
        self.replicas
            .iter()
            .map(|r| ReplicaStatus {
                name: r.name.clone(),
                health: r.health(),
            })
            .collect()
    }

    /// Where reads went since the start.
    pub fn reads(&self) -> ReadCounts {
        ReadCounts {
            replica: self.to_replica.load(Ordering::Relaxed),
            primary_no_replica: self.no_replica.load(Ordering::Relaxed),
            primary_behind_write: self.behind_write.load(Ordering::Relaxed),
        }
    }

    /// Checks the replicas every `every` (and when [`Replicas::check_soon`] asks) until `stop`
    /// completes; then closes their pools.
    pub async fn run(
        self: std::sync::Arc<Self>,
        every: Duration,
        stop: impl std::future::Future<Output = ()>,
    ) {
        tokio::pin!(stop);
        let mut tick = tokio::time::interval(every);
        tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            tokio::select! {
                _ = &mut stop => break,
                _ = tick.tick() => {}
                _ = self.wake.notified() => {}
            }
            self.check().await;
        }
        for r in &self.replicas {
            r.db.close().await;
        }
    }

    /// One round of the loop: the primary's position, each replica's, the verdicts (a log line
    /// for each replica that went out or came back), and the records every replica in use has
    /// passed forgotten.
    pub async fn check(&self) {
        let now = Instant::now();
        let primary_now = self.primary_position().await.ok();
        let history = self.remember(primary_now, now);
        let probes = probe_all(self.replicas.iter().map(|r| r.db.clone())).await;
        for (r, p) in self.replicas.iter().zip(probes) {
            let h = judge(&p, &history, primary_now, self.max_lag, now);
            r.set(h);
        }
        self.forget(primary_now);
    }

    /// Adds the primary's position to the history (kept for twice the bound and a few
    /// seconds more) and returns a copy.
    fn remember(&self, primary_now: Option<Lsn>, now: Instant) -> VecDeque<(Instant, Lsn)> {
        let mut h = self.history.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(at) = primary_now {
            h.push_back((now, at));
        }
        let keep = self.max_lag * 2 + Duration::from_secs(5);
        while h.len() > 1
            && h.front()
                .is_some_and(|(t, _)| now.saturating_duration_since(*t) > keep)
        {
            h.pop_front();
        }
        h.clone()
    }

    /// Forgets the writes every replica in use has replayed (raising the floor to them, so
    /// that a replica coming back behind them is not chosen for their accounts), and gives the
    /// writes whose position could not be read the primary's position now.
    fn forget(&self, primary_now: Option<Lsn>) {
        let replayed = self
            .replicas
            .iter()
            .map(Replica::health)
            .filter(|h| h.in_use)
            .filter_map(|h| h.replay)
            .min();
        let mut writes = self.writes.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(p) = primary_now {
            for v in writes.values_mut().filter(|v| v.0 == UNKNOWN) {
                *v = p;
            }
            if self.floor.load(Ordering::Acquire) == UNKNOWN {
                self.floor.store(p.0, Ordering::Release);
            }
        }
        let Some(replayed) = replayed else { return };
        let mut raised = 0;
        writes.retain(|_, at| {
            let keep = *at > replayed;
            if !keep {
                raised = raised.max(at.0);
            }
            keep
        });
        self.floor.fetch_max(raised, Ordering::AcqRel);
    }

    async fn primary_position(&self) -> Result<Lsn> {
        let Db::Postgres(p) = &self.primary else {
            return Err(StoreError::Replicas("the primary is not PostgreSQL".into()));
        };
        let q = sqlx::query_scalar::<_, String>("SELECT pg_current_wal_lsn()::text").fetch_one(p);
        match tokio::time::timeout(CHECK_TIMEOUT, q).await {
            Ok(found) => found?.parse(),
            Err(_) => Err(StoreError::Replicas(
                "the primary did not answer in time".into(),
            )),
        }
    }
}

impl Replica {
    fn health(&self) -> Health {
        self.health
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
    }

    /// Keeps a check's verdict, with a log line when the replica goes out or comes back (and
    /// at the first check).
    fn set(&self, h: Health) {
        let first = !self.checked.swap(true, Ordering::AcqRel);
        let mut slot = self.health.lock().unwrap_or_else(|p| p.into_inner());
        if h.in_use && (first || !slot.in_use) {
            tracing::info!(
                replica = %self.name,
                lag_ms = u64::try_from(h.lag.as_millis()).unwrap_or(u64::MAX),
                "read replica in use"
            );
        } else if !h.in_use && (first || slot.in_use) {
            tracing::warn!(
                replica = %self.name,
                reason = h.why_out.as_deref().unwrap_or_default(),
                "read replica taken out: its reads go to the primary"
            );
        }
        *slot = h;
    }
}

/// Asks a replica how far it has replayed.
async fn probe(db: &Db) -> Probe {
    let Db::Postgres(p) = db else {
        return Probe::Failed("not PostgreSQL".into());
    };
    let q = sqlx::query_scalar::<_, Option<String>>("SELECT pg_last_wal_replay_lsn()::text")
        .fetch_one(p);
    match tokio::time::timeout(CHECK_TIMEOUT, q).await {
        Ok(Ok(Some(l))) => match l.parse() {
            Ok(l) => Probe::Replayed(l),
            Err(e) => Probe::Failed(e.to_string()),
        },
        Ok(Ok(None)) => Probe::NotReplica,
        Ok(Err(e)) => Probe::Failed(e.to_string()),
        Err(_) => Probe::Failed(format!("no answer within {} s", CHECK_TIMEOUT.as_secs())),
    }
}

/// Asks every replica at once; the answers in the order of `dbs`.
async fn probe_all(dbs: impl Iterator<Item = Db>) -> Vec<Probe> {
    let asked: Vec<_> = dbs
        .map(|db| tokio::spawn(async move { probe(&db).await }))
        .collect();
    let mut out = Vec::with_capacity(asked.len());
    for a in asked {
        out.push(a.await.unwrap_or_else(|e| Probe::Failed(e.to_string())));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn in_use(replay: u64) -> Health {
        Health {
            in_use: true,
            replay: Some(Lsn(replay)),
            ..Health::default()
        }
    }

    #[test]
    fn positions_read_as_pg_writes_them() {
        assert_eq!("0/3016038".parse::<Lsn>().unwrap(), Lsn(0x0301_6038));
        assert_eq!("1/0".parse::<Lsn>().unwrap(), Lsn(1 << 32));
        assert!("16/B374D848".parse::<Lsn>().unwrap() > "16/B374D847".parse().unwrap());
        assert!("2/0".parse::<Lsn>().unwrap() > "1/FFFFFFFF".parse().unwrap());
        assert_eq!(Lsn(0x16_B374_D848).to_string(), "16/B374D848");
        assert!("3016038".parse::<Lsn>().is_err());
        assert!("x/1".parse::<Lsn>().is_err());
    }

    #[test]
    fn a_read_goes_to_a_replica_in_use_that_has_the_write() {
        let out = out("down".into());
        // none configured, none in use
        assert_eq!(choose(&[], Lsn(0), 0), Choice::PrimaryNoReplica);
        assert_eq!(
            choose(std::slice::from_ref(&out), Lsn(0), 0),
            Choice::PrimaryNoReplica
        );
        // in use and past the write
        assert_eq!(choose(&[in_use(10)], Lsn(10), 0), Choice::Replica(0));
        // in use but behind the account's write: read your writes
        assert_eq!(choose(&[in_use(9)], Lsn(10), 0), Choice::PrimaryBehindWrite);
        // the one out is skipped; the one behind is skipped for one that has the write
        let set = [out.clone(), in_use(5), in_use(20)];
        assert_eq!(choose(&set, Lsn(10), 0), Choice::Replica(2));
        assert_eq!(choose(&set, Lsn(0), 0), Choice::Replica(1));
        // round from `start`
        assert_eq!(choose(&set, Lsn(0), 2), Choice::Replica(2));
        assert_eq!(choose(&set, Lsn(0), 3), Choice::Replica(1));
        // an out replica never serves, however far it has replayed
        let gone = Health {
            replay: Some(Lsn(100)),
            ..out
        };
        assert_eq!(choose(&[gone], Lsn(0), 0), Choice::PrimaryNoReplica);
    }

    #[test]
    fn lag_is_how_long_ago_the_primary_passed_the_replica() {
        let t0 = Instant::now();
        let history: VecDeque<(Instant, Lsn)> = [
            (t0, Lsn(100)),
            (t0 + Duration::from_secs(1), Lsn(100)),
            (t0 + Duration::from_secs(2), Lsn(150)),
            (t0 + Duration::from_secs(3), Lsn(200)),
        ]
        .into();
        let now = t0 + Duration::from_secs(4);
        // caught up, or ahead of what the loop saw: no lag
        assert_eq!(lag_behind(&history, Lsn(200), now), Duration::ZERO);
        assert_eq!(lag_behind(&history, Lsn(250), now), Duration::ZERO);
        // the primary passed 120 at t0+2
        assert_eq!(lag_behind(&history, Lsn(120), now), Duration::from_secs(2));
        // behind everything seen: as old as the history
        assert_eq!(lag_behind(&history, Lsn(50), now), Duration::from_secs(4));
    }

    #[test]
    fn a_replica_is_out_when_it_lags_past_the_bound_fails_or_is_no_replica() {
        let t0 = Instant::now();
        let history: VecDeque<(Instant, Lsn)> =
            [(t0, Lsn(100)), (t0 + Duration::from_secs(3), Lsn(300))].into();
        let now = t0 + Duration::from_secs(4);
        let bound = Duration::from_secs(2);
        let close = judge(
            &Probe::Replayed(Lsn(150)),
            &history,
            Some(Lsn(300)),
            bound,
            now,
        );
        assert!(close.in_use, "{close:?}");
        assert_eq!(close.lag, Duration::from_secs(1));
        assert_eq!(close.lag_bytes, 150);
        let far = judge(
            &Probe::Replayed(Lsn(90)),
            &history,
            Some(Lsn(300)),
            bound,
            now,
        );
        assert!(!far.in_use);
        assert_eq!(far.lag, Duration::from_secs(4));
        assert!(far.why_out.unwrap().contains("lags 4000 ms"));
        let caught_up = judge(&Probe::Replayed(Lsn(300)), &history, None, bound, now);
        assert!(caught_up.in_use && caught_up.lag_bytes == 0);
        let failed = judge(&Probe::Failed("refused".into()), &history, None, bound, now);
        assert!(!failed.in_use && failed.why_out.unwrap().contains("refused"));
        assert!(!judge(&Probe::NotReplica, &history, None, bound, now).in_use);
    }
}
