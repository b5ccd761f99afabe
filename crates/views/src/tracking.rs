//! Resource objects of tracking: tracking requests, shipments, containers, transport
//! events. Every attribute of the contract is present (null when unknown).

use boxtrack_core::carriers;
use boxtrack_core::plan::Entitlement;
use boxtrack_core::time::format_micros;
use boxtrack_core::tracking::LfdKind;
use boxtrack_core::tracking::merge::{fee_json, hold_json};
use boxtrack_core::tracking::rules::{coalesced_lfd, t};
use boxtrack_store::accounts::Account;
use boxtrack_store::reads::{ContainerRow, RawEventRow, ShipmentRow, TransportEventRow};
use boxtrack_store::tracking::TrackingRequestRow;
use serde_json::{Value, json};

use crate::jsonapi::{resource, to_one};

fn ts(v: Option<i64>) -> Value {
    v.map_or(Value::Null, |us| Value::String(format_micros(us)))
}

fn port_rel(locode: Option<&str>) -> Value {
    to_one(
        "port",
        locode
            .and_then(boxtrack_core::reference::port)
            .map(|p| crate::reference::port_id(&p.locode)),
    )
}

/// The `tracking_request` resource.
pub fn tracking_request(r: &TrackingRequestRow) -> Value {
    resource(
        "tracking_request",
        r.id,
        "tracking_requests",
        json!({
            "request_number": r.request_number,
            "request_type": r.request_type,
            "scac": r.scac,
            "auto_detect_vocc_scac": r.auto_detect,
            "status": r.status,
            "failed_reason": r.failed_reason,
            "is_retrying": r.is_retrying,
            "retry_count": r.retry_count,
            "ref_numbers": r.ref_numbers.0,
            "shipment_tags": r.shipment_tags.0,
            "created_at": format_micros(r.created_us),
            "updated_at": format_micros(r.updated_us),
        }),
        Some(json!({
            "tracked_object": to_one("shipment", r.shipment_id),
            "customer": to_one("party", r.customer_id),
        })),
    )
}

/// The `shipment` resource; `container_ids` fills the `containers` relationship.
pub fn shipment(s: &ShipmentRow, container_ids: &[uuid::Uuid]) -> Value {
    let route = &s.route.0;
    let st = &s.state.0;
    let line = carriers::by_scac(&s.scac);
    resource(
        "shipment",
        s.id,
        "shipments",
        json!({
            "bill_of_lading_number": s.bill_of_lading_number,
            "normalized_number": s.bill_of_lading_number,
            "ref_numbers": s.ref_numbers.0,
            "tags": s.tags.0,
            "created_at": format_micros(s.created_us),
            "updated_at": format_micros(s.updated_us),
            "port_of_lading_locode": route.pol_locode,
            "port_of_lading_name": route.pol_name,
            "port_of_discharge_locode": route.pod_locode,
            "port_of_discharge_name": route.pod_name,
            "destination_locode": route.destination_locode,
            "destination_name": route.destination_name,
            "shipping_line_scac": s.scac,
            "shipping_line_name": line.map(|l| l.name.clone()),
            "shipping_line_short_name": line.map(|l| l.short_name.clone()),
            "customer_name": s.customer_name,
            "pod_vessel_name": st.pod_vessel_name,
            "pod_vessel_imo": st.pod_vessel_imo,
            "pod_voyage_number": st.pod_voyage_number,
            "pol_etd_at": ts(st.pol_etd_us),
            "pol_atd_at": ts(st.pol_atd_us),
            "pol_original_etd_at": ts(st.pol_original_etd_us),
            "pod_eta_at": ts(st.pod_eta_us),
            "pod_original_eta_at": ts(st.pod_original_eta_us),
            "pod_ata_at": ts(st.pod_ata_us),
            "destination_eta_at": ts(st.destination_eta_us),
            "destination_original_eta_at": ts(st.destination_original_eta_us),
            "destination_ata_at": ts(st.destination_ata_us),
            "pol_timezone": route.pol_timezone,
            "pod_timezone": route.pod_timezone,
            "destination_timezone": route.destination_timezone,
            "line_tracking_last_attempted_at": format_micros(s.updated_us),
            "line_tracking_last_succeeded_at": format_micros(s.updated_us),
            "line_tracking_stopped_at": ts(s.tracking_stopped_us),
            "line_tracking_stopped_reason": s.stopped_reason,
        }),
        Some(json!({
            "port_of_lading": port_rel(route.pol_locode.as_deref()),
            "port_of_discharge": port_rel(route.pod_locode.as_deref()),
            "destination": port_rel(route.destination_locode.as_deref()),
            "pod_terminal": {"data": null},
            "destination_terminal": {"data": null},
            "containers": {"data": container_ids.iter().map(|id| json!({"id": id.to_string(), "type": "container"})).collect::<Vec<_>>()},
            "customer": to_one("party", s.customer_id),
        })),
    )
}

