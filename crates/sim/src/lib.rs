//! `boxtrack sim`: the upstream world on a virtual clock, served over HTTP so boxtrack's real
//! adapters can be tested offline.
//!
//! - `GET /sim/v1/catalog`: what exists (bills of lading, bookings, containers, carriers,
//!   terminals), so tests and the demo can track real-looking numbers.
//! - `GET /sim/v1/record`: what has happened so far to every container, each milestone once
//!   with its place and exact time, whoever reports it: the world's own record.
//! - `GET|POST /sim/v1/clock`: the virtual time; `{"advance_secs": N}` moves it forward.
//! - `GET /sim/v1/carriers/{scac}/v2/events`: the DCSA Track & Trace 2.2 endpoint of each
//!   carrier that speaks 2.2 (filters `transportDocumentReference`, `carrierBookingReference`,
//!   `equipmentReference`, `eventCreatedDateTime:gte`; `limit` / `cursor` with a `Next-Page`
//!   header); `GET /sim/v1/carriers/{scac}/v3/events`: the 3.0 endpoint of each carrier that
//!   speaks 3.0 (`{"events": [...]}`, `eventUpdatedDateTimeMin`, an opaque `Next-Page-Cursor`).
//!   Which carrier speaks which is [`dcsa_version`]; the catalog says it too.
//! - `GET /sim/v1/terminals/{code}/containers/{number}`: each terminal's availability feed
//!   (the shape in `docs/terminal-feed.md`).
//! - Carrier credentials on demand ([`CarrierAuth`], `boxtrack sim --carrier-auth`): an OAuth
//!   2.0 client-credentials token from `POST /sim/v1/oauth/token` (lifetime
//!   `--token-ttl-secs`), fixed headers, or a key in the query, with the fixed test
//!   credentials of [`credentials`]; without them a carrier answers 401 with a DCSA error.
//!   `GET /sim/v1/auth` counts tokens issued and requests refused.
//! - Rail carriers send X12 322 files to a configured ingest URL as their events happen.
//!
//! Faults on purpose: a share of answers can be slow, 5xx, 429 with `Retry-After`, or
//! malformed, and a carrier can answer nothing for bookings for the first days.

pub mod world;

use std::collections::HashMap;
use std::sync::atomic::{AtomicI64, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::extract::{Path, Query, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use boxtrack_core::time::{format_micros, parse_micros};
use boxtrack_sources::dcsa::Version;
use serde_json::{Value, json};

use world::World;

/// Deliberate misbehaviour, as shares of answers (0.0 – 1.0).
#[derive(Debug, Clone, Default)]
pub struct Faults {
    /// 503 answers.
    pub server_errors: f64,
    /// 429 answers with `Retry-After: 1`.
    pub rate_limited: f64,
    /// Answers delayed by `slow_ms`.
    pub slow: f64,
    /// Delay of a slow answer.
    pub slow_ms: u64,
    /// Bodies that are not JSON.
    pub malformed: f64,
    /// Virtual days after the world's origin during which booking queries answer `[]`.
    pub silent_booking_days: i64,
    /// Share of DCSA pushes and X12 files that are delivered once more a round later, after
    /// newer ones (the same reports twice, out of order).
    pub redeliver: f64,
}

impl Faults {
    /// Whether delivery `n` is to be redelivered (deterministic, about `redeliver` of them).
    fn redeliver(&self, n: u64) -> bool {
        let x = n.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 11;
        (x as f64 / (1u64 << 53) as f64) < self.redeliver
    }
}

impl Faults {
    /// Parses `5xx=0.1,429=0.05,slow=0.1:800,malformed=0.02,silent-bookings=2,redeliver=0.2`.
    pub fn parse(s: &str) -> Result<Faults, String> {
        let mut f = Faults {
            slow_ms: 500,
            ..Faults::default()
        };
        for part in s.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            let (k, v) = part
                .split_once('=')
                .ok_or_else(|| format!("{part:?}: expected NAME=VALUE"))?;
            let share = |v: &str| -> Result<f64, String> {
                let x: f64 = v
                    .parse()
                    .map_err(|_| format!("{k}: {v:?} is not a number"))?;
                if (0.0..=1.0).contains(&x) {
                    Ok(x)
                } else {
                    Err(format!("{k}: {x} is not between 0 and 1"))
                }
            };
            match k {
                "5xx" => f.server_errors = share(v)?,
                "429" => f.rate_limited = share(v)?,
                "malformed" => f.malformed = share(v)?,
                "slow" => {
                    let (p, ms) = v.split_once(':').unwrap_or((v, "500"));
                    f.slow = share(p)?;
                    f.slow_ms = ms
                        .parse()
                        .map_err(|_| format!("slow: {ms:?} is not milliseconds"))?;
                }
                "redeliver" => f.redeliver = share(v)?,
                "silent-bookings" => {
                    f.silent_booking_days = v
                        .parse()
                        .map_err(|_| format!("silent-bookings: {v:?} is not a number of days"))?
                }
                other => {
                    return Err(format!(
                        "unknown fault {other:?} (5xx, 429, slow, malformed, silent-bookings, redeliver)"
                    ));
                }
            }
        }
        Ok(f)
    }
}

/// The fixed test credentials the simulated carriers demand (documented, not secret).
pub mod credentials {
    /// OAuth 2.0 client id (`--carrier-auth oauth2`).
    pub const CLIENT_ID: &str = "boxtrack-sim";
    /// OAuth 2.0 client secret.
    pub const CLIENT_SECRET: &str = "sim-client-secret";
    /// Token endpoint path.
    pub const TOKEN_PATH: &str = "/sim/v1/oauth/token";
    /// First header of `--carrier-auth headers`, with [`CLIENT_ID`] as its value.
    pub const ID_HEADER: &str = "X-Client-Id";
    /// Second header of `--carrier-auth headers`.
    pub const SECRET_HEADER: &str = "X-Client-Secret";
    /// Its value.
    pub const HEADER_SECRET: &str = "sim-header-secret";
    /// Query parameter of `--carrier-auth query`.
    pub const QUERY_PARAM: &str = "apikey";
    /// Its value.
    pub const QUERY_KEY: &str = "sim-api-key";
}

/// What the simulated carriers' DCSA endpoints demand of a caller.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum CarrierAuth {
    /// Nothing.
    #[default]
    None,
    /// `Authorization: Bearer <token>` with a live token from `POST /sim/v1/oauth/token`
    /// (client `boxtrack-sim` / `sim-client-secret`, HTTP Basic or in the form body).
    OAuth2,
    /// `X-Client-Id: boxtrack-sim` and `X-Client-Secret: sim-header-secret`.
    Headers,
    /// `?apikey=sim-api-key`.
    Query,
}

