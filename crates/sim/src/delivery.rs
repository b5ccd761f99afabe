//! What the simulated upstreams send on their own as the virtual clock moves: X12 and
//! EDIFACT files, and DCSA event pushes.

use std::sync::atomic::Ordering;
use std::time::Duration;

use axum::http::{HeaderMap, StatusCode};
use boxtrack_core::time::format_micros;
use boxtrack_sources::dcsa::Version;
use boxtrack_sources::x12::status::StatusMessage;

use crate::clock::clock_headers;
use crate::{Sim, dcsa_version, speaks_edifact, terminal_speaks_edifact};

/// Sends the rail carriers' X12 322 and the ocean carriers' X12 315 files to `url` (with
/// `Authorization: Token key`) as their events become visible on the virtual clock, every
/// `every` of real time, until `shutdown`; with `edifact_url`, the carriers that
/// [`speaks_edifact`] send theirs as IFTSTA interchanges there instead, and the terminals that
/// [`terminal_speaks_edifact`] report their discharges and gate moves there as COARRI and
/// CODECO. A file that is not accepted is sent again on the next round.
pub async fn send_rail_x12(
    sim: Sim,
    url: String,
    key: String,
    edifact_url: Option<String>,
    every: Duration,
    shutdown: tokio_util::sync::CancellationToken,
) {
    let client = reqwest::Client::new();
    let mut sent_until = i64::MIN;
    let mut control: u32 = 0;
    let mut again: Vec<String> = Vec::new();
    loop {
        let now = sim.clock().now_us();
        let due = Due::between(&sim, sent_until, now, edifact_url.is_some());
        // the EDIFACT interchanges first (the carriers' IFTSTA, the terminals' CODECO and
        // COARRI); the round counts as sent when every file is
        let (date, time) = stamp(now);
        let edifact_ok = match &edifact_url {
            Some(edifact) => {
                let files = due.edifact_files(&mut control, &date, &time);
                send_edifact(&sim, &client, edifact, &key, files).await
            }
            None => true,
        };
        if !edifact_ok {
            tracing::warn!("EDIFACT delivery failed; will send again");
        } else if due.x12.is_empty() {
            sent_until = now;
        }
        if !due.x12.is_empty() {
            control += 1;
            let text =
                boxtrack_sources::x12::status::write_interchange(&due.x12, control, &date, &time);
            let ok = post_x12(&client, &url, &key, text.clone()).await;
            if ok && edifact_ok {
                sent_until = now;
            } else if !ok {
                tracing::warn!(url = %url, "X12 322 delivery failed; will send again");
            }
            // files sent in an earlier round go once more, after this newer one
            for old in std::mem::take(&mut again) {
                post_x12(&client, &url, &key, old).await;
            }
            if ok && sim.0.faults.redeliver(u64::from(control)) {
                again.push(text);
            }
        }
        tokio::select! {
            _ = shutdown.cancelled() => return,
            _ = tokio::time::sleep(every) => {}
        }
    }
}

/// An interchange's date (`CCYYMMDD`) and time (`HHMM`) for `now`.
fn stamp(now: i64) -> (String, String) {
    let ts = format_micros(now);
    (ts[..10].replace('-', ""), ts[11..16].replace(':', ""))
}

/// What became visible on the virtual clock since the last round, by the way it is sent.
#[derive(Default)]
struct Due {
    /// The rail carriers' X12 322 and the ocean carriers' X12 315.
    x12: Vec<StatusMessage>,
    /// The ocean carriers' that speak EDIFACT, as IFTSTA.
    edifact: Vec<StatusMessage>,
    /// The terminals' that speak EDIFACT, as COARRI and CODECO.
    terminal: Vec<boxtrack_sources::edifact::terminal::Report>,
}

impl Due {
    /// What became visible after `sent_until` up to `now`; with `edifact`, the carriers and
    /// terminals that speak it send theirs that way.
    fn between(sim: &Sim, sent_until: i64, now: i64, edifact: bool) -> Due {
        let visible_us = |at: i64| at > sent_until && at <= now;
        let mut due = Due::default();
        for s in &sim.world().shipments {
            if edifact && terminal_speaks_edifact(&s.terminal) {
                due.terminal.extend(
                    s.terminal_reports(sim.world())
                        .into_iter()
                        .filter(|t| visible_us(t.visible_us))
                        .map(|t| t.item),
                );
            }
            due.x12.extend(
                s.rail_messages()
                    .into_iter()
                    .filter(|t| visible_us(t.visible_us))
                    .map(|t| t.item),
            );
            let ocean = s
                .ocean_messages(sim.world())
                .into_iter()
                .filter(|t| visible_us(t.visible_us))
                .map(|t| t.item);
            if edifact && speaks_edifact(&s.scac) {
                due.edifact.extend(ocean);
            } else {
                due.x12.extend(ocean);
            }
        }
        due
    }

