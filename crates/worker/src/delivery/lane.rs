//! The database lane of a delivery run ([`Deliverer::lane`]): what it holds and counts between
//! cycles ([`Lane`]), and one named step per thing that can happen — a cycle is due, a cycle
//! came back (committed or not), the preparer or the sender handed something over, a timer
//! ran out.

use tokio::time::Instant;

use super::{
    BATCH, Cycled, Deliverer, Failed, GATHER_WAIT, LaneIo, Outcome, POLL, Prepared, RETRY_FIRST,
    RETRY_MAX, WINDOW, gathered,
};

/// What the lane holds between cycles.
pub(super) struct Lane {
    /// Cycles at once: one on SQLite (one writer), two on PostgreSQL.
    lanes: usize,
    cycles: tokio::task::JoinSet<Result<Cycled, Failed>>,
    /// After a cycle failed on an unavailable database: when to try again, and the wait
    /// after that.
    retry_at: Option<Instant>,
    backoff: std::time::Duration,
    /// Attempts recorded.
    recorded: usize,
    /// Claimed and not yet recorded, and of those, still with the preparer.
    in_flight: usize,
    preparing: usize,
    /// The last claim found fewer than a batch.
    exhausted: bool,
    /// A cycle with a claim is out.
    claiming: bool,
    /// Where the next claim goes on from (see `notifications::Claim`).
    after: Option<boxtrack_store::notifications::Position>,
    /// Something broke (a bug, or the sender stopped): no more work is taken.
    stopping: bool,
    /// Outcomes and bodies waiting for a cycle.
    done: Vec<Outcome>,
    prepared: Vec<Prepared>,
    /// When the oldest outcome in `done` came back.
    waiting_since: Option<Instant>,
    /// The run's clock: claims take what fell due since the run began (`now_us` is the
    /// caller's time, which tests set ahead).
    now_us: i64,
    began: Instant,
    first: bool,
    /// Once `shutdown` is cancelled the run claims nothing more and ends when what it holds
    /// is recorded (bounded by the request timeout and the slot wait).
    closing: bool,
    /// When the last claim that found too little came back: while some of the run's
    /// notifications are still out (a slow receiver's), the run looks again from the first
    /// due one every `POLL`, so what falls due meanwhile goes out at once instead of waiting
    /// for the slowest receiver of the run.
    exhausted_at: Instant,
}

impl Lane {
    pub(super) fn new(lanes: usize, now_us: i64) -> Lane {
        Lane {
            lanes,
            cycles: tokio::task::JoinSet::new(),
            retry_at: None,
            backoff: RETRY_FIRST,
            recorded: 0,
            in_flight: 0,
            preparing: 0,
            exhausted: false,
            claiming: false,
            after: None,
            stopping: false,
            done: Vec::new(),
            prepared: Vec::new(),
            waiting_since: None,
            now_us,
            began: Instant::now(),
            first: true,
            closing: false,
            exhausted_at: Instant::now(),
        }
    }

    fn clock(&self, now: Instant) -> i64 {
        self.now_us.saturating_add(
            i64::try_from(now.saturating_duration_since(self.began).as_micros()).unwrap_or(0),
        )
    }

    /// Takes what the preparer and the sender handed over without waiting.
    fn take_ready(&mut self, io: &mut LaneIo) {
        while let Ok(p) = io.prepared.try_recv() {
            self.preparing -= p.jobs.len();
            self.prepared.push(p);
        }
        while let Ok(d) = io.done.try_recv() {
            self.done.push(d);
        }
        if self.done.is_empty() {
            self.waiting_since = None;
        } else if self.waiting_since.is_none() {
            self.waiting_since = Some(Instant::now());
        }
    }

    /// Whether the next cycle should claim a batch.
    fn should_claim(&self, io: &LaneIo) -> bool {
        !self.stopping
            && !self.closing
            && !self.exhausted
            && !self.claiming
            && self.in_flight + BATCH <= WINDOW
            && io.claims.as_ref().is_some_and(|c| c.capacity() > 0)
    }

