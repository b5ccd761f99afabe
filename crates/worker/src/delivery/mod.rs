//! Webhook delivery: [`send`] makes one signed request (the SSRF check at delivery time, the
//! signature headers, no redirects, a timeout, and a record of what was sent and received), and
//! [`Deliverer`] claims due notifications, renders their envelopes (`boxtrack_views`) and sends
//! them with the retry schedule, a few at a time per endpoint. The HTTP edge only enqueues (a
//! notification is written with the event it announces) and uses [`send`] for its test trigger.

mod job;
mod lane;
mod queue;
mod retry;
mod send;

use std::time::Duration;

use job::{Job, Target, attempt};
#[cfg(test)]
use queue::overdue;
use queue::{HookQueue, Waiting, slot_check_period};
pub use retry::{RETRY_SCHEDULE_SECS, next_delay_secs, next_delay_secs_in};
pub use send::{Outgoing, SIGNATURE_HEADER, Sent, client, client_for, headers_for, send};

/// Where the deliverer counts what it did (the service's Prometheus metrics implement it).
pub trait Metrics: Send + Sync {
    /// `n` delivery attempts ended with `outcome` (`succeeded`, `retrying`, `failed`).
    fn record_deliveries(&self, outcome: &str, n: u64);
    /// A webhook was deactivated after repeated failures.
    fn record_deactivation(&self);
}

/// Counts nothing.
#[derive(Debug, Default)]
pub struct NoMetrics;

impl Metrics for NoMetrics {
    fn record_deliveries(&self, _outcome: &str, _n: u64) {}
    fn record_deactivation(&self) {}
}

/// How often `boxtrack serve` looks for due notifications when the last look found none: the
/// most a new notification waits before its first attempt starts (a look that finds nothing
/// is one indexed query).
pub const POLL: Duration = Duration::from_millis(50);

/// Concurrent requests to one webhook at most.
pub const PER_ENDPOINT: usize = 4;

/// Notifications claimed per statement.
const BATCH: usize = 256;

/// Notifications in flight (claimed and not yet recorded) at most, across webhooks.
const WINDOW: usize = 1024;

/// Outcomes a cycle that has nothing else to do waits for (or [`GATHER_WAIT`], or the last
/// outstanding one): recording a few at a time made most cycles commit a handful of rows, and
/// each commit rewrites every page it touched (on SQLite 2 400 commits for 20 000 deliveries).
const GATHER: usize = 128;

/// How long an outcome waits to be gathered with others at most.
const GATHER_WAIT: Duration = Duration::from_millis(2);

/// Whether `waiting` outcomes, the oldest of which has waited `waited`, are worth a cycle of
/// their own while `in_flight` notifications are claimed and unrecorded: [`GATHER`] of them,
/// or every one still out, or one that has waited [`GATHER_WAIT`].
fn gathered(waiting: usize, in_flight: usize, waited: Option<Duration>) -> bool {
    waiting > 0
        && (waiting >= GATHER || waiting >= in_flight || waited.is_some_and(|w| w >= GATHER_WAIT))
}

/// How long a notification waits for a free slot of its webhook before it is given back to
/// the database, due again this much later (a slow receiver then holds only what its slots
/// can send, not the window). Well inside the lease, so a waiting notification is never
/// claimed a second time.
pub const SLOT_WAIT: Duration = Duration::from_secs(10);

/// How long a claim holds its notifications: a worker that dies leaves them to be claimed
/// again after this.
const LEASE_US: i64 = 120_000_000;

/// A notification and the attempt made to deliver it.
type Attempted = (
    boxtrack_store::notifications::NotificationRow,
    boxtrack_store::notifications::Attempt,
);

/// What became of a job.
// nearly every outcome is an attempt, so boxing it would cost an allocation per delivery to
// save space only in the rare deferral
#[allow(clippy::large_enum_variant)]
enum Outcome {
    /// Sent, with this result.
    Attempted(Attempted),
    /// Given back unattempted: its webhook had no free slot within the slot wait (a slow
    /// receiver), so it leaves the window to the other webhooks and is due again later.
    Deferred { id: uuid::Uuid, until_us: i64 },
}

/// The webhooks of a batch, prepared to send to.
type Targets = std::collections::HashMap<uuid::Uuid, std::sync::Arc<Target>>;

/// A prepared batch: jobs ready to send once the bodies rendered for them are stored.
struct Prepared {
    jobs: Vec<Job>,
    /// Which jobs carry a body rendered now, to be stored.
    to_store: Vec<usize>,
}

