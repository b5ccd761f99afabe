//! Each diagnosis of [`Upstreams::check`] against a real HTTP server on port 0 that answers
//! one failure shape per path (and a port that refuses, a socket that never answers, a TLS
//! handshake with a plain HTTP server, a name that does not resolve); the health record of
//! `GET /v2/sources` says the same.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::HashMap;
use std::time::Duration;

use axum::extract::{Path, Query};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use boxtrack_core::requests::RequestType;

use super::*;
use crate::auth::{ClientAuth, OAuth2, Secret};
use crate::diagnosis::Code;

const EVENTS: &[u8] = include_bytes!("../../../../fixtures/dcsa/valid/tnt-220-response.json");

fn json(status: StatusCode, body: serde_json::Value) -> Response {
    (status, axum::Json(body)).into_response()
}

fn dcsa_error(status: StatusCode, message: &str) -> Response {
    json(
        status,
        serde_json::json!({"statusCode": status.as_u16(), "errors": [{"reason": "x", "message": message}]}),
    )
}

/// `/{shape}/v2/events`: one answer per shape.
async fn events(
    Path(shape): Path<String>,
    headers: HeaderMap,
    Query(q): Query<HashMap<String, String>>,
) -> Response {
    let asked = q
        .get("transportDocumentReference")
        .cloned()
        .unwrap_or_default();
    match shape.as_str() {
        "ok" if asked == "KNOWN" => {
            ([("Content-Type", "application/json")], EVENTS.to_vec()).into_response()
        }
        "ok" => axum::Json(serde_json::json!([])).into_response(),
        "unknown" => dcsa_error(StatusCode::NOT_FOUND, "no such shipment"),
        "unauthorized" => dcsa_error(StatusCode::UNAUTHORIZED, "invalid key"),
        "quoting" => dcsa_error(
            StatusCode::UNAUTHORIZED,
            &format!(
                "key {} is not valid",
                headers
                    .get("x-key")
                    .and_then(|v| v.to_str().ok())
                    .unwrap_or("")
            ),
        ),
        "expired" => dcsa_error(StatusCode::UNAUTHORIZED, "API key expired"),
        "forbidden" => json(
            StatusCode::FORBIDDEN,
            serde_json::json!({"httpCode": "403", "httpMessage": "Forbidden", "moreInformation": "The client is not subscribed to this API"}),
        ),
        "limited" => (
            StatusCode::TOO_MANY_REQUESTS,
            [("Retry-After", "3600")],
            "quota exceeded",
        )
            .into_response(),
        "html" => (
            [("Content-Type", "text/html")],
            "<html><body>Sign in</body></html>",
        )
            .into_response(),
        "object" => axum::Json(serde_json::json!({"shipments": []})).into_response(),
        "refused" => axum::Json(serde_json::json!([{"eventType": "TRANSPORT"}])).into_response(),
        "bad" => dcsa_error(
            StatusCode::BAD_REQUEST,
            "transportDocumentReference too long",
        ),
        "busy" => (StatusCode::SERVICE_UNAVAILABLE, "busy").into_response(),
        "teapot" => (StatusCode::IM_A_TEAPOT, "").into_response(),
        // an API that wants a token, and refuses every one as expired
        "oauth" if headers.contains_key("authorization") => {
            let mut r = dcsa_error(StatusCode::UNAUTHORIZED, "unauthorized");
            r.headers_mut().insert(
                "WWW-Authenticate",
                "Bearer error=\"invalid_token\", error_description=\"The access token expired\""
                    .parse()
                    .unwrap(),
            );
            r
        }
        _ => not_found().await,
    }
}

async fn not_found() -> Response {
    (
        StatusCode::NOT_FOUND,
        [("Content-Type", "text/html")],
        "<html><body><h1>Not Found</h1></body></html>",
    )
        .into_response()
}