impl CarrierAuth {
    /// Reads `none`, `oauth2`, `headers` or `query`.
    pub fn parse(s: &str) -> Result<CarrierAuth, String> {
        match s.trim() {
            "none" | "" => Ok(CarrierAuth::None),
            "oauth2" => Ok(CarrierAuth::OAuth2),
            "headers" => Ok(CarrierAuth::Headers),
            "query" => Ok(CarrierAuth::Query),
            other => Err(format!(
                "{other:?} is not a scheme (none, oauth2, headers, query)"
            )),
        }
    }

    /// Its name, as [`CarrierAuth::parse`] reads it.
    pub fn as_str(self) -> &'static str {
        match self {
            CarrierAuth::None => "none",
            CarrierAuth::OAuth2 => "oauth2",
            CarrierAuth::Headers => "headers",
            CarrierAuth::Query => "query",
        }
    }

    /// One line saying what a caller of the simulator at `base` must send.
    pub fn describe(self, base: &str) -> String {
        use credentials::*;
        match self {
            CarrierAuth::None => "carrier auth: none".into(),
            CarrierAuth::OAuth2 => format!(
                "carrier auth: oauth2 client credentials; token_url {base}{TOKEN_PATH}, client_id {CLIENT_ID}, client_secret {CLIENT_SECRET}"
            ),
            CarrierAuth::Headers => format!(
                "carrier auth: headers {ID_HEADER}: {CLIENT_ID} and {SECRET_HEADER}: {HEADER_SECRET}"
            ),
            CarrierAuth::Query => format!("carrier auth: query ?{QUERY_PARAM}={QUERY_KEY}"),
        }
    }
}

/// How to run the simulator.
#[derive(Debug, Clone)]
pub struct SimConfig {
    /// World seed.
    pub seed: u64,
    /// Number of shipments.
    pub shipments: usize,
    /// Virtual seconds per real second.
    pub speed: f64,
    /// The time the world is built around (Unix microseconds): departures from 25 days
    /// before it to 10 days after.
    pub origin_us: i64,
    /// Virtual time when the clock starts, if not `origin_us`: a world resumed where an
    /// earlier run left it (`boxtrack demo` keeps it in its folder).
    pub clock_start_us: Option<i64>,
    /// Misbehaviour.
    pub faults: Faults,
    /// Where rail carriers send X12 322 files, with the API key to use.
    pub x12_ingest: Option<(String, String)>,
    /// What the carriers' DCSA endpoints demand.
    pub carrier_auth: CarrierAuth,
    /// Lifetime of the access tokens `POST /sim/v1/oauth/token` issues.
    pub token_ttl: Duration,
}

/// The virtual clock.
#[derive(Debug)]
pub struct Clock {
    origin_us: i64,
    started: Instant,
    speed: f64,
    offset_us: AtomicI64,
}

impl Clock {
    /// Virtual now.
    pub fn now_us(&self) -> i64 {
        let real = self.started.elapsed().as_secs_f64();
        self.origin_us + (real * self.speed * 1e6) as i64 + self.offset_us.load(Ordering::Relaxed)
    }

    /// Virtual seconds per real second.
    pub fn speed(&self) -> f64 {
        self.speed
    }

    /// Moves the clock forward.
    pub fn advance(&self, secs: i64) {
        self.offset_us
            .fetch_add(secs.saturating_mul(1_000_000), Ordering::Relaxed);
    }
}

struct Inner {
    world: World,
    clock: Clock,
    faults: Faults,
    counter: AtomicU64,
    by_bl: HashMap<String, usize>,
    by_booking: HashMap<String, usize>,
    by_container: HashMap<String, (usize, usize)>,
    events: Vec<Vec<world::Timed<boxtrack_sources::dcsa::Event>>>,
    carrier_auth: CarrierAuth,
    token_ttl: Duration,
    /// Live access tokens and when they expire (real time).
    tokens: Mutex<HashMap<String, Instant>>,
    tokens_issued: AtomicU64,
    refused: AtomicU64,
    /// EDIFACT interchanges delivered (`--edifact-ingest-url`).
    edifact_sent: AtomicU64,
}

/// The simulator's shared state.
#[derive(Clone)]
pub struct Sim(Arc<Inner>);

impl Sim {
    /// Builds the world.
    pub fn new(cfg: &SimConfig) -> Sim {
        let world = World::generate(cfg.seed, cfg.origin_us, cfg.shipments);
        let mut by_bl = HashMap::new();
        let mut by_booking = HashMap::new();
        let mut by_container = HashMap::new();
        for (i, s) in world.shipments.iter().enumerate() {
            by_bl.insert(s.bill_of_lading.clone(), i);
            by_booking.insert(s.booking.clone(), i);
            for (j, c) in s.containers.iter().enumerate() {
                by_container.insert(c.clone(), (i, j));
            }
        }
        let events = world
            .shipments
            .iter()
            .map(|s| s.dcsa_events(&world))
            .collect();
        Sim(Arc::new(Inner {
            clock: Clock {
                origin_us: cfg.clock_start_us.unwrap_or(cfg.origin_us),
                started: Instant::now(),
                speed: cfg.speed,
                offset_us: AtomicI64::new(0),
            },
            faults: cfg.faults.clone(),
            counter: AtomicU64::new(0),
            world,
            by_bl,
            by_booking,
            by_container,
            events,
            carrier_auth: cfg.carrier_auth,
            token_ttl: if cfg.token_ttl.is_zero() {
                Duration::from_secs(3600)
            } else {
                cfg.token_ttl
            },
            tokens: Mutex::new(HashMap::new()),
            tokens_issued: AtomicU64::new(0),
            refused: AtomicU64::new(0),
            edifact_sent: AtomicU64::new(0),
        }))
    }

    /// The world.
    pub fn world(&self) -> &World {
        &self.0.world
    }

    /// The clock.
    pub fn clock(&self) -> &Clock {
        &self.0.clock
    }

    /// The HTTP routes.
    pub fn router(&self) -> Router {
        Router::new()
            .route("/sim/v1/catalog", get(catalog))
            .route("/sim/v1/record", get(record))
            .route("/sim/v1/clock", get(clock_get).post(clock_post))
            .route("/sim/v1/carriers/{scac}/v2/events", get(dcsa_events_v2))
            .route("/sim/v1/carriers/{scac}/v3/events", get(dcsa_events_v3))
            .route(credentials::TOKEN_PATH, post(oauth_token))
            .route("/sim/v1/auth", get(auth_stats))
            .route(
                "/sim/v1/terminals/{code}/containers/{number}",
                get(terminal_container),
            )
            .layer(axum::middleware::map_response_with_state(
                self.clone(),
                stamp_clock,
            ))
            .with_state(self.clone())
    }

