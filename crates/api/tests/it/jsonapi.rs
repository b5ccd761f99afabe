use serde_json::json;

use crate::helpers::{TestApp, assert_error};

const MT: &str = "application/vnd.api+json";

async fn key_count(app: &TestApp, key: &str) -> u64 {
    app.get("/v2/api_keys", Some(key)).await.json()["meta"]["total"]
        .as_u64()
        .unwrap()
}

#[tokio::test]
async fn wrong_media_types_are_415_and_write_nothing() {
    let app = TestApp::spawn().await;
    let (_, key) = app.account().await;
    for ct in [
        "text/plain",
        "application/x-www-form-urlencoded",
        "application/vnd.api+json; charset=utf-8",
    ] {
        let r = app
            .post("/v2/api_keys", &key, ct, r#"{"data":{"type":"api_key"}}"#)
            .await;
        assert_error(&r, 415);
    }
    let r = app
        .send(
            app.client
                .post(app.url("/v2/api_keys"))
                .header("Authorization", format!("Token {key}"))
                .body(r#"{"data":{"type":"api_key"}}"#),
        )
        .await;
    assert_error(&r, 415);
    assert_eq!(key_count(&app, &key).await, 1);
}

#[tokio::test]
async fn malformed_bodies_are_400_naming_the_problem_and_write_nothing() {
    let app = TestApp::spawn().await;
    let (_, key) = app.account().await;
    let cases = [
        (r#"{"data": {"type": "api_key""#, "/"),
        ("not json at all", "/"),
        (
            r#"{"data":{"type":"api_key","attributes":{"name":7}}}"#,
            "/data/attributes/name",
        ),
        (r#"{"data":{"attributes":{}}}"#, "/data"),
        (
            r#"{"data":{"type":"api_key","attributes":{"colour":"red"}}}"#,
            "/data/attributes/colour",
        ),
        (r#"{"data":{"type":"api_key"}} {"again":1}"#, "/"),
        ("", "/"),
    ];
    for (body, pointer) in cases {
        let r = app.post("/v2/api_keys", &key, MT, body).await;
        let e = assert_error(&r, 400);
        assert_eq!(e["source"]["pointer"], pointer, "{body}: {}", r.text);
        assert!(!e["detail"].as_str().unwrap().is_empty());
    }
    // well-formed but rejected content is 422 with a pointer and a code
    let r = app
        .post("/v2/api_keys", &key, MT, r#"{"data":{"type":"webhook"}}"#)
        .await;
    let e = assert_error(&r, 422);
    assert_eq!(e["source"]["pointer"], "/data/type");
    let r = app
        .post(
            "/v2/api_keys",
            &key,
            MT,
            r#"{"data":{"type":"api_key","attributes":{"name":"  "}}}"#,
        )
        .await;
    let e = assert_error(&r, 422);
    assert_eq!(e["source"]["pointer"], "/data/attributes/name");
    assert_eq!(key_count(&app, &key).await, 1);
}

#[tokio::test]
async fn unknown_routes_and_methods_answer_json_api_errors() {
    let app = TestApp::spawn().await;
    let (_, key) = app.account().await;
    assert_error(&app.get("/v2/nothing-here", Some(&key)).await, 404);
    let r = app
        .send(
            app.client
                .put(app.url("/v2/api_keys"))
                .header("Authorization", format!("Token {key}")),
        )
        .await;
    assert_error(&r, 405);
}

/// A query parameter an operation does not take is a 400 naming it, not ignored: a mistyped
/// filter must not answer every container. The key is never echoed.
#[tokio::test]
async fn unknown_query_parameters_are_400_naming_them() {
    let app = TestApp::spawn().await;
    let (_, key) = app.account().await;
    let r = app
        .get("/v2/containers?filter[curent_status]=available", Some(&key))
        .await;
    let e = assert_error(&r, 400);
    assert_eq!(e["source"]["parameter"], "filter[curent_status]");
    assert!(!r.text.contains(&key));
    let detail = e["detail"].as_str().unwrap();
    assert!(detail.contains("filter[current_status]"), "{detail}");
    // what the operation takes is accepted
    let ok = app
        .get(
            "/v2/containers?filter[current_status]=available&page[size]=5",
            Some(&key),
        )
        .await;
    assert_eq!(ok.status, 200, "{}", ok.text);
    // an operation that takes none refuses any
    let e = assert_error(&app.get("/v2/account?x=1", Some(&key)).await, 400);
    assert_eq!(e["source"]["parameter"], "x");
}

/// Totals cost the same however large the account grows (issue 25, target 2): an unfiltered
/// list reads the account's maintained count (exact, kept by triggers), a filtered one counts
/// at most `COUNT_CAP` rows and past that says its total is a lower bound, gives no `last`
/// page, and still links to the next page.
#[tokio::test]
async fn totals_are_maintained_or_capped_not_counted_per_request() {
    let app = TestApp::spawn().await;
    let (account, key) = app.account().await;
    let (other, other_key) = app.account().await;
    let n = boxtrack_store::list::COUNT_CAP as usize + 10;
    crate::helpers::resolve_bill_of_lading(
        &app.db,
        account.id,
        "MEDUJ0000077",
        crate::helpers::blank_containers(n, 0),
    )
    .await;
    crate::helpers::resolve_bill_of_lading(
        &app.db,
        other.id,
        "MEDUJ0000078",
        crate::helpers::blank_containers(3, 0),
    )
    .await;
    // the maintained counts agree with the rows
    for (id, expected) in [(account.id, n as i64), (other.id, 3)] {
        let counted: i64 = boxtrack_store::on_db!(&app.db, p => sqlx::query_scalar(
            "SELECT n FROM account_counts WHERE account_id = $1 AND resource = 'containers'")
            .bind(id).fetch_one(p).await.unwrap());
        let rows: i64 = boxtrack_store::on_db!(&app.db, p => sqlx::query_scalar(
            "SELECT COUNT(*) FROM containers WHERE account_id = $1")
            .bind(id).fetch_one(p).await.unwrap());
        assert_eq!((counted, rows), (expected, expected));
    }

    let all = app
        .get("/v2/containers?page[size]=100", Some(&key))
        .await
        .json();
    assert_eq!(all["meta"]["total"], n, "{}", all["meta"]);
    assert!(all["meta"].get("total_exact").is_none());
    assert_eq!(all["meta"]["pagination"]["last"], n.div_ceil(100));
    assert!(all["links"]["last"].is_string());
    let small = app.get("/v2/containers", Some(&other_key)).await.json();
    assert_eq!(small["meta"]["total"], 3);
    assert!(small["links"].get("next").is_none());

    // every container matches the filter: more than are counted per request
    let status = all["data"][0]["attributes"]["current_status"]
        .as_str()
        .unwrap()
        .to_string();
    let path = format!("/v2/containers?page[size]=100&filter[current_status]={status}");
    let filtered = app.get(&path, Some(&key)).await.json();
    let meta = &filtered["meta"];
    assert_eq!(meta["total_exact"], false, "{meta}");
    assert!(meta["total"].as_u64().unwrap() >= boxtrack_store::list::COUNT_CAP);
    assert!(meta["pagination"].get("last").is_none(), "{meta}");
    assert!(filtered["links"].get("last").is_none());
    assert_eq!(filtered["data"].as_array().unwrap().len(), 100);
    // the next link leads on, to rows not seen yet
    let next = filtered["links"]["next"].as_str().unwrap();
    let rel = &next[next.find("/v2/").unwrap()..];
    let second = app.get(rel, Some(&key)).await.json();
    assert_eq!(second["data"].as_array().unwrap().len(), 100);
    assert_ne!(second["data"][0]["id"], filtered["data"][0]["id"]);
    assert!(second["links"]["prev"].is_string());
    // a filter that matches few is counted exactly
    let one = app
        .get(
            &format!(
                "/v2/containers?filter[number]={}",
                all["data"][0]["attributes"]["number"].as_str().unwrap()
            ),
            Some(&key),
        )
        .await
        .json();
    assert_eq!(one["meta"]["total"], 1);
    assert!(one["meta"].get("total_exact").is_none());
}

/// What the served document says a request may be is what the service takes: a body of
/// another shape, or a typed query parameter written otherwise, is refused and changes
/// nothing (schemathesis found each of these accepted; docs/hardening.md).
#[tokio::test]
async fn requests_the_document_calls_invalid_are_refused() {
    let app = TestApp::spawn().await;
    let (_, key) = app.account().await;
    app.track_sandbox(&key, "TEST-SCN-IMPORT").await;
    let shipment = app.get("/v2/shipments", Some(&key)).await.json()["data"][0].clone();
    let id = shipment["id"].as_str().unwrap();

    // serde would read a struct from an array; the document says object
    for body in [
        r#"{"data": {"type": "shipment", "attributes": [null, null]}}"#,
        r#"{"data": {"type": "shipment", "attributes": {"ref_numbers": "PO-1"}}}"#,
    ] {
        let e = assert_error(
            &app.patch(&format!("/v2/shipments/{id}"), &key, body).await,
            400,
        );
        assert!(
            e["source"]["pointer"]
                .as_str()
                .unwrap()
                .starts_with("/data/attributes")
        );
    }
    let after = app
        .get(&format!("/v2/shipments/{id}"), Some(&key))
        .await
        .json();
    assert_eq!(after["data"]["attributes"], shipment["attributes"]);
    // every place of the wrong type is named
    let r = app
        .post("/v2/parties", &key, MT, r#"{"data": [1], "meta": 2}"#)
        .await;
    let body = r.json();
    assert_eq!(r.status, 400, "{body}");

    // a length limit counts what was sent, not what is left after trimming (found by
    // schemathesis: a 256-character file name that began with a space was accepted)
    let padded = format!(" {}", "a".repeat(255));
    let r = app
        .post(
            "/rails/active_storage/direct_uploads",
            &key,
            "application/json",
            &json!({"blob": {"filename": padded, "byte_size": 10, "checksum": "BJ/EpuoMC9B/xCA4UmFIeA=="}})
                .to_string(),
        )
        .await;
    assert_error(&r, 422);
    let r = app
        .post(
            "/v2/api_keys",
            &key,
            MT,
            &json!({"data": {"type": "api_key", "attributes": {"name": format!(" {}", "k".repeat(100))}}})
                .to_string(),
        )
        .await;
    assert_error(&r, 422);

    // typed query parameters are taken as written
    for (path, param) in [
        (
            "/v2/shipments?filter[tracking_stopped]=%20true",
            "filter[tracking_stopped]",
        ),
        (
            "/v2/shipments?filter[customer_id]=0193a2b4c5d6e7f8091a2b3c4d5e6f70",
            "filter[customer_id]",
        ),
        (
            "/v2/containers?filter[updated_at][start]=2026-01-01T00:00:00Z%20",
            "filter[updated_at][start]",
        ),
        (
            "/v2/containers?filter[current_status]=AVAILABLE",
            "filter[current_status]",
        ),
        (
            "/v2/tracking_requests?filter[status]=pending%20",
            "filter[status]",
        ),
        (
            "/v2/documents?filter[document_types]=arrival_notice,",
            "filter[document_types]",
        ),
        ("/v2/events?after=%2B5", "after"),
        ("/v2/api_keys?page[number]=%2B2", "page[number]"),
        // each cursor must be one, though page[after] is the one followed
        (
            "/v2/api_keys?page[after]=1.0193a2b4c5d6e7f8091a2b3c4d5e6f70&page[before]=k",
            "page[before]",
        ),
    ] {
        let e = assert_error(&app.get(path, Some(&key)).await, 400);
        assert_eq!(e["source"]["parameter"], param, "{path}");
    }
    for ok in [
        "/v2/shipments?filter[tracking_stopped]=true&filter[updated_at][start]=2026-01-01T00:00:00%2B01:00",
        "/v2/documents?filter[document_types]=arrival_notice,bill_of_lading",
        "/v2/api_keys?page[after]=1.0193a2b4c5d6e7f8091a2b3c4d5e6f70&page[before]=2.0193a2b4c5d6e7f8091a2b3c4d5e6f70",
    ] {
        assert_eq!(app.get(ok, Some(&key)).await.status, 200, "{ok}");
    }
}
