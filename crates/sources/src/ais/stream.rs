//! aisstream.io's WebSocket AIS feed: a free key, one JSON subscription message (the key,
//! bounding boxes, MMSI and message-type filters), then one JSON envelope per AIS message
//! (`MessageType`, `MetaData`, `Message`). `PositionReport` and `ShipStaticData` are read
//! into the same rows as the NMEA feed's types 1–3 and 5.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use boxtrack_store::Db;
use futures_util::{SinkExt, StreamExt};
use serde::Deserialize;
use serde_json::{Value, json};
use tokio_tungstenite::tungstenite::Message as WsMessage;
use tokio_util::sync::CancellationToken;

use super::feed::{Backoff, Filter, Reports, Watch};
use super::{AisReport, Message, Position, StaticData, position_update, static_update};
use crate::auth::Secret;
use crate::upstream::Upstreams;

/// aisstream.io's stream address.
pub const DEFAULT_URL: &str = "wss://stream.aisstream.io/v0/stream";

/// The most MMSIs one subscription filters on (aisstream.io documents a limit of 50).
pub const MAX_MMSIS: usize = 50;

/// How long connecting and the WebSocket handshake may take.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(30);

/// Where the feed is and the key it takes.
#[derive(Debug, Clone)]
pub struct StreamConfig {
    /// `wss://…` (or `ws://…`) address of the stream.
    pub url: String,
    /// The API key, sent in the subscription message only.
    pub key: Secret,
}

/// The subscription message for `watch`: the whole world, position reports and static
/// data; filtered to the watched MMSIs when every tracked vessel's MMSI is known (and they
/// are at most [`MAX_MMSIS`]), else unfiltered (what arrives is filtered here, and the
/// static data of every vessel teaches the MMSIs of the tracked ones).
pub fn subscription(key: &Secret, watch: &Watch) -> Value {
    let mut sub = json!({
        "APIKey": key.expose(),
        "BoundingBoxes": [[[-90.0, -180.0], [90.0, 180.0]]],
        "FilterMessageTypes": ["PositionReport", "ShipStaticData"],
    });
    let mmsis = watch.mmsis();
    if !watch.is_all() && !watch.missing_mmsis() && !mmsis.is_empty() && mmsis.len() <= MAX_MMSIS {
        sub["FiltersShipMMSI"] = mmsis.iter().map(|m| m.to_string()).collect();
    }
    sub
}

#[derive(Deserialize)]
#[serde(rename_all = "PascalCase")]
struct Envelope {
    message_type: String,
    #[serde(default)]
    message: HashMap<String, Value>,
}

#[derive(Deserialize)]
#[serde(rename_all = "PascalCase")]
struct PositionReport {
    #[serde(rename = "MessageID", default)]
    message_id: u8,
    #[serde(rename = "UserID")]
    user_id: u32,
    #[serde(default)]
    navigational_status: u8,
    sog: Option<f64>,
    longitude: Option<f64>,
    latitude: Option<f64>,
    cog: Option<f64>,
    true_heading: Option<u16>,
    #[serde(default)]
    timestamp: u8,
}

#[derive(Deserialize)]
#[serde(rename_all = "PascalCase")]
struct ShipStaticData {
    #[serde(rename = "UserID")]
    user_id: u32,
    #[serde(default)]
    imo_number: u32,
    #[serde(default)]
    call_sign: String,
    #[serde(default)]
    name: String,
    #[serde(rename = "Type", default)]
    ship_type: u8,
    eta: Option<Eta>,
    #[serde(default)]
    maximum_static_draught: f64,
    #[serde(default)]
    destination: String,
}

#[derive(Deserialize)]
#[serde(rename_all = "PascalCase")]
struct Eta {
    month: u8,
    day: u8,
    hour: u8,
    minute: u8,
}

/// AIS text as sent: `@` pads, spaces around.
fn text(s: &str) -> String {
    s.trim_end_matches('@').trim().to_string()
}

