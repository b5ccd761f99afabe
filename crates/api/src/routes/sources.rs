//! `GET /v2/sources`: the health of every configured upstream (beyond the reference).

use axum::extract::State;
use serde_json::{Value, json};

use crate::auth::Caller;
use crate::doc::{Op, body, errors, operation};
use crate::error::ApiResult;
use crate::jsonapi::JsonApi;
use crate::state::AppState;

/// `GET /v2/sources`.
pub async fn list(State(state): State<AppState>, _caller: Caller) -> ApiResult<JsonApi> {
    let now = boxtrack_store::now_us();
    let (active, due, failing) = boxtrack_store::subjects::counts(&state.db, now).await?;
    let fmt = |t: Option<i64>| t.map(boxtrack_core::time::format_micros);
    let data: Vec<Value> = state
        .upstreams
        .health()
        .into_iter()
        .map(|h| {
            let error_rate = if h.requests == 0 {
                0.0
            } else {
                h.errors as f64 / h.requests as f64
            };
            let latency = if h.requests == 0 {
                None
            } else {
                Some(h.latency_ms_sum / h.requests as f64)
            };
            json!({
                "id": format!("{}:{}", h.kind, h.name),
                "type": "source",
                "attributes": {
                    "kind": h.kind,
                    "name": h.name,
                    "url": h.url,
                    "auth": h.auth,
                    "requests": h.requests,
                    "errors": h.errors,
                    "error_rate": error_rate,
                    "mean_latency_ms": latency,
                    "last_success_at": fmt(h.last_success_us),
                    "last_error_at": fmt(h.last_error_us),
                    "last_error": h.last_error,
                    "newest_data_at": fmt(h.newest_data_us),
                    // on the upstream's own clock (a simulator's runs ahead), never negative
                    "data_age_seconds": h.newest_data_us.map(|t| {
                        h.clock
                            .unwrap_or_else(|| boxtrack_core::schedule::SourceClock::wall(now))
                            .age_secs(t, now)
                    }),
                    "clock": h.clock.map(|c| json!({
                        "now": boxtrack_core::time::format_micros(c.now_at(now)),
                        "speed": c.speed,
                    })),
                    "refused": h.refused,
                    "refused_total": h.refused.values().sum::<u64>(),
                    "refused_samples": h.refused_samples.iter().map(|r| json!({
                        "reference": r.reference,
                        "reason": r.code,
                        "detail": r.reason,
                        "at": boxtrack_core::time::format_micros(r.at_us),
                    })).collect::<Vec<_>>(),
                }
            })
        })
        .collect();
    let unconfigured: Vec<Value> = boxtrack_store::tracking::waiting_without_source(&state.db)
        .await?
        .into_iter()
        .filter(|(scac, _)| state.upstreams.carrier(scac).is_none())
        .map(|(scac, n)| json!({"scac": scac, "waiting_requests": n}))
        .collect();
    let n = data.len();
    Ok(JsonApi(json!({
        "data": data,
        "meta": {
            "size": n,
            "total": n,
            "sim_url": state.upstreams.config().sim_url,
            "subjects": {"active": active, "due": due, "failing": failing},
            "unconfigured_carriers": unconfigured,
        }
    })))
}

/// Documented operations of this module.
pub fn operations() -> Vec<Op> {
    vec![Op {
        method: "get",
        path: "/v2/sources",
        op: operation(
            "Sources",
            "Source health",
            "Each upstream this process has called or has configured (carrier DCSA endpoints, terminal feeds, DCSA push subscriptions): how boxtrack authenticates to it (`auth`: `none`, `headers`, `query` or `oauth2_client_credentials`; never the credentials), requests, error rate (an answer with refused records counts as an error), mean latency, last success and error, how old the newest data it returned is on the upstream's own clock (`clock`: its time and speed, read from the `Date` of its answers), and the records it refused: counts by reason (`refused`: bad_event_id, bad_date_time, created_in_future, created_before_2000, bad_classifier, unknown_code, missing_field, unreadable, unreadable_answer for DCSA; bad_currency for terminal feeds; x12_refused for refused parts of X12 files, under `x12:ingest`) and the last few (`refused_samples`: reference, reason, detail, at). Each distinct record counts once. `meta.subjects` counts the polled subjects (active, due now, failing); `meta.unconfigured_carriers` lists carriers that tracking requests wait for while no source is configured for them (scac, waiting_requests; those requests show `failed_reason: data_unavailable`). Counts are per process.",
            vec![],
            None,
            errors(&[401, 429]),
            ("200", body("Upstreams", json!({"type": "object"}))),
        ),
    }]
}
