//! Prometheus metrics kept per application instance and rendered at `/metrics`.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

/// Upper bounds (seconds) of the request latency histogram buckets.
const LATENCY_BUCKETS: [f64; 12] = [
    0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 10.0,
];

#[derive(Default)]
struct Histogram {
    counts: [u64; LATENCY_BUCKETS.len()],
    sum: f64,
    count: u64,
}

/// What one matched route has seen: requests by method and status, and their latency.
#[derive(Default)]
struct RouteStats {
    /// `(method, status, count)`, a handful per route: found without allocating.
    counts: Vec<(String, u16, u64)>,
    latency: Histogram,
}

#[derive(Default)]
struct Inner {
    /// By matched route: a request looks its route up by reference and allocates only the
    /// first time a route, method and status are seen.
    routes: BTreeMap<String, RouteStats>,
    rate_limited: BTreeMap<String, u64>,
    deliveries: BTreeMap<String, u64>,
    deactivations: u64,
}

/// Counters and histograms of one running service.
#[derive(Default)]
pub struct Metrics {
    inner: Mutex<Inner>,
    connections_open: AtomicU64,
    connections_refused: AtomicU64,
    header_timeouts: AtomicU64,
}

impl Metrics {
    fn with<R>(&self, f: impl FnOnce(&mut Inner) -> R) -> R {
        let mut g = self.inner.lock().unwrap_or_else(|p| p.into_inner());
        f(&mut g)
    }

    /// Records one finished request.
    pub fn record_request(&self, method: &str, route: &str, status: u16, seconds: f64) {
        self.with(|m| {
            let r = match m.routes.get_mut(route) {
                Some(r) => r,
                None => m.routes.entry(route.to_string()).or_default(),
            };
            match r
                .counts
                .iter_mut()
                .find(|(m, s, _)| m == method && *s == status)
            {
                Some((_, _, n)) => *n += 1,
                None => r.counts.push((method.to_string(), status, 1)),
            }
            let h = &mut r.latency;
            for (i, bound) in LATENCY_BUCKETS.iter().enumerate() {
                if seconds <= *bound {
                    h.counts[i] += 1;
                }
            }
            h.sum += seconds;
            h.count += 1;
        });
    }

    /// Records a request refused by a rate limit.
    pub fn record_rate_limited(&self, bucket: &str) {
        self.with(|m| *m.rate_limited.entry(bucket.to_string()).or_default() += 1);
    }

    /// Records webhook delivery attempts by outcome (`succeeded`, `retrying`, `failed`).
    pub fn record_deliveries(&self, outcome: &str, n: u64) {
        self.with(|m| *m.deliveries.entry(outcome.to_string()).or_default() += n);
    }

    /// Records a webhook deactivated after repeated failures.
    pub fn record_deactivation(&self) {
        self.with(|m| m.deactivations += 1);
    }

    /// Counts a connection the listener started serving.
    pub fn connection_opened(&self) {
        self.connections_open.fetch_add(1, Ordering::Relaxed);
    }

    /// Counts a served connection that closed.
    pub fn connection_closed(&self) {
        self.connections_open.fetch_sub(1, Ordering::Relaxed);
    }

    /// Connections being served now.
    pub fn connections_open(&self) -> u64 {
        self.connections_open.load(Ordering::Relaxed)
    }

    /// Counts a connection refused because the cap was reached.
    pub fn record_connection_refused(&self) {
        self.connections_refused.fetch_add(1, Ordering::Relaxed);
    }

    /// Connections refused because the cap was reached, since the start.
    pub fn connections_refused(&self) -> u64 {
        self.connections_refused.load(Ordering::Relaxed)
    }

    /// Connections closed because a request head did not arrive in time, since the start.
    pub fn header_timeouts(&self) -> u64 {
        self.header_timeouts.load(Ordering::Relaxed)
    }

    /// Counts a connection closed because its request head did not arrive in time.
    pub fn record_header_timeout(&self) {
        self.header_timeouts.fetch_add(1, Ordering::Relaxed);
    }

