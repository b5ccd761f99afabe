//! The health numbers of each upstream that `GET /v2/sources` shows: requests, errors and
//! latency, its clock, its request budget, and the records it had refused.

use std::collections::{BTreeMap, VecDeque};
use std::time::Instant;

use boxtrack_core::schedule::SourceClock;
use serde::Serialize;

use super::{Endpoint, UpstreamError, Upstreams};
use crate::diagnosis::{Answered, Asked, Diagnosis, diagnose};

/// Health of one upstream.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Health {
    /// `dcsa` or `terminal`.
    pub kind: String,
    /// SCAC or terminal code.
    pub name: String,
    /// Base URL.
    pub url: String,
    /// How boxtrack authenticates to it (`none`, `headers`, `query`,
    /// `oauth2_client_credentials`); never the credentials.
    pub auth: String,
    /// Requests made.
    pub requests: u64,
    /// Requests that failed.
    pub errors: u64,
    /// Sum of latencies, milliseconds.
    pub latency_ms_sum: f64,
    /// Last success.
    pub last_success_us: Option<i64>,
    /// Last failure.
    pub last_error_us: Option<i64>,
    /// What it was.
    pub last_error: Option<String>,
    /// Newest data seen (DCSA `eventCreatedDateTime`, terminal `as_of`).
    pub newest_data_us: Option<i64>,
    /// The upstream's clock, from the `Date` (and, for a simulator, `Sim-Clock-Speed`) of its
    /// last answer; `None` before it answered.
    pub clock: Option<SourceClock>,
    /// Records refused (events that failed validation, answers that could not be read), by
    /// reason code; each distinct record counts once however often it is fetched again.
    pub refused: BTreeMap<String, u64>,
    /// The last few refused records, newest last.
    pub refused_samples: VecDeque<RefusedSample>,
    /// Its request budget.
    pub budget: BudgetHealth,
    /// What its last request said is wrong (`None` before the first).
    pub diagnosis: Option<Diagnosis>,
}

/// An upstream's request budget (a token bucket per upstream and process) and how often it
/// ran out.
#[derive(Debug, Clone, Default, Serialize)]
pub struct BudgetHealth {
    /// Sustained requests per second.
    pub requests_per_sec: f64,
    /// Requests allowed at once.
    pub burst: u32,
    /// Requests it allows right now.
    pub available: u32,
    /// Requests it held back because it was spent.
    pub exhausted: u64,
}

/// One refused upstream record, kept as a sample for the operator.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RefusedSample {
    /// The number it was fetched for (bill of lading, booking, container).
    pub reference: String,
    /// Reason code.
    pub code: String,
    /// Reason in words.
    pub reason: String,
    /// When it was refused (real time, Unix microseconds).
    pub at_us: i64,
}

/// Samples kept per upstream.
const SAMPLES: usize = 5;
/// Distinct refused records remembered (so one counts once); forgotten all at once past this.
const REMEMBERED: usize = 50_000;

/// The health entry of an upstream, made on first use.
fn health_of<'a>(
    h: &'a mut BTreeMap<(String, String), Health>,
    kind: &str,
    name: &str,
    url: &str,
    auth: &str,
) -> &'a mut Health {
    let e = h
        .entry((kind.to_string(), name.to_string()))
        .or_insert_with(|| Health {
            kind: kind.into(),
            name: name.into(),
            url: url.into(),
            ..Health::default()
        });
    if e.auth.is_empty() {
        e.auth = auth.into();
    }
    e
}

impl Upstreams {
    /// The clock of an upstream as last read from its answers (the wall clock before any).
    pub fn clock(&self, kind: &str, name: &str) -> SourceClock {
        self.health
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(&(kind.to_string(), name.to_string()))
            .and_then(|h| h.clock)
            .unwrap_or_else(|| SourceClock::wall(boxtrack_core::time::now_us()))
    }

