//! `TestApp`: the application on a real socket, with typed request helpers.

use std::net::SocketAddr;

use boxtrack_api::listen::Connections;
use boxtrack_api::{ApiConfig, AppState, Limiter};
use boxtrack_app::ctx::Policy;
use boxtrack_core::plan::{Entitlement, Plan};
use boxtrack_core::ratelimit::Limits;
use boxtrack_store::Db;
use boxtrack_store::accounts::{self, Account, NewAccount};
use boxtrack_testkit::TestDatabase;
use reqwest::header::HeaderMap;
use serde_json::Value;
use tokio_util::sync::CancellationToken;

pub struct TestApp {
    pub base: String,
    pub db: Db,
    pub client: reqwest::Client,
    /// The metrics of the served state (connection counts included).
    pub metrics: std::sync::Arc<boxtrack_http::Metrics>,
    /// The served state's read cache: the test's own writes past the API (the worker run
    /// in-process, rows made directly) retire what it holds, as the API's writes do.
    pub reads: std::sync::Arc<boxtrack_api::readcache::ReadCache>,
    shutdown: CancellationToken,
    _database: Option<TestDatabase>,
}

pub struct Resp {
    pub status: u16,
    pub headers: HeaderMap,
    pub text: String,
}

impl Resp {
    pub fn json(&self) -> Value {
        serde_json::from_str(&self.text).unwrap_or_else(|e| panic!("not JSON ({e}): {}", self.text))
    }
    pub fn header(&self, name: &str) -> Option<String> {
        self.headers
            .get(name)
            .map(|v| v.to_str().unwrap().to_string())
    }
}

impl Drop for TestApp {
    fn drop(&mut self) {
        self.shutdown.cancel();
    }
}

pub async fn fresh_db() -> (Db, TestDatabase) {
    let database = boxtrack_testkit::fresh().await;
    let db = Db::connect(&database.url).await.unwrap();
    db.migrate().await.unwrap();
    (db, database)
}

impl TestApp {
    /// The app as `serve` builds it by default (memory limits on SQLite, shared on PostgreSQL).
    pub async fn spawn() -> TestApp {
        let (db, database) = fresh_db().await;
        let limiter = match db.backend() {
            boxtrack_store::Backend::Sqlite => Limiter::memory(),
            boxtrack_store::Backend::Postgres => Limiter::database(db.clone()),
        };
        let mut app = TestApp::spawn_on(db, limiter).await;
        app._database = Some(database);
        app
    }

    /// A second process's view: its own pool and limiter on an existing database.
    pub async fn spawn_on(db: Db, limiter: Limiter) -> TestApp {
        TestApp::spawn_with(db, limiter, ApiConfig::default()).await
    }

    /// Keeps `database` (dropped, it is deleted) as long as the app.
    pub fn keep(&mut self, database: TestDatabase) {
        self._database = Some(database);
    }

    /// The app with these edge settings on an existing database.
    pub async fn spawn_with(db: Db, limiter: Limiter, config: ApiConfig) -> TestApp {
        TestApp::spawn_listening(db, limiter, config, Connections::default()).await
    }

    /// The app with this policy (the operator's settings of the use cases) on an existing
    /// database.
    pub async fn spawn_policy(db: Db, limiter: Limiter, policy: Policy) -> TestApp {
        let ctx = boxtrack_app::Ctx::new(db).with_policy(policy);
        let state = AppState::new(ctx, ApiConfig::default(), limiter);
        TestApp::serve_state(state, Connections::default()).await
    }

    /// The app with these edge settings and these connection limits (`listen::serve_with`).
    pub async fn spawn_listening(
        db: Db,
        limiter: Limiter,
        config: ApiConfig,
        conns: Connections,
    ) -> TestApp {
        TestApp::serve_state(
            AppState::new(boxtrack_app::Ctx::new(db), config, limiter),
            conns,
        )
        .await
    }

    /// The app serving `state` (made by the test: with read replicas, say).
    pub async fn serve_state(state: AppState, conns: Connections) -> TestApp {
        let db = state.ctx.db.clone();
        let metrics = state.metrics.clone();
        let reads = state.reads.clone();
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr: SocketAddr = listener.local_addr().unwrap();
        let shutdown = CancellationToken::new();
        let app = boxtrack_api::router(state);
        let conns = Connections {
            metrics: Some(metrics.clone()),
            ..conns
        };
        tokio::spawn(boxtrack_api::listen::serve_with(
            listener,
            app,
            shutdown.clone(),
            conns,
        ));
        TestApp {
            base: format!("http://{addr}"),
            db,
            client: reqwest::Client::new(),
            metrics,
            reads,
            shutdown,
            _database: None,
        }
    }