/// The `container` resource as `account` may see it (rail LFD needs its entitlement).
pub fn container(c: &ContainerRow, shipment: Option<&ShipmentRow>, account: &Account) -> Value {
    let st = &c.state.0;
    let time = |k: &str| ts(st.times.get(k).copied());
    let rail = account.has(Entitlement::RailLfd);
    let lfd = |k: LfdKind| ts(st.lfd.get(&k).copied());
    let rail_lfd = if rail {
        lfd(LfdKind::Rail)
    } else {
        Value::Null
    };
    let route = shipment.map(|s| s.route.0.clone()).unwrap_or_default();
    let final_tz = if route.inland() {
        route.destination_timezone.clone()
    } else {
        route.pod_timezone.clone()
    };
    resource(
        "container",
        c.id,
        "containers",
        json!({
            "number": c.number,
            "seal_number": st.equipment.seal_number,
            "created_at": format_micros(c.created_us),
            "updated_at": format_micros(c.updated_us),
            "ref_numbers": c.ref_numbers.0,
            "equipment_type": st.equipment.equipment_type,
            "equipment_length": st.equipment.equipment_length,
            "equipment_height": st.equipment.equipment_height,
            "weight_in_lbs": st.equipment.weight_in_lbs,
            "pod_arrived_at": time(t::POD_ARRIVED),
            "pod_discharged_at": time(t::POD_DISCHARGED),
            "pod_full_out_at": time(t::POD_FULL_OUT),
            "final_destination_full_out_at": time(t::FINAL_FULL_OUT),
            "empty_terminated_at": time(t::EMPTY_TERMINATED),
            "delivered_at": time(t::DELIVERED),
            "empty_out_at": time(t::EMPTY_OUT),
            "pol_full_in_at": time(t::POL_FULL_IN),
            "pol_vessel_loaded_at": time(t::POL_VESSEL_LOADED),
            "pol_vessel_departed_at": time(t::POL_VESSEL_DEPARTED),
            "terminal_checked_at": st.versions.get("availability").or(st.versions.get("holds")).map(|v| format_micros(*v)),
            "pod_last_tracking_request_at": null,
            "shipment_last_tracking_request_at": shipment.map(|s| format_micros(s.updated_us)),
            "rail_last_tracking_request_at": null,
            "available_for_pickup": boxtrack_core::tracking::rules::available_for_pickup(st, route.inland()),
            "availability_known": st.availability_known,
            "ready_for_pickup": c.ready_for_pickup,
            "holds_at_pod_terminal": st.holds.iter().map(hold_json).collect::<Vec<_>>(),
            "fees_at_pod_terminal": st.fees.iter().map(fee_json).collect::<Vec<_>>(),
            "pickup_lfd": ts(coalesced_lfd(&st.lfd, rail)),
            "import_deadlines": {
                "pickup_lfd_terminal": lfd(LfdKind::Terminal),
                "pickup_lfd_rail": rail_lfd.clone(),
                "pickup_lfd_line": lfd(LfdKind::Line),
            },
            "ssl_lfd": lfd(LfdKind::Line),
            "pickup_appointment_at": ts(st.pickup_appointment_us),
            "pod_full_out_chassis_number": st.pod_full_out_chassis_number,
            "location_at_pod_terminal": st.location_at_pod_terminal,
            "pod_timezone": route.pod_timezone,
            "final_destination_timezone": final_tz,
            "empty_terminated_timezone": route.pod_timezone,
            "pod_rail_carrier_scac": st.pod_rail_carrier_scac,
            "ind_rail_carrier_scac": st.ind_rail_carrier_scac,
            "pod_rail_loaded_at": time(t::POD_RAIL_LOADED),
            "pod_rail_departed_at": time(t::POD_RAIL_DEPARTED),
            "ind_eta_at": time(t::IND_ETA),
            "ind_ata_at": time(t::IND_ATA),
            "ind_rail_unloaded_at": time(t::IND_RAIL_UNLOADED),
            "ind_facility_lfd_on": rail_lfd,
            "ind_facility_holds": null,
            "ind_facility_fees": null,
            "current_status": c.current_status,
        }),
        Some(json!({
            "shipment": to_one("shipment", Some(c.shipment_id)),
            "pod_terminal": to_one("terminal", st.pod_terminal.as_deref().and_then(boxtrack_core::reference::terminal).map(|t| crate::reference::terminal_id(&t.firms_code))),
            "pickup_facility": {"data": null},
        })),
    )
}