/// How the attempts a cycle recorded ended.
#[derive(Debug, Default, Clone, Copy)]
struct Tally {
    succeeded: u64,
    retrying: u64,
    failed: u64,
}

impl Tally {
    fn of(done: &[Attempted]) -> Tally {
        let mut t = Tally::default();
        for (_, a) in done {
            match (a.succeeded, a.next_attempt_us.is_some()) {
                (true, _) => t.succeeded += 1,
                (false, true) => t.retrying += 1,
                (false, false) => t.failed += 1,
            }
        }
        t
    }

    fn total(&self) -> usize {
        (self.succeeded + self.retrying + self.failed) as usize
    }
}

/// A finished cycle: what it wrote and read, and the inputs it was given.
struct Cycled {
    out: boxtrack_store::notifications::CycleDone,
    prepared: Vec<Prepared>,
    recorded: Tally,
    deferred: usize,
    claim: bool,
}

/// A cycle that did not commit: the error, and its inputs given back to be tried again.
struct Failed {
    error: boxtrack_store::StoreError,
    prepared: Vec<Prepared>,
    done: Vec<Outcome>,
    /// The claim it was to make, if any (`first` of it).
    claim: Option<bool>,
}

/// How long the lane waits before it tries a failed cycle again: doubling from the first
/// wait to the last, so an outage of the database costs a few statements a second.
const RETRY_FIRST: Duration = Duration::from_millis(200);
const RETRY_MAX: Duration = Duration::from_secs(5);

/// The lane's channels: claimed batches out to the preparer (`None` once it stopped),
/// prepared batches back, jobs out to the sender, outcomes back.
struct LaneIo {
    claims: Option<tokio::sync::mpsc::Sender<Vec<boxtrack_store::notifications::Claimed>>>,
    prepared: tokio::sync::mpsc::Receiver<Prepared>,
    jobs: tokio::sync::mpsc::Sender<Job>,
    done: tokio::sync::mpsc::Receiver<Outcome>,
}

/// Delivers due webhook notifications.
#[derive(Clone)]
pub struct Deliverer {
    signature_header: reqwest::header::HeaderName,
    schedule: std::sync::Arc<Vec<i64>>,
    metrics: std::sync::Arc<dyn Metrics>,
    db: boxtrack_store::Db,
    client: reqwest::Client,
    allow_private: bool,
    deactivate_after: i64,
    slot_wait: Duration,
}

impl Deliverer {
    /// A deliverer with a request timeout; webhooks are deactivated after `deactivate_after`
    /// failed attempts in a row.
    pub fn new(
        db: boxtrack_store::Db,
        timeout: Duration,
        allow_private: bool,
        deactivate_after: i64,
    ) -> Deliverer {
        Deliverer {
            signature_header: reqwest::header::HeaderName::from_static(
                "x-boxtrack-webhook-signature",
            ),
            schedule: std::sync::Arc::new(RETRY_SCHEDULE_SECS.to_vec()),
            metrics: std::sync::Arc::new(NoMetrics),
            client: client_for(timeout, allow_private),
            allow_private,
            deactivate_after,
            slot_wait: SLOT_WAIT,
            db,
        }
    }

    /// Sends the hex signature under this header name (left at the default when `name` is
    /// not a valid header name; configuration checks it first).
    pub fn with_signature_header(mut self, name: &str) -> Deliverer {
        match reqwest::header::HeaderName::from_bytes(name.as_bytes()) {
            Ok(h) => self.signature_header = h,
            Err(_) => tracing::error!(header = name, "not a valid header name; kept the default"),
        }
        self
    }

    /// Uses this retry schedule (seconds before each retry; its length is the number of
    /// retries) instead of [`RETRY_SCHEDULE_SECS`].
    pub fn with_schedule(mut self, schedule: Vec<i64>) -> Deliverer {
        self.schedule = std::sync::Arc::new(schedule);
        self
    }

    /// Gives a notification back unattempted when its webhook has had no free slot for this
    /// long (default [`SLOT_WAIT`]), so a slow receiver's backlog cannot hold the whole
    /// window and starve the other webhooks.
    pub fn with_slot_wait(mut self, wait: Duration) -> Deliverer {
        self.slot_wait = wait;
        self
    }

    /// Counts outcomes in these metrics (the service's own, so they show at `/metrics`).
    pub fn with_metrics(mut self, metrics: std::sync::Arc<dyn Metrics>) -> Deliverer {
        self.metrics = metrics;
        self
    }

