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
    // the authorization server ignores what it does not know (RFC 6749 §3.1)
    let r = app
        .get("/.well-known/oauth-authorization-server?x=1", None)
        .await;
    assert_eq!(r.status, 200, "{}", r.text);
}
