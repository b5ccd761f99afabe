use std::collections::BTreeSet;

use crate::helpers::TestApp;

/// `/metrics` says what an operator alerts on: requests waiting or failed, containers tracked
/// and gone quiet, and when a worker last completed a pass ("nothing is being collected").
#[tokio::test]
async fn metrics_say_what_is_tracked_and_when_the_worker_last_passed() {
    let app = TestApp::spawn().await;
    let (_, key) = app.account().await;
    let line = |text: &str, series: &str| -> Option<String> {
        text.lines()
            .find(|l| l.starts_with(series) && l[series.len()..].starts_with(' '))
            .map(|l| l[series.len() + 1..].to_string())
    };
    let m = app.get("/metrics", None).await.text;
    assert_eq!(
        line(&m, r#"boxtrack_tracking_requests{status="failed"}"#).as_deref(),
        Some("0"),
        "{m}"
    );
    assert_eq!(
        line(&m, "boxtrack_containers_tracked").as_deref(),
        Some("0"),
        "{m}"
    );
    assert!(
        line(&m, "boxtrack_worker_last_pass_timestamp_seconds").is_none(),
        "{m}"
    );

    let body = serde_json::json!({"data": {"type": "tracking_request", "attributes": {
        "request_number": "TEST-SCN-IMPORT", "request_type": "bill_of_lading", "scac": "TEST"}}})
    .to_string();
    let r = app
        .post(
            "/v2/tracking_requests",
            &key,
            "application/vnd.api+json",
            &body,
        )
        .await;
    assert_eq!(r.status, 201);
    let m = app.get("/metrics", None).await.text;
    assert_eq!(
        line(&m, r#"boxtrack_tracking_requests{status="pending"}"#).as_deref(),
        Some("1"),
        "{m}"
    );
    app.process().await;
    let m = app.get("/metrics", None).await.text;
    assert_eq!(
        line(&m, r#"boxtrack_tracking_requests{status="created"}"#).as_deref(),
        Some("1"),
        "{m}"
    );
    assert_eq!(
        line(&m, "boxtrack_containers_tracked").as_deref(),
        Some("1"),
        "{m}"
    );
    assert_eq!(
        line(&m, "boxtrack_containers_stale").as_deref(),
        Some("0"),
        "{m}"
    );

    // a box no source has touched for two days is stale
    let old = boxtrack_store::now_us() - 48 * 3_600_000_000;
    boxtrack_store::on_db!(&app.db, p => sqlx::query("UPDATE containers SET updated_us = $1")
        .bind(old).execute(p).await.map(|_| ()).unwrap());
    // a worker's pass, as its run loop records it
    boxtrack_store::gauges::record_worker_pass(&app.db, 1_800_000_000_000_000)
        .await
        .unwrap();
    boxtrack_store::gauges::record_worker_pass(&app.db, 1_700_000_000_000_000)
        .await
        .unwrap();
    let m = app.get("/metrics", None).await.text;
    assert_eq!(
        line(&m, "boxtrack_containers_stale").as_deref(),
        Some("1"),
        "{m}"
    );
    assert_eq!(
        line(&m, "boxtrack_worker_last_pass_timestamp_seconds").as_deref(),
        Some("1800000000.000"),
        "an older pass never moves it back: {m}"
    );
}

#[tokio::test]
async fn health_readiness_and_metrics() {
    let app = TestApp::spawn().await;
    let (_, key) = app.account().await;
    assert_eq!(app.get("/healthz", None).await.status, 200);
    let ready = app.get("/readyz", None).await;
    assert_eq!(ready.status, 200, "{}", ready.text);
    assert_eq!(ready.json()["database"], "ok");

    app.get("/v2/account", Some(&key)).await;
    app.get("/v2/account", None).await;
    let m = app.get("/metrics", None).await;
    assert_eq!(m.status, 200);
    assert!(m.header("content-type").unwrap().starts_with("text/plain"));
    assert!(
        m.text.contains(
            r#"boxtrack_http_requests_total{method="GET",route="/v2/account",status="200"} 1"#
        ),
        "{}",
        m.text
    );
    assert!(m.text.contains(
        r#"boxtrack_http_requests_total{method="GET",route="/v2/account",status="401"} 1"#
    ));
    assert!(
        m.text
            .contains(r#"boxtrack_http_request_duration_seconds_count{route="/v2/account"} 2"#)
    );
    assert!(
        m.text
            .contains("# TYPE boxtrack_rate_limited_total counter")
    );

    // a method a route does not take is counted by its route; a path no route matches is not
    // named (it could be anything a client sends)
    let r = app.send(app.client.delete(app.url("/healthz"))).await;
    assert_eq!(r.status, 405);
    assert_eq!(app.get("/v2/no-such-thing/7", None).await.status, 404);
    let m = app.get("/metrics", None).await;
    assert!(
        m.text.contains(
            r#"boxtrack_http_requests_total{method="DELETE",route="/healthz",status="405"} 1"#
        ),
        "{}",
        m.text
    );
    assert!(m.text.contains(
        r#"boxtrack_http_requests_total{method="GET",route="unmatched",status="404"} 1"#
    ));
    assert!(!m.text.contains("no-such-thing"));

    // a request id comes back on every response: a new UUID, or the one the client sent
    let made = app.get("/healthz", None).await;
    let made = made.header("x-request-id").unwrap();
    assert!(uuid::Uuid::parse_str(&made).is_ok(), "{made}");
    assert_ne!(
        app.get("/healthz", None).await.header("x-request-id"),
        Some(made)
    );
    let echoed = app
        .send(
            app.client
                .get(app.url("/v2/account"))
                .header("x-request-id", "client-trace-7"),
        )
        .await;
    assert_eq!(echoed.status, 401);
    assert_eq!(
        echoed.header("x-request-id").as_deref(),
        Some("client-trace-7")
    );

    // with the database gone, readiness says so while liveness stays up
    app.db.close().await;
    let r = app.get("/readyz", None).await;
    assert_eq!(r.status, 503);
    assert_eq!(r.json()["status"], "not_ready");
    assert_eq!(app.get("/healthz", None).await.status, 200);
}

/// Every documented operation exists (no route-miss 404 or 405), and every route of the
/// router is documented.
#[tokio::test]
async fn openapi_document_matches_the_router() {
    let app = TestApp::spawn().await;
    let (account, key) = app.account().await;
    let r = app.get("/v2/openapi.json", None).await;
    assert_eq!(r.status, 200);
    let doc = r.json();
    assert_eq!(doc["openapi"], "3.1.0");
    let key_id = boxtrack_store::keys::list_all(&app.db, account.id)
        .await
        .unwrap()[0]
        .id;

    let mut documented = BTreeSet::new();
    for (path, item) in doc["paths"].as_object().unwrap() {
        for (method, op) in item.as_object().unwrap() {
            documented.insert((method.to_uppercase(), path.clone()));
            assert!(
                op["summary"].as_str().is_some_and(|s| !s.is_empty()),
                "{method} {path}"
            );
            assert!(
                op["responses"].as_object().is_some_and(|r| !r.is_empty()),
                "{method} {path}"
            );
            // the public ones: the URL is the credential, or a signature in a header is
            let public = [
                ("put", "/v2/uploads/{token}"),
                ("get", "/v2/downloads/{token}"),
            ]
            .contains(&(method.as_str(), path.as_str()));
            // every operation says how it is authenticated
            assert!(
                op["security"].is_array(),
                "{method} {path} states no security"
            );
            if public {
                assert_eq!(op["security"], serde_json::json!([]), "{method} {path}");
            } else if path == "/v2/ingest/dcsa" {
                assert_eq!(
                    op["security"],
                    serde_json::json!([{"DcsaSignature": []}]),
                    "{method} {path}"
                );
            } else if path.starts_with("/console")
                && !path.starts_with("/console/assets/")
                && path != "/console/sign-in"
                && path != "/console/reference"
            {
                assert_eq!(
                    op["security"],
                    serde_json::json!([{"ConsoleSession": []}]),
                    "{method} {path}"
                );
            } else if (path.starts_with("/v2/") && path != "/v2/openapi.json")
                || path.starts_with("/rails/")
            {
                assert_eq!(
                    op["security"][0]["Token"],
                    serde_json::json!([]),
                    "{method} {path}"
                );
            }
            // DELETE last so it does not revoke the key used here; operations documented as
            // answering 405 on purpose (GET/DELETE /mcp) are not probed
            if method == "delete" || op["responses"].get("405").is_some() {
                continue;
            }
            let url = app.url(&path.replace("{id}", &key_id.to_string()));
            let req = match method.as_str() {
                "get" => app.client.get(url),
                "post" => app.client.post(url),
                "patch" => app.client.patch(url),
                "put" => app.client.put(url),
                other => panic!("unexpected method {other}"),
            };
            let req = req
                .header("Content-Type", "application/vnd.api+json")
                .body(if method == "get" { "" } else { "{}" });
            let res = app
                .send(req.header("Authorization", format!("Token {key}")))
                .await;
            let route_miss =
                res.status == 405 || (res.status == 404 && res.text.contains("No such endpoint"));
            assert!(
                !route_miss,
                "{method} {path} answered {}: {}",
                res.status, res.text
            );
        }
    }
    let expected: BTreeSet<(String, String)> = [
        ("GET", "/healthz"),
        ("GET", "/readyz"),
        ("GET", "/metrics"),
        ("GET", "/docs"),
        ("GET", "/v2/openapi.json"),
        ("GET", "/v2/account"),
        ("GET", "/v2/api_keys"),
        ("POST", "/v2/api_keys"),
        ("GET", "/v2/api_keys/{id}"),
        ("DELETE", "/v2/api_keys/{id}"),
        ("GET", "/v2/publishable_keys"),
        ("POST", "/v2/publishable_keys"),
        ("GET", "/v2/publishable_keys/{id}"),
        ("DELETE", "/v2/publishable_keys/{id}"),
        ("GET", "/v2/tracking_requests"),
        ("POST", "/v2/tracking_requests"),
        ("POST", "/v2/tracking_requests/infer_number"),
        ("GET", "/v2/tracking_requests/{id}"),
        ("PATCH", "/v2/tracking_requests/{id}"),
        ("GET", "/v2/shipments"),
        ("GET", "/v2/shipments/{id}"),
        ("PATCH", "/v2/shipments/{id}"),
        ("PATCH", "/v2/shipments/{id}/stop_tracking"),
        ("PATCH", "/v2/shipments/{id}/resume_tracking"),
        ("GET", "/v2/containers"),
        ("GET", "/v2/containers/{id}"),
        ("PATCH", "/v2/containers/{id}"),
        ("GET", "/v2/containers/{id}/transport_events"),
        ("GET", "/v2/containers/{id}/raw_events"),
        ("GET", "/v2/containers/{id}/field_sources"),
        ("GET", "/v2/containers/{id}/map_geojson"),
        ("POST", "/rails/active_storage/direct_uploads"),
        ("PUT", "/v2/uploads/{token}"),
        ("GET", "/v2/documents"),
        ("POST", "/v2/documents"),
        ("GET", "/v2/documents/types"),
        ("GET", "/v2/documents/{id}"),
        ("PATCH", "/v2/documents/{id}"),
        ("DELETE", "/v2/documents/{id}"),
        ("GET", "/v2/documents/{id}/download_url"),
        ("POST", "/v2/email_submissions"),
        ("GET", "/v2/email_submissions"),
        ("GET", "/v2/email_submissions/{id}"),
        ("POST", "/v2/documents/{id}/reclassify"),
        ("POST", "/v2/documents/{id}/relink"),
        ("GET", "/v2/downloads/{token}"),
        ("GET", "/v2/custom_field_definitions"),
        ("POST", "/v2/custom_field_definitions"),
        ("GET", "/v2/custom_field_definitions/{id}"),
        ("PATCH", "/v2/custom_field_definitions/{id}"),
        ("DELETE", "/v2/custom_field_definitions/{id}"),
        ("GET", "/v2/custom_field_definitions/{id}/options"),
        ("POST", "/v2/custom_field_definitions/{id}/options"),
        (
            "GET",
            "/v2/custom_field_definitions/{id}/options/{option_id}",
        ),
        (
            "PATCH",
            "/v2/custom_field_definitions/{id}/options/{option_id}",
        ),
        (
            "DELETE",
            "/v2/custom_field_definitions/{id}/options/{option_id}",
        ),
        ("GET", "/v2/custom_fields"),
        ("POST", "/v2/custom_fields"),
        ("GET", "/v2/custom_fields/{id}"),
        ("PATCH", "/v2/custom_fields/{id}"),
        ("DELETE", "/v2/custom_fields/{id}"),
        ("GET", "/v2/shipments/{id}/custom_fields"),
        ("POST", "/v2/shipments/{id}/custom_fields"),
        ("PATCH", "/v2/shipments/{id}/custom_fields/{api_slug}"),
        ("DELETE", "/v2/shipments/{id}/custom_fields/{api_slug}"),
        ("GET", "/v2/containers/{id}/custom_fields"),
        ("POST", "/v2/containers/{id}/custom_fields"),
        ("PATCH", "/v2/containers/{id}/custom_fields/{api_slug}"),
        ("DELETE", "/v2/containers/{id}/custom_fields/{api_slug}"),
        ("GET", "/v2/tracking_requests/{id}/custom_fields"),
        ("POST", "/v2/tracking_requests/{id}/custom_fields"),
        (
            "PATCH",
            "/v2/tracking_requests/{id}/custom_fields/{api_slug}",
        ),
        (
            "DELETE",
            "/v2/tracking_requests/{id}/custom_fields/{api_slug}",
        ),
        ("GET", "/v2/parties"),
        ("POST", "/v2/parties"),
        ("GET", "/v2/parties/{id}"),
        ("PATCH", "/v2/parties/{id}"),
        ("GET", "/v2/sandbox/scenarios"),
        ("GET", "/v2/shipping_lines"),
        ("GET", "/v2/shipping_lines/{id}"),
        ("GET", "/v2/ports/{id}"),
        ("GET", "/v2/terminals/{id}"),
        ("GET", "/v2/metro_areas/{id}"),
        ("GET", "/v2/vessels/{id}"),
        ("GET", "/v2/vessels/{id}/future_positions"),
        ("GET", "/v2/vessels/{id}/future_positions_with_coordinates"),
        ("GET", "/v2/search"),
        ("GET", "/v2/events"),
        ("GET", "/v2/webhook_notifications"),
        ("GET", "/v2/webhook_notifications/{id}"),
        ("GET", "/v2/webhooks"),
        ("POST", "/v2/webhooks"),
        ("GET", "/v2/webhooks/events"),
        ("GET", "/v2/webhooks/ips"),
        ("POST", "/v2/webhooks/{id}/replay"),
        ("GET", "/v2/webhook_notifications/examples"),
        ("POST", "/v2/webhooks/trigger"),
        ("PATCH", "/v2/containers"),
        ("POST", "/v2/documents/{id}/rotate"),
        ("POST", "/v2/documents/{id}/reextract"),
        ("GET", "/v2/document_schemas/{id}"),
        ("GET", "/v2/webhooks/{id}"),
        ("PATCH", "/v2/webhooks/{id}"),
        ("DELETE", "/v2/webhooks/{id}"),
        ("POST", "/v2/ingest/x12"),
        ("POST", "/v2/ingest/edifact"),
        ("PATCH", "/v2/containers/{id}/refresh"),
        ("GET", "/v2/sources"),
        ("POST", "/v2/ingest/dcsa"),
        ("GET", "/v2/tariffs"),
        ("POST", "/v2/tariffs"),
        ("GET", "/v2/tariffs/{id}"),
        ("DELETE", "/v2/tariffs/{id}"),
        ("GET", "/v2/calendars"),
        ("POST", "/v2/calendars"),
        ("GET", "/v2/calendars/{id}"),
        ("DELETE", "/v2/calendars/{id}"),
        ("POST", "/v2/charges/quote"),
        ("GET", "/v2/containers/{id}/charges"),
        ("GET", "/v2/containers/{id}/entries"),
        ("GET", "/v2/charges/summary"),
        ("POST", "/v2/charges/audits"),
    ]
    .into_iter()
    .map(|(m, p)| (m.to_string(), p.to_string()))
    .collect();
    assert_eq!(documented, expected);

    // paths that are not documented are not served
    assert_eq!(app.get("/v2/accounts", Some(&key)).await.status, 404);
}

#[tokio::test]
async fn docs_page_lists_every_operation_and_needs_nothing_external() {
    let app = TestApp::spawn().await;
    let r = app.get("/docs", None).await;
    assert_eq!(r.status, 200);
    assert!(r.header("content-type").unwrap().starts_with("text/html"));
    let doc = app.get("/v2/openapi.json", None).await.json();
    for path in doc["paths"].as_object().unwrap().keys() {
        let escaped = path.replace('&', "&amp;");
        assert!(r.text.contains(&escaped), "/docs lacks {path}");
    }
    assert!(!r.text.contains("<script"), "no scripts");
    assert!(!r.text.contains("src=\"http"), "no external assets");
    assert!(!r.text.contains("href=\"http"), "no external links");
}

/// A handler that panics is answered a JSON:API 500 with the request's id, counted by its
/// route, and the process goes on serving.
#[tokio::test]
async fn a_handler_that_panics_is_answered_a_500_and_counted() {
    use axum::routing::get;
    let (db, _database) = crate::helpers::fresh_db().await;
    let state = boxtrack_api::AppState::new(
        boxtrack_app::Ctx::new(db),
        boxtrack_api::ApiConfig::default(),
        boxtrack_api::Limiter::memory(),
    );
    let metrics = state.metrics.clone();
    async fn boom() -> &'static str {
        panic!("a handler's bug")
    }
    let routes = axum::Router::new()
        .route("/boom", get(boom))
        .route("/fine", get(|| async { "fine" }))
        .route_layer(axum::middleware::from_fn(
            |req: axum::extract::Request, next: axum::middleware::Next| async move {
                // what every route of the service does first: note the route matched
                boxtrack_http::access::note_route(req.extensions());
                next.run(req).await
            },
        ));
    let app = boxtrack_api::App::around(state, routes);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let shutdown = tokio_util::sync::CancellationToken::new();
    tokio::spawn(boxtrack_api::serve(listener, app, shutdown.clone()));
    let client = reqwest::Client::new();
    let r = client
        .get(format!("{base}/boom"))
        .header("x-request-id", "trace-boom")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 500);
    assert_eq!(r.headers()["x-request-id"], "trace-boom");
    let body: serde_json::Value = r.json().await.unwrap();
    assert_eq!(body["errors"][0]["status"], "500", "{body}");
    let r = client.get(format!("{base}/fine")).send().await.unwrap();
    assert_eq!(r.status(), 200);
    assert_eq!(r.text().await.unwrap(), "fine");
    let text = metrics.render();
    assert!(
        text.contains(r#"boxtrack_http_requests_total{method="GET",route="/boom",status="500"} 1"#),
        "{text}"
    );
    shutdown.cancel();
}

/// `GET /v2/sources` says what is wrong with each upstream, as `boxtrack carriers check` does:
/// the diagnosis of its last request (a carrier that refuses the application's subscription,
/// one that answers), `null` before the first, in the served document's shape.
#[tokio::test]
async fn sources_say_what_is_wrong_with_each_upstream() {
    use boxtrack_core::requests::RequestType;
    use boxtrack_sources::upstream::{Endpoint, UpstreamConfig, Upstreams};

    async fn forbidden() -> (axum::http::StatusCode, axum::Json<serde_json::Value>) {
        (
            axum::http::StatusCode::FORBIDDEN,
            axum::Json(
                serde_json::json!({"httpCode": "403", "httpMessage": "Forbidden",
                "moreInformation": "The client is not subscribed to this API"}),
            ),
        )
    }
    let carrier = axum::Router::new()
        .route("/forbidden/v2/events", axum::routing::get(forbidden))
        .route(
            "/ok/v2/events",
            axum::routing::get(|| async { axum::Json(serde_json::json!([])) }),
        );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, carrier).await });
    let mut cfg = UpstreamConfig {
        requests_per_sec: 1000.0,
        burst: 1000,
        ..UpstreamConfig::default()
    };
    for (scac, path) in [("HLCU", "forbidden"), ("CMDU", "ok"), ("MAEU", "ok")] {
        cfg.carriers
            .insert(scac.into(), Endpoint::open(format!("{base}/{path}")));
    }
    let upstreams = std::sync::Arc::new(Upstreams::new(cfg));
    for scac in ["HLCU", "CMDU"] {
        let _ = upstreams
            .dcsa_events(scac, RequestType::BillOfLading, "BL1")
            .await;
    }
    let (db, database) = crate::helpers::fresh_db().await;
    let ctx = boxtrack_app::Ctx::new(db).with_upstreams(upstreams);
    let state = boxtrack_api::AppState::new(
        ctx,
        boxtrack_api::ApiConfig::default(),
        boxtrack_api::Limiter::memory(),
    );
    let mut app = TestApp::serve_state(state, Default::default()).await;
    app.keep(database);
    let (_, key) = app.account().await;
    let sources = app.get("/v2/sources", Some(&key)).await.json();
    let of = |scac: &str| {
        sources["data"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["attributes"]["name"] == scac)
            .map(|s| s["attributes"]["diagnosis"].clone())
            .unwrap()
    };
    assert_eq!(of("HLCU")["code"], "forbidden", "{sources}");
    assert!(
        of("HLCU")["says"]
            .as_str()
            .unwrap()
            .contains("not subscribed"),
        "{sources}"
    );
    assert_eq!(of("CMDU")["code"], "ok", "{sources}");
    assert!(of("MAEU").is_null(), "{sources}");
}