    /// A fault for this request, if one is due (deterministic by request count and seed).
    fn fault(&self) -> Option<Response> {
        let f = &self.0.faults;
        let n = self.0.counter.fetch_add(1, Ordering::Relaxed);
        let mut rng = world::Rng::new(self.0.world.seed ^ n.wrapping_mul(0x2545_F491_4F6C_DD1D));
        if rng.chance(f.server_errors) {
            return Some((StatusCode::SERVICE_UNAVAILABLE, "upstream busy").into_response());
        }
        if rng.chance(f.rate_limited) {
            let mut r = (StatusCode::TOO_MANY_REQUESTS, "slow down").into_response();
            r.headers_mut()
                .insert("Retry-After", HeaderValue::from_static("1"));
            return Some(r);
        }
        if rng.chance(f.malformed) {
            return Some((StatusCode::OK, "[{\"eventType\": \"TRANSP").into_response());
        }
        None
    }

    async fn maybe_slow(&self) {
        let f = &self.0.faults;
        let n = self.0.counter.load(Ordering::Relaxed);
        let mut rng = world::Rng::new(!self.0.world.seed ^ n);
        if rng.chance(f.slow) {
            tokio::time::sleep(Duration::from_millis(f.slow_ms)).await;
        }
    }
}

/// The header that tells how fast the simulator's clock runs (virtual seconds per real
/// second); its answers' `Date` is the virtual time, as a real upstream's `Date` is its own.
pub const SPEED_HEADER: &str = "Sim-Clock-Speed";

/// Every answer carries the simulator's clock: `Date` in virtual time and its speed.
async fn stamp_clock(State(sim): State<Sim>, mut res: Response) -> Response {
    clock_headers(&sim, res.headers_mut());
    res
}

fn clock_headers(sim: &Sim, headers: &mut HeaderMap) {
    let clock = sim.clock();
    if let Ok(v) = HeaderValue::from_str(&boxtrack_core::time::format_http_date(clock.now_us())) {
        headers.insert(axum::http::header::DATE, v);
    }
    if let Ok(v) = HeaderValue::from_str(&clock.speed().to_string()) {
        headers.insert(SPEED_HEADER, v);
    }
}

/// `GET /sim/v1/record`: what has happened so far to every container of the world, each
/// milestone once with its place and exact time, whoever reports it (the world's own record,
/// to score a tracker's view against).
async fn record(State(sim): State<Sim>) -> Json<Value> {
    let now = sim.clock().now_us();
    let mut out = serde_json::Map::new();
    for s in &sim.world().shipments {
        for (i, c) in s.containers.iter().enumerate() {
            let happened: Vec<Value> = s
                .record(i)
                .into_iter()
                .filter(|h| h.at_us <= now)
                .map(|h| json!({"event": h.event, "location": h.locode, "at": format_micros(h.at_us)}))
                .collect();
            out.insert(c.clone(), Value::Array(happened));
        }
    }
    Json(json!({"now": format_micros(now), "containers": out}))
}

async fn catalog(State(sim): State<Sim>) -> Json<Value> {
    let w = sim.world();
    let bls: Vec<Value> = w
        .shipments
        .iter()
        .map(|s| {
            json!({
                "number": s.bill_of_lading, "scac": s.scac, "booking": s.booking,
                "containers": s.containers, "port_of_lading": s.pol, "port_of_discharge": s.pod,
                "pod_terminal": s.terminal,
                "destination": s.inland.as_ref().map(|i| &i.locode),
                "rail_carrier": s.inland.as_ref().map(|i| &i.rail_scac),
                "vessel": w.vessels[s.vessel].name, "vessel_imo": w.vessels[s.vessel].imo,
                "departs_at": format_micros(s.depart_us), "arrives_at": format_micros(s.arrival_us()),
            })
        })
        .collect();
    let bookings: Vec<Value> = w
        .shipments
        .iter()
        .map(|s| json!({"number": s.booking, "scac": s.scac, "bill_of_lading": s.bill_of_lading}))
        .collect();
    let containers: Vec<Value> = w
        .shipments
        .iter()
        .flat_map(|s| {
            s.containers.iter().map(
                move |c| json!({"number": c, "scac": s.scac, "bill_of_lading": s.bill_of_lading, "terminal": s.terminal}),
            )
        })
        .collect();
    let mut carriers: Vec<&str> = w.shipments.iter().map(|s| s.scac.as_str()).collect();
    carriers.sort_unstable();
    carriers.dedup();
    let mut terminals: Vec<&str> = w.shipments.iter().map(|s| s.terminal.as_str()).collect();
    terminals.sort_unstable();
    terminals.dedup();
    Json(json!({
        "seed": w.seed,
        "now": format_micros(sim.clock().now_us()),
        "edifact_interchanges_sent": sim.0.edifact_sent.load(Ordering::Relaxed),
        "bills_of_lading": bls,
        "bookings": bookings,
        "containers": containers,
        "carriers": carriers.iter().map(|s| {
            let v = dcsa_version(s);
            json!({"scac": s, "dcsa_version": v, "dcsa_path": format!("/sim/v1/carriers/{s}{}", v.events_path())})
        }).collect::<Vec<_>>(),
        "terminals": terminals.iter().map(|t| json!({"code": t, "feed_path": format!("/sim/v1/terminals/{t}"), "edifact": terminal_speaks_edifact(t)})).collect::<Vec<_>>(),
        "vessels": w.vessels,
    }))
}

async fn clock_get(State(sim): State<Sim>) -> Json<Value> {
    let now = sim.clock().now_us();
    Json(json!({"now": format_micros(now), "now_us": now, "speed": sim.clock().speed()}))
}

async fn clock_post(State(sim): State<Sim>, Json(body): Json<Value>) -> Response {
    match body.get("advance_secs").and_then(Value::as_i64) {
        Some(s) if s >= 0 => {
            sim.clock().advance(s);
            clock_get(State(sim)).await.into_response()
        }
        _ => (
            StatusCode::BAD_REQUEST,
            Json(json!({"error": "send {\"advance_secs\": N} with N >= 0"})),
        )
            .into_response(),
    }
}

fn dcsa_error(status: StatusCode, uri: &str, reason: &str, message: &str) -> Response {
    (
        status,
        Json(json!({
            "httpMethod": "GET", "requestUri": uri, "statusCode": status.as_u16(),
            "statusCodeText": status.canonical_reason().unwrap_or(""),
            "errorDateTime": format_micros(boxtrack_core::time::now_us()),
            "errors": [{"reason": reason, "message": message}]
        })),
    )
        .into_response()
}

