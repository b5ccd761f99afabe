//! Following live AIS feeds: the reconnect backoff both connectors share, the filter to the
//! vessels of tracked shipments ([`Watch`]), and the NMEA-over-TCP reader ([`follow`]).

use std::collections::HashSet;
use std::sync::Arc;
use std::time::Duration;

use boxtrack_store::Db;
use tokio_util::sync::CancellationToken;

use super::{AisReport, Decoder, ingest_lines_watched};
use crate::upstream::Upstreams;

/// Capped exponential backoff with full jitter: the n-th wait in a row is a random duration
/// between half and all of `min(cap, base · 2ⁿ)`; a connection that delivered resets it.
#[derive(Debug, Clone)]
pub struct Backoff {
    base: Duration,
    cap: Duration,
    failures: u32,
}

impl Backoff {
    /// Starting at `base`, never more than `cap`.
    pub fn new(base: Duration, cap: Duration) -> Backoff {
        Backoff {
            base,
            cap,
            failures: 0,
        }
    }

    /// The wait before the next attempt (and one more failure counted).
    pub fn next_wait(&mut self) -> Duration {
        let ceiling = self
            .base
            .saturating_mul(1u32 << self.failures.min(20))
            .min(self.cap);
        self.failures = self.failures.saturating_add(1);
        // jitter in [1/2, 1] of the ceiling, so that many workers do not reconnect together
        let r = (uuid::Uuid::new_v4().as_u128() % 1_000) as u32;
        ceiling / 2 + ceiling / 2 * r / 1_000
    }

    /// A connection worked: the next wait starts from `base` again.
    pub fn reset(&mut self) {
        self.failures = 0;
    }

    /// Failures in a row so far.
    pub fn failures(&self) -> u32 {
        self.failures
    }
}

/// The default backoff of the feeds: from half a second up to a minute.
pub fn default_backoff() -> Backoff {
    Backoff::new(Duration::from_millis(500), Duration::from_secs(60))
}

/// Which vessels' reports are kept. Position reports name only an MMSI, and the shipments
/// name vessels by IMO number; static data (which carries both) ties them together. So static
/// data is kept for every vessel (one row per vessel: the MMSI–IMO directory), and positions
/// only for the MMSIs of the vessels of shipments tracked (`store::ais::tracked_vessels`).
#[derive(Debug, Clone, Default)]
pub struct Watch {
    all: bool,
    imos: HashSet<String>,
    mmsis: HashSet<u32>,
}

impl Watch {
    /// Keeps every vessel's reports.
    pub fn all() -> Watch {
        Watch {
            all: true,
            ..Watch::default()
        }
    }

    /// The vessels of the shipments tracked now.
    pub async fn load(db: &Db) -> Result<Watch, boxtrack_store::StoreError> {
        let t = boxtrack_store::ais::tracked_vessels(db, boxtrack_core::time::now_us()).await?;
        Ok(Watch {
            all: false,
            imos: t.imos.into_iter().collect(),
            mmsis: t
                .mmsis
                .into_iter()
                .filter_map(|m| u32::try_from(m).ok())
                .collect(),
        })
    }

    /// Keeps the positions of `mmsis` and learns the MMSIs of `imos` (as the tracked vessels).
    pub fn of(
        imos: impl IntoIterator<Item = String>,
        mmsis: impl IntoIterator<Item = u32>,
    ) -> Watch {
        Watch {
            all: false,
            imos: imos.into_iter().collect(),
            mmsis: mmsis.into_iter().collect(),
        }
    }

    /// Whether a position report of `mmsi` is kept.
    pub fn keeps_position(&self, mmsi: u32) -> bool {
        self.all || self.mmsis.contains(&mmsi)
    }

    /// Static data tying `mmsi` to `imo` arrived: a tracked IMO's MMSI is watched from now.
    pub fn learn(&mut self, mmsi: u32, imo: Option<&str>) {
        if imo.is_some_and(|i| self.imos.contains(i)) {
            self.mmsis.insert(mmsi);
        }
    }

    /// Whether every vessel is kept.
    pub fn is_all(&self) -> bool {
        self.all
    }

    /// The watched MMSIs, sorted.
    pub fn mmsis(&self) -> Vec<u32> {
        let mut m: Vec<u32> = self.mmsis.iter().copied().collect();
        m.sort_unstable();
        m
    }

    /// Whether some tracked IMO has no MMSI known yet.
    pub fn missing_mmsis(&self) -> bool {
        !self.all && self.imos.len() > self.mmsis.len()
    }
}

/// How a feed chooses its vessels.
#[derive(Debug, Clone)]
pub enum Filter {
    /// Every vessel.
    All,
    /// The vessels of tracked shipments, read again every `refresh`.
    Tracked {
        /// How often the tracked vessels are read again.
        refresh: Duration,
    },
}

impl Filter {
    /// The vessels of tracked shipments, read again every 10 seconds.
    pub fn tracked() -> Filter {
        Filter::Tracked {
            refresh: Duration::from_secs(10),
        }
    }

    /// The watch now (every vessel when reading the tracked ones failed: better too much
    /// than nothing).
    pub(crate) async fn watch(&self, db: &Db) -> Watch {
        match self {
            Filter::All => Watch::all(),
            Filter::Tracked { .. } => Watch::load(db).await.unwrap_or_else(|e| {
                tracing::warn!(error = %e, "reading the tracked vessels failed; keeping every vessel");
                Watch::all()
            }),
        }
    }

