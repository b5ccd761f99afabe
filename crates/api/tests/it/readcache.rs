//! The read cache: `GET /v2/containers/{id}` and `GET /v2/shipments/{id}` are answered again
//! from memory until anything they show changes, whichever process or path changed it.

use std::time::Duration;

use boxtrack_api::{ApiConfig, Limiter};
use boxtrack_store::Db;
use boxtrack_store::accounts::{self, AccountChanges};
use serde_json::{Value, json};

use crate::helpers::*;

/// `boxtrack_read_cache_requests_total` by result: (hits, misses).
async fn counts(app: &TestApp) -> (u64, u64) {
    let m = app.get("/metrics", None).await.text;
    let read = |result: &str| {
        let prefix = format!("boxtrack_read_cache_requests_total{{result=\"{result}\"}} ");
        m.lines()
            .find_map(|l| l.strip_prefix(&prefix))
            .and_then(|n| n.trim().parse().ok())
            .unwrap_or_else(|| panic!("no {result} counter in {m}"))
    };
    (read("hit"), read("miss"))
}

/// Reads `path` until `done` holds for its document: on SQLite by the first read that starts
/// the feed's bound after the change; on PostgreSQL a change committed by another connection
/// is seen when its notification arrives.
async fn read_until(app: &TestApp, path: &str, key: &str, done: impl Fn(&Value) -> bool) -> Value {
    if !boxtrack_testkit::on_postgres() {
        tokio::time::sleep(2 * boxtrack_store::changes::SQLITE_BOUND).await;
    }
    for _ in 0..400 {
        let r = app.get(path, Some(key)).await;
        assert_eq!(r.status, 200, "{}", r.text);
        let doc = r.json();
        if done(&doc) {
            return doc;
        }
        assert!(
            boxtrack_testkit::on_postgres(),
            "SQLite answered a stale {path}: {doc}"
        );
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    panic!("{path} never showed the change");
}

/// On Citus the response cache is off (a worker cannot send the change feed's notifications
/// inside Citus's two-phase commit, docs/scaling.md): two reads of `path` are both rendered,
/// and neither counts as a hit or a miss. Says whether that was the case here.
async fn off_on_citus(app: &TestApp, db: &Db, path: &str, key: &str) -> bool {
    let Db::Postgres(pool) = db else {
        return false;
    };
    if !boxtrack_store::citus::on_citus(pool) {
        return false;
    }
    let first = app.get(path, Some(key)).await;
    assert_eq!(first.status, 200, "{}", first.text);
    assert_eq!(app.get(path, Some(key)).await.text, first.text);
    assert_eq!(counts(app).await, (0, 0), "no cache on Citus");
    true
}

#[tokio::test]
async fn cached_reads_follow_every_change_from_any_connection() {
    let (db, database) = fresh_db().await;
    let limiter = match db.backend() {
        boxtrack_store::Backend::Sqlite => Limiter::memory(),
        boxtrack_store::Backend::Postgres => Limiter::database(db.clone()),
    };
    let app = TestApp::spawn_on(db, limiter).await;
    // another process: its own pool on the same database
    let other = Db::connect(&database.url).await.unwrap();
    let (a, key) = app.account().await;
    let (b, _) = app.account().await;
    let id = app
        .track_directly(a.id, "MRSU4371639", "MAEU", "CNSHA", "USLAX")
        .await;
    let path = format!("/v2/containers/{id}?include=shipment");
    if off_on_citus(&app, &other, &path, &key).await {
        return;
    }

    let first = app.get(&path, Some(&key)).await;
    assert_eq!(first.status, 200, "{}", first.text);
    let again = app.get(&path, Some(&key)).await;
    assert_eq!(again.text, first.text);
    assert_eq!(counts(&app).await, (1, 1));
    let shipment = first.json()["data"]["relationships"]["shipment"]["data"]["id"]
        .as_str()
        .unwrap()
        .to_string();

    // a change through this process's API is seen by the very next read
    let r = app
        .patch(
            &format!("/v2/containers/{id}"),
            &key,
            r#"{"data":{"type":"container","attributes":{"ref_numbers":["PO-1"]}}}"#,
        )
        .await;
    assert_eq!(r.status, 200, "{}", r.text);
    let doc = app.get(&path, Some(&key)).await.json();
    assert_eq!(doc["data"]["attributes"]["ref_numbers"], json!(["PO-1"]));

    // a change by another process to the container, then to its shipment (included)
    let shipment_id: uuid::Uuid = shipment.parse().unwrap();
    boxtrack_store::tracking::update_container(&other, a.id, id, vec!["PO-2".into()])
        .await
        .unwrap();
    read_until(&app, &path, &key, |d| {
        d["data"]["attributes"]["ref_numbers"] == json!(["PO-2"])
    })
    .await;
    boxtrack_store::tracking::update_shipment(
        &other,
        a.id,
        shipment_id,
        Some(vec!["BK-9".into()]),
        None,
    )
    .await
    .unwrap();
    read_until(&app, &path, &key, |d| {
        d["included"][0]["attributes"]["ref_numbers"] == json!(["BK-9"])
    })
    .await;
    let shipment_path = format!("/v2/shipments/{shipment}");
    let s = app.get(&shipment_path, Some(&key)).await.json();
    assert_eq!(s["data"]["attributes"]["ref_numbers"], json!(["BK-9"]));

    // a merge by another process (on PostgreSQL it announces its account once and its
    // rows' triggers stay quiet)
    let holds = boxtrack_core::tracking::Observation {
        observed_us: boxtrack_store::now_us(),
        source: boxtrack_core::tracking::DataSource::Terminal,
        fact: boxtrack_core::tracking::Fact::Holds {
            holds: vec![boxtrack_core::tracking::Hold {
                name: "customs".into(),
                status: "hold".into(),
                description: None,
            }],
        },
        precision: Default::default(),
        upstream_id: None,
    };
    let changes = boxtrack_store::tracking::apply(&other, a.id, id, &[holds])
        .await
        .unwrap();
    assert!(!changes.is_empty());
    read_until(&app, &path, &key, |d| {
        d["data"]["attributes"]["holds_at_pod_terminal"][0]["name"] == json!("customs")
    })
    .await;

    // another account's change leaves this account's entries alone
    let (hits, _) = counts(&app).await;
    accounts::update(
        &other,
        b.id,
        AccountChanges {
            name: Some("Other Co".into()),
            ..Default::default()
        },
    )
    .await
    .unwrap();
    let doc = app.get(&path, Some(&key)).await.json();
    assert_eq!(doc["data"]["attributes"]["ref_numbers"], json!(["PO-2"]));
    assert_eq!(counts(&app).await.0, hits + 1);

    // a change to the account itself (what it may see) retires its entries
    accounts::update(
        &other,
        a.id,
        AccountChanges {
            name: Some("Renamed Co".into()),
            ..Default::default()
        },
    )
    .await
    .unwrap();
    let (hits, misses) = counts(&app).await;
    read_until(&app, &path, &key, |_| true).await;
    if !boxtrack_testkit::on_postgres() {
        assert_eq!(counts(&app).await, (hits, misses + 1));
    }
    drop(database);
}

#[tokio::test]
async fn no_budget_no_cache() {
    let (db, _database) = fresh_db().await;
    let app = TestApp::spawn_with(
        db.clone(),
        Limiter::memory(),
        ApiConfig {
            read_cache_bytes: 0,
            ..ApiConfig::default()
        },
    )
    .await;
    let (a, key) = app.account().await;
    let id = app
        .track_directly(a.id, "MRSU4371639", "MAEU", "CNSHA", "USLAX")
        .await;
    for _ in 0..3 {
        let r = app.get(&format!("/v2/containers/{id}"), Some(&key)).await;
        assert_eq!(r.status, 200, "{}", r.text);
    }
    assert_eq!(counts(&app).await, (0, 0));
}

#[tokio::test]
async fn cached_lists_follow_changes_and_name_the_address_asked() {
    let (db, _database) = fresh_db().await;
    let app = TestApp::spawn_on(db.clone(), Limiter::memory()).await;
    let (a, key) = app.account().await;
    let id = app
        .track_directly(a.id, "MRSU4371639", "MAEU", "CNSHA", "USLAX")
        .await;
    let list = "/v2/containers?page[size]=5";
    if off_on_citus(&app, &db, list, &key).await {
        return;
    }
    let first = app.get(list, Some(&key)).await;
    assert_eq!(first.status, 200, "{}", first.text);
    let (hits, misses) = counts(&app).await;
    assert_eq!(app.get(list, Some(&key)).await.text, first.text);
    assert_eq!(counts(&app).await, (hits + 1, misses));

    // the links name the address the client used: another Host is another entry
    let r = app
        .send(
            app.client
                .get(app.url(list))
                .header("Authorization", format!("Token {key}"))
                .header("Host", "track.example.com"),
        )
        .await;
    assert_eq!(r.status, 200, "{}", r.text);
    let self_link = r.json()["links"]["self"].as_str().unwrap_or("").to_string();
    assert!(
        self_link.starts_with("http://track.example.com/"),
        "{self_link}"
    );
    assert_ne!(r.text, first.text);

    // a change is seen by the next list read (this process's write), a second container too
    let r = app
        .patch(
            &format!("/v2/containers/{id}"),
            &key,
            r#"{"data":{"type":"container","attributes":{"ref_numbers":["PO-7"]}}}"#,
        )
        .await;
    assert_eq!(r.status, 200, "{}", r.text);
    let doc = app.get(list, Some(&key)).await.json();
    assert_eq!(doc["data"][0]["attributes"]["ref_numbers"], json!(["PO-7"]));
    app.track_directly(a.id, "MSCU1234566", "MSCU", "CNSHA", "USLAX")
        .await;
    let doc = read_until(&app, list, &key, |d| {
        d["data"].as_array().map(Vec::len) == Some(2)
    })
    .await;
    assert_eq!(doc["meta"]["total"], json!(2), "{doc}");
    let shipments = app.get("/v2/shipments", Some(&key)).await.json();
    assert_eq!(shipments["data"].as_array().map(Vec::len), Some(2));
}
