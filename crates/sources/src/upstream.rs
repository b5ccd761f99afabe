//! The configured upstreams and their HTTP clients: each carrier's DCSA Track & Trace 2.2
//! endpoint and each terminal's availability feed, with a request budget (token bucket) per
//! upstream and the health numbers `GET /v2/sources` shows.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use boxtrack_core::requests::RequestType;
use boxtrack_core::schedule::{SourceClock, TokenBucket};
use boxtrack_core::time::parse_micros;

use crate::carrier::Digest;
use crate::dcsa::{self, Event, Rejected};
use crate::terminal::TerminalStatus;
use boxtrack_core::tracking::Route;

pub(crate) mod error;
mod health;
mod token;

pub use crate::auth::{Auth, Endpoint, EndpointConfig};
use crate::diagnosis::{Answered, Asked, Diagnosis, NotFound, dcsa_shaped, diagnose};
pub use error::{Network, TokenCause, UpstreamError, network_cause, said_in};
use error::{malformed, network_error};
pub use health::{BudgetHealth, Health, RefusedSample};
use token::TokenSlot;

/// Which upstreams exist.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct UpstreamConfig {
    /// A `boxtrack sim` base URL: every carrier and terminal of the simulator.
    pub sim_url: Option<String>,
    /// Carriers by SCAC, with their credentials read.
    pub carriers: BTreeMap<String, Endpoint>,
    /// Terminals by code, with their credentials read.
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

/// A DCSA answer (every page).
#[derive(Debug, Clone, Default)]
pub struct DcsaAnswer {
    /// Valid events.
    pub events: Vec<Event>,
    /// Rejected events.
    pub rejected: Vec<Rejected>,
    /// Notes.
    pub notes: Vec<String>,
    /// Events the carrier withdrew.
    pub retracted: Vec<crate::dcsa::Retraction>,
    /// Every page body, verbatim.
    pub bodies: Vec<String>,
    /// The carrier's clock when it answered (what its events were checked against).
    pub clock: Option<SourceClock>,
    /// The 404 it answered, when it did (no events for the number, or not the API).
    pub not_found: Option<NotFound>,
    /// For a line of its own format (COSCO's COP): what was asked and what it said, read.
    pub own: Option<OwnAnswer>,
}

/// An answer in a line's own format, read by its adapter.
#[derive(Debug, Clone)]
pub struct OwnAnswer {
    /// The kind of number asked.
    pub kind: RequestType,
    /// The number asked.
    pub number: String,
    /// When it was asked, at the line's clock (its estimates' report time).
    pub asked_us: i64,
    /// Milestones read.
    pub milestones: usize,
    /// Boxes named.
    pub boxes: usize,
    /// The boxes whose trip was asked apart (`numberType=cntr`), each answer in `bodies`
    /// after the first.
    pub trips: Vec<String>,
}

impl DcsaAnswer {
    /// What it says of the subject: `known` is the route already stored (it wins over what
    /// the answer suggests).
    pub fn digest(&self, known: Option<&Route>) -> Digest {
        match &self.own {
            Some(own) => {
                let read = |body: &String, kind, number: &str| {
                    crate::cosco::read(body, kind, number, own.asked_us, known).ok()
                };
                let mut d = self
                    .bodies
                    .first()
                    .and_then(|b| read(b, own.kind, &own.number))
                    .map(|r| r.digest)
                    .unwrap_or_default();
                // a box's trip, asked apart, says more than the bill's latest status
                for (number, body) in own.trips.iter().zip(self.bodies.iter().skip(1)) {
                    if let Some(trip) = read(body, RequestType::Container, number)
                        && let Some(obs) = trip.digest.per_container.get(number)
                        && !obs.is_empty()
                    {
                        d.per_container.insert(number.clone(), obs.clone());
                    }
                }
                d
            }
            None => crate::carrier::digest(&self.events, known),
        }
    }