/// `application/x-www-form-urlencoded` pairs.
fn form_pairs(body: &str) -> HashMap<String, String> {
    body.split('&')
        .filter(|p| !p.is_empty())
        .map(|p| {
            let (k, v) = p.split_once('=').unwrap_or((p, ""));
            (form_decode(k), form_decode(v))
        })
        .collect()
}

fn form_decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = bytes
            .get(i + 1..i + 3)
            .and_then(|h| std::str::from_utf8(h).ok())
            .and_then(|h| u8::from_str_radix(h, 16).ok());
        match (bytes[i], hex) {
            (b'+', _) => out.push(b' '),
            (b'%', Some(b)) => {
                out.push(b);
                i += 2;
            }
            (b, _) => out.push(b),
        }
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

fn oauth_error(status: StatusCode, error: &str, description: &str) -> Response {
    let mut r = (
        status,
        Json(json!({"error": error, "error_description": description})),
    )
        .into_response();
    r.headers_mut()
        .insert("Cache-Control", HeaderValue::from_static("no-store"));
    if status == StatusCode::UNAUTHORIZED {
        r.headers_mut().insert(
            "WWW-Authenticate",
            HeaderValue::from_static("Basic realm=\"boxtrack-sim\""),
        );
    }
    r
}

/// `POST /sim/v1/oauth/token`: RFC 6749 §4.4 client credentials, the client authenticated
/// with HTTP Basic or in the form body.
async fn oauth_token(State(sim): State<Sim>, headers: HeaderMap, body: String) -> Response {
    use base64::Engine;
    if sim.0.carrier_auth != CarrierAuth::OAuth2 {
        return oauth_error(
            StatusCode::BAD_REQUEST,
            "unauthorized_client",
            "the simulator runs without --carrier-auth oauth2",
        );
    }
    let form = form_pairs(&body);
    let basic = headers
        .get("Authorization")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Basic "))
        .and_then(|v| {
            base64::engine::general_purpose::STANDARD
                .decode(v.trim())
                .ok()
        })
        .and_then(|v| String::from_utf8(v).ok())
        .and_then(|v| {
            v.split_once(':')
                .map(|(id, secret)| (form_decode(id), form_decode(secret)))
        });
    let client = basic.or_else(|| {
        Some((
            form.get("client_id")?.clone(),
            form.get("client_secret")?.clone(),
        ))
    });
    if form.get("grant_type").map(String::as_str) != Some("client_credentials") {
        return oauth_error(
            StatusCode::BAD_REQUEST,
            "unsupported_grant_type",
            "only grant_type=client_credentials",
        );
    }
    let ok = client.is_some_and(|(id, secret)| {
        id == credentials::CLIENT_ID && secret == credentials::CLIENT_SECRET
    });
    if !ok {
        sim.0.refused.fetch_add(1, Ordering::Relaxed);
        return oauth_error(
            StatusCode::UNAUTHORIZED,
            "invalid_client",
            "client authentication failed",
        );
    }
    let n = sim.0.tokens_issued.fetch_add(1, Ordering::Relaxed) + 1;
    let mut rng = world::Rng::new(sim.0.world.seed ^ n.wrapping_mul(0x9E37_79B9_7F4A_7C15));
    let token = format!("sim-{n}-{:016x}", rng.next_u64());
    let now = Instant::now();
    {
        let mut tokens = sim.0.tokens.lock().unwrap_or_else(|e| e.into_inner());
        tokens.retain(|_, expires| *expires > now);
        tokens.insert(token.clone(), now + sim.0.token_ttl);
    }
    let mut r = Json(json!({
        "access_token": token,
        "token_type": "Bearer",
        "expires_in": sim.0.token_ttl.as_secs().max(1),
    }))
    .into_response();
    r.headers_mut()
        .insert("Cache-Control", HeaderValue::from_static("no-store"));
    r
}

/// `GET /sim/v1/auth`: the scheme, tokens issued and live, requests refused.
async fn auth_stats(State(sim): State<Sim>) -> Json<Value> {
    let now = Instant::now();
    let live = sim
        .0
        .tokens
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .values()
        .filter(|e| **e > now)
        .count();
    Json(json!({
        "carrier_auth": sim.0.carrier_auth.as_str(),
        "token_ttl_secs": sim.0.token_ttl.as_secs(),
        "tokens_issued": sim.0.tokens_issued.load(Ordering::Relaxed),
        "tokens_live": live,
        "refused": sim.0.refused.load(Ordering::Relaxed),
    }))
}

impl Sim {
    /// Whether a carrier request carries the credential the simulator demands.
    fn admits(&self, headers: &HeaderMap, query: &HashMap<String, String>) -> bool {
        let header = |name: &str| headers.get(name).and_then(|v| v.to_str().ok());
        match self.0.carrier_auth {
            CarrierAuth::None => true,
            CarrierAuth::Headers => {
                header(credentials::ID_HEADER) == Some(credentials::CLIENT_ID)
                    && header(credentials::SECRET_HEADER) == Some(credentials::HEADER_SECRET)
            }
            CarrierAuth::Query => {
                query.get(credentials::QUERY_PARAM).map(String::as_str)
                    == Some(credentials::QUERY_KEY)
            }
            CarrierAuth::OAuth2 => header("Authorization")
                .and_then(|v| v.strip_prefix("Bearer "))
                .is_some_and(|t| {
                    self.0
                        .tokens
                        .lock()
                        .unwrap_or_else(|e| e.into_inner())
                        .get(t.trim())
                        .is_some_and(|expires| *expires > Instant::now())
                }),
        }
    }
}

async fn dcsa_events_v2(
    State(sim): State<Sim>,
    Path(scac): Path<String>,
    headers: HeaderMap,
    Query(q): Query<HashMap<String, String>>,
) -> Response {
    dcsa_events(sim, scac, headers, q, Version::V2_2).await
}

async fn dcsa_events_v3(
    State(sim): State<Sim>,
    Path(scac): Path<String>,
    headers: HeaderMap,
    Query(q): Query<HashMap<String, String>>,
) -> Response {
    dcsa_events(sim, scac, headers, q, Version::V3_0).await
}