    /// The EDIFACT interchanges to send, each with the next control number.
    fn edifact_files(&self, control: &mut u32, date: &str, time: &str) -> Vec<String> {
        let mut files = Vec::new();
        if !self.edifact.is_empty() {
            *control += 1;
            files.push(boxtrack_sources::edifact::iftsta::write_interchange(
                &self.edifact,
                *control,
                date,
                time,
            ));
        }
        if !self.terminal.is_empty() {
            *control += 1;
            files.push(boxtrack_sources::edifact::terminal::write_interchange(
                &self.terminal,
                *control,
                date,
                time,
            ));
        }
        files
    }
}

/// Posts each EDIFACT interchange; whether every one was accepted.
async fn send_edifact(
    sim: &Sim,
    client: &reqwest::Client,
    url: &str,
    key: &str,
    files: Vec<String>,
) -> bool {
    let mut all = true;
    for text in files {
        let ok = client
            .post(url)
            .header("Authorization", format!("Token {key}"))
            .header("Content-Type", "application/edifact")
            .body(text)
            .send()
            .await
            .map(|r| r.status().is_success())
            .unwrap_or(false);
        if ok {
            sim.0.edifact_sent.fetch_add(1, Ordering::Relaxed);
        }
        all &= ok;
    }
    all
}

async fn post_x12(client: &reqwest::Client, url: &str, key: &str, text: String) -> bool {
    client
        .post(url)
        .header("Authorization", format!("Token {key}"))
        .header("Content-Type", "application/edi-x12")
        .body(text)
        .send()
        .await
        .map(|r| r.status().is_success())
        .unwrap_or(false)
}

/// Pushes each carrier's DCSA events to `url` as they become visible on the virtual clock (as
/// a carrier does for an event subscription), in the version the carrier speaks: one body per
/// carrier and round (2.2: a JSON array; 3.0: `{"events": [...]}`), signed with
/// `Notification-Signature: sha256=<hex>` (HMAC-SHA256 with the base64-decoded `secret`).
/// Anything but 204 (2.2) or 200 (3.0) is sent again on the next round.
pub async fn send_dcsa_push(
    sim: Sim,
    url: String,
    secret: String,
    every: Duration,
    shutdown: tokio_util::sync::CancellationToken,
) {
    let client = reqwest::Client::new();
    let subscription = format!(
        "00000000-0000-4000-8000-{:012x}",
        sim.world().seed & 0xffff_ffff_ffff
    );
    let mut sent_until = i64::MIN;
    let mut round: u64 = 0;
    let mut again: Vec<(Version, Vec<u8>)> = Vec::new();
    loop {
        let now = sim.clock().now_us();
        round += 1;
        let mut by_carrier: std::collections::BTreeMap<&str, Vec<&boxtrack_sources::dcsa::Event>> =
            std::collections::BTreeMap::new();
        for (i, s) in sim.world().shipments.iter().enumerate() {
            // a line that speaks its profile pushes no DCSA events (none of them does)
            if sim.line_of(&s.scac).is_some() {
                continue;
            }
            for t in &sim.0.events[i] {
                if t.visible_us > sent_until && t.visible_us <= now {
                    by_carrier.entry(s.scac.as_str()).or_default().push(&t.item);
                }
            }
        }
        let mut all_ok = true;
        let mut bodies: Vec<(Version, Vec<u8>)> = by_carrier
            .iter()
            .filter_map(|(scac, events)| {
                let v = dcsa_version(scac);
                match v {
                    Version::V2_2 => serde_json::to_vec(events),
                    Version::V3_0 => serde_json::to_vec(&boxtrack_sources::dcsa::v3::body(
                        events.iter().copied(),
                    )),
                }
                .ok()
                .map(|b| (v, b))
            })
            .collect();
        let fresh = bodies.len();
        // pushes of an earlier round go once more, after the newer ones (redeliver fault)
        bodies.append(&mut again);
        for (n, (version, body)) in bodies.into_iter().enumerate() {
            let Some(signature) = boxtrack_sources::dcsa::sign(&secret, &body) else {
                tracing::error!("the DCSA push secret is not base64");
                return;
            };
            let mut clock = HeaderMap::new();
            clock_headers(&sim, &mut clock);
            let ok = client
                .post(&url)
                .headers(clock)
                .header("Content-Type", "application/json")
                .header("Notification-Signature", signature)
                .header("Subscription-ID", &subscription)
                .header("API-Version", version.api_version())
                .body(body.clone())
                .send()
                .await
                .map(|r| {
                    r.status()
                        == match version {
                            Version::V2_2 => StatusCode::NO_CONTENT,
                            Version::V3_0 => StatusCode::OK,
                        }
                })
                .unwrap_or(false);
            if n < fresh {
                all_ok &= ok;
                if ok && sim.0.faults.redeliver(round * 1_000 + n as u64) {
                    again.push((version, body));
                }
            }
        }
        if all_ok {
            sent_until = now;
        } else {
            tracing::warn!(url = %url, "DCSA push failed; will send again");
        }
        tokio::select! {
            _ = shutdown.cancelled() => return,
            _ = tokio::time::sleep(every) => {}
        }
    }
}
