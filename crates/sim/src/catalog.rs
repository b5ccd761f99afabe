//! What exists in the world and what has happened to it so far: `GET /sim/v1/catalog` and
//! `GET /sim/v1/record`.

use std::sync::atomic::Ordering;

use axum::Json;
use axum::extract::State;
use axum::http::HeaderMap;
use boxtrack_core::time::format_micros;
use serde_json::{Value, json};

use crate::{Sim, dcsa_version, terminal_speaks_edifact};

/// `GET /sim/v1/record`: what has happened so far to every container of the world, each
/// milestone once with its place and exact time, whoever reports it (the world's own record,
/// to score a tracker's view against).
pub(crate) async fn record(State(sim): State<Sim>) -> Json<Value> {
    let now = sim.clock().now_us();
    let mut out = serde_json::Map::new();
    for s in &sim.world().shipments {
        for (i, c) in s.containers.iter().enumerate() {
            let happened: Vec<Value> = s
                .record(i)
                .into_iter()
                .filter(|h| h.at_us <= now)
                .map(|h| json!({"event": h.event, "location": h.locode, "at": format_micros(h.at_us)}))
                .collect();
            out.insert(c.clone(), Value::Array(happened));
        }
    }
    Json(json!({"now": format_micros(now), "containers": out}))
}

pub(crate) async fn catalog(State(sim): State<Sim>, headers: HeaderMap) -> Json<Value> {
    let host = headers
        .get("Host")
        .and_then(|v| v.to_str().ok())
        .unwrap_or("127.0.0.1");
    let base = format!("http://{host}");
    let w = sim.world();
    let bls: Vec<Value> = w
        .shipments
        .iter()
        .map(|s| {
            json!({
                "number": s.bill_of_lading, "scac": s.scac, "booking": s.booking,
                "containers": s.containers, "port_of_lading": s.pol, "port_of_discharge": s.pod,
                "pod_terminal": s.terminal,
                "destination": s.inland.as_ref().map(|i| &i.locode),
                "rail_carrier": s.inland.as_ref().map(|i| &i.rail_scac),
                "vessel": w.vessels[s.vessel].name, "vessel_imo": w.vessels[s.vessel].imo,
                "departs_at": format_micros(s.depart_us), "arrives_at": format_micros(s.arrival_us()),
            })
        })
        .collect();
    let bookings: Vec<Value> = w
        .shipments
        .iter()
        .map(|s| json!({"number": s.booking, "scac": s.scac, "bill_of_lading": s.bill_of_lading}))
        .collect();
    let containers: Vec<Value> = w
        .shipments
        .iter()
        .flat_map(|s| {
            s.containers.iter().map(
                move |c| json!({"number": c, "scac": s.scac, "bill_of_lading": s.bill_of_lading, "terminal": s.terminal}),
            )
        })
        .collect();
    let mut carriers: Vec<&str> = w.shipments.iter().map(|s| s.scac.as_str()).collect();
    carriers.sort_unstable();
    carriers.dedup();
    let mut terminals: Vec<&str> = w.shipments.iter().map(|s| s.terminal.as_str()).collect();
    terminals.sort_unstable();
    terminals.dedup();
    Json(json!({
        "seed": w.seed,
        "now": format_micros(sim.clock().now_us()),
        "edifact_interchanges_sent": sim.0.edifact_sent.load(Ordering::Relaxed),
        "bills_of_lading": bls,
        "bookings": bookings,
        "containers": containers,
        "carriers": carriers.iter().map(|s| match sim.line_of(s) {
            Some(l) => json!({"scac": s, "dcsa_version": l.version(), "dcsa_path": format!("{}{}", l.prefix(), l.events_path()), "profile": l.name(), "table": l.table(s, &base)}),
            None => {
                let v = dcsa_version(s);
                json!({"scac": s, "dcsa_version": v, "dcsa_path": format!("/sim/v1/carriers/{s}{}", v.events_path()), "profile": null})
            }
        }).collect::<Vec<_>>(),
        "lines": sim.lines().iter().map(|l| json!({
            "profile": l.name(),
            "scacs": l.profile.scacs,
            "events_path": format!("{}{}", l.prefix(), l.events_path()),
            "token_path": l.token_path().map(|p| format!("{}{p}", l.prefix())),
            "credentials": l.profile.auth.credentials().iter().map(|k| (k.to_string(), Value::String(l.credential(k)))).collect::<serde_json::Map<_, _>>(),
            "unsubscribed": l.unsubscribed(),
            "expired": l.expired(),
        })).collect::<Vec<_>>(),
        "terminals": terminals.iter().map(|t| json!({"code": t, "feed_path": format!("/sim/v1/terminals/{t}"), "edifact": terminal_speaks_edifact(t)})).collect::<Vec<_>>(),
        "vessels": w.vessels,
    }))
}
