//! The configured upstreams and their HTTP clients: each carrier's DCSA Track & Trace 2.2
//! endpoint and each terminal's availability feed, with a request budget (token bucket) per
//! upstream and the health numbers `GET /v2/sources` shows.

use std::collections::{BTreeMap, HashMap, HashSet, VecDeque};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use boxtrack_core::requests::RequestType;
use boxtrack_core::schedule::{SourceClock, TokenBucket};
use boxtrack_core::time::parse_micros;
use serde::{Deserialize, Serialize};

use crate::dcsa::{self, Event, Rejected};
use crate::terminal::TerminalStatus;

/// One upstream: its base URL and an optional credential header.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Endpoint {
    /// Base URL (a DCSA carrier: the part before `/v2/events`; a terminal: the part before
    /// `/containers/{number}`).
    pub url: String,
    /// Credential header name, e.g. `Authorization` or `API-Key`.
    #[serde(default)]
    pub auth_header: Option<String>,
    /// Its value.
    #[serde(default)]
    pub auth_value: Option<String>,
}

/// Which upstreams exist.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct UpstreamConfig {
    /// A `boxtrack sim` base URL: every carrier and terminal of the simulator.
    pub sim_url: Option<String>,
    /// Carriers by SCAC.
    pub carriers: BTreeMap<String, Endpoint>,
    /// Terminals by code.
    pub terminals: BTreeMap<String, Endpoint>,
    /// Request budget per upstream: sustained requests per second.
    pub requests_per_sec: f64,
    /// Request budget per upstream: burst.
    pub burst: u32,
    /// Timeout of one request.
    pub timeout: Duration,
    /// Divides the polling cadence (the demo runs the simulator's clock fast, so polls follow
    /// it); 0 or 1 is real time.
    pub poll_speedup: f64,
}

impl UpstreamConfig {
    /// Whether any upstream is configured.
    pub fn is_empty(&self) -> bool {
        self.sim_url.is_none() && self.carriers.is_empty() && self.terminals.is_empty()
    }
}

/// Why an upstream call gave nothing.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum UpstreamError {
    /// No upstream is configured for it.
    #[error("no upstream is configured for {0}")]
    NotConfigured(String),
    /// Its request budget is spent for now.
    #[error("request budget of {name} spent; next request in {wait_ms} ms")]
    Budget {
        /// Upstream.
        name: String,
        /// Wait.
        wait_ms: i64,
    },
    /// Network trouble or a timeout.
    #[error("{0}")]
    Unreachable(String),
    /// An error status.
    #[error("HTTP {status} from {name}")]
    Status {
        /// Upstream.
        name: String,
        /// Status code.
        status: u16,
        /// `Retry-After` seconds, when sent.
        retry_after: Option<u64>,
    },
    /// The answer could not be read.
    #[error("unreadable answer from {name}: {reason}")]
    Malformed {
        /// Upstream.
        name: String,
        /// Why.
        reason: String,
    },
}

impl UpstreamError {
    /// `Retry-After` seconds asked by the upstream.
    pub fn retry_after(&self) -> Option<u64> {
        match self {
            UpstreamError::Status { retry_after, .. } => *retry_after,
            UpstreamError::Budget { wait_ms, .. } => Some((*wait_ms / 1000 + 1) as u64),
            _ => None,
        }
    }
}

/// Health of one upstream.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Health {
    /// `dcsa` or `terminal`.
    pub kind: String,
    /// SCAC or terminal code.
    pub name: String,
    /// Base URL.
    pub url: String,
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

/// A DCSA answer (every page).
#[derive(Debug, Clone, Default)]
pub struct DcsaAnswer {
    /// Valid events.
    pub events: Vec<Event>,
    /// Rejected events.
    pub rejected: Vec<Rejected>,
    /// Notes.
    pub notes: Vec<String>,
    /// Every page body, verbatim.
    pub bodies: Vec<String>,
    /// The carrier's clock when it answered (what its events were checked against).
    pub clock: Option<SourceClock>,
}

/// The upstreams and their clients.
#[derive(Debug)]
pub struct Upstreams {
    cfg: UpstreamConfig,
    client: reqwest::Client,
    buckets: Mutex<HashMap<String, TokenBucket>>,
    health: Mutex<BTreeMap<(String, String), Health>>,
    seen_refused: Mutex<HashSet<String>>,
}

/// The clock an answer carried: its `Date` (the upstream's own time) and, from a simulator,
/// `Sim-Clock-Speed`; without a readable `Date` the wall clock.
fn clock_of(headers: &reqwest::header::HeaderMap, wall_us: i64) -> SourceClock {
    let date = headers
        .get(reqwest::header::DATE)
        .and_then(|v| v.to_str().ok())
        .and_then(boxtrack_core::time::parse_http_date);
    let speed = headers
        .get("Sim-Clock-Speed")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.trim().parse::<f64>().ok())
        .unwrap_or(1.0);
    match date {
        // a Date has whole seconds: the reading is at most a second behind the source
        Some(d) => SourceClock::reading(wall_us, d, speed),
        None => SourceClock::wall(wall_us),
    }
}