async fn token(Path(shape): Path<String>) -> Response {
    match shape.as_str() {
        "refuse" => json(
            StatusCode::UNAUTHORIZED,
            serde_json::json!({"error": "invalid_client", "error_description": "bad secret"}),
        ),
        "html" => (StatusCode::OK, "<html>login</html>").into_response(),
        _ => axum::Json(
            serde_json::json!({"access_token": "t", "token_type": "Bearer", "expires_in": 3600}),
        )
        .into_response(),
    }
}

async fn server() -> String {
    let app = axum::Router::new()
        .route("/{shape}/v2/events", axum::routing::get(events))
        .route("/token/{shape}", axum::routing::post(token))
        .fallback(not_found);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await });
    base
}

fn upstreams(url: &str, auth: Auth, timeout: Duration) -> Upstreams {
    let mut cfg = UpstreamConfig {
        requests_per_sec: 1000.0,
        burst: 1000,
        timeout,
        ..UpstreamConfig::default()
    };
    cfg.carriers.insert(
        "TEST".into(),
        Endpoint {
            url: url.to_string(),
            auth,
            dcsa_version: Default::default(),
            format: Default::default(),
        },
    );
    Upstreams::new(cfg)
}

fn oauth(base: &str, shape: &str) -> Auth {
    Auth::OAuth2(Box::new(OAuth2 {
        token_url: format!("{base}/token/{shape}"),
        client_id: Secret::new("id"),
        client_secret: Secret::new("secret"),
        scope: None,
        client_auth: ClientAuth::Body,
        headers: vec![],
    }))
}

async fn check(url: &str, auth: Auth, number: Option<&str>) -> Check {
    upstreams(url, auth, Duration::from_secs(20))
        .check("TEST", number.map(|n| (RequestType::BillOfLading, n)))
        .await
}

#[tokio::test]
async fn each_answer_has_its_diagnosis() {
    let base = server().await;
    let cases: &[(&str, Option<&str>, Code)] = &[
        ("ok", None, Code::Ok),
        ("ok", Some("KNOWN"), Code::Ok),
        ("ok", Some("NOBODY"), Code::NumberUnknown),
        ("unknown", Some("NOBODY"), Code::NumberUnknown),
        ("unauthorized", None, Code::CredentialsRefused),
        ("expired", None, Code::CredentialsExpired),
        ("forbidden", None, Code::Forbidden),
        ("limited", None, Code::RateLimited),
        ("html", None, Code::UnexpectedFormat),
        ("object", None, Code::UnexpectedFormat),
        ("refused", None, Code::UnexpectedFormat),
        ("bad", None, Code::RequestRefused),
        ("busy", None, Code::ServerError),
        ("teapot", None, Code::HttpError),
        ("nowhere", None, Code::WrongAddress),
    ];
    for (shape, number, expected) in cases {
        let c = check(&format!("{base}/{shape}"), Auth::None, *number).await;
        assert_eq!(c.diagnosis.code, *expected, "{shape}: {c:?}");
        assert!(!c.diagnosis.says.is_empty());
    }
    let known = check(&format!("{base}/ok"), Auth::None, Some("KNOWN")).await;
    assert!(known.events > 0, "{known:?}");
    assert!(known.diagnosis.says.contains("KNOWN"), "{known:?}");
    let limited = check(&format!("{base}/limited"), Auth::None, None).await;
    assert_eq!(limited.diagnosis.retry_after_secs, Some(3600));
    // a gateway that quotes the refused key: the words keep it out
    let key = Auth::Headers(vec![(
        reqwest::header::HeaderName::from_static("x-key"),
        Secret::new("quoted-secret-123"),
    )]);
    let quoted = check(&format!("{base}/quoting"), key, None).await;
    assert_eq!(quoted.diagnosis.code, Code::CredentialsRefused);
    assert!(
        quoted
            .diagnosis
            .says
            .contains("key [redacted] is not valid"),
        "{quoted:?}"
    );
    let forbidden = check(&format!("{base}/forbidden"), Auth::None, None).await;
    assert!(
        forbidden.diagnosis.says.contains("not subscribed"),
        "{forbidden:?}"
    );
}

