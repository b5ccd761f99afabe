//! Liveness, readiness and metrics.

use std::fmt::Write as _;

use axum::extract::State;
use axum::http::{StatusCode, header};
use axum::response::IntoResponse;
use boxtrack_app::gauges;
use schemars::JsonSchema;
use serde::Serialize;

use crate::state::AppState;
use crate::state::Routes;
use boxtrack_http::doc::{Doc, schema_of};
use boxtrack_http::metrics;
use boxtrack_sources::upstream;

/// What the health probes answer.
#[derive(Debug, Serialize, JsonSchema)]
pub struct Health {
    /// The probe's answer.
    pub status: Probe,
    /// Whether the database answered (readiness only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub database: Option<Database>,
    /// On a Citus coordinator, its worker nodes and whether it reaches each now (readiness
    /// only). A worker out of reach does not make the process unready: the accounts on the
    /// other workers are served, and `boxtrack_citus_worker_up` says which one is missing.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub workers: Vec<Worker>,
}

/// A Citus worker node as the readiness probe found it.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct Worker {
    /// `host:port`, as the coordinator knows it.
    pub node: String,
    /// Whether the coordinator connected to it just now.
    pub reachable: bool,
}

/// A probe's answer.
#[derive(Debug, Clone, Copy, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Probe {
    /// The process is up.
    Ok,
    /// Ready for requests.
    Ready,
    /// The database does not answer.
    NotReady,
    /// Shutting down: finishing what is in flight.
    Draining,
}

/// What the readiness probe found of the database.
#[derive(Debug, Clone, Copy, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Database {
    /// It answered.
    Ok,
    /// It did not.
    Unreachable,
    /// Not asked (the process is draining).
    NotChecked,
}

fn health(status: Probe, database: Option<Database>) -> axum::Json<Health> {
    axum::Json(Health {
        status,
        database,
        workers: Vec::new(),
    })
}

/// `GET /healthz`: the process is up.
pub async fn healthz() -> impl IntoResponse {
    health(Probe::Ok, None)
}

/// `GET /readyz`: the database answers and the process is not shutting down.
pub async fn readyz(State(state): State<AppState>) -> impl IntoResponse {
    if state.draining.load(std::sync::atomic::Ordering::Relaxed) {
        return (
            StatusCode::SERVICE_UNAVAILABLE,
            health(Probe::Draining, Some(Database::NotChecked)),
        );
    }
    match state.ctx.db.ping().await {
        Ok(()) => {
            let mut answer = health(Probe::Ready, Some(Database::Ok));
            answer.workers = citus_workers(&state).await;
            (StatusCode::OK, answer)
        }
        Err(e) => {
            tracing::warn!(error = %e, "readiness check failed");
            (
                StatusCode::SERVICE_UNAVAILABLE,
                health(Probe::NotReady, Some(Database::Unreachable)),
            )
        }
    }
}

/// `GET /metrics`: Prometheus text.
pub async fn metrics(State(state): State<AppState>) -> impl IntoResponse {
    (
        [(
            header::CONTENT_TYPE,
            "text/plain; version=0.0.4; charset=utf-8",
        )],
        state.metrics.render()
            + &upstream_metrics(&state.ctx.upstreams.health())
            + &read_cache_metrics(state.reads.counts())
            + &backlog_metrics(&state).await
            + &tracking_metrics(&state).await
            + &worker_metrics(&state).await
            + &state
                .ctx
                .replicas
                .as_deref()
                .map(metrics::render_replicas)
                .unwrap_or_default(),
    )
}

/// The Citus workers (none where the database is not Citus, or the coordinator cannot say).
async fn citus_workers(state: &AppState) -> Vec<Worker> {
    match gauges::citus_workers(&state.ctx).await {
        Ok(nodes) => nodes
            .into_iter()
            .map(|n| Worker {
                node: n.node,
                reachable: n.reachable,
            })
            .collect(),
        Err(e) => {
            tracing::warn!(error = %e, "could not list the Citus workers");
            Vec::new()
        }
    }
}

/// `boxtrack_citus_worker_up{node}`: 1 when the coordinator reaches the worker, 0 when not;
/// nothing where the database is not Citus.
async fn worker_metrics(state: &AppState) -> String {
    let workers = citus_workers(state).await;
    if workers.is_empty() {
        return String::new();
    }
    let mut out = String::from(
        "# HELP boxtrack_citus_worker_up Whether the Citus coordinator reaches the worker node now (1) or not (0).\n\
         # TYPE boxtrack_citus_worker_up gauge\n",
    );
    for w in workers {
        let _ = writeln!(
            out,
            "boxtrack_citus_worker_up{{node=\"{}\"}} {}",
            w.node.replace('\\', "\\\\").replace('"', "\\\""),
            u8::from(w.reachable)
        );
    }
    out
}