    /// How often the watch is read again.
    pub(crate) fn refresh(&self) -> Duration {
        match self {
            Filter::All => Duration::from_secs(3600),
            Filter::Tracked { refresh } => *refresh,
        }
    }
}

/// What a feed's reader hands on: what it stored, each time it stored.
pub type Reports = Option<tokio::sync::mpsc::UnboundedSender<AisReport>>;

/// Follows an NMEA-over-TCP AIS feed (`host:port`, one sentence per line) until `shutdown`,
/// storing what arrives about once a second (kept to the vessels of tracked shipments);
/// reconnects after the feed ends or fails, with [`default_backoff`].
pub async fn follow(
    db: Db,
    addr: String,
    upstreams: Option<Arc<Upstreams>>,
    shutdown: CancellationToken,
) {
    follow_with(
        db,
        addr,
        upstreams,
        Filter::tracked(),
        default_backoff(),
        None,
        shutdown,
    )
    .await;
}

/// [`follow`] with its filter and backoff given, and each store's report sent to `reports`.
pub async fn follow_with(
    db: Db,
    addr: String,
    upstreams: Option<Arc<Upstreams>>,
    filter: Filter,
    mut backoff: Backoff,
    reports: Reports,
    shutdown: CancellationToken,
) {
    loop {
        match tokio::net::TcpStream::connect(&addr).await {
            Ok(stream) => {
                tracing::info!(feed = %addr, "AIS feed connected");
                let read =
                    read_stream(&db, &addr, stream, &upstreams, &filter, &reports, &shutdown);
                if read.await {
                    backoff.reset();
                }
                if shutdown.is_cancelled() {
                    return;
                }
                tracing::warn!(feed = %addr, "AIS feed closed; reconnecting");
            }
            Err(e) => {
                tracing::warn!(feed = %addr, error = %e, failures = backoff.failures() + 1, "AIS feed unreachable; retrying");
            }
        }
        let wait = backoff.next_wait();
        tokio::select! {
            _ = shutdown.cancelled() => return,
            _ = tokio::time::sleep(wait) => {}
        }
    }
}

/// Reads one connection until it ends (or `shutdown`); whether any line arrived.
async fn read_stream(
    db: &Db,
    addr: &str,
    stream: tokio::net::TcpStream,
    upstreams: &Option<Arc<Upstreams>>,
    filter: &Filter,
    reports: &Reports,
    shutdown: &CancellationToken,
) -> bool {
    use tokio::io::AsyncBufReadExt;
    let mut lines = tokio::io::BufReader::new(stream).lines();
    let mut decoder = Decoder::new();
    let mut batch: Vec<String> = Vec::new();
    let mut watch = filter.watch(db).await;
    let mut refresh = tokio::time::interval(filter.refresh());
    refresh.tick().await;
    let mut tick = tokio::time::interval(Duration::from_secs(1));
    let mut delivered = false;
    loop {
        tokio::select! {
            _ = shutdown.cancelled() => return delivered,
            _ = refresh.tick() => watch = filter.watch(db).await,
            _ = tick.tick() => {
                if !batch.is_empty() {
                    store_batch(db, addr, upstreams, reports, std::mem::take(&mut batch), &mut decoder, &mut watch).await;
                }
            }
            line = lines.next_line() => match line {
                Ok(Some(l)) => {
                    delivered = true;
                    batch.push(l);
                }
                Ok(None) | Err(_) => break,
            }
        }
    }
    // what arrived before the feed ended is kept too
    if !batch.is_empty() {
        store_batch(
            db,
            addr,
            upstreams,
            reports,
            batch,
            &mut decoder,
            &mut watch,
        )
        .await;
    }
    delivered
}

/// Stores one batch of lines and reports what it did.
async fn store_batch(
    db: &Db,
    addr: &str,
    upstreams: &Option<Arc<Upstreams>>,
    reports: &Reports,
    batch: Vec<String>,
    decoder: &mut Decoder,
    watch: &mut Watch,
) {
    let now = boxtrack_core::time::now_us();
    match ingest_lines_watched(db, decoder, batch.iter().map(String::as_str), now, watch).await {
        Ok(r) => {
            // refused sentences count in the feed's source health
            if let Some(u) = upstreams {
                u.refused("ais", addr, addr, "feed", &r.refused, false);
            }
            if let Some(tx) = reports {
                let _ = tx.send(r);
            }
        }
        Err(e) => tracing::error!(error = %e, "storing AIS positions failed"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backoff_doubles_up_to_its_cap_with_jitter_and_resets() {
        let mut b = Backoff::new(Duration::from_millis(100), Duration::from_secs(2));
        let ceilings = [100u64, 200, 400, 800, 1600, 2000, 2000, 2000];
        for c in ceilings {
            let w = b.next_wait();
            let c = Duration::from_millis(c);
            assert!(
                w >= c / 2 && w <= c,
                "{w:?} not within [{:?}, {c:?}]",
                c / 2
            );
        }
        assert_eq!(b.failures(), 8);
        b.reset();
        assert!(b.next_wait() <= Duration::from_millis(100));
        // many failures in a row never overflow
        let mut b = Backoff::new(Duration::from_millis(500), Duration::from_secs(60));
        for _ in 0..100 {
            assert!(b.next_wait() <= Duration::from_secs(60));
        }
    }
}
