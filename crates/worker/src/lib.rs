//! Background work: the tracking-request processor and webhook delivery ([`delivery`]).
//!
//! Pending requests are rows in `tracking_requests` with a due time; [`Processor::process_due`]
//! claims the due ones with a lease, asks the carrier's source, and records the outcome with
//! its events in one transaction. A killed worker's claims expire and are taken again, and the
//! outcome is written only while the request is still pending, so nothing is applied twice.

pub mod delivery;
pub mod history;
pub mod playback;

use std::sync::Arc;
use std::sync::atomic::{AtomicI64, Ordering};
use std::time::Duration;

use boxtrack_core::carriers::{self, Decision};
use boxtrack_core::requests::{self, RequestType};
use boxtrack_sources::{Lookup, LookupResult, Source, SourceError};
use boxtrack_store::tracking::{self, Outcome, TrackingRequestRow};
use boxtrack_store::{Db, StoreError};
use tokio_util::sync::CancellationToken;

const SEC: i64 = 1_000_000;
/// How often (in the clock `tick` is given) shipments are checked for the automatic stop: it
/// reads every tracked shipment that arrived or has gone quiet, so it runs once a minute, not
/// on every tick (a stop 56 days after arrival is not due to the second).
pub const STALE_CHECK_EVERY_US: i64 = 60 * SEC;
/// How often at most the run loop records a completed pass (`worker_passes`, for `/metrics`).
pub const PASS_RECORD_EVERY_US: i64 = 10 * SEC;

/// Processes tracking requests against the configured sources.
#[derive(Clone)]
pub struct Processor {
    db: Db,
    sources: Vec<Arc<dyn Source>>,
    lease_us: i64,
    batch: i64,
    speed: f64,
    upstreams: Option<Arc<boxtrack_sources::upstream::Upstreams>>,
    /// Seconds of the carrier's clock between checks of a bill awaiting its manifest.
    manifest_recheck_secs: i64,
    /// Early reports (about containers not tracked yet) are kept this long...
    early_max_age_us: i64,
    /// ...and at most this many.
    early_max_rows: i64,
    /// When the automatic stop last ran (shared by clones).
    stale_checked_us: Arc<AtomicI64>,
}

impl Processor {
    /// A processor over these sources (the first that serves a carrier answers for it).
    pub fn new(db: Db, sources: Vec<Arc<dyn Source>>) -> Processor {
        // the merges write each container's state as its resource shows it, beside the state
        boxtrack_views::tracking::install_renderer();
        Processor {
            db,
            sources,
            lease_us: 120 * SEC,
            batch: 32,
            speed: playback::DEFAULT_SPEED,
            upstreams: None,
            manifest_recheck_secs: requests::MANIFEST_RECHECK_SECS,
            early_max_age_us: 30 * 86_400 * SEC,
            early_max_rows: 100_000,
            stale_checked_us: Arc::new(AtomicI64::new(i64::MIN)),
        }
    }

    /// Polls these upstreams for the subjects that are due (the refresh scheduler).
    pub fn with_upstreams(
        mut self,
        upstreams: Arc<boxtrack_sources::upstream::Upstreams>,
    ) -> Processor {
        self.upstreams = Some(upstreams);
        self
    }

    /// Sets how often a bill of lading or booking awaiting its manifest is asked for again, in
    /// seconds of its carrier's clock (setting `manifest_recheck_secs`).
    pub fn with_manifest_recheck_secs(mut self, secs: i64) -> Processor {
        self.manifest_recheck_secs = secs.max(1);
        self
    }

    /// Sets how long, and how many, reports about containers no account tracks yet are kept
    /// (settings `early_report_days`, `early_report_max`).
    pub fn with_early_reports(mut self, days: i64, max: i64) -> Processor {
        self.early_max_age_us = days.max(0).saturating_mul(86_400 * SEC);
        self.early_max_rows = max.max(0);
        self
    }

    /// Sets how fast sandbox journeys play: simulated seconds per real second.
    pub fn with_sandbox_speed(mut self, speed: f64) -> Processor {
        self.speed = speed;
        self
    }

    /// One pass of everything due at `now_us`: tracking requests, sandbox journeys, upstream
    /// subjects due for a poll, and (at most once every [`STALE_CHECK_EVERY_US`]) the automatic
    /// stop of shipments 56 days after arrival or without updates.
    pub async fn tick(&self, now_us: i64) -> Result<usize, StoreError> {
        let handled = self.process_due(now_us).await?;
        let played = playback::play_due(&self.db, now_us, self.speed).await?;
        let last = self.stale_checked_us.load(Ordering::Acquire);
        let stopped = if now_us < last || now_us.saturating_sub(last) >= STALE_CHECK_EVERY_US {
            self.stale_checked_us.store(now_us, Ordering::Release);
            boxtrack_store::early::prune(
                &self.db,
                now_us,
                self.early_max_age_us,
                self.early_max_rows,
            )
            .await?;
            tracking::stop_stale(&self.db, now_us, self.speed).await?
        } else {
            0
        };
        let polled = match &self.upstreams {
            Some(u) => boxtrack_sources::poll::poll_due(&self.db, u, now_us, self.batch).await?,
            None => 0,
        };
        Ok(handled + played + stopped + polled)
    }

