//! `boxtrack show`: a readable summary of one container, or else of one shipment, or else
//! what became of the number's tracking request.

use anyhow::bail;

use super::args::ShowArgs;
use super::http::Api;
use super::resources::{
    Container, ContainerAttributes, List, Shipment, ShipmentAttributes, TrackingRequest, decode,
};
use super::summaries::{day, fees_summary, holds_summary, minute, text, yes_no};
use super::{print, query};
use crate::admin::table;

/// `boxtrack show`.
pub async fn show(args: &ShowArgs) -> anyhow::Result<()> {
    let api = Api::new(&args.conn)?;
    let number = args.number.trim().to_ascii_uppercase();
    let q = query(&[
        ("filter[number]", Some(number.clone())),
        (
            "include",
            Some("shipment,transport_events,pod_terminal".into()),
        ),
    ]);
    let doc = api.get(&format!("/v2/containers?{q}")).await?;
    let containers: List<Container> = decode(&doc, "a list of containers")?;
    if let Some(c) = containers.data.first() {
        // what it owes by the account's tariffs (left out where the server has no charges)
        let charges = api
            .get(&format!("/v2/containers/{}/charges", c.id))
            .await
            .ok();
        return print(&doc, args.conn.json, || {
            Ok(container_summary(&containers, charges.as_ref()))
        });
    }
    let q = query(&[
        ("q", Some(number.clone())),
        ("include", Some("containers".into())),
    ]);
    let doc = api.get(&format!("/v2/shipments?{q}")).await?;
    let shipments: List<Shipment> = decode(&doc, "a list of shipments")?;
    if !shipments.data.is_empty() {
        return print(&doc, args.conn.json, || Ok(shipment_summary(&shipments)));
    }
    untracked(&api, &number).await
}

/// The error for a number with neither container nor shipment: its tracking request's state,
/// or that it is not tracked.
async fn untracked(api: &Api, number: &str) -> anyhow::Result<()> {
    let q = query(&[("q", Some(number.to_string()))]);
    let doc = api.get(&format!("/v2/tracking_requests?{q}")).await?;
    let requests: List<TrackingRequest> = decode(&doc, "a list of tracking requests")?;
    if let Some(r) = requests.data.first() {
        let a = &r.attributes;
        bail!(
            "{number} has no shipment yet: its tracking request is {}{}",
            text(&a.status),
            a.failed_reason
                .as_deref()
                .map(|f| format!(" ({f})"))
                .unwrap_or_default()
        );
    }
    bail!("{number} is not tracked by this account: `boxtrack track {number}` starts")
}

/// Lines `  Label           value` of a summary (an empty value leaves its line out).
struct Fields(Vec<String>);

impl Fields {
    fn field(&mut self, label: &str, value: String) {
        if !value.is_empty() {
            self.0.push(format!("  {label:<16}{value}"));
        }
    }
}

/// The readable summary of one container (`show` on a container number), with its charges
/// (`GET /v2/containers/{id}/charges`) when they were read.
fn container_summary(list: &List<Container>, charges: Option<&serde_json::Value>) -> String {
    let Some(c) = list.data.first() else {
        return String::new();
    };
    let a = &c.attributes;
    let mut lines = Fields(vec![format!(
        "Container {}{}",
        text(&a.number),
        a.equipment_length
            .map(|l| format!(" ({l}' {})", text(&a.equipment_type)))
            .unwrap_or_default()
    )]);
    lines.field("Status", text(&a.current_status));
    if let Some(ship) = list.shipment(c.relationships.shipment.id()) {
        shipment_fields(&mut lines, ship);
    }
    let terminal = list.terminal(c.relationships.pod_terminal.id());
    lines.field(
        "Terminal",
        terminal.map(|t| text(&t.name)).unwrap_or_default(),
    );
    pickup_fields(&mut lines, a);
    if let Some(doc) = charges {
        charge_fields(&mut lines, doc);
    }
    last_events(&mut lines.0, list);
    lines.0.join("\n")
}

