//! `boxtrack containers` and `boxtrack shipments`: the account's lists with the API's
//! filters, as tables.

use super::args::{ContainersArgs, ShipmentsArgs};
use super::http::Api;
use super::print;
use super::resources::{Container, List, Shipment, decode};
use super::summaries::{day, holds_summary, text, yes_no};
use crate::admin::table;

/// `boxtrack containers`.
pub async fn containers(args: &ContainersArgs) -> anyhow::Result<()> {
    let l = &args.list;
    let api = Api::new(&l.conn)?;
    let q = l.query(&[
        ("filter[current_status]", args.status.clone()),
        (
            "filter[ready_for_pickup]",
            args.ready.map(|b| b.to_string()),
        ),
        ("filter[pickup_lfd][end]", args.lfd_before.clone()),
        ("filter[pickup_lfd][start]", args.lfd_after.clone()),
        (
            "filter[tracking_stopped]",
            args.tracking_stopped.map(|b| b.to_string()),
        ),
        ("include", Some("shipment".into())),
    ]);
    let doc = api.list(&format!("/v2/containers?{q}"), l.limit).await?;
    print(&doc, l.conn.json, || {
        Ok(containers_table(&decode(&doc, "a list of containers")?))
    })
}

/// The table `boxtrack containers` prints.
fn containers_table(list: &List<Container>) -> String {
    let rows: Vec<Vec<String>> = list
        .data
        .iter()
        .map(|c| {
            let a = &c.attributes;
            let s = list.shipment(c.relationships.shipment.id());
            vec![
                text(&a.number),
                text(&a.current_status),
                s.map(|s| text(&s.bill_of_lading_number))
                    .unwrap_or_default(),
                s.and_then(|s| day(&s.pod_ata_at).or_else(|| day(&s.pod_eta_at)))
                    .unwrap_or_default(),
                day(&a.pickup_lfd).unwrap_or_default(),
                yes_no(a.ready_for_pickup),
                holds_summary(a),
            ]
        })
        .collect();
    if rows.is_empty() {
        return "no containers".to_string();
    }
    table(
        &[
            "CONTAINER",
            "STATUS",
            "BILL OF LADING",
            "POD ETA/ATA",
            "LFD",
            "READY",
            "HOLDS",
        ],
        &rows,
    )
}

/// `boxtrack shipments`.
pub async fn shipments(args: &ShipmentsArgs) -> anyhow::Result<()> {
    let l = &args.list;
    let api = Api::new(&l.conn)?;
    let q = l.query(&[("filter[status]", args.status.clone())]);
    let doc = api.list(&format!("/v2/shipments?{q}"), l.limit).await?;
    print(&doc, l.conn.json, || {
        Ok(shipments_table(&decode(&doc, "a list of shipments")?))
    })
}

/// The table `boxtrack shipments` prints.
fn shipments_table(list: &List<Shipment>) -> String {
    let rows: Vec<Vec<String>> = list
        .data
        .iter()
        .map(|s| {
            let a = &s.attributes;
            vec![
                text(&a.bill_of_lading_number),
                text(&a.shipping_line_scac),
                format!(
                    "{} → {}",
                    text(&a.port_of_lading_locode),
                    text(&a.port_of_discharge_locode)
                ),
                day(&a.pod_ata_at)
                    .map(|d| format!("{d} (arrived)"))
                    .or_else(|| day(&a.pod_eta_at))
                    .unwrap_or_default(),
                s.relationships.containers.data.len().to_string(),
                if a.line_tracking_stopped_at.is_none() {
                    "tracking"
                } else {
                    "stopped"
                }
                .to_string(),
            ]
        })
        .collect();
    if rows.is_empty() {
        return "no shipments".to_string();
    }
    table(
        &[
            "BILL OF LADING",
            "LINE",
            "ROUTE",
            "POD ETA",
            "CONTAINERS",
            "TRACKING",
        ],
        &rows,
    )
}