    /// Whether a cycle has something to do (`claim`: it would claim).
    fn has_work(&self, claim: bool) -> bool {
        let gathered = gathered(
            self.done.len(),
            self.in_flight,
            self.waiting_since.map(|t| t.elapsed()),
        );
        !self.prepared.is_empty() || claim || gathered
    }

    /// Whether a cycle may start now.
    fn may_start(&self) -> bool {
        !self.stopping && self.retry_at.is_none() && self.cycles.len() < self.lanes
    }

    /// Starts a cycle with what is waiting, and the claim when `claim`.
    fn start(&mut self, deliverer: &Deliverer, claim: bool) {
        self.claiming |= claim;
        let me = deliverer.clone();
        let (p, d) = (
            std::mem::take(&mut self.prepared),
            std::mem::take(&mut self.done),
        );
        self.waiting_since = None;
        let claim = claim.then_some((self.after, self.first));
        self.first &= claim.is_none();
        let at = self.clock(Instant::now());
        self.cycles
            .spawn(async move { me.cycle(at, p, d, claim).await });
    }

    /// Whether the run is over: no cycle out, and nothing more to do or stopping.
    fn finished(&self, work: bool, io: &LaneIo) -> bool {
        self.cycles.is_empty()
            && (self.stopping
                || (!work
                    && self.in_flight == 0
                    && (self.exhausted || self.closing || io.claims.is_none())))
    }

    /// A cycle that did not commit. A database that is away (or whose disk is full) keeps
    /// what the cycle held, to be recorded when it is back, rather than leaving sent
    /// notifications to be sent again when their lease ends; a run that is shutting down
    /// leaves them to the lease (the error is returned).
    fn cycle_failed(&mut self, failed: Failed) -> Result<(), boxtrack_store::StoreError> {
        let why = match failed.error.unavailable() {
            Some(why) if !self.closing => why,
            _ => return Err(failed.error),
        };
        if self.backoff == RETRY_FIRST {
            tracing::warn!(error = %failed.error, condition = ?why, held = failed.done.len(),
                "the delivery database is unavailable; outcomes are kept and recorded when it is back");
        }
        self.done.extend(failed.done);
        self.prepared.extend(failed.prepared);
        if let Some(was_first) = failed.claim {
            self.claiming = false;
            self.first |= was_first;
        }
        self.retry_at = Some(Instant::now() + self.backoff);
        self.backoff = (self.backoff * 2).min(RETRY_MAX);
        Ok(())
    }

    /// A cycle that committed: its bodies' jobs go to the sender, its claim to the preparer.
    async fn cycle_done(&mut self, deliverer: &Deliverer, c: Cycled, io: &mut LaneIo) {
        if self.backoff > RETRY_FIRST {
            tracing::info!("the delivery database is back; held outcomes recorded");
            self.backoff = RETRY_FIRST;
        }
        let Cycled {
            mut out,
            prepared: sent,
            recorded: tally,
            deferred,
            claim,
        } = c;
        deliverer.count(tally, &out.deactivated);
        self.recorded += tally.total();
        self.in_flight -= tally.total() + deferred;
        for p in sent {
            for mut job in p.jobs {
                if let Some(b) = out.stored_before.remove(&job.row.id) {
                    job.body = bytes::Bytes::from(b);
                }
                // never waits: the channel holds WINDOW jobs and at most WINDOW are in flight
                if io.jobs.send(job).await.is_err() {
                    self.stopping = true;
                }
            }
        }
        if claim {
            self.claimed(out, io);
        }
    }

