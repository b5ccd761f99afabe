//! Each simulated line over HTTP on port 0, as its profile says it behaves.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::Duration;

use serde_json::Value;

use super::line;
use crate::{CarrierAuth, Faults, Sim, SimConfig};

async fn serve(faults: Faults) -> (Sim, String) {
    let sim = Sim::new(&SimConfig {
        seed: 5,
        shipments: 120,
        speed: 1.0,
        origin_us: 1_800_000_000_000_000,
        clock_start_us: None,
        faults,
        x12_ingest: None,
        carrier_auth: CarrierAuth::None,
        token_ttl: Duration::from_secs(60),
        carrier_profiles: super::parse("all").unwrap(),
    });
    // far enough on that every event is visible
    sim.clock().advance(120 * 86_400);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let router = sim.router();
    tokio::spawn(async move { axum::serve(listener, router).await });
    (sim, base)
}

/// A bill of one of the line's carriers, and the events the line sends of it.
fn shipment_of(sim: &Sim, name: &str) -> (String, usize) {
    let l = line(name).unwrap();
    let (i, s) = sim
        .world()
        .shipments
        .iter()
        .enumerate()
        .find(|(_, s)| l.serves(&s.scac))
        .expect("a shipment of the line");
    let shown = sim.0.events[i]
        .iter()
        .filter_map(|t| l.shown(&t.item))
        .count();
    (s.bill_of_lading.clone(), shown)
}

fn header(r: &reqwest::Response, name: &str) -> Option<String> {
    r.headers()
        .get(name)
        .map(|v| v.to_str().unwrap().to_string())
}

#[tokio::test]
async fn maersk_wants_a_token_from_the_form_and_its_consumer_key_and_pages_by_links() {
    let (sim, base) = serve(Faults::default()).await;
    let http = reqwest::Client::new();
    let l = line("maersk").unwrap();
    let (bill, shown) = shipment_of(&sim, "maersk");
    let events = format!(
        "{base}{}{}?transportDocumentReference={bill}",
        l.prefix(),
        l.events_path()
    );
    let r = http.get(&events).send().await.unwrap();
    assert_eq!(r.status(), 401);
    assert!(r.headers().contains_key("WWW-Authenticate"));
    let body: Value = r.json().await.unwrap();
    assert_eq!(body["errors"][0]["reason"], "unauthorized", "{body}");
    let token_url = format!("{base}{}{}", l.prefix(), l.token_path().unwrap());
    let (id, secret) = (l.credential("client_id"), l.credential("client_secret"));
    // HTTP Basic is not how Maersk takes the client
    let r = http
        .post(&token_url)
        .basic_auth(&id, Some(&secret))
        .form(&[("grant_type", "client_credentials")])
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 401);
    assert_eq!(r.json::<Value>().await.unwrap()["error"], "invalid_client");
    let r = http
        .post(&token_url)
        .form(&[
            ("grant_type", "client_credentials"),
            ("client_id", &id),
            ("client_secret", &secret),
        ])
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    let token = r.json::<Value>().await.unwrap()["access_token"]
        .as_str()
        .unwrap()
        .to_string();
    // the token alone is not enough: the Consumer-Key too
    let r = http.get(&events).bearer_auth(&token).send().await.unwrap();
    assert_eq!(r.status(), 401);
    let mut next = Some(format!("{events}&limit=100"));
    let (mut seen, mut pages) = (0, 0);
    while let Some(url) = next {
        let r = http
            .get(&url)
            .bearer_auth(&token)
            .header("Consumer-Key", &id)
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 200);
        assert!(header(&r, "First-Page").unwrap().starts_with(&base));
        assert!(header(&r, "Last-Page").is_some());
        assert_eq!(header(&r, "Previous-Page").is_some(), pages > 0);
        assert!(!r.headers().contains_key("Prev-Page"));
        next = header(&r, "Next-Page");
        let page: Vec<Value> = r.json().await.unwrap();
        assert!(page.len() <= l.page_max);
        seen += page.len();
        pages += 1;
    }
    assert_eq!(seen, shown);
    assert!(pages > 1, "paged by its links");
    // the carrier is not at /sim/v1/carriers any more
    let scac = &sim
        .world()
        .shipments
        .iter()
        .find(|s| l.serves(&s.scac))
        .unwrap()
        .scac;
    let r = http
        .get(format!(
            "{base}/sim/v1/carriers/{scac}/v2/events?transportDocumentReference={bill}"
        ))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 404);
}