    /// Whether it says nothing of the number (no events; for COP, no milestone and no box).
    pub fn is_empty(&self) -> bool {
        match &self.own {
            Some(own) => own.milestones == 0 && own.boxes == 0,
            None => self.events.is_empty(),
        }
    }

    /// What [`diagnose`] reads of it.
    pub fn answered(&self) -> Answered<'_> {
        Answered {
            events: self.events.len() + self.own.as_ref().map_or(0, |o| o.milestones),
            refused: self.rejected.len(),
            first_refusal: self.rejected.first().map(|r| r.reason.as_str()),
            not_found: self.not_found.as_ref(),
        }
    }
}

/// What `boxtrack carriers check` found: what was asked, of which address, and the
/// diagnosis.
#[derive(Debug, Clone)]
pub struct Check {
    /// The carrier's base URL (`None`: not configured).
    pub url: Option<String>,
    /// How boxtrack authenticates to it.
    pub scheme: &'static str,
    /// The DCSA version asked in.
    pub dcsa_version: dcsa::Version,
    /// The kind of number asked.
    pub kind: RequestType,
    /// The number asked (a made-up one without `--number`).
    pub number: String,
    /// Events read.
    pub events: usize,
    /// What is wrong, if anything.
    pub diagnosis: Diagnosis,
}

/// The bill of lading asked when no number is given: no line knows it, so an answer without
/// events (or a DCSA 404) means the API was reached and the credentials accepted.
pub const CHECK_NUMBER: &str = "BOXTRACKCHECK1";

