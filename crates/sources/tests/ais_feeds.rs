//! The live AIS feeds against local emulators: an NMEA-over-TCP server replaying recorded
//! sentences (gpsd's sample) and a WebSocket server speaking aisstream.io's protocol, each
//! dropping the first connection mid-stream; what arrives after the reconnect is stored.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::Duration;

use boxtrack_sources::ais::feed::{Backoff, Filter, follow_with};
use boxtrack_sources::ais::stream::{StreamConfig, follow_stream_with, subscription};
use boxtrack_sources::ais::{Decoder, Message, Watch, ingest_lines_watched};
use boxtrack_sources::auth::Secret;
use boxtrack_store::Db;
use futures_util::{SinkExt, StreamExt};
use tokio::io::AsyncWriteExt;
use tokio::sync::mpsc;
use tokio_tungstenite::tungstenite::Message as Ws;
use tokio_util::sync::CancellationToken;

/// A fresh SQLite database with the schema.
async fn db() -> Db {
    let path = std::env::temp_dir().join(format!("boxtrack-ais-{}.db", uuid::Uuid::new_v4()));
    let db = Db::connect(&format!("sqlite://{}", path.display()))
        .await
        .unwrap();
    db.migrate().await.unwrap();
    db
}

/// The recorded sentences of gpsd's sample (comments dropped).
fn recorded() -> Vec<String> {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../fixtures/ais/sample.aivdm"
    ))
    .unwrap();
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(str::to_string)
        .collect()
}

/// The MMSIs with a position (latitude and longitude) in `lines`.
fn positioned(lines: &[String]) -> std::collections::BTreeSet<u32> {
    let mut d = Decoder::new();
    lines
        .iter()
        .filter_map(|l| match d.feed(l) {
            Ok(Some(Message::Position(p))) if p.lat.is_some() && p.lon.is_some() => Some(p.mmsi),
            _ => None,
        })
        .collect()
}

fn quick() -> Backoff {
    Backoff::new(Duration::from_millis(10), Duration::from_millis(50))
}

/// Waits (on the feed's reports, not on a clock) until `mmsi` has a stored track point.
async fn until_tracked(
    db: &Db,
    reports: &mut mpsc::UnboundedReceiver<boxtrack_sources::ais::AisReport>,
    mmsi: u32,
) {
    let wait = async {
        loop {
            let track = boxtrack_store::ais::track(db, i64::from(mmsi), None, None, 10)
                .await
                .unwrap();
            if !track.is_empty() {
                return;
            }
            reports.recv().await.expect("the feed stopped");
        }
    };
    // a guard against a hang, not a timing assertion
    tokio::time::timeout(Duration::from_secs(60), wait)
        .await
        .expect("no position after the reconnect");
}

#[tokio::test]
async fn nmea_feed_reconnects_and_keeps_reading() {
    let db = db().await;
    let lines = recorded();
    let (first, second) = lines.split_at(lines.len() / 2);
    let first_mmsis = positioned(first);
    let after = *positioned(second)
        .difference(&first_mmsis)
        .next()
        .expect("a vessel only in the second half");
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap().to_string();
    let (accepted, mut accepts) = mpsc::unbounded_channel();
    let (first, second) = (first.to_vec(), second.to_vec());
    let emulator = tokio::spawn(async move {
        // the first connection gets half the recording and is dropped mid-stream
        let (mut s, _) = listener.accept().await.unwrap();
        accepted.send(1).unwrap();
        s.write_all((first.join("\r\n") + "\r\n").as_bytes())
            .await
            .unwrap();
        // a sentence cut short, then the connection ends
        s.write_all(b"!AIVDM,1,1,,A,15M").await.unwrap();
        drop(s);
        // the reconnect gets the rest and stays open
        let (mut s, _) = listener.accept().await.unwrap();
        accepted.send(2).unwrap();
        s.write_all((second.join("\r\n") + "\r\n").as_bytes())
            .await
            .unwrap();
        std::future::pending::<()>().await;
    });
    let shutdown = CancellationToken::new();
    let (tx, mut reports) = mpsc::unbounded_channel();
    let feed = tokio::spawn(follow_with(
        db.clone(),
        addr,
        None,
        Filter::All,
        quick(),
        Some(tx),
        shutdown.clone(),
    ));
    until_tracked(&db, &mut reports, after).await;
    assert_eq!(accepts.recv().await, Some(1));
    assert_eq!(accepts.recv().await, Some(2));
    // what the first connection carried was stored too
    let before = *first_mmsis.iter().next().unwrap();
    assert!(
        !boxtrack_store::ais::track(&db, i64::from(before), None, None, 10)
            .await
            .unwrap()
            .is_empty()
    );
    shutdown.cancel();
    feed.await.unwrap();
    emulator.abort();
}

#[tokio::test]
async fn only_the_vessels_of_tracked_shipments_keep_positions() {
    let db = db().await;
    let lines = recorded();
    let all = positioned(&lines);
    let kept = *all.iter().next().unwrap();
    let mut watch = Watch::of(Vec::new(), [kept]);
    let mut d = Decoder::new();
    let r = ingest_lines_watched(
        &db,
        &mut d,
        lines.iter().map(String::as_str),
        1_000_000,
        &mut watch,
    )
    .await
    .unwrap();
    assert_eq!(r.positions, 1, "{r:?}");
    assert!(r.ignored > 0, "{r:?}");
    assert!(r.statics > 0, "static data is kept for every vessel: {r:?}");
    for m in all {
        let track = boxtrack_store::ais::track(&db, i64::from(m), None, None, 10)
            .await
            .unwrap();
        assert_eq!(!track.is_empty(), m == kept, "{m}");
    }
}