    /// Claims and handles every request due at `now_us`; returns how many were handled.
    pub async fn process_due(&self, now_us: i64) -> Result<usize, StoreError> {
        let mut handled = 0;
        loop {
            let claimed = tracking::claim_due(&self.db, now_us, self.lease_us, self.batch).await?;
            if claimed.is_empty() {
                return Ok(handled);
            }
            for req in claimed {
                let outcome = self.outcome(&req, now_us).await;
                tracking::finish(&self.db, &req, outcome).await?;
                handled += 1;
            }
        }
    }

    async fn outcome(&self, req: &TrackingRequestRow, now_us: i64) -> Outcome {
        let request_type =
            RequestType::parse(&req.request_type).unwrap_or(RequestType::BillOfLading);
        let scac = match &req.scac {
            Some(s) => s.clone(),
            None => match carriers::infer(&req.request_number) {
                Ok(i) if i.decision == Decision::AutoSelect && !i.candidates.is_empty() => {
                    let scac = i.candidates[0].scac.clone();
                    // kept at once, as the lookup may wait, retry or fail (a created
                    // request gets it again from `finish` if this write is lost)
                    if let Err(e) =
                        tracking::set_detected_scac(&self.db, req.account_id, req.id, &scac).await
                    {
                        tracing::warn!(tracking_request.id = %req.id, error = %e, "the detected carrier was not recorded");
                    }
                    scac
                }
                _ => {
                    return Outcome::Failed {
                        reason: "scac_auto_detect_failed".into(),
                    };
                }
            },
        };
        let lookup = Lookup {
            scac: scac.clone(),
            number: req.request_number.clone(),
            request_type,
        };
        let answer = match self.sources.iter().find(|s| s.serves(&scac)) {
            Some(source) => source.lookup(&lookup).await,
            None => Err(SourceError::NotConfigured(scac.clone())),
        };
        // rechecked on the carrier's clock, which a simulator runs fast
        let speed = self
            .upstreams
            .as_ref()
            .map_or(1.0, |u| u.clock("dcsa", &scac).speed);
        let (next_us, expired) =
            requests::manifest_recheck(now_us, req.created_us, speed, self.manifest_recheck_secs);
        let awaiting = || Outcome::AwaitingManifest { next_us, expired };
        match answer {
            Ok(LookupResult::Found {
                bill_of_lading_number,
                route,
                containers,
                scenario,
            }) => Outcome::Created {
                scac,
                bill_of_lading_number,
                route,
                containers,
                scenario,
            },
            Ok(LookupResult::NotFound) if request_type == RequestType::Container => {
                Outcome::Failed {
                    reason: "not_found".into(),
                }
            }
            Ok(LookupResult::NotFound | LookupResult::NotManifested) => awaiting(),
            Ok(LookupResult::Rejected(reason)) => Outcome::Failed {
                reason: reason.into(),
            },
            Err(e) => {
                let attempt = req.retry_count.unwrap_or(0) + 1;
                tracing::warn!(tracking_request.id = %req.id, attempt, error = %e, "tracking request attempt failed");
                match requests::retry_delay_secs(attempt) {
                    Some(delay) => Outcome::Retry {
                        reason: e.reason().into(),
                        next_us: now_us + delay * SEC,
                        last: false,
                    },
                    None => Outcome::Retry {
                        reason: e.reason().into(),
                        next_us: now_us,
                        last: true,
                    },
                }
            }
        }
    }

    /// Runs until `shutdown`, processing due work every `poll` (and at once when woken), and
    /// records each completed pass (at most every [`PASS_RECORD_EVERY_US`]) for `/metrics`.
    pub async fn run(
        self,
        shutdown: CancellationToken,
        poll: Duration,
        wake: Arc<tokio::sync::Notify>,
    ) {
        let mut recorded_us = 0;
        loop {
            let now = boxtrack_store::now_us();
            match self.tick(now).await {
                // a completed pass, for /metrics, at most every few seconds
                Ok(_) if now.saturating_sub(recorded_us) >= PASS_RECORD_EVERY_US => {
                    match boxtrack_store::gauges::record_worker_pass(&self.db, now).await {
                        Ok(()) => recorded_us = now,
                        Err(e) => tracing::warn!(error = %e, "the worker's pass was not recorded"),
                    }
                }
                Ok(_) => {}
                Err(e) => tracing::error!(error = %e, "background processing failed; will retry"),
            }
            tokio::select! {
                _ = shutdown.cancelled() => return,
                _ = tokio::time::sleep(poll) => {},
                _ = wake.notified() => {},
            }
        }
    }
}
