//! Each tool's call: the requests it makes and the answer it builds.

use serde_json::{Map, Value};

use boxtrack_api::state::AppState;

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
                .map_or(super::search_docs::DEFAULT_LIMIT, |n| n as usize);
            Ok(serde_json::to_value(super::search_docs::search(
                &s("query").unwrap_or_default(),
                limit,
            ))
            .unwrap_or(Value::Null))
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
        "list_tracking_requests" => super::request_list::requests(state, account, args)
            .await
            .map(|answer| serde_json::to_value(answer).unwrap_or(Value::Null)),
        "stop_tracking" | "resume_tracking" => {
            let Ok(id) = s("shipment_id").unwrap_or_default().parse::<uuid::Uuid>() else {
                return Outcome::Failed("shipment_id must be a shipment's UUID; use search_container to find it by bill of lading.".into());
            };
            super::writes::stop_or_resume(state, account, id, name == "stop_tracking")
                .await
                .map(|answer| serde_json::to_value(answer).unwrap_or(Value::Null))
        }
        "refresh_container" => {
            let Ok(id) = s("id").unwrap_or_default().parse::<uuid::Uuid>() else {
                return Outcome::Failed(
                    "id must be a container's UUID; use search_container to find it by number."
                        .into(),
                );
            };
            super::writes::refresh(state, account, id).await
        }
        "list_webhooks" => super::writes::webhooks(state, account)
            .await
            .map(|answer| serde_json::to_value(answer).unwrap_or(Value::Null)),
        "create_webhook" => {
            let events: Option<Vec<String>> =
                args.get("events").and_then(Value::as_array).map(|e| {
                    e.iter()
                        .filter_map(Value::as_str)
                        .map(str::to_string)
                        .collect()
                });
            super::writes::create_webhook(state, account, &s("url").unwrap_or_default(), events)
                .await
                .map(|answer| serde_json::to_value(answer).unwrap_or(Value::Null))
        }
        "get_container_readiness" => {
            let Ok(id) = s("id").unwrap_or_default().parse::<uuid::Uuid>() else {
                return Outcome::Failed(
                    "id must be a container's UUID; use search_container to find it by number."
                        .into(),
                );
            };
            super::container::readiness(state, account, id).await
        }
        other => Err(format!("unknown tool {other}")),
    };
    match r {
        Ok(v) => Outcome::Ok(v),
        Err(e) => Outcome::Failed(e),
    }
}

/// The account's rate limit for a tool on the read layer, as REST counts it (`track_container`
/// in the bucket of `POST /v2/tracking_requests`, the rest in the default one): why the call is
/// refused, or `None`.
async fn over_limit(
    state: &AppState,
    account: &boxtrack_store::accounts::Account,
    name: &str,
) -> Option<String> {
    use boxtrack_core::ratelimit::Bucket;
    let bucket = match name {
        "track_container" => Bucket::for_route("POST", "/v2/tracking_requests"),
        "refresh_container" => Bucket::for_route("PATCH", "/v2/containers/{id}/refresh"),
        _ => Bucket::Default,
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
