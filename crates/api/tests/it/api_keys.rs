use serde_json::Value;

use crate::helpers::{TestApp, assert_error};

const MT: &str = "application/vnd.api+json";

#[tokio::test]
async fn accounts_never_see_each_others_keys() {
    let app = TestApp::spawn().await;
    let (a, key_a) = app.account().await;
    let (_, key_b) = app.account().await;
    let a_keys = boxtrack_store::keys::list_all(&app.db, a.id).await.unwrap();
    let a_key_id = a_keys[0].id;

    let own = app
        .get(&format!("/v2/api_keys/{a_key_id}"), Some(&key_a))
        .await;
    assert_eq!(own.status, 200, "{}", own.text);
    assert_eq!(own.json()["data"]["id"], a_key_id.to_string());

    assert_error(
        &app.get(&format!("/v2/api_keys/{a_key_id}"), Some(&key_b))
            .await,
        404,
    );
    assert_error(
        &app.delete(&format!("/v2/api_keys/{a_key_id}"), &key_b)
            .await,
        404,
    );
    let listed = app.get("/v2/api_keys", Some(&key_b)).await.json();
    assert_eq!(listed["meta"]["total"], 1);
    assert_ne!(listed["data"][0]["id"], a_key_id.to_string());
    // A is untouched
    assert_eq!(app.get("/v2/account", Some(&key_a)).await.status, 200);
    // malformed ids are "not found", never 500
    assert_error(&app.get("/v2/api_keys/not-a-uuid", Some(&key_a)).await, 404);
}

