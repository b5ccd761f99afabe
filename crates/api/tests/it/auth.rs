use crate::helpers::{TestApp, assert_error};

#[tokio::test]
async fn missing_malformed_unknown_and_wrong_scheme_keys_are_401() {
    let app = TestApp::spawn().await;
    let (_, key) = app.account().await;

    let r = app.get("/v2/account", None).await;
    let e = assert_error(&r, 401);
    assert!(e["detail"].as_str().unwrap().contains("Token"));

    for header in [
        format!("Bearer {key}"),
        "Token not-a-key".to_string(),
        format!("Token btk_{}", "0".repeat(48)),
        "Token".to_string(),
    ] {
        let r = app
            .send(
                app.client
                    .get(app.url("/v2/account"))
                    .header("Authorization", header.clone()),
            )
            .await;
        assert_error(&r, 401);
    }

    let ok = app.get("/v2/account", Some(&key)).await;
    assert_eq!(ok.status, 200, "{}", ok.text);
    assert_eq!(
        ok.header("content-type").as_deref(),
        Some("application/vnd.api+json")
    );
    let doc = ok.json();
    assert_eq!(doc["data"]["type"], "account");
    assert_eq!(doc["data"]["attributes"]["rate_limits"]["default"], 100);
}

#[tokio::test]
async fn revoked_keys_stop_working_at_once() {
    let app = TestApp::spawn().await;
    let (account, key) = app.account().await;
    let (record, second) = boxtrack_store::keys::create(&app.db, account.id, Some("second"))
        .await
        .unwrap();
    let second = second.expose().to_string();
    assert_eq!(app.get("/v2/account", Some(&second)).await.status, 200);

    // revoke the second key with the first
    let r = app
        .delete(&format!("/v2/api_keys/{}", record.id), &key)
        .await;
    assert_eq!(r.status, 200, "{}", r.text);
    assert!(r.json()["data"]["attributes"]["revoked_at"].is_string());
    assert_error(&app.get("/v2/account", Some(&second)).await, 401);

    // the operator path (CLI) revokes too
    boxtrack_store::keys::revoke(
        &app.db,
        boxtrack_store::keys::list_all(&app.db, account.id)
            .await
            .unwrap()
            .last()
            .unwrap()
            .id,
        None,
    )
    .await
    .unwrap();
    // another path than this process's own: trusted at most a second more
    tokio::time::sleep(boxtrack_http::keycache::FRESH + std::time::Duration::from_millis(100))
        .await;
    assert_error(&app.get("/v2/account", Some(&key)).await, 401);
}

/// Two processes on one database: a key revoked through one stops working there at once and
/// in the other within a second (each trusts what it read for at most that long).
#[tokio::test]
async fn a_revoked_key_stops_working_in_every_process_within_a_second() {
    let (db, database) = crate::helpers::fresh_db().await;
    let other_pool = boxtrack_store::Db::connect(&database.url).await.unwrap();
    let one = TestApp::spawn_on(db.clone(), boxtrack_api::Limiter::memory()).await;
    let two = TestApp::spawn_on(other_pool, boxtrack_api::Limiter::memory()).await;
    let (account, key) = one.account().await;
    let (record, second) = boxtrack_store::keys::create(&db, account.id, Some("second"))
        .await
        .unwrap();
    let second = second.expose().to_string();
    assert_eq!(one.get("/v2/account", Some(&second)).await.status, 200);
    assert_eq!(two.get("/v2/account", Some(&second)).await.status, 200);
    let r = one
        .delete(&format!("/v2/api_keys/{}", record.id), &key)
        .await;
    assert_eq!(r.status, 200, "{}", r.text);
    assert_error(&one.get("/v2/account", Some(&second)).await, 401);
    tokio::time::sleep(boxtrack_http::keycache::FRESH + std::time::Duration::from_millis(100))
        .await;
    assert_error(&two.get("/v2/account", Some(&second)).await, 401);
    // the first key still works in both
    assert_eq!(two.get("/v2/account", Some(&key)).await.status, 200);
}

#[test]
fn entitlement_checks_name_the_entitlement() {
    use boxtrack_core::plan::{Entitlement, Plan};
    use boxtrack_http::Caller;
    let account = boxtrack_store::accounts::Account {
        id: uuid::Uuid::now_v7(),
        name: "x".into(),
        plan: Plan::Free,
        entitlements: vec![Entitlement::Routing],
        rate_limits: Default::default(),
        operator: false,
        created_us: 0,
        updated_us: 0,
    };
    let caller = Caller {
        key_id: uuid::Uuid::now_v7(),
        account: std::sync::Arc::new(account),
    };
    assert!(caller.require(Entitlement::Routing).is_ok());
    let e = caller.require(Entitlement::ContainerRefresh).unwrap_err();
    assert_eq!(e.status().as_u16(), 403);
    assert!(
        e.errors()[0]
            .detail
            .as_deref()
            .unwrap()
            .contains("container_refresh")
    );
    assert_eq!(e.errors()[0].code.as_deref(), Some("entitlement_required"));
}
