//! `TestApp`: the MCP server and its OAuth pages (`boxtrack_mcp::mount`) on a real socket
//! against a fresh database, as the service mounts them; the data a test needs is made
//! through the use cases (`boxtrack_app`) and the worker, as a client's requests would.

use std::net::SocketAddr;

use boxtrack_app::Ctx;
use boxtrack_core::plan::{Entitlement, Plan};
use boxtrack_core::ratelimit::Limits;
use boxtrack_core::requests::NewRequest;
use boxtrack_http::{ApiConfig, Front, Limiter};
use boxtrack_store::Db;
use boxtrack_store::accounts::{self, Account, NewAccount};
use boxtrack_testkit::TestDatabase;
use reqwest::header::HeaderMap;
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

pub struct TestApp {
    pub base: String,
    pub db: Db,
    pub client: reqwest::Client,
    /// The state the server runs on.
    pub front: Front,
    shutdown: CancellationToken,
    _database: TestDatabase,
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

impl TestApp {
    /// The server as `serve` mounts it (memory limits on SQLite, shared on PostgreSQL).
    pub async fn spawn() -> TestApp {
        let database = boxtrack_testkit::fresh().await;
        let db = Db::connect(&database.url).await.unwrap();
        db.migrate().await.unwrap();
        let limiter = match db.backend() {
            boxtrack_store::Backend::Sqlite => Limiter::memory(),
            boxtrack_store::Backend::Postgres => Limiter::database(db.clone()),
        };
        let front = Front::new(Ctx::new(db.clone()), ApiConfig::default(), limiter);
        let routes = boxtrack_mcp::mount().with_state::<()>(front.clone());
        let router = axum::Router::new()
            .merge(routes.public)
            .merge(routes.authenticated);
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr: SocketAddr = listener.local_addr().unwrap();
        let shutdown = CancellationToken::new();
        let stop = shutdown.clone();
        tokio::spawn(async move {
            axum::serve(
                listener,
                router.into_make_service_with_connect_info::<SocketAddr>(),
            )
            .with_graceful_shutdown(stop.cancelled_owned())
            .await
        });
        TestApp {
            base: format!("http://{addr}"),
            db,
            client: reqwest::Client::new(),
            front,
            shutdown,
            _database: database,
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

    /// Sends a request and reads the whole answer.
    pub async fn send(&self, req: reqwest::RequestBuilder) -> Resp {
        let r = req.send().await.unwrap();
        let status = r.status().as_u16();
        let headers = r.headers().clone();
        let text = r.text().await.unwrap();
        Resp {
            status,
            headers,
            text,
        }
    }

    /// The account an API key names.
    pub async fn account_of(&self, key: &str) -> Account {
        let key = boxtrack_core::apikey::ApiKey::parse(key).unwrap();
        boxtrack_store::keys::authenticate(&self.db, &key)
            .await
            .unwrap()
            .unwrap()
            .1
    }

    /// Tracks `number` for the key's account as `POST /v2/tracking_requests` does (with the
    /// reference number `PO-1` and the tag `east`): the request's id.
    pub async fn track(&self, key: &str, number: &str, kind: &str, scac: &str) -> uuid::Uuid {
        let account = self.account_of(key).await;
        let asked = NewRequest {
            request_number: Some(number.into()),
            request_type: Some(kind.into()),
            scac: Some(scac.into()),
            auto_detect: false,
            ref_numbers: vec!["PO-1".into()],
            shipment_tags: vec!["east".into()],
        };
        boxtrack_app::tracking::track(&self.front.ctx, &account, &asked, Default::default())
            .await
            .unwrap()
            .id
    }

    /// The shipment a processed tracking request of the key's account found.
    pub async fn shipment_of(&self, key: &str, request: uuid::Uuid) -> uuid::Uuid {
        let account = self.account_of(key).await;
        boxtrack_store::tracking::get_request(&self.db, account.id, request)
            .await
            .unwrap()
            .unwrap()
            .shipment_id
            .unwrap()
    }

    /// The key's account's containers, newest first, each as `{id, attributes: {number}}`.
    pub async fn containers(&self, key: &str) -> Vec<Value> {
        let account = self.account_of(key).await;
        let page = boxtrack_core::paging::Page::first(100);
        let filter = boxtrack_store::reads::Filter::default();
        boxtrack_store::reads::containers(&self.db, account.id, &filter, &page)
            .await
            .unwrap()
            .rows
            .into_iter()
            .map(|c| json!({"id": c.id, "attributes": {"number": c.number}}))
            .collect()
    }

    /// Runs the tracking-request processor once at `now_us`.
    pub async fn process_at(&self, now_us: i64) -> usize {
        let sources: Vec<std::sync::Arc<dyn boxtrack_sources::Source>> =
            vec![std::sync::Arc::new(boxtrack_sources::sandbox::Sandbox)];
        boxtrack_worker::Processor::new(self.db.clone(), sources)
            .process_due(now_us)
            .await
            .unwrap()
    }

    /// One pass of requests and sandbox playback at `now_us` (one simulated hour per second).
    pub async fn tick_at(&self, now_us: i64) -> usize {
        let sources: Vec<std::sync::Arc<dyn boxtrack_sources::Source>> =
            vec![std::sync::Arc::new(boxtrack_sources::sandbox::Sandbox)];
        boxtrack_worker::Processor::new(self.db.clone(), sources)
            .tick(now_us)
            .await
            .unwrap()
    }

    /// Runs the processor once now.
    pub async fn process(&self) -> usize {
        self.process_at(boxtrack_store::now_us()).await
    }
}