/// A carrier's events in the DCSA version asked for, if it speaks it.
async fn dcsa_events(
    sim: Sim,
    scac: String,
    headers: HeaderMap,
    q: HashMap<String, String>,
    version: Version,
) -> Response {
    let uri = format!("/sim/v1/carriers/{scac}{}", version.events_path());
    let speaks = dcsa_version(&scac);
    if speaks != version {
        return dcsa_error(
            StatusCode::NOT_FOUND,
            &uri,
            "notFound",
            &format!(
                "{scac} speaks DCSA Track & Trace {speaks}, at /sim/v1/carriers/{scac}{}",
                speaks.events_path()
            ),
        );
    }
    if !sim.admits(&headers, &q) {
        sim.0.refused.fetch_add(1, Ordering::Relaxed);
        let mut r = dcsa_error(
            StatusCode::UNAUTHORIZED,
            &uri,
            "unauthorized",
            match sim.0.carrier_auth {
                CarrierAuth::OAuth2 => "a valid access token is required",
                CarrierAuth::Headers => "the client id and secret headers are required",
                _ => "a valid API key is required",
            },
        );
        if sim.0.carrier_auth == CarrierAuth::OAuth2 {
            r.headers_mut().insert(
                "WWW-Authenticate",
                HeaderValue::from_static("Bearer error=\"invalid_token\""),
            );
        }
        return r;
    }
    sim.maybe_slow().await;
    if let Some(r) = sim.fault() {
        return r;
    }
    let now = sim.clock().now_us();
    let inner = &sim.0;
    let (shipment, equipment) = if let Some(bl) = q.get("transportDocumentReference") {
        (inner.by_bl.get(bl).copied(), None)
    } else if let Some(b) = q.get("carrierBookingReference") {
        if now < inner.world.origin_us + inner.faults.silent_booking_days * 86_400_000_000 {
            (None, None)
        } else {
            (inner.by_booking.get(b).copied(), None)
        }
    } else if let Some(c) = q.get("equipmentReference") {
        match inner.by_container.get(c) {
            Some((s, _)) => (Some(*s), Some(c.clone())),
            None => (None, None),
        }
    } else {
        return dcsa_error(
            StatusCode::BAD_REQUEST,
            &uri,
            "invalidQuery",
            "one of transportDocumentReference, carrierBookingReference or equipmentReference is required",
        );
    };
    let since = q
        .get(match version {
            Version::V2_2 => "eventCreatedDateTime:gte",
            Version::V3_0 => "eventUpdatedDateTimeMin",
        })
        .and_then(|s| parse_micros(s));
    let limit: usize = q
        .get("limit")
        .and_then(|l| l.parse().ok())
        .unwrap_or(100)
        .clamp(1, 1000);
    // a 2.2 cursor is the offset; a 3.0 cursor is opaque to the consumer
    let offset: usize = match (q.get("cursor"), version) {
        (None, _) => 0,
        (Some(c), Version::V2_2) => c.parse().unwrap_or(0),
        (Some(c), Version::V3_0) => match c.strip_prefix("after-").and_then(|n| n.parse().ok()) {
            Some(n) => n,
            None => {
                return dcsa_error(
                    StatusCode::BAD_REQUEST,
                    &uri,
                    "invalidCursor",
                    "the cursor is not one this carrier issued",
                );
            }
        },
    };
    let items: Vec<&boxtrack_sources::dcsa::Event> = match shipment {
        Some(i) if inner.world.shipments[i].scac == scac => inner.events[i]
            .iter()
            .filter(|t| t.visible_us <= now)
            .filter(|t| since.is_none_or(|s| t.visible_us >= s))
            .filter(|t| {
                equipment
                    .as_ref()
                    .is_none_or(|c| t.item.equipment_reference.as_ref().is_none_or(|e| e == c))
            })
            .map(|t| &t.item)
            .collect(),
        _ => vec![],
    };
    let page: Vec<&boxtrack_sources::dcsa::Event> =
        items.iter().skip(offset).take(limit).copied().collect();
    let mut headers = HeaderMap::new();
    headers.insert(
        "API-Version",
        HeaderValue::from_static(version.api_version()),
    );
    let more = offset + limit < items.len();
    match version {
        Version::V2_2 => {
            if let Ok(v) = HeaderValue::from_str(&offset.to_string()) {
                headers.insert("Current-Page", v);
            }
            if more && let Ok(v) = HeaderValue::from_str(&(offset + limit).to_string()) {
                headers.insert("Next-Page", v);
            }
            (StatusCode::OK, headers, Json(page)).into_response()
        }
        Version::V3_0 => {
            if more && let Ok(v) = HeaderValue::from_str(&format!("after-{}", offset + limit)) {
                headers.insert("Next-Page-Cursor", v);
            }
            let body = boxtrack_sources::dcsa::v3::body(page.iter().copied());
            (StatusCode::OK, headers, Json(body)).into_response()
        }
    }
}

async fn terminal_container(
    State(sim): State<Sim>,
    Path((code, number)): Path<(String, String)>,
) -> Response {
    sim.maybe_slow().await;
    if let Some(r) = sim.fault() {
        return r;
    }
    let now = sim.clock().now_us();
    match sim.0.by_container.get(&number) {
        Some((s, i)) if sim.0.world.shipments[*s].terminal == code => {
            match sim.0.world.shipments[*s].terminal_status(*i, now) {
                Some(status) => Json(status).into_response(),
                None => (
                    StatusCode::NOT_FOUND,
                    Json(json!({"error": format!("{number} is not at {code}")})),
                )
                    .into_response(),
            }
        }
        _ => (
            StatusCode::NOT_FOUND,
            Json(json!({"error": format!("{number} is not at {code}")})),
        )
            .into_response(),
    }
}

pub use boxtrack_sources::simulated::{dcsa_version, speaks_edifact, terminal_speaks_edifact};