    /// Counts refused records of an upstream (`kind`, `name`) fetched for `reference`: each
    /// `(key, code, reason)` counts once per distinct `key`, is logged once as a warning, and
    /// the newest become the samples `GET /v2/sources` shows. With `partial` (records refused
    /// from an answer that was otherwise used) the answer counts as an error in the health
    /// figures; a failed request was counted already. Returns how many were new.
    pub fn refused(
        &self,
        kind: &str,
        name: &str,
        url: &str,
        reference: &str,
        items: &[(String, &str, String)],
        partial: bool,
    ) -> usize {
        if items.is_empty() {
            return 0;
        }
        let now = boxtrack_core::time::now_us();
        let fresh: Vec<&(String, &str, String)> = {
            let mut seen = self.seen_refused.lock().unwrap_or_else(|e| e.into_inner());
            if seen.len() > REMEMBERED {
                seen.clear();
            }
            items
                .iter()
                .filter(|(key, code, _)| {
                    seen.insert(format!("{kind}:{name}:{reference}:{key}:{code}"))
                })
                .collect()
        };
        for (_, code, reason) in &fresh {
            tracing::warn!(source = %format!("{kind}:{name}"), reference, code, reason = %reason, "refused an upstream record");
        }
        let mut h = self.health.lock().unwrap_or_else(|e| e.into_inner());
        let e = health_of(&mut h, kind, name, url, "");
        for (_, code, reason) in &fresh {
            *e.refused.entry((*code).to_string()).or_insert(0) += 1;
            e.refused_samples.push_back(RefusedSample {
                reference: reference.to_string(),
                code: (*code).to_string(),
                reason: reason.clone(),
                at_us: now,
            });
            while e.refused_samples.len() > SAMPLES {
                e.refused_samples.pop_front();
            }
        }
        if !partial {
            // the failed request was counted as an error already
            return fresh.len();
        }
        // the answer was only partly usable: an error in the health figures
        e.errors += 1;
        e.last_error_us = Some(now);
        let mut codes: BTreeMap<&str, usize> = BTreeMap::new();
        for (_, code, _) in items {
            *codes.entry(code).or_insert(0) += 1;
        }
        let list: Vec<String> = codes.iter().map(|(c, n)| format!("{c} ×{n}")).collect();
        e.last_error = Some(format!(
            "{} record(s) refused for {reference}: {}",
            items.len(),
            list.join(", ")
        ));
        fresh.len()
    }

    pub(super) fn record(
        &self,
        kind: &str,
        name: &str,
        ep: &Endpoint,
        started: Instant,
        result: Result<(Option<i64>, Answered<'_>), &UpstreamError>,
        clock: Option<SourceClock>,
    ) {
        let asked = Asked {
            scheme: ep.auth.scheme(),
            number: None,
        };
        let diagnosis = match &result {
            Ok((_, a)) => diagnose(Ok(a), asked),
            Err(e) => diagnose(Err(*e), asked),
        };
        let now = boxtrack_core::time::now_us();
        let mut h = self.health.lock().unwrap_or_else(|e| e.into_inner());
        let e = health_of(&mut h, kind, name, &ep.url, ep.auth.scheme());
        if clock.is_some() {
            e.clock = clock;
        }
        e.requests += 1;
        e.diagnosis = Some(diagnosis);
        e.latency_ms_sum += started.elapsed().as_secs_f64() * 1000.0;
        match result {
            Ok((newest, _)) => {
                e.last_success_us = Some(now);
                if let Some(n) = newest {
                    e.newest_data_us = Some(e.newest_data_us.map_or(n, |o| o.max(n)));
                }
            }
            Err(err) => {
                e.errors += 1;
                e.last_error_us = Some(now);
                e.last_error = Some(err.to_string());
            }
        }
    }

    /// Health of every upstream called so far, plus the configured ones not called yet.
    pub fn health(&self) -> Vec<Health> {
        let mut h = self
            .health
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone();
        for (scac, ep) in &self.cfg.carriers {
            h.entry(("dcsa".into(), scac.clone()))
                .or_insert_with(|| Health {
                    kind: "dcsa".into(),
                    name: scac.clone(),
                    url: ep.url.clone(),
                    auth: ep.auth.scheme().into(),
                    ..Health::default()
                });
        }
        for (code, ep) in &self.cfg.terminals {
            h.entry(("terminal".into(), code.clone()))
                .or_insert_with(|| Health {
                    kind: "terminal".into(),
                    name: code.clone(),
                    url: ep.url.clone(),
                    auth: ep.auth.scheme().into(),
                    ..Health::default()
                });
        }
        let (rate, burst) = self.budget_limits();
        let now = boxtrack_core::time::now_us();
        let buckets = self.buckets.lock().unwrap_or_else(|e| e.into_inner());
        h.into_values()
            .map(|mut e| {
                let spent = buckets.get(&format!("{}:{}", e.kind, e.name));
                e.budget = BudgetHealth {
                    requests_per_sec: rate,
                    burst,
                    // an upstream not asked yet has its whole burst
                    available: spent.map_or(burst, |(b, _)| b.available(now)),
                    exhausted: spent.map_or(0, |(_, n)| *n),
                };
                e
            })
            .collect()
    }
}
