//! On a Citus coordinator (`DATABASE_URL` naming one, as `scripts/citus-test.sh` runs): each
//! statement of one account's requests and ingest goes to one shard (a router query). The
//! served pool sets `citus.multi_task_query_log_level = error`, so a statement that Citus
//! would send to more than one shard fails instead of running, and the request that made it
//! answers 503: every 2xx below is a request whose statements each ran on one shard.

use boxtrack_api::Limiter;
use boxtrack_store::Db;
use serde_json::json;

use crate::helpers::*;

const MT: &str = "application/vnd.api+json";

#[tokio::test]
async fn one_accounts_requests_and_ingest_each_run_on_one_shard() {
    let (db, database) = fresh_db().await;
    let Db::Postgres(pool) = &db else {
        eprintln!("skipped: DATABASE_URL is not PostgreSQL");
        return;
    };
    if !boxtrack_store::citus::on_citus(pool) {
        eprintln!("skipped: DATABASE_URL is not a Citus coordinator");
        return;
    }
    // the test database's URL carries its schema as a connection option; this adds another
    let strict_url = format!(
        "{}%20-c%20citus.multi_task_query_log_level%3Derror",
        database.url
    );
    let strict = Db::connect(&strict_url).await.unwrap();
    let mut app = TestApp::spawn_on(strict.clone(), Limiter::database(strict)).await;
    app.keep(database);
    // two accounts, so that a statement missing its account would find two shards' rows
    let (a, key) = app.account().await;
    let (b, _) = app.account().await;
    // tracked as the worker does it, whose due-polls pass crosses the accounts (not checked)
    let worker = TestApp::spawn_on(db.clone(), Limiter::memory()).await;
    for account in [a.id, b.id] {
        worker
            .track_directly(account, "MRSU4371639", "MAEU", "KRPUS", "MXZLO")
            .await;
    }
    let ok = |what: &str, r: &Resp| {
        assert!(
            (200..300).contains(&r.status),
            "{what}: {} {}",
            r.status,
            r.text
        );
    };

    let tracked = app
        .post(
            "/v2/tracking_requests",
            &key,
            MT,
            &json!({"data": {"type": "tracking_request", "attributes": {"request_number": "MAEU240000001", "request_type": "bill_of_lading", "scac": "MAEU"}}}).to_string(),
        )
        .await;
    ok("track", &tracked);
    let edi = crate::ingest::fixture("315/004010_315_singleline_hamsud-krpus-mxzlo.edi");
    let ingested = crate::ingest::ingest(&app, &key, &edi).await;
    ok("ingest", &ingested);
    assert_eq!(
        ingested.json()["data"]["attributes"]["containers_matched"],
        json!(["MRSU4371639"])
    );

    let db_ = app.db.clone();
    let (id, shipment) = match &db_ {
        Db::Postgres(p) => sqlx::query_as::<_, (uuid::Uuid, uuid::Uuid)>(
            "SELECT id, shipment_id FROM containers WHERE account_id = $1",
        )
        .bind(a.id)
        .fetch_one(p)
        .await
        .unwrap(),
        Db::Sqlite(..) => unreachable!(),
    };
    let request = tracked.json()["data"]["id"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    // every read, each failure named (a statement that fans out answers 500 here)
    let mut fanned = Vec::new();
    for path in [
        format!("/v2/containers/{id}"),
        format!("/v2/containers/{id}?include=shipment,pod_terminal"),
        format!("/v2/containers/{id}/transport_events"),
        format!("/v2/containers/{id}/raw_events"),
        format!("/v2/containers/{id}/field_sources"),
        format!("/v2/containers/{id}/entries"),
        format!("/v2/containers/{id}/charges"),
        format!("/v2/shipments/{shipment}"),
        format!("/v2/tracking_requests/{request}"),
        "/v2/charges/summary".to_string(),
        "/v2/containers".to_string(),
        "/v2/containers?filter[held]=customs".to_string(),
        "/v2/shipments".to_string(),
        "/v2/shipments?include=containers".to_string(),
        "/v2/tracking_requests".to_string(),
        "/v2/account".to_string(),
        "/v2/parties".to_string(),
        "/v2/webhook_notifications".to_string(),
        "/v2/custom_field_definitions".to_string(),
    ] {
        let r = app
            .client
            .get(app.url(&path))
            .header("Authorization", format!("Token {key}"))
            .send()
            .await
            .unwrap();
        if !r.status().is_success() {
            fanned.push(format!("{path}: {}", r.status()));
        }
    }
    // Citus 13.2 routes a statement whose correlated subquery or lateral join reaches a
    // second account table to one shard only when that subquery names the account itself
    // (`reads::SHIPMENT_COLUMNS`); with the account only in the outer WHERE it asks every shard
    assert!(
        fanned.is_empty(),
        "these read more than one shard: {fanned:#?}"
    );
    let hook = app
        .post(
            "/v2/webhooks",
            &key,
            MT,
            &json!({"data": {"type": "webhook", "attributes": {"url": "https://example.com/hook"}}})
                .to_string(),
        )
        .await;
    ok("make a webhook", &hook);
    ok("list webhooks", &app.get("/v2/webhooks", Some(&key)).await);
    let party = app
        .post(
            "/v2/parties",
            &key,
            MT,
            &json!({"data": {"type": "party", "attributes": {"company_name": "Acme"}}}).to_string(),
        )
        .await;
    ok("make a party", &party);
    // a person's entry reads the container as its show does, and writes through the merge
    let entry = app
        .client
        .patch(app.url(&format!("/v2/containers/{id}")))
        .header("Authorization", format!("Token {key}"))
        .header("Content-Type", MT)
        .body(
            json!({"data": {"type": "container", "id": id, "attributes": {"pickup_lfd": "2022-11-30T00:00:00Z"}}})
                .to_string(),
        )
        .send()
        .await
        .unwrap();
    assert!(
        entry.status().is_success(),
        "a person's entry: {}",
        entry.status()
    );
}

/// On Citus the readiness probe names each worker node and whether the coordinator reaches
/// it, and `/metrics` has `boxtrack_citus_worker_up` for each; elsewhere neither appears.
#[tokio::test]
async fn readiness_and_metrics_name_the_citus_workers() {
    let app = TestApp::spawn().await;
    let on_citus = matches!(&app.db, Db::Postgres(p) if boxtrack_store::citus::on_citus(p));
    let ready = app.get("/readyz", None).await;
    assert_eq!(ready.status, 200, "{}", ready.text);
    let workers = ready.json()["workers"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    let metrics = app.send(app.client.get(app.url("/metrics"))).await.text;
    if !on_citus {
        assert!(workers.is_empty(), "{}", ready.text);
        assert!(!metrics.contains("boxtrack_citus_worker_up"));
        return;
    }
    // the local cluster of ../shared/citus has two workers
    assert!(workers.len() >= 2, "{}", ready.text);
    for w in &workers {
        assert_eq!(w["reachable"], true, "{w}");
        let node = w["node"].as_str().unwrap();
        assert!(
            metrics.contains(&format!("boxtrack_citus_worker_up{{node=\"{node}\"}} 1")),
            "{metrics}"
        );
    }
}