/// Whether an event happened inland (its location is then a metro area rather than a port).
pub fn inland_event(event: &str) -> bool {
    ["rail_", "arrived_at_inland_destination"]
        .iter()
        .any(|p| event.contains(p))
}

fn event_location(e: &TransportEventRow) -> Value {
    let place = e.locode.as_deref().and_then(boxtrack_core::reference::port);
    match place {
        Some(p) if inland_event(&e.event) => {
            json!({"data": {"id": crate::reference::metro_id(&p.locode).to_string(), "type": "metro_area"}})
        }
        Some(p) => {
            json!({"data": {"id": crate::reference::port_id(&p.locode).to_string(), "type": "port"}})
        }
        None => json!({"data": null}),
    }
}

/// The `transport_event` resource.
pub fn transport_event(e: &TransportEventRow) -> Value {
    let value = if e.event.starts_with("container.pickup_") {
        ts(e.at_us)
    } else {
        Value::Null
    };
    resource(
        "transport_event",
        e.id,
        "transport_events",
        json!({
            "event": e.event,
            "timestamp": ts(e.at_us),
            "timezone": e.timezone,
            "location_locode": e.locode,
            "voyage_number": e.voyage,
            "vessel_name": e.vessel_name,
            "vessel_imo": e.vessel_imo,
            "terminal_code": e.terminal,
            "data_source": e.data_source,
            "value": value,
            "invalidated_at": null,
            "created_at": format_micros(e.created_us),
        }),
        Some(json!({
            "shipment": to_one("shipment", Some(e.shipment_id)),
            "container": to_one("container", Some(e.container_id)),
            "location": event_location(e),
            "vessel": to_one("vessel", e.vessel_imo.as_deref().map(crate::reference::vessel_id)),
            "terminal": to_one("terminal", e.terminal.as_deref().and_then(boxtrack_core::reference::terminal).map(|t| crate::reference::terminal_id(&t.firms_code))),
        })),
    )
}

/// The `raw_event` resource: one observation as its source reported it.
pub fn raw_event(e: &RawEventRow) -> Value {
    resource(
        "raw_event",
        e.id,
        "raw_events",
        json!({
            "event": e.event,
            "original_event": e.original.0,
            "timestamp": ts(e.at_us),
            "estimated": e.estimated,
            "actual_at": if e.estimated { Value::Null } else { ts(e.at_us) },
            "estimated_at": if e.estimated { ts(e.at_us) } else { Value::Null },
            "timezone": e.timezone,
            "location_locode": e.locode,
            "vessel_name": e.vessel_name,
            "vessel_imo": e.vessel_imo,
            "voyage_number": e.voyage,
            "data_source": e.data_source,
            "observed_at": format_micros(e.observed_us),
            "created_at": format_micros(e.created_us),
        }),
        Some(json!({
            "container": to_one("container", Some(e.container_id)),
            "shipment": to_one("shipment", Some(e.shipment_id)),
        })),
    )
}