/// The webhook backlog gauges (read from the database, so every process reports the whole
/// installation's backlog); nothing when the database cannot be read.
async fn backlog_metrics(state: &AppState) -> String {
    let now = state.ctx.now_us();
    match gauges::backlog(&state.ctx).await {
        Ok((due, oldest, pending)) => {
            let lag = oldest.map_or(0.0, |o| ((now - o).max(0) as f64) / 1e6);
            format!(
                "# HELP boxtrack_webhook_backlog Webhook notifications due now and not yet delivered (every account).\n\
                 # TYPE boxtrack_webhook_backlog gauge\n\
                 boxtrack_webhook_backlog {due}\n\
                 # HELP boxtrack_webhook_pending Webhook notifications not yet delivered, retries scheduled later included.\n\
                 # TYPE boxtrack_webhook_pending gauge\n\
                 boxtrack_webhook_pending {pending}\n\
                 # HELP boxtrack_webhook_delivery_lag_seconds How long the oldest due notification has waited (0 when none is due).\n\
                 # TYPE boxtrack_webhook_delivery_lag_seconds gauge\n\
                 boxtrack_webhook_delivery_lag_seconds {lag:.3}\n"
            )
        }
        Err(e) => {
            tracing::warn!(error = %e, "the webhook backlog could not be read for /metrics");
            String::new()
        }
    }
}

/// How long a tracked container may go without an update from any source before
/// `boxtrack_containers_stale` counts it.
pub const STALE_AFTER_US: i64 = 24 * 3_600_000_000;

/// The tracking gauges (read from the database, so every process reports the whole
/// installation): requests by status, containers tracked and gone quiet, the worker's last
/// completed pass; nothing when the database cannot be read.
async fn tracking_metrics(state: &AppState) -> String {
    let now = state.ctx.now_us();
    match gauges::tracking(&state.ctx, STALE_AFTER_US).await {
        Ok(g) => render_tracking(&g, now),
        Err(e) => {
            tracing::warn!(error = %e, "the tracking gauges could not be read for /metrics");
            String::new()
        }
    }
}

/// [`tracking_metrics`]' text for gauges read at `now_us`.
fn render_tracking(g: &gauges::TrackingGauges, now_us: i64) -> String {
    use std::fmt::Write;
    let mut out = String::new();
    let _ = writeln!(
        out,
        "# HELP boxtrack_tracking_requests Tracking requests by status (every account).\n# TYPE boxtrack_tracking_requests gauge"
    );
    // the statuses an alert watches are always there, at 0 when none has them
    for status in ["pending", "awaiting_manifest", "failed"] {
        if !g.requests.iter().any(|(s, _)| s == status) {
            let _ = writeln!(out, "boxtrack_tracking_requests{{status=\"{status}\"}} 0");
        }
    }
    for (status, n) in &g.requests {
        let _ = writeln!(out, "boxtrack_tracking_requests{{status=\"{status}\"}} {n}");
    }
    let gauges = [
        (
            "boxtrack_containers_tracked",
            "Containers on shipments still tracked (every account).",
            g.containers_tracked.to_string(),
        ),
        (
            "boxtrack_containers_stale",
            "Tracked containers no source has updated for 24 hours.",
            g.containers_stale.to_string(),
        ),
    ];
    let pass = g.worker_pass_us.map(|at| {
        [
            (
                "boxtrack_worker_last_pass_timestamp_seconds",
                "When a worker last completed a pass over everything due (Unix seconds).",
                format!("{:.3}", at as f64 / 1e6),
            ),
            (
                "boxtrack_worker_last_pass_age_seconds",
                "How long ago a worker last completed a pass.",
                format!("{:.3}", (now_us - at).max(0) as f64 / 1e6),
            ),
        ]
    });
    for (name, help, value) in gauges.into_iter().chain(pass.into_iter().flatten()) {
        let _ = writeln!(
            out,
            "# HELP {name} {help}\n# TYPE {name} gauge\n{name} {value}"
        );
    }
    out
}

/// The read cache's counters in the Prometheus text format.
fn read_cache_metrics((hits, misses): (u64, u64)) -> String {
    format!(
        "# HELP boxtrack_read_cache_requests_total Cached reads (single containers and shipments, their lists) by whether the read cache answered them (hit) or they were rendered (miss).\n\
         # TYPE boxtrack_read_cache_requests_total counter\n\
         boxtrack_read_cache_requests_total{{result=\"hit\"}} {hits}\n\
         boxtrack_read_cache_requests_total{{result=\"miss\"}} {misses}\n"
    )
}

