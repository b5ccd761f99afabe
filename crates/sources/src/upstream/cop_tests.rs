//! COSCO's COP end to end on loopback: a `[carriers.COSU]` table naming the profile and two
//! keys, every request signed as COP checks it, the published answer read into a found
//! shipment, and a refused signature diagnosed.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::{Arc, Mutex};

use axum::extract::{OriginalUri, Path, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};

use super::*;
use crate::profiles::CarrierConfig;
use crate::{Lookup, LookupResult, Source};

/// A COP that knows the key `k` with the secret `s` and answers every number with `body`.
struct Cop {
    body: String,
    seen: Mutex<Vec<String>>,
}

async fn tracking(
    State(cop): State<Arc<Cop>>,
    Path(number): Path<String>,
    OriginalUri(uri): OriginalUri,
    headers: HeaderMap,
) -> Response {
    let h = |n: &str| {
        headers
            .get(n)
            .and_then(|v| v.to_str().ok())
            .unwrap_or_default()
            .to_string()
    };
    let line = format!("GET {} HTTP/1.1", uri.path_and_query().unwrap());
    let text = crate::cosco::string_to_sign(
        &h("X-Coscon-Date"),
        &h("X-Coscon-Digest"),
        &h("X-Coscon-Content-Md5"),
        &line,
    );
    let signed = crate::cosco::parse_authorization(&h("X-Coscon-Authorization"));
    let fresh = boxtrack_core::time::parse_http_date(&h("X-Coscon-Date"))
        .is_some_and(|d| (d - boxtrack_core::time::now_us()).abs() < 120_000_000);
    let ok = fresh
        && h("X-Coscon-Hmac") == h("X-Coscon-Content-Md5")
        && h("X-Coscon-Content-Md5").len() == 32
        && h("X-Coscon-Digest") == crate::cosco::body_digest(b"")
        && signed == Some(("k".into(), crate::cosco::signature("s", &text)));
    cop.seen
        .lock()
        .unwrap()
        .push(format!("{number} {line} ok={ok}"));
    if !ok {
        return (StatusCode::UNAUTHORIZED, "Illegal Request").into_response();
    }
    ([("content-type", "application/json")], cop.body.clone()).into_response()
}

async fn cop() -> (Arc<Cop>, String) {
    let body = std::fs::read_to_string(format!(
        "{}/../../fixtures/cosco/cop-tracking-bl.json",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap();
    let c = Arc::new(Cop {
        body,
        seen: Mutex::default(),
    });
    let app = axum::Router::new()
        .route(
            "/service/info/tracking/{number}",
            axum::routing::get(tracking),
        )
        .with_state(c.clone());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await });
    (c, base)
}

fn upstreams(base: &str, secret: &str) -> Arc<Upstreams> {
    let table = format!(
        "profile = \"cosco\"\nhost_url = \"{base}\"\napi_key = \"k\"\nsecret_key = \"{secret}\"\n"
    );
    let written: CarrierConfig = toml::from_str(&table).unwrap();
    let ep = written.expand().unwrap().resolve(&|_| None).unwrap();
    assert_eq!(ep.format, crate::auth::ApiFormat::CoscoCop);
    assert_eq!(ep.auth.scheme(), "cosco_hmac");
    let mut cfg = UpstreamConfig {
        requests_per_sec: 1000.0,
        burst: 1000,
        ..UpstreamConfig::default()
    };
    cfg.carriers.insert("COSU".into(), ep);
    Arc::new(Upstreams::new(cfg))
}

#[tokio::test]
async fn a_cosco_bill_is_asked_signed_and_read() {
    let (cop, base) = cop().await;
    let source = crate::carrier::CarrierSource::new(upstreams(&base, "s"));
    let q = Lookup {
        scac: "COSU".into(),
        request_type: RequestType::BillOfLading,
        number: "6103622780".into(),
    };
    let found = source.lookup(&q).await.unwrap();
    let LookupResult::Found {
        bill_of_lading_number,
        route,
        containers,
        ..
    } = found
    else {
        panic!("not found: {found:?}");
    };
    assert_eq!(bill_of_lading_number, "6103622780");
    assert_eq!(route.pod_locode.as_deref(), Some("USLGB"));
    assert_eq!(containers.len(), 1);
    assert_eq!(containers[0].number, "CBHU4398907");
    // the vessel's two moves and the box's latest status
    assert_eq!(containers[0].observations.len(), 3);
    let seen = cop.seen.lock().unwrap().clone();
    assert_eq!(
        seen,
        ["6103622780 GET /service/info/tracking/6103622780?numberType=bl HTTP/1.1 ok=true"]
    );
}

#[tokio::test]
async fn a_refused_signature_is_said_so() {
    let (_cop, base) = cop().await;
    let up = upstreams(&base, "wrong");
    let check = up.check("COSU", None).await;
    assert_eq!(check.scheme, "cosco_hmac");
    assert_eq!(
        check.diagnosis.code,
        crate::diagnosis::Code::CredentialsRefused,
        "{:?}",
        check.diagnosis
    );
    let up = upstreams(&base, "s");
    let check = up.check("COSU", None).await;
    assert_eq!(
        check.diagnosis.code,
        crate::diagnosis::Code::Ok,
        "{:?}",
        check.diagnosis
    );
    // an address that is not COP's: said in COP's terms, not DCSA's
    let up = upstreams(&format!("{base}/elsewhere"), "s");
    let check = up.check("COSU", None).await;
    assert_eq!(check.diagnosis.code, crate::diagnosis::Code::WrongAddress);
    assert!(
        check.diagnosis.says.contains("COP"),
        "{:?}",
        check.diagnosis
    );
}