    /// The Prometheus text exposition.
    pub fn render(&self) -> String {
        self.with(|m| {
            let mut out = String::new();
            out.push_str("# HELP boxtrack_http_requests_total HTTP requests by method, matched route and status.\n");
            out.push_str("# TYPE boxtrack_http_requests_total counter\n");
            let mut requests: Vec<(&str, &str, u16, u64)> = m
                .routes
                .iter()
                .flat_map(|(route, r)| {
                    r.counts
                        .iter()
                        .map(move |(method, status, n)| (method.as_str(), route.as_str(), *status, *n))
                })
                .collect();
            requests.sort_unstable();
            for (method, route, status, n) in requests {
                let _ = writeln!(
                    out,
                    "boxtrack_http_requests_total{{method=\"{method}\",route=\"{}\",status=\"{status}\"}} {n}",
                    escape(route)
                );
            }
            out.push_str("# HELP boxtrack_http_request_duration_seconds HTTP request latency by matched route.\n");
            out.push_str("# TYPE boxtrack_http_request_duration_seconds histogram\n");
            for (route, r) in &m.routes {
                let h = &r.latency;
                let route = escape(route);
                for (i, bound) in LATENCY_BUCKETS.iter().enumerate() {
                    let _ = writeln!(
                        out,
                        "boxtrack_http_request_duration_seconds_bucket{{route=\"{route}\",le=\"{bound}\"}} {}",
                        h.counts[i]
                    );
                }
                let _ = writeln!(
                    out,
                    "boxtrack_http_request_duration_seconds_bucket{{route=\"{route}\",le=\"+Inf\"}} {}",
                    h.count
                );
                let _ = writeln!(out, "boxtrack_http_request_duration_seconds_sum{{route=\"{route}\"}} {}", h.sum);
                let _ = writeln!(out, "boxtrack_http_request_duration_seconds_count{{route=\"{route}\"}} {}", h.count);
            }
            out.push_str("# HELP boxtrack_rate_limited_total Requests refused with 429, by rate-limit bucket.\n");
            out.push_str("# TYPE boxtrack_rate_limited_total counter\n");
            for (bucket, n) in &m.rate_limited {
                let _ = writeln!(out, "boxtrack_rate_limited_total{{bucket=\"{bucket}\"}} {n}");
            }
            out.push_str("# HELP boxtrack_webhook_deliveries_total Webhook delivery attempts by outcome.\n");
            out.push_str("# TYPE boxtrack_webhook_deliveries_total counter\n");
            for (outcome, n) in &m.deliveries {
                let _ = writeln!(out, "boxtrack_webhook_deliveries_total{{outcome=\"{outcome}\"}} {n}");
            }
            out.push_str("# HELP boxtrack_webhooks_deactivated_total Webhooks set inactive after repeated delivery failures.\n");
            out.push_str("# TYPE boxtrack_webhooks_deactivated_total counter\n");
            let _ = writeln!(out, "boxtrack_webhooks_deactivated_total {}", m.deactivations);
            out.push_str("# HELP boxtrack_http_connections Connections being served now.\n");
            out.push_str("# TYPE boxtrack_http_connections gauge\n");
            let _ = writeln!(out, "boxtrack_http_connections {}", self.connections_open());
            out.push_str("# HELP boxtrack_http_connections_refused_total Connections answered 503 and closed because as many as the cap were open.\n");
            out.push_str("# TYPE boxtrack_http_connections_refused_total counter\n");
            let _ = writeln!(out, "boxtrack_http_connections_refused_total {}", self.connections_refused.load(Ordering::Relaxed));
            out.push_str("# HELP boxtrack_http_header_timeouts_total Connections closed because a request head did not arrive in time (slow or idle clients).\n");
            out.push_str("# TYPE boxtrack_http_header_timeouts_total counter\n");
            let _ = writeln!(out, "boxtrack_http_header_timeouts_total {}", self.header_timeouts.load(Ordering::Relaxed));
            out
        })
    }
}

/// The read replicas' gauges (lag, in use) and where reads went.
pub fn render_replicas(r: &boxtrack_store::replicas::Replicas) -> String {
    let mut out = String::new();
    let status = r.status();
    let gauge =
        |out: &mut String,
         name: &str,
         help: &str,
         value: &dyn Fn(&boxtrack_store::replicas::ReplicaStatus) -> String| {
            let _ = writeln!(out, "# HELP {name} {help}\n# TYPE {name} gauge");
            for s in &status {
                let _ = writeln!(
                    out,
                    "{name}{{replica=\"{}\"}} {}",
                    escape(&s.name),
                    value(s)
                );
            }
        };
    gauge(
        &mut out,
        "boxtrack_replica_in_use",
        "Whether reads go to the read replica (1) or it is taken out (0).",
        &|s| u8::from(s.health.in_use).to_string(),
    );
    gauge(
        &mut out,
        "boxtrack_replica_lag_seconds",
        "How long ago the primary stood where the replica has replayed to, at the last check.",
        &|s| s.health.lag.as_secs_f64().to_string(),
    );
    gauge(
        &mut out,
        "boxtrack_replica_lag_bytes",
        "Bytes of write-ahead log the primary had written past the replica's replay position, at the last check.",
        &|s| s.health.lag_bytes.to_string(),
    );
    let reads = r.reads();
    out.push_str("# HELP boxtrack_replica_reads_total Reads that could go to a replica, by where they went: replica, or primary because no replica was in use (no_replica) or none had replayed the account's last write (read_your_writes).\n");
    out.push_str("# TYPE boxtrack_replica_reads_total counter\n");
    let _ = writeln!(
        out,
        "boxtrack_replica_reads_total{{to=\"replica\"}} {}",
        reads.replica
    );
    let _ = writeln!(
        out,
        "boxtrack_replica_reads_total{{to=\"primary\",reason=\"no_replica\"}} {}",
        reads.primary_no_replica
    );
    let _ = writeln!(
        out,
        "boxtrack_replica_reads_total{{to=\"primary\",reason=\"read_your_writes\"}} {}",
        reads.primary_behind_write
    );
    out
}

fn escape(s: &str) -> String {
    s.replace('\\', "\\\\")
        .replace('"', "\\\"")
        .replace('\n', "\\n")
}

impl boxtrack_worker::delivery::Metrics for Metrics {
    fn record_deliveries(&self, outcome: &str, n: u64) {
        Metrics::record_deliveries(self, outcome, n);
    }
    fn record_deactivation(&self) {
        Metrics::record_deactivation(self);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_counters_and_histograms() {
        let m = Metrics::default();
        m.record_request("GET", "/v2/api_keys", 200, 0.003);
        m.record_request("GET", "/v2/api_keys", 200, 0.2);
        m.record_rate_limited("default");
        let text = m.render();
        assert!(text.contains(
            "boxtrack_http_requests_total{method=\"GET\",route=\"/v2/api_keys\",status=\"200\"} 2"
        ));
        assert!(text.contains(
            "boxtrack_http_request_duration_seconds_bucket{route=\"/v2/api_keys\",le=\"0.005\"} 1"
        ));
        assert!(
            text.contains("boxtrack_http_request_duration_seconds_count{route=\"/v2/api_keys\"} 2")
        );
        assert!(text.contains("boxtrack_rate_limited_total{bucket=\"default\"} 1"));
    }
}