    /// What a cycle's claim found goes to the preparer.
    fn claimed(&mut self, out: boxtrack_store::notifications::CycleDone, io: &LaneIo) {
        self.claiming = false;
        self.after = out.last_claimed;
        let n = out.claimed.len();
        self.exhausted = n < BATCH;
        if self.exhausted {
            self.exhausted_at = Instant::now();
        }
        if n > 0 {
            self.in_flight += n;
            self.preparing += n;
            if let Some(claims) = &io.claims
                && claims.try_send(out.claimed).is_err()
            {
                // the preparer stopped; the lease brings these back
                self.in_flight -= n;
                self.preparing -= n;
            }
        }
    }

    /// The preparer handed over bodies, or stopped (its error is returned): what it held
    /// comes back when the lease ends.
    fn prepared(&mut self, p: Option<Prepared>, io: &mut LaneIo) {
        match p {
            Some(p) => {
                self.preparing -= p.jobs.len();
                self.prepared.push(p);
            }
            None => {
                io.claims = None;
                self.in_flight -= self.preparing;
                self.preparing = 0;
            }
        }
    }
}

impl Deliverer {
    /// The database lane: every write of the delivery path goes through here, in cycles of one
    /// transaction holding whatever is waiting — bodies rendered since the last cycle (stored
    /// before their jobs go out), outcomes to record, and the claim of the next batch while
    /// fewer than [`WINDOW`] notifications are in flight. Outcomes alone wait to be gathered
    /// ([`gathered`]), so cycles commit many rows rather than a handful. One cycle at a time on
    /// SQLite (one writer; the store runs each cycle in one blocking call on the database's own
    /// writer connection); two on PostgreSQL, whose writers do not exclude each other and whose
    /// every statement is a round trip. Returns how many attempts were recorded.
    pub(super) async fn lane(
        &self,
        now_us: i64,
        mut io: LaneIo,
        shutdown: &tokio_util::sync::CancellationToken,
    ) -> Result<usize, boxtrack_store::StoreError> {
        let lanes = match self.db.backend() {
            boxtrack_store::Backend::Sqlite => 1,
            boxtrack_store::Backend::Postgres => 2,
        };
        let mut l = Lane::new(lanes, now_us);
        loop {
            l.take_ready(&mut io);
            let claim = l.should_claim(&io);
            let work = l.has_work(claim);
            if work && l.may_start() {
                l.start(self, claim);
                continue;
            }
            if l.finished(work, &io) {
                break;
            }
            let open = io.claims.is_some();
            let waiting = l.waiting_since;
            tokio::select! {
                Some(joined) = l.cycles.join_next() => match joined {
                    Ok(Ok(c)) => l.cycle_done(self, c, &mut io).await,
                    Ok(Err(failed)) => l.cycle_failed(failed)?,
                    Err(e) => {
                        // a bug, not the database: stop taking work; the lease brings what
                        // was claimed back
                        tracing::error!(error = %e, "a delivery cycle failed");
                        l.stopping = true;
                    }
                },
                p = io.prepared.recv(), if open && !l.stopping => l.prepared(p, &mut io),
                n = io.done.recv_many(&mut l.done, WINDOW), if !l.stopping => if n == 0 {
                    // the sender stopped: what it held comes back when the lease ends
                    l.stopping = true;
                },
                // due notifications are looked for again while the run waits for its slowest
                _ = tokio::time::sleep_until(l.exhausted_at + POLL),
                    if l.exhausted && l.in_flight > 0 && !l.stopping && !l.closing && open => {
                    l.exhausted = false;
                    l.after = None;
                },
                _ = shutdown.cancelled(), if !l.closing => l.closing = true,
                // a failed cycle is tried again
                _ = tokio::time::sleep_until(l.retry_at.unwrap_or_else(Instant::now)),
                    if l.retry_at.is_some() => l.retry_at = None,
                // outcomes waiting to be gathered are recorded once they have waited this long
                _ = tokio::time::sleep_until(waiting.map_or_else(Instant::now, |t| t + GATHER_WAIT)),
                    if waiting.is_some() && !l.stopping && l.retry_at.is_none() && l.cycles.len() < lanes => {},
                else => l.stopping = true,
            }
        }
        Ok(l.recorded)
    }
}