/// One envelope read: a position report or static data (`Other` for another type), or why
/// it could not be read.
pub fn parse(envelope: &str) -> Result<Message, String> {
    let e: Envelope = serde_json::from_str(envelope).map_err(|e| e.to_string())?;
    let body = e.message.get(&e.message_type).cloned();
    match (e.message_type.as_str(), body) {
        ("PositionReport", Some(b)) => {
            let p: PositionReport = serde_json::from_value(b).map_err(|e| e.to_string())?;
            Ok(Message::Position(Position {
                msg_type: p.message_id,
                mmsi: p.user_id,
                nav_status: p.navigational_status,
                speed_knots: p.sog.filter(|s| *s < 102.3),
                lon: p.longitude.filter(|l| l.abs() <= 180.0),
                lat: p.latitude.filter(|l| l.abs() <= 90.0),
                course: p.cog.filter(|c| *c < 360.0),
                heading: p.true_heading.filter(|h| *h < 360),
                second: p.timestamp,
            }))
        }
        ("ShipStaticData", Some(b)) => {
            let s: ShipStaticData = serde_json::from_value(b).map_err(|e| e.to_string())?;
            Ok(Message::Static(StaticData {
                mmsi: s.user_id,
                imo: (s.imo_number != 0).then_some(s.imo_number),
                callsign: text(&s.call_sign),
                name: text(&s.name),
                ship_type: s.ship_type,
                eta: s
                    .eta
                    .filter(|e| e.month != 0 && e.day != 0)
                    .map(|e| (e.month, e.day, e.hour, e.minute)),
                draught_m: s.maximum_static_draught,
                destination: text(&s.destination),
            }))
        }
        (_, Some(_)) => Ok(Message::Other(0)),
        (t, None) => Err(format!("no Message.{t} in the envelope")),
    }
}

/// Reads envelopes and stores what they say (latest per vessel), kept to what `watch` keeps.
pub async fn ingest_envelopes(
    db: &Db,
    envelopes: &[String],
    at_us: i64,
    watch: &mut Watch,
) -> Result<AisReport, boxtrack_store::StoreError> {
    let mut report = AisReport::default();
    let mut positions = HashMap::new();
    let mut statics = HashMap::new();
    for text in envelopes {
        match parse(text) {
            Ok(Message::Position(p)) => {
                report.sentences += 1;
                if watch.keeps_position(p.mmsi) {
                    positions.insert(p.mmsi, position_update(&p, at_us));
                } else {
                    report.ignored += 1;
                }
            }
            Ok(Message::Static(s)) => {
                report.sentences += 1;
                let mmsi = s.mmsi;
                let update = static_update(s, at_us);
                watch.learn(mmsi, update.imo.as_deref());
                statics.insert(mmsi, update);
            }
            Ok(Message::Other(_)) => report.skipped += 1,
            Err(e) => {
                report.errors += 1;
                let sample: String = text.chars().take(200).collect();
                report.refused.push((sample, "ais_malformed", e));
            }
        }
    }
    report.positions = positions.len();
    report.statics = statics.len();
    let positions: Vec<_> = positions.into_values().collect();
    let statics: Vec<_> = statics.into_values().collect();
    boxtrack_store::ais::store(db, &positions, &statics).await?;
    Ok(report)
}

/// Follows the WebSocket feed until `shutdown`, storing what arrives about once a second,
/// subscribed for the vessels of tracked shipments (subscribing again when they change);
/// reconnects after the stream closes or fails, with [`super::feed::default_backoff`].
pub async fn follow_stream(
    db: Db,
    config: StreamConfig,
    upstreams: Option<Arc<Upstreams>>,
    shutdown: CancellationToken,
) {
    follow_stream_with(
        db,
        config,
        upstreams,
        Filter::tracked(),
        super::feed::default_backoff(),
        None,
        shutdown,
    )
    .await;
}