fn query_param(kind: RequestType) -> &'static str {
    match kind {
        RequestType::BillOfLading => "transportDocumentReference",
        RequestType::BookingNumber => "carrierBookingReference",
        RequestType::Container => "equipmentReference",
    }
}

impl Upstreams {
    /// Clients for these upstreams.
    pub fn new(cfg: UpstreamConfig) -> Upstreams {
        let client = reqwest::Client::builder()
            .timeout(if cfg.timeout.is_zero() {
                Duration::from_secs(20)
            } else {
                cfg.timeout
            })
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .unwrap_or_default();
        Upstreams {
            cfg,
            client,
            buckets: Mutex::new(HashMap::new()),
            health: Mutex::new(BTreeMap::new()),
            seen_refused: Mutex::new(HashSet::new()),
        }
    }

    /// The configuration.
    pub fn config(&self) -> &UpstreamConfig {
        &self.cfg
    }

    /// The DCSA endpoint of a carrier.
    pub fn carrier(&self, scac: &str) -> Option<Endpoint> {
        self.cfg.carriers.get(scac).cloned().or_else(|| {
            self.cfg.sim_url.as_ref().map(|u| Endpoint {
                url: format!("{}/sim/v1/carriers/{scac}", u.trim_end_matches('/')),
                auth_header: None,
                auth_value: None,
            })
        })
    }

    /// The feed of a terminal.
    pub fn terminal(&self, code: &str) -> Option<Endpoint> {
        self.cfg.terminals.get(code).cloned().or_else(|| {
            self.cfg.sim_url.as_ref().map(|u| Endpoint {
                url: format!("{}/sim/v1/terminals/{code}", u.trim_end_matches('/')),
                auth_header: None,
                auth_value: None,
            })
        })
    }

    fn budget(&self, key: &str, now_us: i64) -> Result<(), UpstreamError> {
        let rate = if self.cfg.requests_per_sec > 0.0 {
            self.cfg.requests_per_sec
        } else {
            20.0
        };
        let burst = if self.cfg.burst > 0 {
            self.cfg.burst
        } else {
            40
        };
        let mut b = self.buckets.lock().unwrap_or_else(|e| e.into_inner());
        let bucket = b
            .entry(key.to_string())
            .or_insert_with(|| TokenBucket::new(burst, rate, now_us));
        bucket.take(now_us).map_err(|wait| UpstreamError::Budget {
            name: key.to_string(),
            wait_ms: wait / 1000,
        })
    }

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
        let e = h
            .entry((kind.to_string(), name.to_string()))
            .or_insert_with(|| Health {
                kind: kind.into(),
                name: name.into(),
                url: url.into(),
                ..Health::default()
            });
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

