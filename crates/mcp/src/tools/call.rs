//! Each tool's call: the requests it makes and the answer it builds.

use axum::http::Method;
use boxtrack_core::time::parse_micros;
use boxtrack_core::tracking::LfdKind;
use boxtrack_core::tracking::rules;
use serde_json::{Map, Value, json};

use boxtrack_api::state::AppState;

use super::rest::*;

/// A call's outcome: structured content, or a failure explained to the model.
pub enum Outcome {
    /// Success.
    Ok(Value),
    /// A failure (`isError: true`), with the message to show.
    Failed(String),
}

/// Runs a tool. The caller has already validated the arguments.
pub async fn call(
    state: &AppState,
    account: &boxtrack_store::accounts::Account,
    credential: super::credential::Credential,
    name: &str,
    args: &Map<String, Value>,
) -> Outcome {
    if let Some(refused) = over_limit(state, account, name).await {
        return Outcome::Failed(refused);
    }
    let rest = Rest { state, account };
    let s = |k: &str| args.get(k).and_then(Value::as_str).map(str::to_string);
    let r: Result<Value, String> = match name {
        "search_container" => super::search::get(state, account, &s("query").unwrap_or_default())
            .await
            .map(|answer| serde_json::to_value(answer).unwrap_or(Value::Null)),
        "summarize_containers" => super::summary::get(state, account, args)
            .await
            .map(|answer| serde_json::to_value(answer).unwrap_or(Value::Null)),
        "search_docs" => {
            let limit = args
                .get("limit")
                .and_then(Value::as_u64)
                .map_or(super::docs::DEFAULT_LIMIT, |n| n as usize);
            Ok(
                serde_json::to_value(super::docs::search(&s("query").unwrap_or_default(), limit))
                    .unwrap_or(Value::Null),
            )
        }
        "whoami" => super::account::whoami(state, account, credential)
            .await
            .map(|answer| serde_json::to_value(answer).unwrap_or(Value::Null)),
        "list_parties" => {
            let n = |k: &str, default: u64, max: u64| {
                args.get(k)
                    .and_then(Value::as_u64)
                    .unwrap_or(default)
                    .clamp(1, max) as usize
            };
            super::account::parties(
                state,
                account,
                s("search").as_deref(),
                n("limit", 25, 50),
                n("page", 1, 10_000),
            )
            .await
            .map(|answer| serde_json::to_value(answer).unwrap_or(Value::Null))
        }
        "track_container" => super::track::track(state, account, args)
            .await
            .map(|answer| serde_json::to_value(answer).unwrap_or(Value::Null)),
        "get_container" => {
            let Ok(id) = s("id").unwrap_or_default().parse::<uuid::Uuid>() else {
                return Outcome::Failed(
                    "id must be a container's UUID; use search_container to find it by number."
                        .into(),
                );
            };
            let include: Vec<String> = match args.get("include").and_then(Value::as_array) {
                Some(list) => list
                    .iter()
                    .filter_map(|i| i.as_str().map(str::to_string))
                    .collect(),
                None => vec!["shipment".to_string()],
            };
            super::container::get(state, account, id, &include)
                .await
                .map(|answer| serde_json::to_value(answer).unwrap_or(Value::Null))
        }
        "get_shipment_details" => {
            let Ok(id) = s("id").unwrap_or_default().parse::<uuid::Uuid>() else {
                return Outcome::Failed("id must be a shipment's UUID; use search_container to find it by bill of lading or reference number.".into());
            };
            let flag =
                |k: &str, default: bool| args.get(k).and_then(Value::as_bool).unwrap_or(default);
            super::shipment::get(
                state,
                account,
                id,
                flag("include_containers", true),
                flag("include_custom_fields", false),
            )
            .await
            .map(|answer| serde_json::to_value(answer).unwrap_or(Value::Null))
        }
        "get_container_transport_events" => {
            let Ok(id) = s("id").unwrap_or_default().parse::<uuid::Uuid>() else {
                return Outcome::Failed(
                    "id must be a container's UUID; use search_container to find it by number."
                        .into(),
                );
            };
            super::events::get(state, account, id)
                .await
                .map(|answer| serde_json::to_value(answer).unwrap_or(Value::Null))
        }
        "get_supported_shipping_lines" => Ok(serde_json::to_value(super::route::lines(
            s("search").as_deref(),
        ))
        .unwrap_or(Value::Null)),
        "get_container_route" => {
            if !account.has(boxtrack_core::plan::Entitlement::Routing) {
                return Outcome::Failed("Route tracking is not enabled for this account (entitlement `routing`); the operator can enable it. Alternative: get_container_transport_events shows the container's movements, and get_shipment_details its ports with their ETAs and ATAs.".into());
            }
            let Ok(id) = s("id").unwrap_or_default().parse::<uuid::Uuid>() else {
                return Outcome::Failed(
                    "id must be a container's UUID; use search_container to find it by number."
                        .into(),
                );
            };
            super::route::get(state, account, id)
                .await
                .map(|answer| serde_json::to_value(answer).unwrap_or(Value::Null))
        }
        "list_shipments" => super::lists::shipments(state, account, args)
            .await
            .map(|answer| serde_json::to_value(answer).unwrap_or(Value::Null)),
        "list_containers" => super::lists::containers(state, account, args)
            .await
            .map(|answer| serde_json::to_value(answer).unwrap_or(Value::Null)),
        "list_tracking_requests" => super::lists::requests(state, account, args)
            .await
            .map(|answer| serde_json::to_value(answer).unwrap_or(Value::Null)),
        "stop_tracking" | "resume_tracking" => {
            let id = s("shipment_id").unwrap_or_default();
            let action = if name == "stop_tracking" {
                "stop_tracking"
            } else {
                "resume_tracking"
            };
            match rest
                .call(Method::PATCH, &format!("/v2/shipments/{id}/{action}"), None)
                .await
            {
                (200, doc) => Ok(flat(&doc["data"])),
                (_, doc) => Err(error_text(&doc)),
            }
        }
        "refresh_container" => {
            let id = s("id").unwrap_or_default();
            match rest
                .call(Method::PATCH, &format!("/v2/containers/{id}/refresh"), None)
                .await
            {
                (200, v) => Ok(v),
                (_, doc) => Err(error_text(&doc)),
            }
        }
        "list_webhooks" => rest.get("/v2/webhooks").await.map(list_result),
        "create_webhook" => {
            // no events named: every event of the catalog
            let events = match args.get("events").and_then(Value::as_array) {
                Some(e) if !e.is_empty() => Value::Array(e.clone()),
                _ => json!(boxtrack_core::webhooks::EVENTS.to_vec()),
            };
            let body = json!({"data": {"type": "webhook", "attributes": {"url": s("url"), "active": true, "events": events}}});
            match rest.call(Method::POST, "/v2/webhooks", Some(body)).await {
                (201, doc) => Ok(flat(&doc["data"])),
                (_, doc) => Err(error_text(&doc)),
            }
        }
        "get_container_readiness" => {
            let id = s("id").unwrap_or_default();
            match rest.get(&format!("/v2/containers/{id}")).await {
                Err(e) => Err(e),
                Ok(doc) => {
                    let now = data_now(&rest, &doc).await;
                    let a = &doc["data"]["attributes"];
                    let deadlines = &a["import_deadlines"];
                    let mut known = std::collections::BTreeMap::new();
                    for (k, kind) in [
                        ("pickup_lfd_line", LfdKind::Line),
                        ("pickup_lfd_terminal", LfdKind::Terminal),
                        ("pickup_lfd_rail", LfdKind::Rail),
                    ] {
                        if let Some(t) = deadlines[k].as_str().and_then(parse_micros) {
                            known.insert(kind, t);
                        }
                    }
                    // a rail LFD is kept at the inland ramp, in its zone
                    let zone = rules::lfd_zone(
                        &known,
                        true,
                        a["pod_timezone"].as_str(),
                        a["final_destination_timezone"].as_str(),
                    )
                    .map(str::to_string);
                    let lfd = a["pickup_lfd"].as_str().map(str::to_string);
                    let days_left = lfd
                        .as_deref()
                        .and_then(parse_micros)
                        .and_then(|l| rules::days_until(l, zone.as_deref(), now));
                    let fees: Vec<Value> = a["fees_at_pod_terminal"]
                        .as_array()
                        .cloned()
                        .unwrap_or_default()
                        .into_iter()
                        .filter(|f| f["type"] != "total")
                        .collect();
                    let holds: Vec<Value> = a["holds_at_pod_terminal"]
                        .as_array()
                        .cloned()
                        .unwrap_or_default()
                        .into_iter()
                        .filter(|h| h["status"] == "hold")
                        .collect();
                    Ok(json!({
                        "container_number": a["number"], "ready_for_pickup": a["ready_for_pickup"].as_bool().unwrap_or(false),
                        "current_status": a["current_status"], "holds": holds, "fees": fees,
                        "pickup_lfd": lfd, "days_left": days_left, "time_zone": zone,
                        "pickup_appointment_at": a["pickup_appointment_at"]
                    }))
                }
            }
        }
        other => Err(format!("unknown tool {other}")),
    };
    match r {
        Ok(v) => Outcome::Ok(v),
        Err(e) => Outcome::Failed(e),
    }
}