/// [`follow_stream`] with its filter and backoff given, each store's report sent to `reports`.
pub async fn follow_stream_with(
    db: Db,
    config: StreamConfig,
    upstreams: Option<Arc<Upstreams>>,
    filter: Filter,
    mut backoff: Backoff,
    reports: Reports,
    shutdown: CancellationToken,
) {
    // the address is logged without its query (a key could be written there)
    let shown = config.url.split('?').next().unwrap_or_default().to_string();
    loop {
        let connected = tokio::select! {
            _ = shutdown.cancelled() => return,
            c = tokio::time::timeout(CONNECT_TIMEOUT, tokio_tungstenite::connect_async(config.url.as_str())) => c,
        };
        match connected {
            Err(_) => {
                tracing::warn!(feed = %shown, failures = backoff.failures() + 1, "AIS stream did not answer the handshake in time; retrying");
            }
            Ok(Ok((ws, _))) => {
                tracing::info!(feed = %shown, "AIS stream connected");
                let on = Connection {
                    db: &db,
                    shown: &shown,
                    upstreams: &upstreams,
                    reports: &reports,
                };
                if on.read(ws, &config.key, &filter, &shutdown).await {
                    backoff.reset();
                }
                if shutdown.is_cancelled() {
                    return;
                }
                tracing::warn!(feed = %shown, "AIS stream closed; reconnecting");
            }
            Ok(Err(e)) => {
                tracing::warn!(feed = %shown, error = %e, failures = backoff.failures() + 1, "AIS stream unreachable; retrying");
            }
        }
        let wait = backoff.next_wait();
        tokio::select! {
            _ = shutdown.cancelled() => return,
            _ = tokio::time::sleep(wait) => {}
        }
    }
}

/// What one connection writes to.
struct Connection<'a> {
    db: &'a Db,
    shown: &'a str,
    upstreams: &'a Option<Arc<Upstreams>>,
    reports: &'a Reports,
}

impl Connection<'_> {
    /// Subscribes and reads until the stream ends (or `shutdown`); whether a message arrived.
    async fn read<S>(
        &self,
        mut ws: tokio_tungstenite::WebSocketStream<S>,
        key: &Secret,
        filter: &Filter,
        shutdown: &CancellationToken,
    ) -> bool
    where
        S: tokio::io::AsyncRead + tokio::io::AsyncWrite + Unpin,
    {
        let mut watch = filter.watch(self.db).await;
        let mut sent = subscription(key, &watch);
        if ws.send(WsMessage::text(sent.to_string())).await.is_err() {
            return false;
        }
        let mut refresh = tokio::time::interval(filter.refresh());
        refresh.tick().await;
        let mut tick = tokio::time::interval(Duration::from_secs(1));
        let mut batch: Vec<String> = Vec::new();
        let mut delivered = false;
        loop {
            tokio::select! {
                _ = shutdown.cancelled() => return delivered,
                _ = refresh.tick() => {
                    watch = filter.watch(self.db).await;
                    let now = subscription(key, &watch);
                    // aisstream.io takes a new subscription on the open connection
                    if now != sent {
                        if ws.send(WsMessage::text(now.to_string())).await.is_err() {
                            break;
                        }
                        sent = now;
                    }
                }
                _ = tick.tick() => {
                    if !batch.is_empty() {
                        self.store(std::mem::take(&mut batch), &mut watch).await;
                    }
                }
                m = ws.next() => match m {
                    Some(Ok(WsMessage::Text(t))) => {
                        delivered = true;
                        batch.push(t.as_str().to_string());
                    }
                    Some(Ok(WsMessage::Binary(b))) => {
                        delivered = true;
                        batch.push(String::from_utf8_lossy(&b).into_owned());
                    }
                    Some(Ok(WsMessage::Close(_))) | Some(Err(_)) | None => break,
                    Some(Ok(_)) => {}
                }
            }
        }
        if !batch.is_empty() {
            self.store(batch, &mut watch).await;
        }
        delivered
    }

    async fn store(&self, batch: Vec<String>, watch: &mut Watch) {
        let now = boxtrack_core::time::now_us();
        match ingest_envelopes(self.db, &batch, now, watch).await {
            Ok(r) => {
                if let Some(u) = self.upstreams {
                    u.refused("ais", self.shown, self.shown, "stream", &r.refused, false);
                }
                if let Some(tx) = self.reports {
                    let _ = tx.send(r);
                }
            }
            Err(e) => tracing::error!(error = %e, "storing AIS positions failed"),
        }
    }
}