    fn record(
        &self,
        kind: &str,
        name: &str,
        url: &str,
        started: Instant,
        result: Result<Option<i64>, &UpstreamError>,
        clock: Option<SourceClock>,
    ) {
        let now = boxtrack_core::time::now_us();
        let mut h = self.health.lock().unwrap_or_else(|e| e.into_inner());
        let e = h
            .entry((kind.to_string(), name.to_string()))
            .or_insert_with(|| Health {
                kind: kind.into(),
                name: name.into(),
                url: url.into(),
                ..Health::default()
            });
        if clock.is_some() {
            e.clock = clock;
        }
        e.requests += 1;
        e.latency_ms_sum += started.elapsed().as_secs_f64() * 1000.0;
        match result {
            Ok(newest) => {
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
                    ..Health::default()
                });
        }
        for (code, ep) in &self.cfg.terminals {
            h.entry(("terminal".into(), code.clone()))
                .or_insert_with(|| Health {
                    kind: "terminal".into(),
                    name: code.clone(),
                    url: ep.url.clone(),
                    ..Health::default()
                });
        }
        h.into_values().collect()
    }

    async fn get(
        &self,
        ep: &Endpoint,
        url: &str,
        name: &str,
    ) -> Result<(u16, Option<String>, String, SourceClock), UpstreamError> {
        let mut req = self
            .client
            .get(url)
            .header("Accept", "application/json")
            .header("API-Version", "2");
        if let (Some(h), Some(v)) = (&ep.auth_header, &ep.auth_value) {
            req = req.header(h.as_str(), v.as_str());
        }
        let res = req
            .send()
            .await
            .map_err(|e| UpstreamError::Unreachable(format!("{name}: {e}")))?;
        let status = res.status().as_u16();
        let clock = clock_of(res.headers(), boxtrack_core::time::now_us());
        let retry_after = res
            .headers()
            .get("Retry-After")
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.trim().parse::<u64>().ok());
        let next = res
            .headers()
            .get("Next-Page")
            .and_then(|v| v.to_str().ok())
            .map(str::to_string);
        let body = res
            .text()
            .await
            .map_err(|e| UpstreamError::Unreachable(format!("{name}: {e}")))?;
        if status == 404 {
            return Ok((404, None, body, clock));
        }
        if !(200..300).contains(&status) {
            return Err(UpstreamError::Status {
                name: name.to_string(),
                status,
                retry_after,
            });
        }
        Ok((status, next, body, clock))
    }

    /// Every event the carrier publishes for this reference, following `Next-Page`.
    pub async fn dcsa_events(
        &self,
        scac: &str,
        kind: RequestType,
        reference: &str,
    ) -> Result<DcsaAnswer, UpstreamError> {
        let ep = self
            .carrier(scac)
            .ok_or_else(|| UpstreamError::NotConfigured(scac.to_string()))?;
        let started = Instant::now();
        let result = self.dcsa_pages(&ep, scac, kind, reference).await;
        let newest = result.as_ref().ok().and_then(|a| {
            a.events
                .iter()
                .filter_map(|e| parse_micros(&e.event_created_date_time))
                .max()
        });
        self.record(
            "dcsa",
            scac,
            &ep.url,
            started,
            result.as_ref().map(|_| newest),
            result.as_ref().ok().and_then(|a| a.clock),
        );
        match &result {
            Ok(a) => {
                let items: Vec<(String, &str, String)> = a
                    .rejected
                    .iter()
                    .map(|r| {
                        let key = r
                            .event_id
                            .clone()
                            .unwrap_or_else(|| format!("#{}", r.index));
                        (key, r.code, r.reason.clone())
                    })
                    .collect();
                self.refused("dcsa", scac, &ep.url, reference, &items, true);
            }
            Err(UpstreamError::Malformed { reason, .. }) => {
                self.refused(
                    "dcsa",
                    scac,
                    &ep.url,
                    reference,
                    &[(reason.clone(), "unreadable_answer", reason.clone())],
                    false,
                );
            }
            Err(_) => {}
        }
        result
    }

    async fn dcsa_pages(
        &self,
        ep: &Endpoint,
        scac: &str,
        kind: RequestType,
        reference: &str,
    ) -> Result<DcsaAnswer, UpstreamError> {
        let base = format!("{}/v2/events", ep.url.trim_end_matches('/'));
        let mut answer = DcsaAnswer::default();
        let mut cursor: Option<String> = None;
        for _ in 0..100 {
            self.budget(&format!("dcsa:{scac}"), boxtrack_core::time::now_us())?;
            let mut url = reqwest::Url::parse(&base)
                .map_err(|e| UpstreamError::NotConfigured(format!("{scac}: {e}")))?;
            match &cursor {
                Some(c) if c.starts_with("http") => {
                    url = reqwest::Url::parse(c).map_err(|e| UpstreamError::Malformed {
                        name: scac.into(),
                        reason: format!("Next-Page {c:?}: {e}"),
                    })?;
                }
                _ => {
                    let mut q = url.query_pairs_mut();
                    q.append_pair(query_param(kind), reference)
                        .append_pair("limit", "100");
                    if let Some(c) = &cursor {
                        q.append_pair("cursor", c);
                    }
                }
            }
            let (status, next, body, clock) = self.get(ep, url.as_str(), scac).await?;
            answer.clock = Some(clock);
            if status == 404 {
                break;
            }
            // checked against the carrier's own clock, not ours
            let parsed = dcsa::parse(body.as_bytes(), clock.now_at(boxtrack_core::time::now_us()))
                .map_err(|e| UpstreamError::Malformed {
                    name: scac.into(),
                    reason: e.0,
                })?;
            answer.events.extend(parsed.events);
            answer.rejected.extend(parsed.rejected);
            answer.notes.extend(parsed.notes);
            answer.bodies.push(body);
            match next {
                Some(n) if !n.is_empty() => cursor = Some(n),
                _ => break,
            }
        }
        Ok(answer)
    }

    /// What a terminal's feed says about a container (`None`: not at the terminal).
    pub async fn terminal_status(
        &self,
        code: &str,
        number: &str,
    ) -> Result<Option<(TerminalStatus, String)>, UpstreamError> {
        let ep = self
            .terminal(code)
            .ok_or_else(|| UpstreamError::NotConfigured(code.to_string()))?;
        let started = Instant::now();
        let mut clock = None;
        let result = async {
            self.budget(&format!("terminal:{code}"), boxtrack_core::time::now_us())?;
            let url = format!("{}/containers/{number}", ep.url.trim_end_matches('/'));
            let (status, _, body, read) = self.get(&ep, &url, code).await?;
            clock = Some(read);
            if status == 404 {
                return Ok(None);
            }
            let s: TerminalStatus =
                serde_json::from_str(&body).map_err(|e| UpstreamError::Malformed {
                    name: code.into(),
                    reason: e.to_string(),
                })?;
            Ok(Some((s, body)))
        }
        .await;
        let newest = result
            .as_ref()
            .ok()
            .and_then(|o| o.as_ref().and_then(|(s, _)| parse_micros(&s.as_of)));
        self.record(
            "terminal",
            code,
            &ep.url,
            started,
            result.as_ref().map(|_| newest),
            clock,
        );
        if let Err(UpstreamError::Malformed { reason, .. }) = &result {
            self.refused(
                "terminal",
                code,
                &ep.url,
                number,
                &[(reason.clone(), "unreadable_answer", reason.clone())],
                false,
            );
        }
        result
    }
}