    /// What a claimed batch needs from the database: its webhooks, prepared, and the bodies
    /// not stored yet, rendered once (in the order of the batch's rows without one).
    async fn lookups(
        &self,
        claimed: &[boxtrack_store::notifications::Claimed],
    ) -> Result<(Targets, Vec<String>), boxtrack_store::StoreError> {
        let mut hook_ids: Vec<(uuid::Uuid, uuid::Uuid)> = claimed
            .iter()
            .map(|c| (c.row.account_id, c.row.webhook_id))
            .collect();
        hook_ids.sort_unstable();
        hook_ids.dedup();
        let mut targets = Targets::new();
        for h in boxtrack_store::webhooks::get_many(&self.db, &hook_ids).await? {
            let t = Target::new(&h, self.allow_private).await;
            targets.insert(h.id, std::sync::Arc::new(t));
        }
        // the bodies not stored yet, rendered together (their related rows read once)
        let missing: Vec<boxtrack_store::notifications::NotificationRow> = claimed
            .iter()
            .filter(|c| c.body.is_none())
            .map(|c| c.row.clone())
            .collect();
        let rendered = boxtrack_views::notifications::bodies(&self.db, &missing).await?;
        Ok((targets, rendered))
    }

    /// Makes a claimed batch ready to send with what [`Deliverer::lookups`] read (the lane
    /// stores the bodies rendered now before the jobs go out).
    fn prepare(
        claimed: Vec<boxtrack_store::notifications::Claimed>,
        targets: &Targets,
        rendered: Vec<String>,
    ) -> Prepared {
        let mut rendered = rendered.into_iter();
        let mut to_store = Vec::new();
        let mut jobs = Vec::with_capacity(claimed.len());
        for c in claimed {
            let body = match c.body {
                Some(b) => b,
                None => {
                    to_store.push(jobs.len());
                    rendered.next().unwrap_or_default()
                }
            };
            jobs.push(Job {
                target: targets.get(&c.row.webhook_id).cloned(),
                body: bytes::Bytes::from(body),
                row: c.row,
            });
        }
        Prepared { jobs, to_store }
    }

    /// Prepares every claimed batch that arrives and hands it back to the lane. A batch whose
    /// reads fail on an unavailable database is tried again (as the lane's cycles are) until
    /// the database is back or the lane stops.
    async fn prepare_all(
        &self,
        mut claimed: tokio::sync::mpsc::Receiver<Vec<boxtrack_store::notifications::Claimed>>,
        prepared: tokio::sync::mpsc::Sender<Prepared>,
    ) -> Result<(), boxtrack_store::StoreError> {
        while let Some(batch) = claimed.recv().await {
            let mut backoff = RETRY_FIRST;
            let (targets, rendered) = loop {
                match self.lookups(&batch).await {
                    Ok(found) => break found,
                    Err(e) if e.unavailable().is_some() && !prepared.is_closed() => {
                        tracing::debug!(error = %e, "preparing deliveries waits for the database");
                        tokio::time::sleep(backoff).await;
                        backoff = (backoff * 2).min(RETRY_MAX);
                    }
                    Err(e) => return Err(e),
                }
            };
            let ready = Deliverer::prepare(batch, &targets, rendered);
            if prepared.send(ready).await.is_err() {
                // the lane stopped; its error is returned
                break;
            }
        }
        Ok(())
    }