/// Per-upstream counters in the Prometheus text format.
pub fn upstream_metrics(health: &[upstream::Health]) -> String {
    use std::fmt::Write;
    let mut out = String::new();
    if health.is_empty() {
        return out;
    }
    let esc = |s: &str| s.replace('\\', "\\\\").replace('"', "\\\"");
    let series: [(&str, &str, &str); 4] = [
        (
            "boxtrack_upstream_requests_total",
            "counter",
            "Requests made to each upstream",
        ),
        (
            "boxtrack_upstream_errors_total",
            "counter",
            "Requests to each upstream that failed",
        ),
        (
            "boxtrack_upstream_latency_seconds_sum",
            "counter",
            "Total time spent waiting for each upstream",
        ),
        (
            "boxtrack_upstream_data_timestamp_seconds",
            "gauge",
            "Time of the newest data each upstream returned (Unix seconds)",
        ),
    ];
    let _ = writeln!(
        out,
        "# HELP boxtrack_upstream_refused_total Upstream records refused, by reason (each distinct record once)\n# TYPE boxtrack_upstream_refused_total counter"
    );
    for h in health {
        for (reason, n) in &h.refused {
            let _ = writeln!(
                out,
                "boxtrack_upstream_refused_total{{kind=\"{}\",upstream=\"{}\",reason=\"{}\"}} {n}",
                esc(&h.kind),
                esc(&h.name),
                esc(reason)
            );
        }
    }
    for (name, kind, help) in series {
        let _ = writeln!(out, "# HELP {name} {help}\n# TYPE {name} {kind}");
        for h in health {
            let v = match name {
                "boxtrack_upstream_requests_total" => h.requests as f64,
                "boxtrack_upstream_errors_total" => h.errors as f64,
                "boxtrack_upstream_latency_seconds_sum" => h.latency_ms_sum / 1000.0,
                _ => match h.newest_data_us {
                    Some(t) => t as f64 / 1e6,
                    None => continue,
                },
            };
            let _ = writeln!(
                out,
                "{name}{{kind=\"{}\",upstream=\"{}\"}} {v}",
                esc(&h.kind),
                esc(&h.name)
            );
        }
    }
    out
}

/// A probe's answer, documented.
fn probe(description: &str) -> serde_json::Value {
    Doc::json_answer(description, schema_of::<Health>())
}

/// This module's operations: the probes and the metrics.
pub fn routes() -> Routes {
    Routes::default()
        .public_get("/healthz", healthz, || {
            Doc::new("Operations", "Liveness")
                .about("200 while the process is up.")
                .answer("200", probe("The process is up"))
        })
        .public_get("/readyz", readyz, || {
            Doc::new("Operations", "Readiness")
                .about("200 when the database answers, 503 when it does not or while the process shuts down (draining).")
                .answer("503", probe("The database is not reachable, or the process is draining"))
                .answer("200", probe("Ready"))
        })
        .public_get("/metrics", metrics, || {
            Doc::new("Operations", "Prometheus metrics")
                .about("Requests by method, matched route and status (`boxtrack_http_requests_total`), latency histogram by route (`boxtrack_http_request_duration_seconds`), and requests refused by rate limits (`boxtrack_rate_limited_total`).")
                .answer("200", Doc::media_answer("Prometheus text exposition", "text/plain", schema_of::<String>()))
        })
}

#[cfg(test)]
mod tests {
    use boxtrack_sources::upstream::Health;

    #[test]
    fn upstream_series_are_labelled_by_kind_and_name() {
        let h = Health {
            kind: "dcsa".into(),
            name: "MAEU".into(),
            requests: 3,
            errors: 1,
            latency_ms_sum: 1500.0,
            newest_data_us: Some(2_000_000),
            ..Default::default()
        };
        let text = super::upstream_metrics(&[h]);
        assert!(
            text.contains("boxtrack_upstream_requests_total{kind=\"dcsa\",upstream=\"MAEU\"} 3"),
            "{text}"
        );
        assert!(
            text.contains("boxtrack_upstream_errors_total{kind=\"dcsa\",upstream=\"MAEU\"} 1"),
            "{text}"
        );
        assert!(
            text.contains(
                "boxtrack_upstream_latency_seconds_sum{kind=\"dcsa\",upstream=\"MAEU\"} 1.5"
            ),
            "{text}"
        );
        assert!(
            text.contains(
                "boxtrack_upstream_data_timestamp_seconds{kind=\"dcsa\",upstream=\"MAEU\"} 2"
            ),
            "{text}"
        );
        assert!(super::upstream_metrics(&[]).is_empty());
    }
}