    pub async fn account_with(
        &self,
        plan: Plan,
        ents: &[Entitlement],
        limits: Limits,
    ) -> (Account, String) {
        let (a, _, key) = accounts::create(
            &self.db,
            NewAccount {
                name: "Test Co".into(),
                plan,
                entitlements: ents.to_vec(),
                rate_limits: limits,
            },
        )
        .await
        .unwrap();
        (a, key.expose().to_string())
    }

    pub async fn account(&self) -> (Account, String) {
        self.account_with(Plan::Standard, &[], Limits::default())
            .await
    }

    pub fn url(&self, path: &str) -> String {
        if path.starts_with("http") {
            path.to_string()
        } else {
            format!("{}{path}", self.base)
        }
    }

    /// Sends a request; a response of this application must match what the served OpenAPI
    /// document says of its operation and status (see `conformance`).
    pub async fn send(&self, req: reqwest::RequestBuilder) -> Resp {
        let (client, request) = req.build_split();
        let request = request.unwrap();
        let method = request.method().as_str().to_ascii_lowercase();
        let ours = request.url().as_str().starts_with(&self.base);
        let path = request.url().path().to_string();
        let query = request.url().query().map(str::to_string);
        let sent = request
            .body()
            .and_then(|b| b.as_bytes())
            .map(|b| b.to_vec())
            .zip(
                request
                    .headers()
                    .get("content-type")
                    .and_then(|v| v.to_str().ok())
                    .map(str::to_string),
            );
        let res = client.execute(request).await.unwrap();
        let status = res.status().as_u16();
        let headers = res.headers().clone();
        let text = res.text().await.unwrap();
        let resp = Resp {
            status,
            headers,
            text,
        };
        if ours {
            crate::conformance::check(&method, &path, &resp);
            crate::reference_gate::check(&method, &path, &resp);
            crate::reference_gate::check_graph(&method, &path, query.as_deref(), &resp);
            if let Some((body, media)) = &sent {
                crate::conformance::check_request(&method, &path, media, body, &resp);
            }
        }
        resp
    }

    pub async fn get(&self, path: &str, key: Option<&str>) -> Resp {
        let mut req = self.client.get(self.url(path));
        if let Some(k) = key {
            req = req.header("Authorization", format!("Token {k}"));
        }
        self.send(req).await
    }

    pub async fn post(&self, path: &str, key: &str, content_type: &str, body: &str) -> Resp {
        let req = self
            .client
            .post(self.url(path))
            .header("Authorization", format!("Token {key}"))
            .header("Content-Type", content_type)
            .body(body.to_string());
        self.send(req).await
    }

    /// Runs the tracking-request processor once at `now_us` (a virtual clock for tests).
    pub async fn process_at(&self, now_us: i64) -> usize {
        let sources: Vec<std::sync::Arc<dyn boxtrack_sources::Source>> =
            vec![std::sync::Arc::new(boxtrack_sources::sandbox::Sandbox)];
        let n = boxtrack_worker::Processor::new(self.db.clone(), sources)
            .process_due(now_us)
            .await
            .unwrap();
        self.reads.changes().touch_all();
        n
    }

    /// One pass of requests and sandbox playback at `now_us` (one simulated hour per second).
    pub async fn tick_at(&self, now_us: i64) -> usize {
        let sources: Vec<std::sync::Arc<dyn boxtrack_sources::Source>> =
            vec![std::sync::Arc::new(boxtrack_sources::sandbox::Sandbox)];
        let n = boxtrack_worker::Processor::new(self.db.clone(), sources)
            .tick(now_us)
            .await
            .unwrap();
        self.reads.changes().touch_all();
        n
    }

    /// Runs the processor once now.
    pub async fn process(&self) -> usize {
        self.process_at(boxtrack_store::now_us()).await
    }

    pub async fn patch(&self, path: &str, key: &str, body: &str) -> Resp {
        let req = self
            .client
            .patch(self.url(path))
            .header("Authorization", format!("Token {key}"))
            .header("Content-Type", "application/vnd.api+json")
            .body(body.to_string());
        self.send(req).await
    }

    pub async fn delete(&self, path: &str, key: &str) -> Resp {
        let req = self
            .client
            .delete(self.url(path))
            .header("Authorization", format!("Token {key}"));
        self.send(req).await
    }
}

/// Asserts a JSON:API error document with this status.
pub fn assert_error(r: &Resp, status: u16) -> Value {
    assert_eq!(r.status, status, "body: {}", r.text);
    assert_eq!(
        r.header("content-type").as_deref(),
        Some("application/vnd.api+json")
    );
    let body = r.json();
    let e = &body["errors"][0];
    assert_eq!(e["status"], status.to_string());
    assert!(e["title"].as_str().is_some_and(|t| !t.is_empty()));
    e.clone()
}