/// Sends the rail carriers' X12 322 and the ocean carriers' X12 315 files to `url` (with
/// `Authorization: Token key`) as their events become visible on the virtual clock, every
/// `every` of real time, until `shutdown`; with `edifact_url`, the carriers that
/// [`speaks_edifact`] send theirs as IFTSTA interchanges there instead, and the terminals that
/// [`terminal_speaks_edifact`] report their discharges and gate moves there as COARRI and
/// CODECO. A file that is not accepted is sent again on the next round.
pub async fn send_rail_x12(
    sim: Sim,
    url: String,
    key: String,
    edifact_url: Option<String>,
    every: Duration,
    shutdown: tokio_util::sync::CancellationToken,
) {
    let client = reqwest::Client::new();
    let mut sent_until = i64::MIN;
    let mut control: u32 = 0;
    let mut again: Vec<String> = Vec::new();
    loop {
        let now = sim.clock().now_us();
        let visible = |t: &world::Timed<boxtrack_sources::x12::status::StatusMessage>| {
            t.visible_us > sent_until && t.visible_us <= now
        };
        let mut due: Vec<boxtrack_sources::x12::status::StatusMessage> = Vec::new();
        let mut due_edifact: Vec<boxtrack_sources::x12::status::StatusMessage> = Vec::new();
        let mut due_terminal: Vec<boxtrack_sources::edifact::terminal::Report> = Vec::new();
        for s in &sim.world().shipments {
            if edifact_url.is_some() && terminal_speaks_edifact(&s.terminal) {
                due_terminal.extend(
                    s.terminal_reports(sim.world())
                        .into_iter()
                        .filter(|t| t.visible_us > sent_until && t.visible_us <= now)
                        .map(|t| t.item),
                );
            }
            due.extend(
                s.rail_messages()
                    .into_iter()
                    .filter(visible)
                    .map(|t| t.item),
            );
            let ocean = s
                .ocean_messages(sim.world())
                .into_iter()
                .filter(visible)
                .map(|t| t.item);
            if edifact_url.is_some() && speaks_edifact(&s.scac) {
                due_edifact.extend(ocean);
            } else {
                due.extend(ocean);
            }
        }
        // the EDIFACT interchanges first (the carriers' IFTSTA, the terminals' CODECO and
        // COARRI); the round counts as sent when every file is
        let ts = format_micros(now);
        let (date, time) = (ts[..10].replace('-', ""), ts[11..16].replace(':', ""));
        let mut edifact_files = Vec::new();
        if !due_edifact.is_empty() {
            control += 1;
            edifact_files.push(boxtrack_sources::edifact::iftsta::write_interchange(
                &due_edifact,
                control,
                &date,
                &time,
            ));
        }
        if !due_terminal.is_empty() {
            control += 1;
            edifact_files.push(boxtrack_sources::edifact::terminal::write_interchange(
                &due_terminal,
                control,
                &date,
                &time,
            ));
        }
        let mut edifact_ok = true;
        if let Some(edifact) = &edifact_url {
            for text in edifact_files {
                let ok = client
                    .post(edifact)
                    .header("Authorization", format!("Token {key}"))
                    .header("Content-Type", "application/edifact")
                    .body(text)
                    .send()
                    .await
                    .map(|r| r.status().is_success())
                    .unwrap_or(false);
                if ok {
                    sim.0.edifact_sent.fetch_add(1, Ordering::Relaxed);
                }
                edifact_ok &= ok;
            }
        }
        if !edifact_ok {
            tracing::warn!("EDIFACT delivery failed; will send again");
        } else if due.is_empty() {
            sent_until = now;
        }
        if !due.is_empty() {
            control += 1;
            let ts = format_micros(now);
            let date: String = ts[..10].replace('-', "");
            let time: String = ts[11..16].replace(':', "");
            let text =
                boxtrack_sources::x12::status::write_interchange(&due, control, &date, &time);
            let ok = post_x12(&client, &url, &key, text.clone()).await;
            if ok && edifact_ok {
                sent_until = now;
            } else if !ok {
                tracing::warn!(url = %url, "X12 322 delivery failed; will send again");
            }
            // files sent in an earlier round go once more, after this newer one
            for old in std::mem::take(&mut again) {
                post_x12(&client, &url, &key, old).await;
            }
            if ok && sim.0.faults.redeliver(u64::from(control)) {
                again.push(text);
            }
        }
        tokio::select! {
            _ = shutdown.cancelled() => return,
            _ = tokio::time::sleep(every) => {}
        }
    }
}

async fn post_x12(client: &reqwest::Client, url: &str, key: &str, text: String) -> bool {
    client
        .post(url)
        .header("Authorization", format!("Token {key}"))
        .header("Content-Type", "application/edi-x12")
        .body(text)
        .send()
        .await
        .map(|r| r.status().is_success())
        .unwrap_or(false)
}

/// Pushes each carrier's DCSA events to `url` as they become visible on the virtual clock (as
/// a carrier does for an event subscription), in the version the carrier speaks: one body per
/// carrier and round (2.2: a JSON array; 3.0: `{"events": [...]}`), signed with
/// `Notification-Signature: sha256=<hex>` (HMAC-SHA256 with the base64-decoded `secret`).
/// Anything but 204 (2.2) or 200 (3.0) is sent again on the next round.
pub async fn send_dcsa_push(
    sim: Sim,
    url: String,
    secret: String,
    every: Duration,
    shutdown: tokio_util::sync::CancellationToken,
) {
    let client = reqwest::Client::new();
    let subscription = format!(
        "00000000-0000-4000-8000-{:012x}",
        sim.world().seed & 0xffff_ffff_ffff
    );
    let mut sent_until = i64::MIN;
    let mut round: u64 = 0;
    let mut again: Vec<(Version, Vec<u8>)> = Vec::new();
    loop {
        let now = sim.clock().now_us();
        round += 1;
        let mut by_carrier: std::collections::BTreeMap<&str, Vec<&boxtrack_sources::dcsa::Event>> =
            std::collections::BTreeMap::new();
        for (i, s) in sim.world().shipments.iter().enumerate() {
            for t in &sim.0.events[i] {
                if t.visible_us > sent_until && t.visible_us <= now {
                    by_carrier.entry(s.scac.as_str()).or_default().push(&t.item);
                }
            }
        }
        let mut all_ok = true;
        let mut bodies: Vec<(Version, Vec<u8>)> = by_carrier
            .iter()
            .filter_map(|(scac, events)| {
                let v = dcsa_version(scac);
                match v {
                    Version::V2_2 => serde_json::to_vec(events),
                    Version::V3_0 => serde_json::to_vec(&boxtrack_sources::dcsa::v3::body(
                        events.iter().copied(),
                    )),
                }
                .ok()
                .map(|b| (v, b))
            })
            .collect();
        let fresh = bodies.len();
        // pushes of an earlier round go once more, after the newer ones (redeliver fault)
        bodies.append(&mut again);
        for (n, (version, body)) in bodies.into_iter().enumerate() {
            let Some(signature) = boxtrack_sources::dcsa::sign(&secret, &body) else {
                tracing::error!("the DCSA push secret is not base64");
                return;
            };
            let mut clock = HeaderMap::new();
            clock_headers(&sim, &mut clock);
            let ok = client
                .post(&url)
                .headers(clock)
                .header("Content-Type", "application/json")
                .header("Notification-Signature", signature)
                .header("Subscription-ID", &subscription)
                .header("API-Version", version.api_version())
                .body(body.clone())
                .send()
                .await
                .map(|r| {
                    r.status()
                        == match version {
                            Version::V2_2 => StatusCode::NO_CONTENT,
                            Version::V3_0 => StatusCode::OK,
                        }
                })
                .unwrap_or(false);
            if n < fresh {
                all_ok &= ok;
                if ok && sim.0.faults.redeliver(round * 1_000 + n as u64) {
                    again.push((version, body));
                }
            }
        }
        if all_ok {
            sent_until = now;
        } else {
            tracing::warn!(url = %url, "DCSA push failed; will send again");
        }
        tokio::select! {
            _ = shutdown.cancelled() => return,
            _ = tokio::time::sleep(every) => {}
        }
    }
}

