//! Each webhook's queue of jobs waiting for one of its sending slots, and the jobs that have
//! waited too long (given back to the database so a slow receiver cannot hold the window).

use std::time::Duration;

use super::job::Job;

/// A job waiting for a free slot of its webhook, since when.
pub(super) struct Waiting {
    pub(super) since: tokio::time::Instant,
    pub(super) job: Job,
}

/// One webhook's jobs waiting for a slot, oldest first, shared by its sending tasks.
#[derive(Default)]
pub(super) struct HookQueue {
    pub(super) jobs: std::sync::Mutex<std::collections::VecDeque<Waiting>>,
    /// Signalled when a job is queued or the queue is closed.
    pub(super) ready: tokio::sync::Notify,
    pub(super) closed: std::sync::atomic::AtomicBool,
}

impl HookQueue {
    pub(super) fn lock(&self) -> std::sync::MutexGuard<'_, std::collections::VecDeque<Waiting>> {
        // a sender that panicked leaves a queue that is still consistent (push and pop only)
        self.jobs.lock().unwrap_or_else(|e| e.into_inner())
    }

    pub(super) fn push(&self, w: Waiting) {
        self.lock().push_back(w);
        self.ready.notify_one();
    }

    /// The next job, waiting for one; `None` once the queue is closed and empty.
    pub(super) async fn next(&self) -> Option<Job> {
        use std::sync::atomic::Ordering;
        loop {
            // registered before looking, so a push or close in between is not missed
            let notified = self.ready.notified();
            tokio::pin!(notified);
            notified.as_mut().enable();
            let (job, more) = {
                let mut jobs = self.lock();
                (jobs.pop_front(), !jobs.is_empty())
            };
            if let Some(w) = job {
                if more {
                    // one wake-up may have stood for several pushes: pass it on
                    self.ready.notify_one();
                }
                return Some(w.job);
            }
            if self.closed.load(Ordering::Acquire) {
                return None;
            }
            notified.await;
        }
    }

    pub(super) fn close(&self) {
        self.closed
            .store(true, std::sync::atomic::Ordering::Release);
        self.ready.notify_waiters();
    }

    /// Takes out the jobs that have waited `slot_wait` by `now`.
    pub(super) fn take_overdue(&self, now: tokio::time::Instant, slot_wait: Duration) -> Vec<Job> {
        overdue(&mut self.lock(), now, slot_wait)
    }
}

/// The jobs at the front of `waiting` (oldest first) that have waited `slot_wait` by `now`,
/// taken out.
pub(super) fn overdue(
    waiting: &mut std::collections::VecDeque<Waiting>,
    now: tokio::time::Instant,
    slot_wait: Duration,
) -> Vec<Job> {
    let mut out = Vec::new();
    while waiting
        .front()
        .is_some_and(|w| now.saturating_duration_since(w.since) >= slot_wait)
    {
        if let Some(w) = waiting.pop_front() {
            out.push(w.job);
        }
    }
    out
}

/// How often the sender looks for jobs that waited too long: a quarter of the slot wait,
/// between 10 ms and 1 s (so a job is given back at most that much late).
pub(super) fn slot_check_period(slot_wait: Duration) -> Duration {
    (slot_wait / 4).clamp(Duration::from_millis(10), Duration::from_secs(1))
}