#[tokio::test]
async fn hapag_lloyd_wants_its_ibm_headers_answers_as_api_connect_and_sends_less() {
    let (sim, base) = serve(Faults::default()).await;
    let http = reqwest::Client::new();
    let l = line("hapag-lloyd").unwrap();
    let (bill, shown) = shipment_of(&sim, "hapag-lloyd");
    let events = format!(
        "{base}{}/hlag/external/v2/events?transportDocumentReference={bill}",
        l.prefix()
    );
    let ask = |id: String| {
        http.get(&events)
            .header("X-IBM-Client-Id", id)
            .header("X-IBM-Client-Secret", l.credential("client_secret"))
            .send()
    };
    let r = http.get(&events).send().await.unwrap();
    assert_eq!(r.status(), 401);
    let body: Value = r.json().await.unwrap();
    assert_eq!(body["httpCode"], "401", "{body}");
    let r = ask(l.unsubscribed()).await.unwrap();
    assert_eq!(r.status(), 403);
    let body: Value = r.json().await.unwrap();
    assert!(
        body["moreInformation"]
            .as_str()
            .unwrap()
            .contains("subscribed"),
        "{body}"
    );
    let r = ask(l.credential("client_id")).await.unwrap();
    assert_eq!(r.status(), 200);
    assert!(!r.headers().contains_key("Next-Page"));
    let page: Vec<Value> = r.json().await.unwrap();
    assert_eq!(page.len(), shown);
    for e in &page {
        assert!(e.get("delayReasonCode").is_none(), "{e}");
        if e["eventType"] == "SHIPMENT" {
            assert!(["ISSU", "CONF"].contains(&e["shipmentEventTypeCode"].as_str().unwrap()));
        }
    }
    // a path it does not serve: its gateway's 404, not DCSA's
    let r = http
        .get(format!("{base}{}/v2/events", l.prefix()))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 404);
    assert_eq!(r.json::<Value>().await.unwrap()["httpCode"], "404");
}

#[tokio::test]
async fn cma_cgm_wants_its_key_pages_by_cursor_and_sends_no_shipment_or_rail_events() {
    let (sim, base) = serve(Faults::default()).await;
    let http = reqwest::Client::new();
    let l = line("cma-cgm").unwrap();
    let (bill, shown) = shipment_of(&sim, "cma-cgm");
    let events = format!(
        "{base}{}/v2/events?transportDocumentReference={bill}&limit=100",
        l.prefix()
    );
    let r = http
        .get(&events)
        .header("KeyId", l.expired())
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 401);
    let body: Value = r.json().await.unwrap();
    assert!(
        body["errors"][0]["message"]
            .as_str()
            .unwrap()
            .contains("expired"),
        "{body}"
    );
    let mut url = events.clone();
    let mut seen = 0;
    loop {
        let r = http
            .get(&url)
            .header("KeyId", l.credential("api_key"))
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 200);
        let next = header(&r, "Next-Page");
        let page: Vec<Value> = r.json().await.unwrap();
        for e in &page {
            assert_ne!(e["eventType"], "SHIPMENT");
            assert_ne!(e["transportCall"]["modeOfTransport"], "RAIL");
        }
        seen += page.len();
        match next {
            Some(c) => url = format!("{events}&cursor={c}"),
            None => break,
        }
    }
    assert_eq!(seen, shown);
}

#[tokio::test]
async fn a_rate_limited_line_says_when_to_come_back() {
    let (sim, base) = serve(Faults {
        rate_limited: 1.0,
        ..Faults::default()
    })
    .await;
    let http = reqwest::Client::new();
    let l = line("cma-cgm").unwrap();
    let (bill, _) = shipment_of(&sim, "cma-cgm");
    let r = http
        .get(format!(
            "{base}{}/v2/events?transportDocumentReference={bill}",
            l.prefix()
        ))
        .header("KeyId", l.credential("api_key"))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 429);
    assert_eq!(header(&r, "Retry-After").as_deref(), Some("3600"));
    let catalog: Value = http
        .get(format!("{base}/sim/v1/catalog"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(catalog["lines"].as_array().unwrap().len(), 3);
    let profiled = catalog["carriers"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["profile"] == "cma-cgm")
        .unwrap();
    assert!(
        profiled["table"]
            .as_str()
            .unwrap()
            .contains(&format!("host_url = \"{base}/sim/v1/lines/cma-cgm\"")),
        "{profiled}"
    );
}
