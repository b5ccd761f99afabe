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
    assert_eq!(
        catalog["lines"].as_array().unwrap().len(),
        super::SPOKEN.len()
    );
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

/// COSCO's COP: a request signed with the test keys gets COP's answer, which boxtrack's
/// reader takes whole; an unsigned one, a wrong secret, an expired or unsubscribed key are
/// refused as the line would.
#[tokio::test]
async fn cosco_wants_cop_s_signature_and_answers_in_cop_s_shape() {
    let (sim, base) = serve(Faults::default()).await;
    let http = reqwest::Client::new();
    let l = line("cosco").unwrap();
    let s = sim
        .world()
        .shipments
        .iter()
        .find(|s| l.serves(&s.scac))
        .expect("a COSCO shipment")
        .clone();
    let ask = |number: &str, kind: &str, key: &str, secret: &str| {
        let path = format!(
            "{}{}/{number}?numberType={kind}",
            l.prefix(),
            l.events_path()
        );
        let date = boxtrack_core::time::format_http_date(boxtrack_core::time::now_us());
        let mut req = http.get(format!("{base}{path}"));
        let signed = boxtrack_sources::cosco::signed_headers(
            key,
            secret,
            "GET",
            &path,
            b"",
            &date,
            "0123456789abcdef0123456789abcdef",
        );
        for (n, v) in signed {
            req = req.header(n, v);
        }
        req.send()
    };
    let (key, secret) = (l.credential("api_key"), l.credential("secret_key"));
    let r = ask(&s.bill_of_lading, "bl", &key, &secret).await.unwrap();
    assert_eq!(r.status(), 200);
    let body = r.text().await.unwrap();
    let now = sim.clock().now_us();
    let read = boxtrack_sources::cosco::read(
        &body,
        boxtrack_core::requests::RequestType::BillOfLading,
        &s.bill_of_lading,
        now,
        None,
    )
    .unwrap();
    assert!(!read.not_found, "{body}");
    assert_eq!(
        read.digest.bill_of_lading.as_deref(),
        Some(s.bill_of_lading.as_str())
    );
    assert_eq!(
        read.digest.route.pol_locode.as_deref(),
        Some(s.pol.as_str()),
        "{body}"
    );
    assert_eq!(
        read.digest.route.pod_locode.as_deref(),
        Some(s.pod.as_str()),
        "{body}"
    );
    let boxes: Vec<&String> = read.digest.per_container.keys().collect();
    let mut want: Vec<&String> = s.containers.iter().collect();
    want.sort();
    assert_eq!(boxes, want, "{body}");
    assert!(read.milestones > s.containers.len(), "{body}");
    assert!(read.digest.notes.is_empty(), "{:?}", read.digest.notes);
    // a container: its trip, oldest first when read
    let number = &s.containers[0];
    let r = ask(number, "cntr", &key, &secret).await.unwrap();
    let body = r.text().await.unwrap();
    let trip = boxtrack_sources::cosco::read(
        &body,
        boxtrack_core::requests::RequestType::Container,
        number,
        now,
        None,
    )
    .unwrap();
    let events = &trip.digest.per_container[number];
    assert!(events.len() >= 3, "{body}");
    // a number COP does not know
    let r = ask("COSU0000NOPE", "bl", &key, &secret).await.unwrap();
    assert_eq!(r.status(), 200);
    assert_eq!(r.json::<Value>().await.unwrap()["data"]["type"], "none");
    let r = ask(&s.bill_of_lading, "xx", &key, &secret).await.unwrap();
    assert_eq!(r.json::<Value>().await.unwrap()["code"], 5400);
    // refusals
    let r = ask(&s.bill_of_lading, "bl", &key, "wrong").await.unwrap();
    assert_eq!(r.status(), 401);
    assert!(r.text().await.unwrap().contains("signature"));
    let r = ask(&s.bill_of_lading, "bl", &l.expired(), &secret)
        .await
        .unwrap();
    assert_eq!(r.status(), 401);
    assert!(r.text().await.unwrap().contains("expired"));
    let r = ask(&s.bill_of_lading, "bl", &l.unsubscribed(), &secret)
        .await
        .unwrap();
    assert_eq!(r.status(), 403);
    let unsigned = format!(
        "{base}{}{}/{}?numberType=bl",
        l.prefix(),
        l.events_path(),
        s.bill_of_lading
    );
    assert_eq!(http.get(unsigned).send().await.unwrap().status(), 401);
}

/// A line whose profile does not confirm its authentication (MSC): the simulator's choice, an
/// API key in `X-Sim-Api-Key`, DCSA 2.2 and DCSA's cursor.
#[tokio::test]
async fn a_line_without_confirmed_auth_wants_the_simulator_s_key() {
    let (sim, base) = serve(Faults::default()).await;
    let http = reqwest::Client::new();
    let l = line("msc").unwrap();
    let (bill, shown) = shipment_of(&sim, "msc");
    let events = format!(
        "{base}{}{}?transportDocumentReference={bill}&limit=100",
        l.prefix(),
        l.events_path()
    );
    let r = http.get(&events).send().await.unwrap();
    assert_eq!(r.status(), 401);
    let r = http
        .get(&events)
        .header(super::UNCONFIRMED_AUTH_HEADER, l.expired())
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 401);
    assert!(r.text().await.unwrap().contains("expired"));
    let key = l.credential("api_key");
    let (mut next, mut seen) = (Some(events.clone()), 0);
    while let Some(url) = next {
        let r = http
            .get(&url)
            .header(super::UNCONFIRMED_AUTH_HEADER, &key)
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 200);
        next = header(&r, "Next-Page").map(|c| format!("{events}&cursor={c}"));
        seen += r.json::<Vec<Value>>().await.unwrap().len();
    }
    assert_eq!(seen, shown);
    // the table it prints carries the key in an auth table boxtrack reads
    let table = l.table("MSCU", &base);
    assert!(table.contains("[carriers.MSCU.auth]"), "{table}");
}