impl Sim {
    /// What every vessel broadcasts at virtual time `now`: a position report each, and static
    /// data (IMO, name, destination, ETA) when `with_static`. A vessel sails in a straight
    /// line from its current voyage's port of lading to its port of discharge; between
    /// voyages it is moored at its last port.
    pub fn ais_sentences(&self, now: i64, with_static: bool) -> Vec<String> {
        use boxtrack_sources::ais::{Position, StaticData, encode_position, encode_static};
        let w = self.world();
        let mut out = Vec::new();
        for (vi, v) in w.vessels.iter().enumerate() {
            let voyages: Vec<&world::Shipment> =
                w.shipments.iter().filter(|s| s.vessel == vi).collect();
            let current = voyages
                .iter()
                .filter(|s| s.depart_us <= now)
                .max_by_key(|s| s.depart_us);
            let Some(s) = current else { continue };
            let (Some((alat, alon)), Some((blat, blon))) =
                (coordinates(&s.pol), coordinates(&s.pod))
            else {
                continue;
            };
            let arrival = s.arrival_us();
            let sailing = now < arrival;
            let f = if sailing {
                (now - s.depart_us) as f64 / (arrival - s.depart_us).max(1) as f64
            } else {
                1.0
            };
            // the shorter way round in longitude
            let mut dlon = blon - alon;
            if dlon > 180.0 {
                dlon -= 360.0;
            } else if dlon < -180.0 {
                dlon += 360.0;
            }
            let mut lon = alon + dlon * f;
            if lon > 180.0 {
                lon -= 360.0;
            } else if lon < -180.0 {
                lon += 360.0;
            }
            let lat = alat + (blat - alat) * f;
            let bearing = (dlon.to_radians().sin() * blat.to_radians().cos())
                .atan2(
                    alat.to_radians().cos() * blat.to_radians().sin()
                        - alat.to_radians().sin()
                            * blat.to_radians().cos()
                            * dlon.to_radians().cos(),
                )
                .to_degrees()
                .rem_euclid(360.0);
            let nm =
                ((blat - alat).powi(2) + (dlon * alat.to_radians().cos()).powi(2)).sqrt() * 60.0;
            let hours = (arrival - s.depart_us) as f64 / 3.6e9;
            let speed = if sailing {
                (nm / hours.max(1.0) * 10.0).round() / 10.0
            } else {
                0.0
            };
            out.push(encode_position(&Position {
                msg_type: 1,
                mmsi: v.mmsi,
                nav_status: if sailing { 0 } else { 5 },
                speed_knots: Some(speed.min(102.2)),
                lon: Some((lon * 10_000.0).round() / 10_000.0),
                lat: Some((lat * 10_000.0).round() / 10_000.0),
                course: Some((bearing * 10.0).round() / 10.0),
                heading: Some(bearing.round() as u16 % 360),
                second: ((now / 1_000_000) % 60) as u8,
            }));
            if with_static {
                let eta = jiff::Timestamp::from_microsecond(arrival)
                    .ok()
                    .map(|t| t.to_zoned(jiff::tz::TimeZone::UTC))
                    .map(|z| {
                        (
                            z.month() as u8,
                            z.day() as u8,
                            z.hour() as u8,
                            z.minute() as u8,
                        )
                    });
                out.extend(encode_static(
                    &StaticData {
                        mmsi: v.mmsi,
                        imo: v.imo.parse().ok(),
                        callsign: v.callsign.clone(),
                        name: v.name.clone(),
                        ship_type: 71,
                        eta,
                        draught_m: 12.5,
                        destination: s.pod.clone(),
                    },
                    (vi % 10) as u8,
                ));
            }
        }
        out
    }
}

/// Where a port is: the ports table, or (for the simulator's ports it lacks) a fixed point.
fn coordinates(locode: &str) -> Option<(f64, f64)> {
    if let Some(p) = boxtrack_core::reference::port(locode)
        && let (Some(lat), Some(lon)) = (p.latitude, p.longitude)
    {
        return Some((lat, lon));
    }
    match locode {
        "HKHKG" => Some((22.30, 114.17)),
        "JPTYO" => Some((35.62, 139.78)),
        "TWKHH" => Some((22.61, 120.28)),
        _ => None,
    }
}