#[tokio::test]
async fn create_shows_the_key_once_and_it_works() {
    let app = TestApp::spawn().await;
    let (_, key) = app.account().await;
    let r = app
        .post(
            "/v2/api_keys",
            &key,
            MT,
            r#"{"data":{"type":"api_key","attributes":{"name":"ci"}}}"#,
        )
        .await;
    assert_eq!(r.status, 201, "{}", r.text);
    let doc = r.json();
    let new_key = doc["data"]["attributes"]["key"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(new_key.starts_with("btk_"));
    assert_eq!(doc["data"]["attributes"]["name"], "ci");
    assert_eq!(
        doc["data"]["links"]["self"],
        format!("/v2/api_keys/{}", doc["data"]["id"].as_str().unwrap())
    );
    let id = doc["data"]["id"].as_str().unwrap();
    uuid::Uuid::parse_str(id).unwrap();
    assert!(
        doc["data"]["attributes"]["created_at"]
            .as_str()
            .unwrap()
            .ends_with('Z')
    );

    // it authenticates, and is never shown again
    let shown = app.get(&format!("/v2/api_keys/{id}"), Some(&new_key)).await;
    assert_eq!(shown.status, 200);
    assert!(shown.json()["data"]["attributes"].get("key").is_none());
    assert!(
        !app.get("/v2/api_keys", Some(&key))
            .await
            .text
            .contains(&new_key)
    );

    // plain application/json is accepted too
    let r = app
        .post(
            "/v2/api_keys",
            &key,
            "application/json",
            r#"{"data":{"type":"api_key"}}"#,
        )
        .await;
    assert_eq!(r.status, 201, "{}", r.text);

    // a null name is not a missing one: 422 naming it, and no key made
    let before = app.get("/v2/api_keys", Some(&key)).await.json()["meta"]["total"].clone();
    let r = app
        .post(
            "/v2/api_keys",
            &key,
            MT,
            r#"{"data":{"type":"api_key","attributes":{"name":null}}}"#,
        )
        .await;
    let e = assert_error(&r, 422);
    assert_eq!(e["source"]["pointer"], "/data/attributes/name");
    let after = app.get("/v2/api_keys", Some(&key)).await.json()["meta"]["total"].clone();
    assert_eq!(before, after);
}

#[tokio::test]
async fn include_embeds_the_account_and_unknown_includes_are_400() {
    let app = TestApp::spawn().await;
    let (account, key) = app.account().await;
    let doc = app
        .get("/v2/api_keys?include=account", Some(&key))
        .await
        .json();
    let rel = &doc["data"][0]["relationships"]["account"]["data"];
    assert_eq!(rel["type"], "account");
    assert_eq!(rel["id"], account.id.to_string());
    assert_eq!(doc["included"][0]["type"], "account");
    assert_eq!(doc["included"][0]["id"], account.id.to_string());

    let e = assert_error(
        &app.get("/v2/api_keys?include=owner", Some(&key)).await,
        400,
    );
    assert_eq!(e["source"]["parameter"], "include");
    assert!(e["detail"].as_str().unwrap().contains("owner"));
}

fn ids(doc: &Value) -> Vec<String> {
    doc["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["id"].as_str().unwrap().to_string())
        .collect()
}

#[tokio::test]
async fn pages_follow_links_with_cursors_and_agree_with_page_numbers() {
    let app = TestApp::spawn().await;
    let (account, key) = app.account().await;
    for i in 0..6 {
        boxtrack_store::keys::create(&app.db, account.id, Some(&format!("k{i}")))
            .await
            .unwrap();
    }
    let all: Vec<String> = boxtrack_store::keys::list_all(&app.db, account.id)
        .await
        .unwrap()
        .iter()
        .map(|k| k.id.to_string())
        .collect();
    assert_eq!(all.len(), 7);

    let first = app.get("/v2/api_keys?page[size]=3", Some(&key)).await;
    assert_eq!(first.status, 200, "{}", first.text);
    let doc = first.json();
    assert_eq!(doc["meta"]["size"], 3);
    assert_eq!(doc["meta"]["total"], 7);
    let links = &doc["links"];
    for name in ["self", "current", "first", "next", "last"] {
        assert!(
            links[name].as_str().unwrap().starts_with(&app.base),
            "{name}: {links}"
        );
    }
    assert!(links.get("prev").is_none());
    assert!(links["last"].as_str().unwrap().contains("page[number]=3"));
    assert!(links["next"].as_str().unwrap().contains("page[number]=2"));
    assert!(links["next"].as_str().unwrap().contains("page[size]=3"));

    // walk forward by links.next
    let mut seen = ids(&doc);
    let mut next = links["next"].as_str().map(str::to_string);
    let mut pages = vec![doc.clone()];
    while let Some(url) = next {
        let d = app.get(&url, Some(&key)).await.json();
        seen.extend(ids(&d));
        next = d["links"]["next"].as_str().map(str::to_string);
        pages.push(d);
    }
    assert_eq!(seen, all, "newest first, each key once");
    assert_eq!(pages.len(), 3);

    // page numbers without cursors give the same pages
    let by_number = app
        .get("/v2/api_keys?page[number]=2&page[size]=3", Some(&key))
        .await
        .json();
    assert_eq!(ids(&by_number), ids(&pages[1]));

    // walking back by links.prev from the last page
    let back = app
        .get(pages[2]["links"]["prev"].as_str().unwrap(), Some(&key))
        .await
        .json();
    assert_eq!(ids(&back), ids(&pages[1]));

    // beyond the last page: empty, still well-formed
    let beyond = app
        .get("/v2/api_keys?page[number]=9&page[size]=3", Some(&key))
        .await
        .json();
    assert_eq!(beyond["data"].as_array().unwrap().len(), 0);
    assert!(beyond["links"].get("next").is_none());
}

#[tokio::test]
async fn bad_page_parameters_are_400_naming_the_parameter() {
    let app = TestApp::spawn().await;
    let (_, key) = app.account().await;
    for (q, param) in [
        ("page[size]=101", "page[size]"),
        ("page[size]=0", "page[size]"),
        ("page[number]=-1", "page[number]"),
        ("page[number]=abc", "page[number]"),
        ("page[after]=garbage", "page[after]"),
    ] {
        let e = assert_error(
            &app.get(&format!("/v2/api_keys?{q}"), Some(&key)).await,
            400,
        );
        assert_eq!(e["source"]["parameter"], param, "{q}");
    }
    assert_eq!(
        app.get("/v2/api_keys?page[size]=100", Some(&key))
            .await
            .status,
        200
    );
}

#[tokio::test]
async fn publishable_keys_are_made_listed_and_revoked_by_api() {
    use boxtrack_core::plan::{Entitlement, Plan};
    use boxtrack_core::ratelimit::Limits;
    let app = TestApp::spawn().await;
    let (_, plain) = app.account().await;
    let body = r#"{"data":{"type":"publishable_key","attributes":{"name":"shop","allowed_origins":["https://Shop.Example.com/","https://shop.example.com"]}}}"#;
    // the widget entitlement is needed
    let e = assert_error(
        &app.post("/v2/publishable_keys", &plain, MT, body).await,
        403,
    );
    assert_eq!(e["code"], "entitlement_required");

    let (_, key) = app
        .account_with(Plan::Standard, &[Entitlement::Widget], Limits::default())
        .await;
    let r = app.post("/v2/publishable_keys", &key, MT, body).await;
    assert_eq!(r.status, 201, "{}", r.text);
    let made = r.json();
    let attrs = &made["data"]["attributes"];
    let secret = attrs["key"].as_str().unwrap_or_default().to_string();
    assert!(secret.starts_with("btp_"), "{made}");
    assert_eq!(
        attrs["allowed_origins"],
        serde_json::json!(["https://shop.example.com"])
    );
    let id = made["data"]["id"].as_str().unwrap().to_string();

    // the key authenticates (the embeds' check), and is never shown again
    let parsed = boxtrack_core::apikey::PublishableKey::parse(&secret).unwrap();
    let live = boxtrack_store::publishable::authenticate(&app.db, &parsed)
        .await
        .unwrap();
    assert_eq!(
        live.map(|(_, origins, _)| origins),
        Some(vec!["https://shop.example.com".to_string()])
    );
    let listed = app.get("/v2/publishable_keys", Some(&key)).await.json();
    assert_eq!(listed["meta"]["total"], 1, "{listed}");
    assert!(listed["data"][0]["attributes"].get("key").is_none());
    let one = app
        .get(&format!("/v2/publishable_keys/{id}"), Some(&key))
        .await;
    assert_eq!(one.status, 200, "{}", one.text);
    // another account sees none of it
    assert_error(
        &app.get(&format!("/v2/publishable_keys/{id}"), Some(&plain))
            .await,
        404,
    );
    assert_error(
        &app.delete(&format!("/v2/publishable_keys/{id}"), &plain)
            .await,
        404,
    );

    // a bad origin changes nothing
    let bad = r#"{"data":{"type":"publishable_key","attributes":{"allowed_origins":["shop.example.com/path"]}}}"#;
    let e = assert_error(&app.post("/v2/publishable_keys", &key, MT, bad).await, 422);
    assert_eq!(e["source"]["pointer"], "/data/attributes/allowed_origins");
    let listed = app.get("/v2/publishable_keys", Some(&key)).await.json();
    assert_eq!(listed["meta"]["total"], 1);

    // revoked: refused by the widget from then on
    let r = app
        .delete(&format!("/v2/publishable_keys/{id}"), &key)
        .await;
    assert_eq!(r.status, 200, "{}", r.text);
    assert!(r.json()["data"]["attributes"]["revoked_at"].is_string());
    let live = boxtrack_store::publishable::authenticate(&app.db, &parsed)
        .await
        .unwrap();
    assert!(live.is_none());
}

/// A key may carry an expiry: it shows it, and past it the key is refused as a revoked key
/// is; an expiry in the past or not a time is a 422 and makes nothing.
#[tokio::test]
async fn a_key_with_an_expiry_is_refused_once_past_it() {
    let app = TestApp::spawn().await;
    let (account, key) = app.account().await;
    let r = app
        .post(
            "/v2/api_keys",
            &key,
            MT,
            r#"{"data":{"type":"api_key","attributes":{"name":"q1","expires_at":"2099-01-01T00:00:00Z"}}}"#,
        )
        .await;
    let e = assert_error(&r, 422);
    assert_eq!(e["source"]["pointer"], "/data/attributes/expires_at");
    for bad in ["2001-01-01", "next week"] {
        let body =
            format!(r#"{{"data":{{"type":"api_key","attributes":{{"expires_at":"{bad}"}}}}}}"#);
        let r = app.post("/v2/api_keys", &key, MT, &body).await;
        assert_error(&r, 422);
    }
    let in_a_month =
        boxtrack_core::time::format_micros(boxtrack_store::now_us() + 30 * 86_400_000_000);
    let body = format!(
        r#"{{"data":{{"type":"api_key","attributes":{{"name":"q1","expires_at":"{in_a_month}"}}}}}}"#
    );
    let r = app.post("/v2/api_keys", &key, MT, &body).await;
    assert_eq!(r.status, 201, "{}", r.text);
    let made = r.json();
    assert_eq!(
        made["data"]["attributes"]["expires_at"],
        in_a_month.as_str()
    );
    let fresh = made["data"]["attributes"]["key"]
        .as_str()
        .unwrap()
        .to_string();
    assert_eq!(app.get("/v2/api_keys", Some(&fresh)).await.status, 200);

    // one that expired a moment ago is refused like a revoked one
    let (_, expired) = boxtrack_store::keys::create_expiring(
        &app.db,
        account.id,
        Some("old"),
        Some(boxtrack_store::now_us() - 1),
    )
    .await
    .unwrap();
    let r = app.get("/v2/api_keys", Some(expired.expose())).await;
    assert_error(&r, 401);
}