/// A `POST /v2/tracking_requests` body with the sandbox-friendly defaults the tests use.
pub fn tracking_request_body(number: &str, kind: &str, scac: &str) -> String {
    serde_json::json!({"data": {"type": "tracking_request", "attributes": {
        "request_number": number, "request_type": kind, "scac": scac,
        "ref_numbers": ["PO-1"], "shipment_tags": ["east"]
    }}})
    .to_string()
}

impl TestApp {
    /// Tracks a sandbox bill of lading (`TEST-SCN-…`) through the API and runs the worker
    /// once now, so its shipment and containers exist; the tracking request document.
    pub async fn track_sandbox(&self, key: &str, number: &str) -> Value {
        let r = self
            .post(
                "/v2/tracking_requests",
                key,
                "application/vnd.api+json",
                &tracking_request_body(number, "bill_of_lading", "TEST"),
            )
            .await;
        assert_eq!(r.status, 201, "{}", r.text);
        self.tick_at(boxtrack_store::now_us()).await;
        r.json()
    }

    /// Tracks `number` for `account` as if its carrier had answered: a container request,
    /// claimed and finished with a shipment on the given route.
    pub async fn track_directly(
        &self,
        account: uuid::Uuid,
        number: &str,
        scac: &str,
        pol: &str,
        pod: &str,
    ) -> uuid::Uuid {
        use boxtrack_store::tracking;
        let request = boxtrack_core::requests::validate(&boxtrack_core::requests::NewRequest {
            request_number: Some(number.into()),
            request_type: Some("container".into()),
            scac: Some(scac.into()),
            ..Default::default()
        })
        .unwrap();
        let tr = tracking::create_request(
            &self.db,
            account,
            Plan::Standard,
            &request,
            &Default::default(),
        )
        .await
        .unwrap();
        let now = boxtrack_store::now_us();
        let claimed = tracking::claim_due(&self.db, now + 1_000_000, 60_000_000, 100)
            .await
            .unwrap();
        let row = claimed.into_iter().find(|r| r.id == tr.id).unwrap();
        let port = |l: &str| boxtrack_core::reference::port(l).map(|p| p.time_zone.clone());
        let route = boxtrack_core::tracking::Route {
            pol_locode: Some(pol.into()),
            pol_timezone: port(pol),
            pod_locode: Some(pod.into()),
            pod_timezone: port(pod),
            ..Default::default()
        };
        tracking::finish(
            &self.db,
            &row,
            tracking::Outcome::Created {
                scac: scac.into(),
                bill_of_lading_number: format!("{scac}{}", &number[4..]),
                route: Box::new(route),
                containers: vec![tracking::NewContainer {
                    number: number.into(),
                    observations: vec![],
                }],
                scenario: None,
            },
        )
        .await
        .unwrap();
        let id: uuid::Uuid = boxtrack_store::on_db!(&self.db, p => sqlx::query_scalar(
            "SELECT id FROM containers WHERE account_id = $1 AND number = $2")
            .bind(account).bind(number).fetch_one(p).await.unwrap());
        self.reads.changes().touch_all();
        id
    }
}

/// Tracks bill of lading `number` (MSCU) for `account` as if the carrier had answered with
/// `containers`: the request is created and finished, as the worker does; its id.
pub async fn resolve_bill_of_lading(
    db: &Db,
    account: uuid::Uuid,
    number: &str,
    containers: Vec<boxtrack_store::tracking::NewContainer>,
) -> uuid::Uuid {
    use boxtrack_store::tracking;
    let req = tracking::create_request(
        db,
        account,
        Plan::Standard,
        &boxtrack_core::requests::validate(&boxtrack_core::requests::NewRequest {
            request_number: Some(number.into()),
            request_type: Some("bill_of_lading".into()),
            scac: Some("MSCU".into()),
            ..Default::default()
        })
        .unwrap(),
        &Default::default(),
    )
    .await
    .unwrap();
    tracking::finish(
        db,
        &req,
        tracking::Outcome::Created {
            scac: "MSCU".into(),
            bill_of_lading_number: number.into(),
            route: Default::default(),
            containers,
            scenario: None,
        },
    )
    .await
    .unwrap();
    req.id
}

/// `n` containers with sandbox-made numbers (`fill{offset}` …), nothing known about them.
pub fn blank_containers(n: usize, offset: usize) -> Vec<boxtrack_store::tracking::NewContainer> {
    (0..n)
        .map(|i| boxtrack_store::tracking::NewContainer {
            number: boxtrack_sources::sandbox::container_number(&format!("fill{}", i + offset)),
            observations: vec![],
        })
        .collect()
}