/// Streams AIS to every client of `listener`: each vessel's position every `every` of real
/// time, static data every tenth round, until `shutdown`.
pub async fn serve_ais(
    sim: Sim,
    listener: tokio::net::TcpListener,
    every: Duration,
    shutdown: tokio_util::sync::CancellationToken,
) {
    use tokio::io::AsyncWriteExt;
    loop {
        let accepted = tokio::select! {
            _ = shutdown.cancelled() => return,
            a = listener.accept() => a,
        };
        let Ok((mut stream, _)) = accepted else {
            continue;
        };
        let sim = sim.clone();
        let shutdown = shutdown.clone();
        tokio::spawn(async move {
            let mut round = 0u64;
            loop {
                let text: String = sim
                    .ais_sentences(sim.clock().now_us(), round.is_multiple_of(10))
                    .into_iter()
                    .map(|s| s + "\r\n")
                    .collect();
                if stream.write_all(text.as_bytes()).await.is_err() {
                    return;
                }
                round += 1;
                tokio::select! {
                    _ = shutdown.cancelled() => return,
                    _ = tokio::time::sleep(every) => {}
                }
            }
        });
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;

    async fn serve(auth: CarrierAuth, ttl: Duration) -> (Sim, String) {
        let sim = Sim::new(&SimConfig {
            seed: 3,
            shipments: 5,
            speed: 1.0,
            origin_us: 1_800_000_000_000_000,
            clock_start_us: None,
            faults: Faults::default(),
            x12_ingest: None,
            carrier_auth: auth,
            token_ttl: ttl,
        });
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let base = format!("http://{}", listener.local_addr().unwrap());
        let router = sim.router();
        tokio::spawn(async move { axum::serve(listener, router).await });
        (sim, base)
    }

    fn events_url(sim: &Sim, base: &str) -> String {
        let s = &sim.world().shipments[0];
        format!(
            "{base}/sim/v1/carriers/{}{}?transportDocumentReference={}",
            s.scac,
            dcsa_version(&s.scac).events_path(),
            s.bill_of_lading
        )
    }

    #[test]
    fn form_values_are_decoded() {
        let f = form_pairs("grant_type=client_credentials&scope=a+b%2Fc&client_id=x%zz");
        assert_eq!(f["grant_type"], "client_credentials");
        assert_eq!(f["scope"], "a b/c");
        assert_eq!(f["client_id"], "x%zz");
        assert_eq!(CarrierAuth::parse("oauth2"), Ok(CarrierAuth::OAuth2));
        assert!(CarrierAuth::parse("kerberos").is_err());
    }

    #[tokio::test]
    async fn each_carrier_speaks_its_dcsa_version() {
        let sim = Sim::new(&SimConfig {
            seed: 11,
            shipments: 20,
            speed: 1.0,
            origin_us: 1_800_000_000_000_000,
            clock_start_us: None,
            faults: Faults::default(),
            x12_ingest: None,
            carrier_auth: CarrierAuth::None,
            token_ttl: Duration::from_secs(60),
        });
        // far enough on that every event is visible
        sim.clock().advance(120 * 86_400);
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let base = format!("http://{}", listener.local_addr().unwrap());
        let router = sim.router();
        tokio::spawn(async move { axum::serve(listener, router).await });
        let http = reqwest::Client::new();
        let mut versions = std::collections::BTreeSet::new();
        for s in &sim.world().shipments {
            let speaks = dcsa_version(&s.scac);
            versions.insert(speaks);
            let other = match speaks {
                Version::V2_2 => Version::V3_0,
                Version::V3_0 => Version::V2_2,
            };
            let url = |v: Version| {
                format!(
                    "{base}/sim/v1/carriers/{}{}?transportDocumentReference={}&limit=3",
                    s.scac,
                    v.events_path(),
                    s.bill_of_lading
                )
            };
            let refused = http.get(url(other)).send().await.unwrap();
            assert_eq!(refused.status(), 404);
            // every page, followed by its cursor, read in the version's shape
            let mut events = Vec::new();
            let mut next = url(speaks);
            loop {
                let r = http.get(&next).send().await.unwrap();
                assert_eq!(r.status(), 200);
                assert_eq!(r.headers()["API-Version"], speaks.api_version());
                let cursor = r
                    .headers()
                    .get("Next-Page-Cursor")
                    .or(r.headers().get("Next-Page"))
                    .map(|v| v.to_str().unwrap().to_string());
                let body = r.bytes().await.unwrap();
                let parsed = boxtrack_sources::dcsa::parse(&body, sim.clock().now_us()).unwrap();
                assert_eq!(parsed.version, speaks);
                assert!(parsed.rejected.is_empty(), "{:?}", parsed.rejected);
                events.extend(parsed.events);
                match cursor {
                    Some(c) => next = format!("{}&cursor={c}", url(speaks)),
                    None => break,
                }
            }
            let i = sim.0.by_bl[&s.bill_of_lading];
            let all: Vec<&boxtrack_sources::dcsa::Event> =
                sim.0.events[i].iter().map(|t| &t.item).collect();
            assert_eq!(events.len(), all.len(), "{}", s.scac);
        }
        assert_eq!(versions.len(), 2, "the world mixes 2.2 and 3.0 carriers");
    }

    #[tokio::test]
    async fn fixed_credentials_are_demanded() {
        let http = reqwest::Client::new();
        let (sim, base) = serve(CarrierAuth::Headers, Duration::from_secs(60)).await;
        let url = events_url(&sim, &base);
        let r = http.get(&url).send().await.unwrap();
        assert_eq!(r.status(), 401);
        let body: Value = r.json().await.unwrap();
        assert_eq!(body["errors"][0]["reason"], "unauthorized", "{body}");
        let r = http
            .get(&url)
            .header(credentials::ID_HEADER, credentials::CLIENT_ID)
            .header(credentials::SECRET_HEADER, credentials::HEADER_SECRET)
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 200);

        let (sim, base) = serve(CarrierAuth::Query, Duration::from_secs(60)).await;
        let url = events_url(&sim, &base);
        assert_eq!(http.get(&url).send().await.unwrap().status(), 401);
        let keyed = format!("{url}&apikey={}", credentials::QUERY_KEY);
        assert_eq!(http.get(&keyed).send().await.unwrap().status(), 200);
        let stats: Value = http
            .get(format!("{base}/sim/v1/auth"))
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        assert_eq!(stats["refused"], 1, "{stats}");
    }

    #[tokio::test]
    async fn tokens_are_issued_to_the_client_and_expire() {
        use base64::Engine;
        let http = reqwest::Client::new();
        let (sim, base) = serve(CarrierAuth::OAuth2, Duration::from_secs(1)).await;
        let token_url = format!("{base}{}", credentials::TOKEN_PATH);
        let basic = |id: &str, secret: &str| {
            format!(
                "Basic {}",
                base64::engine::general_purpose::STANDARD.encode(format!("{id}:{secret}"))
            )
        };
        let r = http
            .post(&token_url)
            .header("Authorization", basic("boxtrack-sim", "wrong"))
            .header("Content-Type", "application/x-www-form-urlencoded")
            .body("grant_type=client_credentials")
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 401);
        assert_eq!(r.json::<Value>().await.unwrap()["error"], "invalid_client");
        let r = http
            .post(&token_url)
            .header("Content-Type", "application/x-www-form-urlencoded")
            .body("grant_type=client_credentials&client_id=boxtrack-sim&client_secret=sim-client-secret")
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 200);
        let r = http
            .post(&token_url)
            .header(
                "Authorization",
                basic(credentials::CLIENT_ID, credentials::CLIENT_SECRET),
            )
            .header("Content-Type", "application/x-www-form-urlencoded")
            .body("grant_type=client_credentials")
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 200);
        let t: Value = r.json().await.unwrap();
        assert_eq!(t["token_type"], "Bearer");
        assert_eq!(t["expires_in"], 1);
        let token = t["access_token"].as_str().unwrap().to_string();
        let url = events_url(&sim, &base);
        let with = || http.get(&url).bearer_auth(&token).send();
        assert_eq!(with().await.unwrap().status(), 200);
        let r = http.get(&url).bearer_auth("made-up").send().await.unwrap();
        assert_eq!(r.status(), 401);
        assert!(r.headers().contains_key("WWW-Authenticate"));
        tokio::time::sleep(Duration::from_millis(1100)).await;
        assert_eq!(with().await.unwrap().status(), 401, "expired");
        let stats: Value = http
            .get(format!("{base}/sim/v1/auth"))
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        assert_eq!(stats["tokens_issued"], 2, "{stats}");
        assert_eq!(stats["tokens_live"], 0, "{stats}");
    }
}