/// The upstreams and their clients.
#[derive(Debug)]
pub struct Upstreams {
    cfg: UpstreamConfig,
    client: reqwest::Client,
    /// Per upstream (`kind:name`): its bucket and how often it was found spent.
    buckets: Mutex<HashMap<String, (TokenBucket, u64)>>,
    health: Mutex<BTreeMap<(String, String), Health>>,
    seen_refused: Mutex<HashSet<String>>,
    tokens: Mutex<HashMap<String, TokenSlot>>,
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
            tokens: Mutex::new(HashMap::new()),
        }
    }

    /// The configuration.
    pub fn config(&self) -> &UpstreamConfig {
        &self.cfg
    }

    /// The DCSA endpoint of a carrier.
    pub fn carrier(&self, scac: &str) -> Option<Endpoint> {
        self.cfg.carriers.get(scac).cloned().or_else(|| {
            self.cfg.sim_url.as_ref().map(|u| {
                Endpoint::open(format!(
                    "{}/sim/v1/carriers/{scac}",
                    u.trim_end_matches('/')
                ))
                .speaking(crate::simulated::dcsa_version(scac))
            })
        })
    }

    /// The feed of a terminal.
    pub fn terminal(&self, code: &str) -> Option<Endpoint> {
        self.cfg.terminals.get(code).cloned().or_else(|| {
            self.cfg.sim_url.as_ref().map(|u| {
                Endpoint::open(format!(
                    "{}/sim/v1/terminals/{code}",
                    u.trim_end_matches('/')
                ))
            })
        })
    }

    /// The request budget of every upstream: sustained requests per second and burst (20 and
    /// 40 unless configured).
    fn budget_limits(&self) -> (f64, u32) {
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
        (rate, burst)
    }

    fn budget(&self, key: &str, now_us: i64) -> Result<(), UpstreamError> {
        let (rate, burst) = self.budget_limits();
        let mut b = self.buckets.lock().unwrap_or_else(|e| e.into_inner());
        let (bucket, exhausted) = b
            .entry(key.to_string())
            .or_insert_with(|| (TokenBucket::new(burst, rate, now_us), 0));
        bucket.take(now_us).map_err(|wait| {
            *exhausted += 1;
            // the first time and every hundredth after: enough to see, not a flood
            if *exhausted == 1 || *exhausted % 100 == 0 {
                tracing::warn!(
                    upstream = key,
                    times = *exhausted,
                    "request budget of an upstream spent; requests wait for it"
                );
            }
            UpstreamError::Budget {
                name: key.to_string(),
                wait_ms: wait / 1000,
            }
        })
    }

    async fn get(
        &self,
        key: &str,
        ep: &Endpoint,
        url: &str,
        name: &str,
    ) -> Result<(u16, Option<String>, String, SourceClock), UpstreamError> {
        let mut retried = false;
        let res = loop {
            let (req, token) = self.authorized(key, ep, url, name).await?;
            let res = req.send().await.map_err(|e| network_error(name, e))?;
            // a refused token (revoked, or expired early): drop it and try once with a new one
            if res.status() == reqwest::StatusCode::UNAUTHORIZED
                && !retried
                && let Some(t) = token
            {
                self.drop_token(key, &t).await;
                retried = true;
                continue;
            }
            break res;
        };
        let status = res.status().as_u16();
        let clock = clock_of(res.headers(), boxtrack_core::time::now_us());
        let retry_after = res
            .headers()
            .get("Retry-After")
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.trim().parse::<u64>().ok());
        let challenge = res
            .headers()
            .get(reqwest::header::WWW_AUTHENTICATE)
            .and_then(|v| v.to_str().ok())
            .and_then(error::challenge_said);
        // 2.2 pages with `Next-Page`, 3.0 with `Next-Page-Cursor`
        let next = ["Next-Page", "Next-Page-Cursor"]
            .iter()
            .find_map(|h| res.headers().get(*h))
            .and_then(|v| v.to_str().ok())
            .map(str::to_string);
        let body = res.text().await.map_err(|e| network_error(name, e))?;
        if status == 404 {
            return Ok((404, None, body, clock));
        }
        if !(200..300).contains(&status) {
            let said = match (said_in(&body), challenge) {
                (Some(b), Some(c)) if !b.contains(&c) => Some(format!("{b}; {c}")),
                (b, c) => b.or(c),
            }
            // a gateway that quotes the key it refused does not put it in our words
            .map(|words| {
                ep.auth
                    .secrets()
                    .iter()
                    .filter(|s| s.expose().len() >= 4)
                    .fold(words, |w, s| w.replace(s.expose(), "[redacted]"))
            });
            return Err(UpstreamError::Status {
                name: name.to_string(),
                status,
                retry_after,
                said,
            });
        }
        Ok((status, next, body, clock))
    }

    /// Every event the carrier publishes for this reference, in the DCSA version it speaks,
    /// following `Next-Page` (2.2) or `Next-Page-Cursor` (3.0, sent back as `cursor` with the
    /// first request's parameters).
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
            &ep,
            started,
            result.as_ref().map(|a| (newest, a.answered())),
            result.as_ref().ok().and_then(|a| a.clock),
        );
        match &result {
            Ok(a) => {
                let items: Vec<(String, &str, String)> =
                    a.rejected.iter().map(|r| r.refusal("")).collect();
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
        if ep.format == crate::auth::ApiFormat::CoscoCop {
            return self.cop_tracking(ep, scac, kind, reference).await;
        }
        let key = format!("dcsa:{scac}");
        let version = ep.dcsa_version;
        let base = format!("{}{}", ep.url.trim_end_matches('/'), version.events_path());
        let mut answer = DcsaAnswer::default();
        let mut cursor: Option<String> = None;
        for _ in 0..100 {
            self.budget(&key, boxtrack_core::time::now_us())?;
            let mut url = reqwest::Url::parse(&base)
                .map_err(|e| UpstreamError::NotConfigured(format!("{scac}: {e}")))?;
            match &cursor {
                // a 2.2 `Next-Page` may be a whole URL; a 3.0 cursor is always opaque
                Some(c) if version == dcsa::Version::V2_2 && c.starts_with("http") => {
                    let next = reqwest::Url::parse(c)
                        .map_err(|e| malformed(scac, format!("Next-Page {c:?}: {e}")))?;
                    // the credentials go to the configured host only
                    if next.origin() != url.origin() {
                        let host = next.origin().ascii_serialization();
                        let why = format!("Next-Page points to another host ({host})");
                        return Err(malformed(scac, why));
                    }
                    url = next;
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
            let (status, next, body, clock) = self.get(&key, ep, url.as_str(), scac).await?;
            answer.clock = Some(clock);
            if status == 404 {
                answer.not_found = Some(NotFound {
                    dcsa: dcsa_shaped(&body),
                    said: said_in(&body),
                });
                break;
            }
            // checked against the carrier's own clock, not ours
            let parsed = dcsa::parse(body.as_bytes(), clock.now_at(boxtrack_core::time::now_us()))
                .map_err(|e| malformed(scac, e.0))?;
            answer.events.extend(parsed.events);
            answer.rejected.extend(parsed.rejected);
            answer.notes.extend(parsed.notes);
            answer.retracted.extend(parsed.retracted);
            answer.bodies.push(body);
            match next {
                Some(n) if !n.is_empty() => cursor = Some(n),
                _ => break,
            }
        }
        Ok(answer)
    }

    /// COSCO's COP: one signed `GET {url}/info/tracking/{number}?numberType=…`, read by
    /// [`crate::cosco`] (kept verbatim like a DCSA page; a number it does not know is an
    /// answer without milestones).
    async fn cop_tracking(
        &self,
        ep: &Endpoint,
        scac: &str,
        kind: RequestType,
        reference: &str,
    ) -> Result<DcsaAnswer, UpstreamError> {
        let (status, _, body, clock) = self.cop_get(ep, scac, kind, reference).await?;
        let asked_us = clock.now_at(boxtrack_core::time::now_us());
        let mut answer = DcsaAnswer {
            clock: Some(clock),
            ..DcsaAnswer::default()
        };
        if status == 404 {
            answer.not_found = Some(NotFound {
                dcsa: false,
                said: said_in(&body),
            });
            return Ok(answer);
        }
        let read = crate::cosco::read(&body, kind, reference, asked_us, None)
            .map_err(|e| malformed(scac, e))?;
        answer.notes = read.digest.notes.clone();
        answer.bodies.push(body);
        // a bill's answer gives each box's latest status only: the trip of every box still
        // on it is asked apart (one call each, within the same budget); a box whose empty
        // is back has ended its trip, and its next trip would be another shipment's
        let mut trips = Vec::new();
        if kind != RequestType::Container {
            for (number, obs) in &read.digest.per_container {
                let returned = obs.iter().any(|o| {
                    matches!(&o.fact, boxtrack_core::tracking::Fact::Event(e)
                        if e.milestone == boxtrack_core::tracking::Milestone::EmptyIn)
                });
                if returned {
                    continue;
                }
                match self.cop_get(ep, scac, RequestType::Container, number).await {
                    Ok((200, _, trip, _)) => {
                        trips.push(number.clone());
                        answer.bodies.push(trip);
                    }
                    Ok((status, ..)) => answer
                        .notes
                        .push(format!("COP answered {status} for {number}'s trip")),
                    Err(e) => answer.notes.push(format!("{number}'s trip: {e}")),
                }
            }
        }
        answer.own = Some(OwnAnswer {
            kind,
            number: reference.to_string(),
            asked_us,
            milestones: read.milestones,
            boxes: read.digest.per_container.len(),
            trips,
        });
        Ok(answer)
    }

    /// One signed COP tracking request (within the carrier's budget).
    async fn cop_get(
        &self,
        ep: &Endpoint,
        scac: &str,
        kind: RequestType,
        reference: &str,
    ) -> Result<(u16, Option<String>, String, SourceClock), UpstreamError> {
        let key = format!("dcsa:{scac}");
        self.budget(&key, boxtrack_core::time::now_us())?;
        let base = format!(
            "{}{}/",
            ep.url.trim_end_matches('/'),
            crate::cosco::TRACKING_PATH
        );
        let mut url = reqwest::Url::parse(&base)
            .and_then(|u| u.join(reference))
            .map_err(|e| UpstreamError::NotConfigured(format!("{scac}: {e}")))?;
        url.query_pairs_mut()
            .append_pair("numberType", crate::cosco::number_type(kind));
        self.get(&key, ep, url.as_str(), scac).await
    }

    /// One request to a carrier with its configured credentials, as `boxtrack carriers check`
    /// makes it: for `number`, or for [`CHECK_NUMBER`] (a bill of lading no line knows), and
    /// what is wrong, said by [`diagnose`].
    pub async fn check(&self, scac: &str, number: Option<(RequestType, &str)>) -> Check {
        let (kind, reference) = number.unwrap_or((RequestType::BillOfLading, CHECK_NUMBER));
        let ep = self.carrier(scac);
        let scheme = ep.as_ref().map_or("none", |e| e.auth.scheme());
        let result = self.dcsa_events(scac, kind, reference).await;
        let asked = Asked {
            scheme,
            number: number.map(|(_, n)| n),
        };
        Check {
            url: ep.as_ref().map(|e| e.url.clone()),
            scheme,
            dcsa_version: ep.as_ref().map(|e| e.dcsa_version).unwrap_or_default(),
            kind,
            number: reference.to_string(),
            events: result.as_ref().map_or(0, |a| a.events.len()),
            diagnosis: match &result {
                Ok(a) => diagnose(Ok(&a.answered()), asked),
                Err(e) => diagnose(Err(e), asked),
            },
        }
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
            let key = format!("terminal:{code}");
            self.budget(&key, boxtrack_core::time::now_us())?;
            let url = format!("{}/containers/{number}", ep.url.trim_end_matches('/'));
            let (status, _, body, read) = self.get(&key, &ep, &url, code).await?;
            clock = Some(read);
            if status == 404 {
                return Ok(None);
            }
            let s: TerminalStatus =
                serde_json::from_str(&body).map_err(|e| malformed(code, e.to_string()))?;
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
            &ep,
            started,
            result.as_ref().map(|_| (newest, Answered::default())),
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

#[cfg(test)]
mod check_tests;

#[cfg(test)]
mod cop_tests;

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use std::sync::Arc;
    use std::sync::atomic::{AtomicU64, Ordering};

    use axum::extract::{Query, State};
    use axum::http::{HeaderMap, StatusCode};
    use axum::response::{IntoResponse, Response};

    use super::*;
    use crate::auth::{ClientAuth, OAuth2, Secret};

    /// A carrier with a token endpoint (client `id` / `secret`, tokens living `ttl_secs`) and
    /// a DCSA endpoint that wants a valid token, `X-Key: k` or `?apikey=k`.
    #[derive(Default)]
    struct Carrier {
        issued: AtomicU64,
        refuse_clients: std::sync::atomic::AtomicBool,
        ttl_secs: u64,
        valid: Mutex<Vec<String>>,
        seen: Mutex<Vec<String>>,
    }

    async fn token(State(c): State<Arc<Carrier>>, headers: HeaderMap, body: String) -> Response {
        tokio::time::sleep(Duration::from_millis(100)).await;
        let basic = headers
            .get("authorization")
            .and_then(|v| v.to_str().ok())
            .map(str::to_string);
        let ok = basic.as_deref()
            == Some(
                crate::auth::basic_credentials(&Secret::new("id"), &Secret::new("secret")).as_str(),
            )
            || (body.contains("client_id=id") && body.contains("client_secret=secret"));
        c.seen
            .lock()
            .unwrap()
            .push(format!("token basic={} body={body}", basic.is_some()));
        if !ok
            || !body.contains("grant_type=client_credentials")
            || c.refuse_clients.load(Ordering::SeqCst)
        {
            return (
                StatusCode::UNAUTHORIZED,
                axum::Json(serde_json::json!({"error": "invalid_client"})),
            )
                .into_response();
        }
        let n = c.issued.fetch_add(1, Ordering::SeqCst) + 1;
        let t = format!("token-{n}");
        c.valid.lock().unwrap().push(t.clone());
        axum::Json(serde_json::json!({"access_token": t, "token_type": "Bearer", "expires_in": c.ttl_secs}))
            .into_response()
    }

    async fn events(
        State(c): State<Arc<Carrier>>,
        headers: HeaderMap,
        Query(q): Query<HashMap<String, String>>,
    ) -> Response {
        let bearer = headers
            .get("authorization")
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.strip_prefix("Bearer "))
            .map(str::to_string);
        let ok = bearer.is_some_and(|b| c.valid.lock().unwrap().contains(&b))
            || headers.get("x-key").is_some_and(|v| v == "k")
            || q.get("apikey").is_some_and(|v| v == "k");
        c.seen.lock().unwrap().push(format!(
            "events consumer={:?}",
            headers
                .get("consumer-key")
                .map(|v| v.to_str().unwrap_or(""))
        ));
        if ok {
            axum::Json(serde_json::json!([])).into_response()
        } else {
            StatusCode::UNAUTHORIZED.into_response()
        }
    }

    async fn carrier(ttl_secs: u64) -> (Arc<Carrier>, String) {
        let c = Arc::new(Carrier {
            ttl_secs,
            ..Carrier::default()
        });
        let app = axum::Router::new()
            .route("/token", axum::routing::post(token))
            .route("/c/v2/events", axum::routing::get(events))
            .with_state(c.clone());
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let base = format!("http://{}", listener.local_addr().unwrap());
        tokio::spawn(async move { axum::serve(listener, app).await });
        (c, base)
    }

    fn upstreams(base: &str, auth: Auth) -> Arc<Upstreams> {
        let mut cfg = UpstreamConfig {
            requests_per_sec: 1000.0,
            burst: 1000,
            ..UpstreamConfig::default()
        };
        cfg.carriers.insert(
            "TEST".into(),
            Endpoint {
                url: format!("{base}/c"),
                auth,
                dcsa_version: Default::default(),
                format: Default::default(),
            },
        );
        Arc::new(Upstreams::new(cfg))
    }

    fn oauth(base: &str, secret: &str, client_auth: ClientAuth) -> Auth {
        Auth::OAuth2(Box::new(OAuth2 {
            token_url: format!("{base}/token"),
            client_id: Secret::new("id"),
            client_secret: Secret::new(secret),
            scope: Some("track trace".into()),
            client_auth,
            headers: vec![(
                reqwest::header::HeaderName::from_static("consumer-key"),
                Secret::new("ck"),
            )],
        }))
    }

    async fn ask(u: &Upstreams) -> Result<DcsaAnswer, UpstreamError> {
        u.dcsa_events("TEST", RequestType::BillOfLading, "BL1")
            .await
    }

    #[tokio::test]
    async fn one_token_for_concurrent_requests_and_a_new_one_when_refused() {
        let (c, base) = carrier(3600).await;
        let u = upstreams(&base, oauth(&base, "secret", ClientAuth::Basic));
        let calls: Vec<_> = (0..8)
            .map(|_| {
                let u = u.clone();
                tokio::spawn(async move { ask(&u).await })
            })
            .collect();
        for call in calls {
            call.await.unwrap().unwrap();
        }
        assert_eq!(c.issued.load(Ordering::SeqCst), 1, "no stampede");
        {
            let seen = c.seen.lock().unwrap();
            assert!(seen[0].contains("basic=true") && seen[0].contains("scope=track+trace"));
            assert!(!seen[0].contains("client_secret"), "{seen:?}");
            assert!(seen.iter().any(|s| s.contains("consumer=Some(\"ck\")")));
        }
        // the carrier revokes its tokens: one 401, a new token, the request answered
        c.valid.lock().unwrap().clear();
        ask(&u).await.unwrap();
        assert_eq!(c.issued.load(Ordering::SeqCst), 2);
        ask(&u).await.unwrap();
        assert_eq!(
            c.issued.load(Ordering::SeqCst),
            2,
            "the new token is cached"
        );
    }

    #[tokio::test]
    async fn short_lived_tokens_are_refreshed_before_they_expire() {
        let (c, base) = carrier(1).await;
        let u = upstreams(&base, oauth(&base, "secret", ClientAuth::Body));
        ask(&u).await.unwrap();
        ask(&u).await.unwrap();
        assert_eq!(c.issued.load(Ordering::SeqCst), 1);
        tokio::time::sleep(Duration::from_millis(600)).await;
        ask(&u).await.unwrap();
        assert_eq!(c.issued.load(Ordering::SeqCst), 2);
        let seen = c.seen.lock().unwrap();
        assert!(seen[0].contains("basic=false") && seen[0].contains("client_secret=secret"));
    }

    #[tokio::test]
    async fn a_failed_refresh_keeps_the_current_token_until_it_expires() {
        let (c, base) = carrier(2).await;
        let u = upstreams(&base, oauth(&base, "secret", ClientAuth::Basic));
        ask(&u).await.unwrap();
        tokio::time::sleep(Duration::from_millis(1100)).await;
        c.refuse_clients.store(true, Ordering::SeqCst);
        ask(&u).await.unwrap();
        assert_eq!(c.issued.load(Ordering::SeqCst), 1);
        tokio::time::sleep(Duration::from_millis(1000)).await;
        let e = ask(&u).await.unwrap_err();
        assert!(matches!(e, UpstreamError::Token { .. }), "{e:?}");
        c.refuse_clients.store(false, Ordering::SeqCst);
        ask(&u).await.unwrap();
        assert_eq!(c.issued.load(Ordering::SeqCst), 2);
    }

    #[tokio::test]
    async fn a_refused_client_is_an_upstream_error_without_the_secret() {
        let (c, base) = carrier(3600).await;
        let u = upstreams(&base, oauth(&base, "wrong-secret-xyz", ClientAuth::Basic));
        let e = ask(&u).await.unwrap_err();
        let text = e.to_string();
        assert!(matches!(e, UpstreamError::Token { .. }), "{e:?}");
        assert!(
            text.contains("invalid_client") && text.contains("TEST"),
            "{text}"
        );
        assert!(!text.contains("wrong-secret-xyz"));
        assert_eq!(c.issued.load(Ordering::SeqCst), 0);
        let h = u.health();
        assert_eq!(h[0].errors, 1);
        assert!(
            !h[0]
                .last_error
                .as_ref()
                .unwrap()
                .contains("wrong-secret-xyz")
        );
    }

    #[tokio::test]
    async fn a_spent_budget_holds_requests_back_and_health_says_so() {
        let (c, base) = carrier(3600).await;
        let mut cfg = UpstreamConfig {
            requests_per_sec: 0.001,
            burst: 2,
            ..UpstreamConfig::default()
        };
        cfg.carriers.insert(
            "TEST".into(),
            Endpoint {
                url: format!("{base}/c"),
                auth: Auth::Headers(vec![(
                    reqwest::header::HeaderName::from_static("x-key"),
                    Secret::new("k"),
                )]),
                dcsa_version: Default::default(),
                format: Default::default(),
            },
        );
        let u = Upstreams::new(cfg);
        let before = &u.health()[0].budget;
        assert_eq!(
            (before.burst, before.available, before.exhausted),
            (2, 2, 0)
        );
        ask(&u).await.unwrap();
        ask(&u).await.unwrap();
        let held = ask(&u).await.unwrap_err();
        assert!(matches!(held, UpstreamError::Budget { .. }), "{held}");
        assert_eq!(
            c.seen.lock().unwrap().len(),
            2,
            "the held-back request never left"
        );
        let after = &u.health()[0].budget;
        assert_eq!((after.available, after.exhausted), (0, 1));
        assert!((after.requests_per_sec - 0.001).abs() < 1e-12);
    }

    #[tokio::test]
    async fn fixed_headers_and_query_keys_are_sent() {
        let (_c, base) = carrier(3600).await;
        let key = |v: &str| {
            Auth::Headers(vec![(
                reqwest::header::HeaderName::from_static("x-key"),
                Secret::new(v),
            )])
        };
        ask(&upstreams(&base, key("k"))).await.unwrap();
        let e = ask(&upstreams(&base, key("bad"))).await.unwrap_err();
        assert_eq!(e.to_string(), "HTTP 401 from TEST (credentials refused)");
        let query = |v: &str| Auth::Query {
            param: "apikey".into(),
            value: Secret::new(v),
        };
        ask(&upstreams(&base, query("k"))).await.unwrap();
        assert!(ask(&upstreams(&base, query("bad"))).await.is_err());
        // nothing listens there: the error does not quote the URL and its key
        let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let dead = format!("http://{}", closed.local_addr().unwrap());
        drop(closed);
        let e = ask(&upstreams(&dead, query("query-key-123")))
            .await
            .unwrap_err();
        assert!(matches!(e, UpstreamError::Unreachable { .. }), "{e:?}");
        assert!(!e.to_string().contains("query-key-123"), "{e}");
    }

    /// A DCSA 3.0 carrier serving the conformance fixtures over two pages: the first answer
    /// names a cursor in `Next-Page-Cursor`, the second page wants it with the first request's
    /// parameters.
    async fn v3_events(
        State(seen): State<Arc<Mutex<Vec<String>>>>,
        headers: HeaderMap,
        Query(q): Query<HashMap<String, String>>,
    ) -> Response {
        let version = headers
            .get("api-version")
            .and_then(|v| v.to_str().ok())
            .unwrap_or("")
            .to_string();
        let mut keys: Vec<String> = q.iter().map(|(k, v)| format!("{k}={v}")).collect();
        keys.sort();
        seen.lock()
            .unwrap()
            .push(format!("{version} {}", keys.join("&")));
        let first: &[u8] = include_bytes!("../../../fixtures/dcsa/tnt-3.0/tnt-300-response.json");
        let next: &[u8] =
            include_bytes!("../../../fixtures/dcsa/tnt-3.0/tnt-300-response-nextpage.json");
        let mut h = HeaderMap::new();
        h.insert("API-Version", "3.0.0".parse().unwrap());
        h.insert("Content-Type", "application/json".parse().unwrap());
        match q.get("cursor").map(String::as_str) {
            None => {
                h.insert("Next-Page-Cursor", "opaque-2".parse().unwrap());
                (h, first.to_vec()).into_response()
            }
            Some("opaque-2") if q.contains_key("transportDocumentReference") => {
                (h, next.to_vec()).into_response()
            }
            Some(_) => StatusCode::BAD_REQUEST.into_response(),
        }
    }

    #[tokio::test]
    async fn a_3_0_carrier_is_paged_by_its_cursor() {
        let seen = Arc::new(Mutex::new(Vec::new()));
        let app = axum::Router::new()
            .route("/c/v3/events", axum::routing::get(v3_events))
            .with_state(seen.clone());
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let base = format!("http://{}", listener.local_addr().unwrap());
        tokio::spawn(async move { axum::serve(listener, app).await });
        let mut cfg = UpstreamConfig {
            requests_per_sec: 1000.0,
            burst: 1000,
            ..UpstreamConfig::default()
        };
        cfg.carriers.insert(
            "TEST".into(),
            Endpoint::open(format!("{base}/c")).speaking(dcsa::Version::V3_0),
        );
        let u = Upstreams::new(cfg);
        let a = ask(&u).await.unwrap();
        assert_eq!(
            *seen.lock().unwrap(),
            [
                "3.0.0 limit=100&transportDocumentReference=BL1",
                "3.0.0 cursor=opaque-2&limit=100&transportDocumentReference=BL1",
            ]
        );
        assert_eq!(a.bodies.len(), 2);
        // 3 + 4 events with milestones or documents; IOT and REEFER noted, none refused
        assert!(a.rejected.is_empty(), "{:?}", a.rejected);
        assert!(a.events.len() >= 6, "{}", a.events.len());
        assert!(a.notes.iter().any(|n| n.contains("IOT")), "{:?}", a.notes);
    }
}
