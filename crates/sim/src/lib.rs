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
//! - Carriers that speak their line's profile ([`lines`], `boxtrack sim --carrier-profiles`):
//!   Maersk, Hapag-Lloyd, CMA CGM and COSCO (its own API, COP) under `/sim/v1/lines/{profile}`,
//!   with the line's authentication, paths, paging, error answers and documented gaps.
//! - Rail carriers send X12 322 files to a configured ingest URL as their events happen.
//!
//! Faults on purpose: a share of answers can be slow, 5xx, 429 with `Retry-After`, or
//! malformed, and a carrier can answer nothing for bookings for the first days.

mod ais;
mod auth;
mod catalog;
mod clock;
mod delivery;
mod faults;
mod feeds;
pub mod lines;
pub mod world;

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::Router;
use axum::http::{HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};

use world::World;

pub use ais::serve_ais;
pub use auth::{CarrierAuth, credentials};
pub use clock::{Clock, SPEED_HEADER};
pub use delivery::{send_dcsa_push, send_rail_x12};
pub use faults::Faults;

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
    /// Lifetime of the access tokens `POST /sim/v1/oauth/token` issues (and the lines'
    /// token endpoints).
    pub token_ttl: Duration,
    /// The profiles whose lines speak as their profile says ([`lines::SPOKEN`]; other names
    /// are left out).
    pub carrier_profiles: Vec<String>,
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
    /// Live access tokens: when they expire (real time), for which line and client.
    tokens: Mutex<HashMap<String, auth::Grant>>,
    /// The lines that speak their profile.
    lines: Vec<lines::Line>,
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
            clock: Clock::start(cfg.clock_start_us.unwrap_or(cfg.origin_us), cfg.speed),
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
            lines: cfg
                .carrier_profiles
                .iter()
                .filter_map(|n| lines::line(n))
                .collect(),
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

    /// The lines that speak their profile.
    pub fn lines(&self) -> &[lines::Line] {
        &self.0.lines
    }

    /// The line that serves this carrier, when it speaks its profile.
    pub fn line_of(&self, scac: &str) -> Option<&lines::Line> {
        self.0.lines.iter().find(|l| l.serves(scac))
    }

    /// The HTTP routes.
    pub fn router(&self) -> Router {
        Router::new()
            .route("/sim/v1/catalog", get(catalog::catalog))
            .route("/sim/v1/record", get(catalog::record))
            .route(
                "/sim/v1/clock",
                get(clock::clock_get).post(clock::clock_post),
            )
            .route(
                "/sim/v1/carriers/{scac}/v2/events",
                get(feeds::dcsa_events_v2),
            )
            .route(
                "/sim/v1/carriers/{scac}/v3/events",
                get(feeds::dcsa_events_v3),
            )
            .route(credentials::TOKEN_PATH, post(auth::oauth_token))
            .route("/sim/v1/auth", get(auth::auth_stats))
            .route(
                "/sim/v1/lines/{line}/{*path}",
                get(lines::serve::get).post(lines::serve::post),
            )
            .route(
                "/sim/v1/terminals/{code}/containers/{number}",
                get(feeds::terminal_container),
            )
            .layer(axum::middleware::map_response_with_state(
                self.clone(),
                clock::stamp_clock,
            ))
            .with_state(self.clone())
    }

    /// The fault due for this request, if one is (deterministic by request count and seed).
    fn fault_due(&self) -> Option<Fault> {
        let f = &self.0.faults;
        let n = self.0.counter.fetch_add(1, Ordering::Relaxed);
        let mut rng = world::Rng::new(self.0.world.seed ^ n.wrapping_mul(0x2545_F491_4F6C_DD1D));
        if rng.chance(f.server_errors) {
            Some(Fault::ServerError)
        } else if rng.chance(f.rate_limited) {
            Some(Fault::RateLimited)
        } else if rng.chance(f.malformed) {
            Some(Fault::Malformed)
        } else {
            None
        }
    }

    /// A fault for this request, if one is due, as the simulator's carriers answer it.
    fn fault(&self) -> Option<Response> {
        Some(match self.fault_due()? {
            Fault::ServerError => {
                (StatusCode::SERVICE_UNAVAILABLE, "upstream busy").into_response()
            }
            Fault::RateLimited => {
                let mut r = (StatusCode::TOO_MANY_REQUESTS, "slow down").into_response();
                r.headers_mut()
                    .insert("Retry-After", HeaderValue::from_static("1"));
                r
            }
            Fault::Malformed => (StatusCode::OK, MALFORMED).into_response(),
        })
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

/// A deliberate misbehaviour due for one answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Fault {
    /// 503.
    ServerError,
    /// 429 with `Retry-After`.
    RateLimited,
    /// A body cut short.
    Malformed,
}

/// The body of a malformed answer.
const MALFORMED: &str = "[{\"eventType\": \"TRANSP";

pub use boxtrack_sources::simulated::{dcsa_version, speaks_edifact, terminal_speaks_edifact};

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;
    use boxtrack_sources::dcsa::Version;
    use serde_json::Value;

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
            carrier_profiles: vec![],
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
            carrier_profiles: vec![],
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
