//! `GET /v2/webhook_notifications`: what was (or will be) sent to each webhook.
//! Notifications are written with the events they announce; delivery is not built yet, so they
//! stay `pending`.

use axum::extract::{OriginalUri, RawQuery, State};
use axum::http::HeaderMap;
use boxtrack_core::time::format_micros;
use boxtrack_store::notifications::{self, Filter, NotificationRow};
use serde_json::{Value, json};
use uuid::Uuid;

use super::IdPath;
use crate::AppState;
use crate::auth::Caller;
use crate::error::{ApiError, ApiResult};
use crate::jsonapi::{JsonApi, QueryParams, list_response, resource, to_one};
use crate::openapi::{Op, body, errors, id_param, operation, page_params, query_params};

/// The `webhook_notification` resource.
pub fn to_resource(n: &NotificationRow) -> Value {
    resource(
        "webhook_notification",
        n.id,
        "webhook_notifications",
        json!({
            "id": n.id,
            "event": n.event,
            "sequence": n.seq,
            "delivery_status": n.delivery_status,
            "attempts": n.attempts,
            "next_attempt_at": n.next_attempt_us.map(format_micros),
            "last_status_code": n.last_status_code,
            "last_error": n.last_error,
            "created_at": format_micros(n.created_us),
            "updated_at": format_micros(n.updated_us),
        }),
        Some(json!({
            "webhook": to_one("webhook", Some(n.webhook_id)),
            "reference_object": to_one(&n.reference_type, Some(n.reference_id)),
        })),
    )
}

/// `GET /v2/webhook_notifications`.
pub async fn list(
    State(state): State<AppState>,
    caller: Caller,
    headers: HeaderMap,
    OriginalUri(uri): OriginalUri,
    RawQuery(raw): RawQuery,
) -> ApiResult<JsonApi> {
    let q = QueryParams::parse(raw.as_deref());
    let page = q.page()?;
    let status = q.text("filter[delivery_status]");
    if let Some(s) = &status
        && !["pending", "succeeded", "failed"].contains(&s.as_str())
    {
        return Err(ApiError::bad_parameter(
            "filter[delivery_status]",
            "filter[delivery_status] must be pending, succeeded or failed",
        ));
    }
    let webhook_id = match q.text("filter[webhook_id]") {
        None => None,
        Some(v) => Some(Uuid::parse_str(&v).map_err(|_| {
            ApiError::bad_parameter(
                "filter[webhook_id]",
                "filter[webhook_id] must be a webhook id",
            )
        })?),
    };
    let filter = Filter {
        webhook_id,
        event: q.text("filter[event]"),
        delivery_status: status,
        created_start_us: q.time("filter[created_at][start]")?,
        created_end_us: q.time("filter[created_at][end]")?,
    };
    let listed = notifications::list(&state.db, caller.account.id, &filter, &page).await?;
    let data = listed.rows.iter().map(to_resource).collect();
    Ok(list_response(
        state.config.public_url.as_deref(),
        &headers,
        uri.path(),
        &q,
        page,
        &listed,
        data,
        vec![],
    ))
}

/// `GET /v2/webhook_notifications/{id}`.
pub async fn show(
    State(state): State<AppState>,
    caller: Caller,
    IdPath(id): IdPath,
) -> ApiResult<JsonApi> {
    let n = notifications::get(&state.db, caller.account.id, id)
        .await?
        .ok_or_else(|| ApiError::not_found("webhook_notification"))?;
    Ok(JsonApi::single(to_resource(&n), vec![]))
}

/// Documented operations of this module.
pub fn operations() -> Vec<Op> {
    let mut params = page_params();
    params.extend(query_params(&[
        ("filter[webhook_id]", "One webhook"),
        ("filter[event]", "One event name"),
        ("filter[delivery_status]", "pending, succeeded or failed"),
        (
            "filter[created_at][start]",
            "Created at or after (ISO 8601)",
        ),
        ("filter[created_at][end]", "Created at or before (ISO 8601)"),
    ]));
    vec![
        Op {
            method: "get",
            path: "/v2/webhook_notifications",
            op: operation(
                "Webhooks",
                "List webhook notifications",
                "One notification per event and subscribed active webhook, written in the same transaction as the event, newest first.",
                params,
                None,
                errors(&[400, 401, 429]),
                (
                    "200",
                    body("A page of notifications", json!({"type": "object"})),
                ),
            ),
        },
        Op {
            method: "get",
            path: "/v2/webhook_notifications/{id}",
            op: operation(
                "Webhooks",
                "Get a webhook notification",
                "One notification with its delivery state.",
                vec![id_param("Notification")],
                None,
                errors(&[401, 404, 429]),
                ("200", body("The notification", json!({"type": "object"}))),
            ),
        },
    ]
}