#[tokio::test]
async fn tokens_refused_unusable_or_rejected_are_told_apart() {
    let base = server().await;
    let url = format!("{base}/oauth");
    let c = check(&url, oauth(&base, "refuse"), None).await;
    assert_eq!(c.diagnosis.code, Code::TokenRefused, "{c:?}");
    assert!(c.diagnosis.says.contains("invalid_client"), "{c:?}");
    let c = check(&url, oauth(&base, "html"), None).await;
    assert_eq!(c.diagnosis.code, Code::TokenUnusable, "{c:?}");
    let c = check(&url, oauth(&base, "ok"), None).await;
    assert_eq!(c.diagnosis.code, Code::TokenRejected, "{c:?}");
    assert!(c.diagnosis.says.contains("expired"), "{c:?}");
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let dead = format!("http://{}", closed.local_addr().unwrap());
    drop(closed);
    let c = check(&url, oauth(&dead, "ok"), None).await;
    assert_eq!(c.diagnosis.code, Code::TokenUnreachable, "{c:?}");
}

#[tokio::test]
async fn unreachable_says_what_failed() {
    let base = server().await;
    // nothing listens there
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let dead = format!("http://{}", closed.local_addr().unwrap());
    drop(closed);
    let c = check(&dead, Auth::None, None).await;
    assert_eq!(c.diagnosis.code, Code::Unreachable, "{c:?}");
    assert!(c.diagnosis.says.contains("refused"), "{c:?}");
    // TLS with a server that speaks plain HTTP
    let c = check(&base.replace("http://", "https://"), Auth::None, None).await;
    assert_eq!(c.diagnosis.code, Code::Unreachable, "{c:?}");
    assert!(c.diagnosis.says.contains("TLS"), "{c:?}");
    // a name that cannot resolve (RFC 6761)
    let c = check("http://boxtrack-check.invalid", Auth::None, None).await;
    assert_eq!(c.diagnosis.code, Code::Unreachable, "{c:?}");
    assert!(c.diagnosis.says.contains("DNS"), "{c:?}");
    // a server that accepts and never answers
    let silent = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = silent.local_addr().unwrap();
    tokio::spawn(async move {
        let mut held = Vec::new();
        while let Ok((socket, _)) = silent.accept().await {
            held.push(socket);
        }
    });
    let c = upstreams(
        &format!("http://{addr}"),
        Auth::None,
        Duration::from_secs(1),
    )
    .check("TEST", None)
    .await;
    assert_eq!(c.diagnosis.code, Code::Unreachable, "{c:?}");
    assert!(c.diagnosis.says.contains("timed out"), "{c:?}");
}

#[tokio::test]
async fn the_health_record_says_the_same() {
    let base = server().await;
    let u = upstreams(
        &format!("{base}/forbidden"),
        Auth::None,
        Duration::from_secs(20),
    );
    assert!(u.health()[0].diagnosis.is_none(), "not asked yet");
    let _ = u
        .dcsa_events("TEST", RequestType::BillOfLading, "BL1")
        .await;
    let h = u.health();
    let d = h[0].diagnosis.as_ref().unwrap();
    assert_eq!(d.code, Code::Forbidden);
    let c = u.check("TEST", None).await;
    assert_eq!(&c.diagnosis, d);
    // a wrong address counts as an answer, yet the record says what is wrong
    let u = upstreams(
        &format!("{base}/nowhere"),
        Auth::None,
        Duration::from_secs(20),
    );
    u.dcsa_events("TEST", RequestType::BillOfLading, "BL1")
        .await
        .unwrap();
    assert_eq!(
        u.health()[0].diagnosis.as_ref().unwrap().code,
        Code::WrongAddress
    );
}