#[test]
fn static_data_teaches_the_mmsi_of_a_tracked_imo() {
    let mut w = Watch::of(["9321483".to_string()], []);
    assert!(!w.keeps_position(211_000_001));
    assert!(w.missing_mmsis());
    w.learn(211_000_002, Some("1234567"));
    w.learn(211_000_001, Some("9321483"));
    assert!(w.keeps_position(211_000_001));
    assert!(!w.keeps_position(211_000_002));
    assert!(!w.missing_mmsis());
    let key = Secret::new("k");
    let sub = subscription(&key, &w);
    assert_eq!(sub["FiltersShipMMSI"], serde_json::json!(["211000001"]));
    // an MMSI still unknown: unfiltered, so that static data can name it
    let sub = subscription(&key, &Watch::of(["9321483".to_string()], []));
    assert!(sub.get("FiltersShipMMSI").is_none(), "{sub}");
}

/// A position report as aisstream.io sends it.
fn position(mmsi: u32, lat: f64, lon: f64) -> String {
    serde_json::json!({
        "MessageType": "PositionReport",
        "MetaData": {"MMSI": mmsi, "MMSI_String": mmsi, "ShipName": "MAERSK TEST          ",
                      "latitude": lat, "longitude": lon, "time_utc": "2026-07-12 12:00:00.000000000 +0000 UTC"},
        "Message": {"PositionReport": {
            "MessageID": 1, "RepeatIndicator": 0, "UserID": mmsi, "Valid": true,
            "NavigationalStatus": 0, "RateOfTurn": 0, "Sog": 12.3, "PositionAccuracy": true,
            "Longitude": lon, "Latitude": lat, "Cog": 180.5, "TrueHeading": 181, "Timestamp": 30,
            "SpecialManoeuvreIndicator": 0, "Spare": 0, "Raim": false, "CommunicationState": 2249}}
    })
    .to_string()
}

/// Static data as aisstream.io sends it.
fn static_data(mmsi: u32, imo: u32) -> String {
    serde_json::json!({
        "MessageType": "ShipStaticData",
        "MetaData": {"MMSI": mmsi, "MMSI_String": mmsi, "ShipName": "MAERSK TEST",
                      "latitude": 51.9, "longitude": 4.1, "time_utc": "2026-07-12 12:00:00.000000000 +0000 UTC"},
        "Message": {"ShipStaticData": {
            "MessageID": 5, "RepeatIndicator": 0, "UserID": mmsi, "Valid": true, "AisVersion": 2,
            "ImoNumber": imo, "CallSign": "OXYZ2@@", "Name": "MAERSK TEST@@@@@@@@@", "Type": 71,
            "Dimension": {"A": 200, "B": 100, "C": 20, "D": 28}, "FixType": 1,
            "Eta": {"Month": 7, "Day": 20, "Hour": 6, "Minute": 0},
            "MaximumStaticDraught": 12.5, "Destination": "NLRTM", "Dte": false, "Spare": false}}
    })
    .to_string()
}

#[tokio::test]
async fn websocket_feed_subscribes_reconnects_and_keeps_reading() {
    let db = db().await;
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("ws://{}/v0/stream", listener.local_addr().unwrap());
    let (subs, mut subscriptions) = mpsc::unbounded_channel::<serde_json::Value>();
    let emulator = tokio::spawn(async move {
        for round in 0..2 {
            let (s, _) = listener.accept().await.unwrap();
            let mut ws = tokio_tungstenite::accept_async(s).await.unwrap();
            let first = loop {
                match ws.next().await.unwrap().unwrap() {
                    Ws::Text(t) => break t.as_str().to_string(),
                    _ => continue,
                }
            };
            subs.send(serde_json::from_str(&first).unwrap()).unwrap();
            if round == 0 {
                ws.send(Ws::text(static_data(219_000_001, 9_321_483)))
                    .await
                    .unwrap();
                ws.send(Ws::text(position(219_000_001, 51.95, 4.05)))
                    .await
                    .unwrap();
                ws.send(Ws::text("{not json")).await.unwrap();
                ws.close(None).await.unwrap();
            } else {
                ws.send(Ws::text(position(219_000_002, 1.26, 103.8)))
                    .await
                    .unwrap();
                std::future::pending::<()>().await;
            }
        }
    });
    let shutdown = CancellationToken::new();
    let (tx, mut reports) = mpsc::unbounded_channel();
    let feed = tokio::spawn(follow_stream_with(
        db.clone(),
        StreamConfig {
            url,
            key: Secret::new("test-key"),
        },
        None,
        Filter::All,
        quick(),
        Some(tx),
        shutdown.clone(),
    ));
    until_tracked(&db, &mut reports, 219_000_002).await;
    for _ in 0..2 {
        let sub = subscriptions.recv().await.unwrap();
        assert_eq!(sub["APIKey"], "test-key", "{sub}");
        assert_eq!(
            sub["BoundingBoxes"],
            serde_json::json!([[[-90.0, -180.0], [90.0, 180.0]]]),
            "{sub}"
        );
        assert_eq!(
            sub["FilterMessageTypes"],
            serde_json::json!(["PositionReport", "ShipStaticData"]),
            "{sub}"
        );
    }
    // the first connection's messages were stored before it closed
    let v = boxtrack_store::ais::by_imo(&db, "9321483")
        .await
        .unwrap()
        .expect("static data stored");
    assert_eq!(v.mmsi, 219_000_001);
    assert_eq!(v.name.as_deref(), Some("MAERSK TEST"));
    assert_eq!(v.destination.as_deref(), Some("NLRTM"));
    assert_eq!(v.latitude, Some(51.95));
    shutdown.cancel();
    feed.await.unwrap();
    emulator.abort();
}