/// The tools that call the REST routes in process, whose rate limits apply there.
const THROUGH_REST: [&str; 6] = [
    "stop_tracking",
    "resume_tracking",
    "refresh_container",
    "list_webhooks",
    "create_webhook",
    "get_container_readiness",
];

/// The account's rate limit for a tool on the read layer, as REST counts it (`track_container`
/// in the bucket of `POST /v2/tracking_requests`, the rest in the default one): why the call is
/// refused, or `None`.
async fn over_limit(
    state: &AppState,
    account: &boxtrack_store::accounts::Account,
    name: &str,
) -> Option<String> {
    use boxtrack_core::ratelimit::Bucket;
    if THROUGH_REST.contains(&name) {
        return None;
    }
    let bucket = if name == "track_container" {
        Bucket::for_route("POST", "/v2/tracking_requests")
    } else {
        Bucket::Default
    };
    let limit = account.rate_limits.limit(bucket);
    match state.limiter.check(account.id, bucket, limit).await {
        Ok(d) if d.allowed => None,
        Ok(d) => {
            state.metrics.record_rate_limited(bucket.as_str());
            Some(format!(
                "The account's rate limit of {limit} requests a minute for {bucket} is reached. Wait {} seconds, then call again (webhooks spare polling).",
                d.retry_after_secs()
            ))
        }
        Err(_) => Some("The rate limit could not be checked; try again shortly.".into()),
    }
}

/// "Now" on the clock of a container's data (from its REST document).
async fn data_now(rest: &Rest<'_>, container: &Value) -> i64 {
    match container["data"]["relationships"]["shipment"]["data"]["id"]
        .as_str()
        .and_then(|s| uuid::Uuid::parse_str(s).ok())
    {
        Some(shipment) => super::clock::data_now(rest.state, rest.account.id, shipment).await,
        None => boxtrack_store::now_us(),
    }
}
