//! The database goes away under a running service and comes back. On PostgreSQL the service
//! reaches its database through a TCP proxy that the test cuts (every open connection broken,
//! new ones closed at once, as a server that is shutting down or restarting) and restores.
//! On SQLite the file stays; these tests return at once there.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use boxtrack_api::Limiter;
use boxtrack_app::ctx::Policy;
use boxtrack_store::Db;
use boxtrack_testkit::proxy::Proxy;
use serde_json::json;
use tokio::net::TcpListener;
use tokio::sync::Mutex;

use crate::helpers::{TestApp, assert_error};
use crate::webhooks::append_succeeded;

const MT: &str = "application/vnd.api+json";

/// A receiver that counts deliveries by notification id and answers each once its gate is
/// open (`true`): closing the gate holds requests in flight.
async fn gated_receiver() -> (
    String,
    Arc<Mutex<BTreeMap<String, usize>>>,
    tokio::sync::watch::Sender<bool>,
) {
    let seen: Arc<Mutex<BTreeMap<String, usize>>> = Arc::default();
    let (gate, open) = tokio::sync::watch::channel(true);
    let store = seen.clone();
    let app = axum::Router::new().route(
        "/hook",
        axum::routing::post(move |body: axum::body::Bytes| {
            let (store, mut open) = (store.clone(), open.clone());
            async move {
                let v: serde_json::Value = serde_json::from_slice(&body).unwrap_or_default();
                let id = v["data"]["id"].as_str().unwrap_or_default().to_string();
                *store.lock().await.entry(id).or_default() += 1;
                let _ = open.wait_for(|open| *open).await;
                axum::http::StatusCode::NO_CONTENT
            }
        }),
    );
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await });
    (format!("http://{addr}/hook"), seen, gate)
}

/// How many of the account's notifications are recorded, and how many of those succeeded.
async fn recorded(app: &TestApp, key: &str) -> (usize, usize) {
    let listed = app
        .get("/v2/webhook_notifications?page[size]=100", Some(key))
        .await
        .json();
    let data = listed["data"].as_array().cloned().unwrap_or_default();
    let ok = data
        .iter()
        .filter(|n| n["attributes"]["delivery_status"] == "succeeded")
        .count();
    (data.len(), ok)
}