    /// Sends every job that arrives through its webhook's queue, which up to
    /// [`PER_ENDPOINT`] sending tasks of that webhook drain ([`Deliverer::send_from`]; no task,
    /// semaphore or timer per job), and passes each outcome back to the lane (which keeps at
    /// most [`WINDOW`] in flight, so neither channel ever fills). A job that has waited the
    /// slot wait in its queue (its receiver is slow) is given back unattempted, due again
    /// later, so a slow receiver holds only what its slots can send.
    async fn send_all(
        &self,
        mut jobs: tokio::sync::mpsc::Receiver<Job>,
        done: tokio::sync::mpsc::Sender<Outcome>,
        now_us: i64,
    ) {
        use std::sync::Arc;
        // each webhook's queue and how many sending tasks it has
        let mut hooks: std::collections::HashMap<uuid::Uuid, (Arc<HookQueue>, usize)> =
            std::collections::HashMap::new();
        let mut senders = tokio::task::JoinSet::new();
        let mut arrived = Vec::with_capacity(BATCH);
        // one timer for every queue, a few checks per slot wait
        let mut sweep = tokio::time::interval(slot_check_period(self.slot_wait));
        sweep.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        // the run's clock (`now_us` is the caller's time, which tests set ahead)
        let began = tokio::time::Instant::now();
        let slot_wait_us = i64::try_from(self.slot_wait.as_micros()).unwrap_or(i64::MAX);
        'run: loop {
            tokio::select! {
                n = jobs.recv_many(&mut arrived, WINDOW) => {
                    if n == 0 || done.is_closed() {
                        // no more work, or the lane stopped (the lease brings claimed rows back)
                        break 'run;
                    }
                    let now = tokio::time::Instant::now();
                    for job in arrived.drain(..) {
                        let (queue, tasks) = hooks.entry(job.row.webhook_id).or_default();
                        queue.push(Waiting { since: now, job });
                        if *tasks < PER_ENDPOINT {
                            *tasks += 1;
                            let (me, queue, done) = (self.clone(), queue.clone(), done.clone());
                            senders.spawn(async move { me.send_from(&queue, &done, now_us).await });
                        }
                    }
                }
                _ = sweep.tick() => {
                    let now = tokio::time::Instant::now();
                    // due again one slot wait from now
                    let elapsed = i64::try_from(now.saturating_duration_since(began).as_micros()).unwrap_or(0);
                    let deferred_until = now_us.saturating_add(elapsed).saturating_add(slot_wait_us);
                    for (queue, _) in hooks.values() {
                        for job in queue.take_overdue(now, self.slot_wait) {
                            let deferred = Outcome::Deferred { id: job.row.id, until_us: deferred_until };
                            if done.send(deferred).await.is_err() {
                                break 'run;
                            }
                        }
                    }
                }
            }
        }
        // the senders finish what their queues hold, then stop
        for (queue, _) in hooks.values() {
            queue.close();
        }
        while let Some(r) = senders.join_next().await {
            if let Err(e) = r {
                tracing::error!(error = %e, "a webhook sender failed");
            }
        }
    }

    /// One of a webhook's sending tasks: sends the jobs of its queue one at a time until the
    /// queue is closed and empty.
    async fn send_from(
        &self,
        queue: &HookQueue,
        done: &tokio::sync::mpsc::Sender<Outcome>,
        now_us: i64,
    ) {
        while let Some(job) = queue.next().await {
            let a = attempt(
                &self.client,
                &self.schedule,
                &self.signature_header,
                &job,
                now_us,
            )
            .await;
            if !a.succeeded {
                // the status and whether it retries; not the error text, which can carry the
                // receiver's URL (and a token in its query)
                tracing::warn!(
                    webhook.id = %job.row.webhook_id,
                    notification.id = %job.row.id,
                    status = a.status_code.unwrap_or(0),
                    retrying = a.next_attempt_us.is_some(),
                    "webhook delivery failed"
                );
            }
            // a closed channel means the lane stopped; the lease brings the rows back
            if done.send(Outcome::Attempted((job.row, a))).await.is_err() {
                return;
            }
        }
    }

    /// Counts recorded outcomes in the metrics and reports deactivations.
    fn count(&self, done: Tally, deactivated: &[uuid::Uuid]) {
        for hook in deactivated {
            self.metrics.record_deactivation();
            tracing::warn!(webhook.id = %hook, "webhook deactivated after repeated delivery failures");
        }
        for (outcome, n) in [
            ("succeeded", done.succeeded),
            ("retrying", done.retrying),
            ("failed", done.failed),
        ] {
            if n > 0 {
                self.metrics.record_deliveries(outcome, n);
            }
        }
    }

    /// One cycle of the lane, in one transaction: the bodies of `prepared` stored, `done`
    /// recorded, the next batch claimed if `claim`. Hands its inputs back with the result.
    async fn cycle(
        &self,
        now_us: i64,
        prepared: Vec<Prepared>,
        done: Vec<Outcome>,
        claim: Option<(Option<boxtrack_store::notifications::Position>, bool)>,
    ) -> Result<Cycled, Failed> {
        use boxtrack_store::notifications::{self, Claim, Cycle, CycleFailed};
        // the bodies are shared with the jobs, not copied
        let bodies: Vec<notifications::Body> = prepared
            .iter()
            .flat_map(|p| {
                p.to_store
                    .iter()
                    .filter_map(|&i| p.jobs.get(i))
                    .map(|j| notifications::Body {
                        account_id: j.row.account_id,
                        notification_id: j.row.id,
                        notification_created_us: j.row.created_us,
                        body: j.body.clone(),
                    })
            })
            .collect();
        let mut attempted = Vec::with_capacity(done.len());
        let mut deferred = Vec::new();
        for o in done {
            match o {
                Outcome::Attempted(a) => attempted.push(a),
                Outcome::Deferred { id, until_us } => deferred.push((id, until_us)),
            }
        }
        let recorded = Tally::of(&attempted);
        let n_deferred = deferred.len();
        let outcome = notifications::cycle_keeping(
            &self.db,
            Cycle {
                bodies,
                done: attempted,
                deferred,
                claim: claim.map(|(after, first)| Claim {
                    now_us,
                    lease_us: LEASE_US,
                    limit: BATCH as i64,
                    after,
                    first,
                }),
                deactivate_after: self.deactivate_after,
            },
        )
        .await;
        let out = match outcome {
            Ok(out) => out,
            Err(failed) => {
                let CycleFailed { error, work } = *failed;
                // the outcomes go back as they came, to be recorded when the database is back
                let done = work
                    .done
                    .into_iter()
                    .map(Outcome::Attempted)
                    .chain(
                        work.deferred
                            .into_iter()
                            .map(|(id, until_us)| Outcome::Deferred { id, until_us }),
                    )
                    .collect();
                return Err(Failed {
                    error,
                    prepared,
                    done,
                    claim: claim.map(|(_, first)| first),
                });
            }
        };
        Ok(Cycled {
            out,
            prepared,
            recorded,
            deferred: n_deferred,
            claim: claim.is_some(),
        })
    }

    /// Attempts every notification due at `now_us` and returns how many attempts were made.
    ///
    /// Three tasks work at once around the database lane ([`Deliverer::lane`]): the lane
    /// claims batches of [`BATCH`] (with a lease on PostgreSQL), stores their bodies and records outcomes, one
    /// transaction per cycle; the preparer reads webhooks and renders each body once; the
    /// sender signs and posts, [`PER_ENDPOINT`] at a time per webhook. At most [`WINDOW`]
    /// notifications are in flight. A worker killed at any point leaves its claimed rows to
    /// come back when the lease ends (on SQLite, when the process starts again); receivers
    /// deduplicate on `webhook-id`.
    ///
    /// While some of the run's notifications are still out (a slow receiver's), the run looks
    /// for newly due ones every [`POLL`] and sends them at once, so a receiver that does not
    /// answer delays nobody else's deliveries; the run ends when nothing is due or out.
    pub async fn deliver_due(&self, now_us: i64) -> Result<usize, boxtrack_store::StoreError> {
        self.deliver_due_until(now_us, &tokio_util::sync::CancellationToken::new())
            .await
    }

    /// [`Deliverer::deliver_due`], claiming nothing more once `shutdown` is cancelled.
    pub async fn deliver_due_until(
        &self,
        now_us: i64,
        shutdown: &tokio_util::sync::CancellationToken,
    ) -> Result<usize, boxtrack_store::StoreError> {
        let (claim_tx, claim_rx) = tokio::sync::mpsc::channel(1);
        let (prepared_tx, prepared_rx) = tokio::sync::mpsc::channel(2);
        let (job_tx, job_rx) = tokio::sync::mpsc::channel(WINDOW);
        let (done_tx, done_rx) = tokio::sync::mpsc::channel(WINDOW);
        let preparer = {
            let me = self.clone();
            tokio::spawn(async move { me.prepare_all(claim_rx, prepared_tx).await })
        };
        let sender = {
            let me = self.clone();
            tokio::spawn(async move { me.send_all(job_rx, done_tx, now_us).await })
        };
        let io = LaneIo {
            claims: Some(claim_tx),
            prepared: prepared_rx,
            jobs: job_tx,
            done: done_rx,
        };
        // the lane's channels close when it returns, which stops the other two
        let recorded = self.lane(now_us, io, shutdown).await;
        let preparing = match preparer.await {
            Ok(r) => r,
            Err(e) => {
                tracing::error!(error = %e, "the delivery preparer failed");
                Ok(())
            }
        };
        if let Err(e) = sender.await {
            tracing::error!(error = %e, "the delivery sender failed");
        }
        let recorded = recorded?;
        preparing?;
        Ok(recorded)
    }

    /// Delivers until `shutdown`: at once again while there was work, else after `poll`.
    pub async fn run(self, shutdown: tokio_util::sync::CancellationToken, poll: Duration) {
        loop {
            match self
                .deliver_due_until(boxtrack_store::now_us(), &shutdown)
                .await
            {
                Ok(made) if made > 0 && !shutdown.is_cancelled() => continue,
                Ok(_) => {}
                Err(e) => tracing::error!(error = %e, "webhook delivery failed; will retry"),
            }
            tokio::select! {
                _ = shutdown.cancelled() => return,
                _ = tokio::time::sleep(poll) => {},
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn job(seq: i64) -> Job {
        let id = uuid::Uuid::now_v7();
        Job {
            row: boxtrack_store::notifications::NotificationRow {
                id,
                account_id: id,
                webhook_id: id,
                event_id: id,
                seq,
                event: "tracking_request.succeeded".into(),
                reference_type: "tracking_request".into(),
                reference_id: id,
                delivery_status: "pending".into(),
                attempts: 0,
                next_attempt_us: Some(0),
                last_status_code: None,
                last_error: None,
                created_us: 0,
                updated_us: 0,
                replay_of: None,
            },
            target: None,
            body: bytes::Bytes::new(),
        }
    }

    #[test]
    fn only_jobs_that_waited_the_slot_wait_are_given_back_oldest_first() {
        let start = tokio::time::Instant::now();
        let wait = Duration::from_secs(10);
        let mut waiting: std::collections::VecDeque<Waiting> = (0..4)
            .map(|i| Waiting {
                since: start + Duration::from_secs(i * 5),
                job: job(i as i64),
            })
            .collect();
        assert!(overdue(&mut waiting, start + Duration::from_secs(9), wait).is_empty());
        let out = overdue(&mut waiting, start + Duration::from_secs(15), wait);
        let seqs: Vec<i64> = out.iter().map(|j| j.row.seq).collect();
        assert_eq!(seqs, vec![0, 1], "waited 15 s and 10 s");
        assert_eq!(waiting.len(), 2, "the younger ones stay queued");
        assert_eq!(
            slot_check_period(Duration::from_secs(10)),
            Duration::from_secs(1)
        );
        assert_eq!(
            slot_check_period(Duration::from_secs(1)),
            Duration::from_millis(250)
        );
        assert_eq!(slot_check_period(Duration::ZERO), Duration::from_millis(10));
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_webhook_queue_hands_every_job_to_one_of_its_senders_and_ends_when_closed() {
        let queue = std::sync::Arc::new(HookQueue::default());
        let senders: Vec<_> = (0..PER_ENDPOINT)
            .map(|_| {
                let q = queue.clone();
                tokio::spawn(async move {
                    let mut got = Vec::new();
                    while let Some(j) = q.next().await {
                        got.push(j.row.seq);
                        tokio::task::yield_now().await;
                    }
                    got
                })
            })
            .collect();
        for i in 0..500 {
            queue.push(Waiting {
                since: tokio::time::Instant::now(),
                job: job(i),
            });
            if i % 50 == 0 {
                tokio::task::yield_now().await;
            }
        }
        queue.close();
        let mut all = Vec::new();
        for s in senders {
            all.extend(s.await.unwrap());
        }
        all.sort_unstable();
        assert_eq!(
            all,
            (0..500).collect::<Vec<_>>(),
            "each job once, none lost"
        );
    }

    #[test]
    fn outcomes_wait_to_be_gathered_but_not_for_long() {
        let short = Some(Duration::from_micros(100));
        assert!(!gathered(0, 0, None), "nothing to record");
        assert!(!gathered(0, 500, None));
        assert!(
            !gathered(5, 500, short),
            "a few, more coming, not waited long"
        );
        assert!(gathered(GATHER, 500, short), "enough of them");
        assert!(gathered(5, 5, short), "the last ones out");
        assert!(gathered(5, 500, Some(GATHER_WAIT)), "waited long enough");
    }

    #[test]
    fn twelve_retries_with_jitter_and_retry_after() {
        assert_eq!(next_delay_secs(1, 0.5, None), Some(5));
        assert_eq!(next_delay_secs(12, 0.5, None), Some(72000));
        assert_eq!(next_delay_secs(13, 0.5, None), None);
        assert_eq!(next_delay_secs(0, 0.5, None), None);
        assert_eq!(next_delay_secs(2, 0.0, None), Some(24));
        assert_eq!(next_delay_secs(2, 1.0, None), Some(36));
        assert_eq!(next_delay_secs(1, 0.5, Some(90)), Some(90));
        let total: i64 = (1..=12)
            .map(|r| next_delay_secs(r, 0.5, None).unwrap())
            .sum();
        assert!((50 * 3600..60 * 3600).contains(&total), "{total}");
    }
}