/// One line per kind a tariff prices: what it owes, the calculated last free day (with the
/// reported one when it differs) and what tomorrow adds; the kinds not priced, in one line.
fn charge_fields(lines: &mut Fields, doc: &serde_json::Value) {
    let a = &doc["data"]["attributes"];
    let s = |v: &serde_json::Value| v.as_str().unwrap_or_default().to_string();
    let mut label = "Charges";
    for c in a["charges"].as_array().into_iter().flatten() {
        let reported = &c["reported_last_free_day"];
        let differs = reported.is_object() && reported["date"] != c["last_free_day"];
        lines.field(
            label,
            format!(
                "{} ({}): {} {} for {} day(s), last free day {}{}{}",
                s(&c["kind"]),
                s(&c["issuer"]),
                s(&c["currency"]),
                s(&c["amount"]),
                c["chargeable_days"].as_u64().unwrap_or(0),
                c["last_free_day"].as_str().unwrap_or("not yet"),
                if differs {
                    format!(
                        " (the {} says {})",
                        s(&reported["source"]),
                        s(&reported["date"])
                    )
                } else {
                    String::new()
                },
                c["coming"][0]["adds"]
                    .as_str()
                    .map(|adds| format!(", +{adds} tomorrow"))
                    .unwrap_or_default(),
            ),
        );
        label = "";
    }
    let missing: Vec<String> = a["missing"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|m| s(&m["kind"]))
        .collect();
    if label == "Charges" {
        lines.field("Charges", "no tariff prices this box".into());
    } else if !missing.is_empty() {
        lines.field("", format!("no tariff for {}", missing.join(", ")));
    }
}

/// A container's shipment: bill of lading, route, vessel, arrival or ETA.
fn shipment_fields(lines: &mut Fields, ship: &ShipmentAttributes) {
    lines.field(
        "Bill of lading",
        format!(
            "{} ({})",
            text(&ship.bill_of_lading_number),
            text(&ship.shipping_line_scac)
        ),
    );
    lines.field(
        "Route",
        format!(
            "{} → {}",
            text(&ship.port_of_lading_name),
            text(&ship.port_of_discharge_name)
        ),
    );
    lines.field("Vessel", text(&ship.pod_vessel_name));
    match (day(&ship.pod_ata_at), day(&ship.pod_eta_at)) {
        (Some(ata), _) => lines.field("Arrived", ata),
        (None, Some(eta)) => lines.field("ETA", eta),
        _ => {}
    }
}

/// What a pickup depends on: last free day, readiness, holds and fees.
fn pickup_fields(lines: &mut Fields, a: &ContainerAttributes) {
    lines.field(
        "Last free day",
        day(&a.pickup_lfd).unwrap_or_else(|| "not known".into()),
    );
    lines.field(
        "Ready",
        if a.ready_for_pickup == Some(true) {
            "yes".to_string()
        } else if a.availability_known == Some(true) {
            "no".to_string()
        } else {
            "not known".to_string()
        },
    );
    lines.field("Holds", holds_summary(a));
    if let Some(release) = super::summaries::release_summary(a) {
        lines.field("Release", release);
    }
    lines.field("Fees", fees_summary(a));
}

/// The last five transport events, newest first.
fn last_events(lines: &mut Vec<String>, list: &List<Container>) {
    let mut events = list.transport_events();
    events.sort_by_key(|e| e.timestamp.clone().unwrap_or_default());
    if events.is_empty() {
        return;
    }
    lines.push("  Last events".to_string());
    for e in events.iter().rev().take(5) {
        lines.push(format!(
            "    {:<17} {}{}",
            minute(&e.timestamp),
            text(&e.event),
            e.location_locode
                .as_deref()
                .map(|l| format!(" at {l}"))
                .unwrap_or_default()
        ));
    }
}

/// The readable summary of one shipment (`show` on a bill of lading or booking number).
fn shipment_summary(list: &List<Shipment>) -> String {
    let Some(s) = list.data.first() else {
        return String::new();
    };
    let a = &s.attributes;
    let mut lines = vec![format!(
        "Shipment {} ({})",
        text(&a.bill_of_lading_number),
        text(&a.shipping_line_scac)
    )];
    lines.push(format!(
        "  {:<16}{} → {}",
        "Route",
        text(&a.port_of_lading_name),
        text(&a.port_of_discharge_name)
    ));
    if let Some(v) = &a.pod_vessel_name {
        lines.push(format!("  {:<16}{v}", "Vessel"));
    }
    match (day(&a.pod_ata_at), day(&a.pod_eta_at)) {
        (Some(ata), _) => lines.push(format!("  {:<16}{ata}", "Arrived")),
        (None, Some(eta)) => lines.push(format!("  {:<16}{eta}", "ETA")),
        _ => {}
    }
    let rows: Vec<Vec<String>> = s
        .relationships
        .containers
        .data
        .iter()
        .filter_map(|r| list.container(&r.id))
        .map(|ca| {
            vec![
                text(&ca.number),
                text(&ca.current_status),
                day(&ca.pickup_lfd).unwrap_or_default(),
                yes_no(ca.ready_for_pickup),
                holds_summary(ca),
            ]
        })
        .collect();
    if !rows.is_empty() {
        lines.push(String::new());
        lines.push(table(
            &["CONTAINER", "STATUS", "LFD", "READY", "HOLDS"],
            &rows,
        ));
    }
    lines.join("\n")
}