/// Waits (up to about a minute) for `done`.
async fn until<F, Fut>(what: &str, mut done: F)
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = bool>,
{
    for _ in 0..600 {
        if done().await {
            return;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("{what} never happened");
}

/// A service on a fresh PostgreSQL database reached through a [`Proxy`] (receivers on this
/// machine allowed), with a direct connection of its own for what another process would
/// write; `None` on SQLite.
async fn behind_a_proxy() -> Option<(Proxy, Db, Db, TestApp)> {
    behind_a_proxy_waiting(Duration::from_secs(10)).await
}

/// As [`behind_a_proxy`], a request waiting at most `acquire` for a connection of the pool.
async fn behind_a_proxy_waiting(acquire: Duration) -> Option<(Proxy, Db, Db, TestApp)> {
    let database = boxtrack_testkit::fresh().await;
    if !database.url.starts_with("postgres") {
        return None;
    }
    let direct = Db::connect(&database.url).await.unwrap();
    direct.migrate().await.unwrap();
    let mut url = url::Url::parse(&database.url).unwrap();
    let target = format!("{}:{}", url.host_str().unwrap(), url.port().unwrap_or(5432));
    let proxy = Proxy::start(target).await.unwrap();
    url.set_port(Some(proxy.addr.port())).unwrap();
    url.set_host(Some("127.0.0.1")).unwrap();
    let db = Db::connect_waiting(url.as_str(), acquire).await.unwrap();
    let mut app = TestApp::spawn_policy(
        db.clone(),
        Limiter::database(db.clone()),
        receivers_allowed(),
    )
    .await;
    app.keep(database);
    Some((proxy, direct, db, app))
}

/// Settings that let webhooks go to receivers on this machine.
fn receivers_allowed() -> Policy {
    Policy {
        allow_private_webhook_urls: true,
        ..Policy::default()
    }
}

/// Webhook deliveries of `tracking_request.succeeded` for the account of `key` to a
/// [`gated_receiver`], by the worker's deliverer on `db` as serve runs it, until `stop`.
struct Delivering {
    seen: Arc<Mutex<BTreeMap<String, usize>>>,
    gate: tokio::sync::watch::Sender<bool>,
    stop: tokio_util::sync::CancellationToken,
}

async fn deliver_to_a_gated_receiver(app: &TestApp, key: &str, db: &Db) -> Delivering {
    let (hook_url, seen, gate) = gated_receiver().await;
    let r = app
        .post(
            "/v2/webhooks",
            key,
            MT,
            &json!({"data": {"type": "webhook", "attributes": {"url": hook_url, "events": ["tracking_request.succeeded"]}}})
                .to_string(),
        )
        .await;
    assert_eq!(r.status, 201, "{}", r.text);
    let deliverer = boxtrack_worker::delivery::Deliverer::new(
        db.clone(),
        Duration::from_secs(5),
        true,
        1_000_000,
    );
    let stop = tokio_util::sync::CancellationToken::new();
    let s = stop.clone();
    tokio::spawn(async move {
        while !s.is_cancelled() {
            // failures while the database is away are the deliverer's to survive
            let _ = deliverer.deliver_due(boxtrack_store::now_us()).await;
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    });
    Delivering { seen, gate, stop }
}

#[tokio::test]
async fn postgres_going_away_is_a_503_then_the_service_recovers_and_delivers_each_webhook_once() {
    let Some((proxy, direct, db, app)) = behind_a_proxy().await else {
        return;
    };
    let (_, key) = app.account().await;
    let Delivering { seen, gate, stop } = deliver_to_a_gated_receiver(&app, &key, &db).await;
    append_succeeded(&direct, uuid::Uuid::now_v7(), 3).await;
    until("the first three deliveries recorded", || async {
        recorded(&app, &key).await == (3, 3)
    })
    .await;

    // two more go out and their receiver holds them while the database goes away: their
    // outcomes come back to a deliverer that cannot record them
    gate.send_replace(false);
    append_succeeded(&direct, uuid::Uuid::now_v7(), 2).await;
    until("two deliveries in flight", || async {
        seen.lock().await.len() == 5
    })
    .await;
    proxy.cut();
    gate.send_replace(true);
    // events keep arriving (another process, on a database connection of its own)
    append_succeeded(&direct, uuid::Uuid::now_v7(), 3).await;
    let r = app.get("/v2/containers", Some(&key)).await;
    let e = assert_error(&r, 503);
    assert_eq!(e["code"], "database_unavailable", "{}", r.text);
    assert!(r.header("retry-after").is_some());
    let r = app
        .post(
            "/v2/tracking_requests",
            &key,
            MT,
            &crate::helpers::tracking_request_body("TEST-TR-SUCCEEDED", "bill_of_lading", "TEST"),
        )
        .await;
    assert_eq!(r.status, 503, "{}", r.text);
    assert_eq!(app.get("/readyz", None).await.status, 503);

    proxy.restore();
    until("the service answers again", || async {
        app.get("/v2/containers", Some(&key)).await.status == 200
    })
    .await;
    let r = app
        .post(
            "/v2/tracking_requests",
            &key,
            MT,
            &crate::helpers::tracking_request_body("TEST-TR-SUCCEEDED", "bill_of_lading", "TEST"),
        )
        .await;
    assert_eq!(r.status, 201, "{}", r.text);
    // the two whose outcomes were held are recorded, not sent again; the three that fell due
    // meanwhile go out
    until("every notification recorded", || async {
        recorded(&app, &key).await == (8, 8)
    })
    .await;
    stop.cancel();
    let seen = seen.lock().await;
    assert_eq!(seen.len(), 8, "{seen:?}");
    assert!(seen.values().all(|n| *n == 1), "none sent twice: {seen:?}");
}

/// A PostgreSQL restart refuses connections rather than closing them. Requests made while it
/// lasts wait for a connection (the pool tries again, backing off, for up to its 10-second
/// acquire timeout): one the database answers again within that is served, late but whole;
/// one it does not is a 503 `database_unavailable`, after which requests fail fast (answered
/// at once, one a second let through to find the database back), and the service recovers by
/// itself.
#[tokio::test]
async fn a_postgres_restart_that_refuses_connections_delays_requests_then_503s() {
    let Some((proxy, _, _, app)) = behind_a_proxy().await else {
        return;
    };
    let lifted = boxtrack_core::ratelimit::Limits(
        [(boxtrack_core::ratelimit::Bucket::Default, 1_000_000)]
            .into_iter()
            .collect(),
    );
    let (_, key) = app
        .account_with(boxtrack_core::plan::Plan::Standard, &[], lifted)
        .await;
    assert_eq!(app.get("/v2/containers", Some(&key)).await.status, 200);
    // a short restart: the request waits it out and is served (a page the read cache does
    // not hold: the first list may still be answered from it until the change feed's own
    // connection is found lost, which is not what this waits on)
    proxy.refuse().await;
    let waiting = {
        let (base, key) = (app.base.clone(), key.clone());
        tokio::spawn(async move {
            reqwest::Client::new()
                .get(format!("{base}/v2/containers?page[size]=7"))
                .header("Authorization", format!("Token {key}"))
                .send()
                .await
                .map(|r| r.status().as_u16())
        })
    };
    tokio::time::sleep(Duration::from_secs(1)).await;
    assert!(!waiting.is_finished(), "the request waits for the database");
    proxy.listen_again().await.unwrap();
    assert_eq!(waiting.await.unwrap().unwrap(), 200);

    // from here on, load: four clients reading and creating parties as fast as they are
    // answered
    let loading = tokio_util::sync::CancellationToken::new();
    let loaders: Vec<_> = (0..4)
        .map(|client| {
            let (base, key, loading) = (app.base.clone(), key.clone(), loading.clone());
            tokio::spawn(async move {
                let http = reqwest::Client::new();
                let mut answers: Vec<(u16, Option<String>)> = Vec::new();
                let mut n = 0;
                while !loading.is_cancelled() {
                    let name = format!("Load {client}-{n}");
                    n += 1;
                    let created = http
                        .post(format!("{base}/v2/parties"))
                        .header("Authorization", format!("Token {key}"))
                        .header("Content-Type", MT)
                        .body(json!({"data": {"type": "party", "attributes": {"company_name": name}}}).to_string())
                        .send()
                        .await
                        .unwrap();
                    answers.push((created.status().as_u16(), Some(name)));
                    let read = http
                        .get(format!("{base}/v2/parties?page[size]=1"))
                        .header("Authorization", format!("Token {key}"))
                        .send()
                        .await
                        .unwrap();
                    answers.push((read.status().as_u16(), None));
                }
                answers
            })
        })
        .collect();

    // a restart longer than the acquire timeout: a 503 that says so
    proxy.refuse().await;
    let r = app.get("/v2/containers", Some(&key)).await;
    let e = assert_error(&r, 503);
    assert_eq!(e["code"], "database_unavailable", "{}", r.text);
    // from then on requests fail fast: answered without waiting for the database, as the
    // detail says, while it still refuses
    let r = app.get("/v2/shipments", Some(&key)).await;
    let e = assert_error(&r, 503);
    assert_eq!(e["code"], "database_unavailable", "{}", r.text);
    assert!(
        e["detail"].as_str().unwrap().contains("answered at once"),
        "{}",
        r.text
    );
    assert!(r.header("retry-after").is_some());
    assert_eq!(
        app.get("/v2/openapi.json", None).await.status,
        200,
        "the document needs no database"
    );
    proxy.listen_again().await.unwrap();
    until("the service answers again", || async {
        app.get("/v2/containers", Some(&key)).await.status == 200
    })
    .await;

    // under the load: only answers and 503s; every party answered 201 exists, and any other
    // is one answered 503 whose commit went through as its connection broke (a client that
    // must retry cannot tell; a party never sent cannot appear)
    loading.cancel();
    let mut created = std::collections::BTreeSet::new();
    let mut refused = std::collections::BTreeSet::new();
    let mut statuses = std::collections::BTreeMap::<u16, usize>::new();
    for loader in loaders {
        for (status, name) in loader.await.unwrap() {
            *statuses.entry(status).or_default() += 1;
            match (status, name) {
                (201, Some(name)) => created.insert(name),
                (_, Some(name)) => refused.insert(name),
                _ => false,
            };
        }
    }
    assert!(
        statuses.keys().all(|s| [200, 201, 503].contains(s)),
        "{statuses:?}"
    );
    assert!(statuses.get(&503).is_some_and(|n| *n > 0), "{statuses:?}");
    let mut stored = std::collections::BTreeSet::new();
    let mut next = Some("/v2/parties?page[size]=100".to_string());
    while let Some(page) = next.take() {
        let listed = app.get(&page, Some(&key)).await.json();
        for p in listed["data"].as_array().unwrap() {
            stored.insert(
                p["attributes"]["company_name"]
                    .as_str()
                    .unwrap()
                    .to_string(),
            );
        }
        next = listed["links"]["next"].as_str().map(str::to_string);
    }
    assert!(
        created.is_subset(&stored),
        "every party answered 201 is kept"
    );
    assert!(
        stored.difference(&created).all(|n| refused.contains(n)),
        "no party that was not sent"
    );
}

/// The database goes away while a client polls once a second, with the pool waiting 15 s for
/// a connection: after the request that finds it away, every poll (REST, MCP, the console) is
/// a 503 answered at once, never the pool's wait (each request's client gives up after 5 s);
/// the server finds out by itself when the database is back, and the polls get their 200.
#[tokio::test]
async fn a_client_polling_while_the_database_is_away_is_answered_at_once() {
    let Some((proxy, _, _, app)) = behind_a_proxy_waiting(Duration::from_secs(15)).await else {
        return;
    };
    let (_, key) = app.account().await;
    let http = reqwest::Client::builder()
        .timeout(Duration::from_secs(5))
        .build()
        .unwrap();
    let poll = |path: &str| {
        http.get(format!("{}{path}", app.base))
            .header("Authorization", format!("Token {key}"))
            .send()
    };
    assert_eq!(poll("/v2/containers").await.unwrap().status(), 200);
    proxy.refuse().await;
    // the request that finds the database away waits for the pool (up to 15 s), then 503
    let first = reqwest::Client::new()
        .get(format!("{}/v2/containers", app.base))
        .header("Authorization", format!("Token {key}"))
        .send()
        .await
        .unwrap();
    assert_eq!(first.status(), 503);
    for path in [
        "/v2/containers",
        "/v2/shipments",
        "/console",
        "/v2/containers",
    ] {
        for _ in 0..2 {
            let r = poll(path)
                .await
                .unwrap_or_else(|e| panic!("{path}: not answered at once: {e}"));
            assert_eq!(r.status(), 503, "{path}");
            tokio::time::sleep(Duration::from_secs(1)).await;
        }
    }
    let mcp = http
        .post(format!("{}/mcp", app.base))
        .header("Authorization", format!("Bearer {key}"))
        .header("Content-Type", "application/json")
        .header("Accept", "application/json, text/event-stream")
        .body(r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#)
        .send()
        .await
        .expect("MCP answered at once");
    assert_eq!(mcp.status(), 503);
    proxy.listen_again().await.unwrap();
    let mut answers = Vec::new();
    for _ in 0..20 {
        let r = poll("/v2/containers")
            .await
            .unwrap_or_else(|e| panic!("not answered at once after the return: {e}"));
        answers.push(r.status().as_u16());
        if r.status() == 200 {
            break;
        }
        tokio::time::sleep(Duration::from_secs(1)).await;
    }
    assert_eq!(answers.last(), Some(&200), "{answers:?}");
    assert!(
        answers.iter().all(|s| [200, 503].contains(s)),
        "{answers:?}"
    );
}

/// PostgreSQL's disk fills: its writes fail with SQLSTATE 53100 (`disk_full`). The test makes
/// the server raise exactly that error on every write to the parties table and to webhook
/// notifications (a trigger; filling a real disk needs a file system of its own), and lifts
/// it. Refused writes are a 503 `storage_full` that changes nothing, reads go on, a delivery
/// whose outcome cannot be recorded meanwhile is recorded afterwards (not sent again), and
/// writes succeed again without a restart.
#[tokio::test]
async fn postgres_disk_full_is_a_503_storage_full_and_writes_resume() {
    let Some((_proxy, _, db, app)) = behind_a_proxy().await else {
        return;
    };
    let (_, key) = app.account().await;
    let party = |name: &str| {
        json!({"data": {"type": "party", "attributes": {"company_name": name}}}).to_string()
    };
    assert_eq!(
        app.post("/v2/parties", &key, MT, &party("Before"))
            .await
            .status,
        201
    );
    let Delivering { seen, gate, stop } = deliver_to_a_gated_receiver(&app, &key, &db).await;
    // one delivery is in flight when the disk fills
    gate.send_replace(false);
    append_succeeded(&db, uuid::Uuid::now_v7(), 1).await;
    until("a delivery in flight", || async {
        seen.lock().await.len() == 1
    })
    .await;

    // one statement at a time on one connection (Citus hands each DDL statement's text to
    // the workers, which take one command at a time)
    let full = |sql: &'static [&'static str]| {
        let db = db.clone();
        async move {
            boxtrack_store::on_db!(&db, p => {
                let mut c = p.acquire().await.unwrap();
                for s in sql {
                    sqlx::raw_sql(sqlx::AssertSqlSafe(*s)).execute(&mut *c).await.unwrap();
                }
            });
        }
    };
    full(&[
        // on Citus a trigger on a distributed table fires on its worker, and is allowed so;
        // plain PostgreSQL keeps the setting as an unused custom variable
        "SET citus.enable_unsafe_triggers = on",
        "CREATE FUNCTION disk_full() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN \
         RAISE EXCEPTION 'could not extend file: No space left on device' USING ERRCODE = 'disk_full'; END $$",
        "CREATE TRIGGER disk_full BEFORE INSERT OR UPDATE ON parties FOR EACH ROW EXECUTE FUNCTION disk_full()",
        "CREATE TRIGGER disk_full BEFORE UPDATE ON webhook_notifications FOR EACH ROW EXECUTE FUNCTION disk_full()",
    ])
    .await;
    gate.send_replace(true);
    let r = app.post("/v2/parties", &key, MT, &party("During")).await;
    let e = assert_error(&r, 503);
    assert_eq!(e["code"], "storage_full", "{}", r.text);
    let listed = app.get("/v2/parties", Some(&key)).await;
    assert_eq!(listed.status, 200, "reads go on");
    let names: Vec<String> = listed.json()["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            p["attributes"]["company_name"]
                .as_str()
                .unwrap()
                .to_string()
        })
        .collect();
    assert_eq!(names, ["Before"], "the refused write changed nothing");
    // the delivery's outcome cannot be recorded while the disk is full
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert_eq!(recorded(&app, &key).await, (1, 0));

    full(&[
        "SET citus.enable_unsafe_triggers = on",
        "DROP TRIGGER disk_full ON parties",
        "DROP TRIGGER disk_full ON webhook_notifications",
        "DROP FUNCTION disk_full()",
    ])
    .await;
    assert_eq!(
        app.post("/v2/parties", &key, MT, &party("After"))
            .await
            .status,
        201
    );
    until("the held outcome recorded", || async {
        recorded(&app, &key).await == (1, 1)
    })
    .await;
    stop.cancel();
    let seen = seen.lock().await;
    assert!(seen.values().all(|n| *n == 1), "not sent again: {seen:?}");
}
