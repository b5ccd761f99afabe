//! Source health: `GET /v2/sources` and the console's sources page show every upstream this
//! process reads (requests, errors, latency, refusals, its clock and budget), the polled
//! subjects, the carriers requests wait for, and the early reports kept.

use std::collections::BTreeMap;

use boxtrack_core::schedule::SourceClock;
use boxtrack_store::{early, now_us, subjects, tracking};
use boxtrack_views::jsonapi::At;
use schemars::JsonSchema;
use serde::Serialize;

use crate::AppError;
use crate::ctx::Ctx;

/// The health of every upstream this process reads, and the polled subjects (also the
/// console's sources page).
pub async fn document(ctx: &Ctx) -> Result<SourcesDocument, AppError> {
    let now = now_us();
    let (active, due, failing) = subjects::counts(&ctx.db, now).await?;
    let data: Vec<Source> = ctx
        .upstreams
        .health()
        .into_iter()
        .map(|h| {
            let error_rate = if h.requests == 0 {
                0.0
            } else {
                h.errors as f64 / h.requests as f64
            };
            let latency = (h.requests > 0).then(|| h.latency_ms_sum / h.requests as f64);
            Source {
                id: format!("{}:{}", h.kind, h.name),
                kind: "source",
                attributes: SourceAttributes {
                    // on the upstream's own clock (a simulator's runs ahead), never negative
                    data_age_seconds: h.newest_data_us.map(|t| {
                        h.clock
                            .unwrap_or_else(|| SourceClock::wall(now))
                            .age_secs(t, now)
                    }),
                    clock: h.clock.map(|c| Clock {
                        now: At(c.now_at(now)),
                        speed: c.speed,
                    }),
                    refused_total: h.refused.values().sum(),
                    refused_samples: h
                        .refused_samples
                        .iter()
                        .map(|r| RefusedSample {
                            reference: r.reference.clone(),
                            reason: r.code.clone(),
                            detail: r.reason.clone(),
                            at: At(r.at_us),
                        })
                        .collect(),
                    refused: h.refused,
                    diagnosis: h.diagnosis.map(|d| Diagnosis {
                        code: d.code.as_str().to_string(),
                        says: d.says,
                        retry_after_secs: d.retry_after_secs,
                    }),
                    kind: h.kind,
                    name: h.name,
                    url: h.url,
                    auth: h.auth,
                    requests: h.requests,
                    errors: h.errors,
                    error_rate,
                    mean_latency_ms: latency,
                    last_success_at: At::opt(h.last_success_us),
                    last_error_at: At::opt(h.last_error_us),
                    last_error: h.last_error,
                    newest_data_at: At::opt(h.newest_data_us),
                    budget: Budget {
                        requests_per_sec: h.budget.requests_per_sec,
                        burst: h.budget.burst,
                        available: h.budget.available,
                        exhausted_total: h.budget.exhausted,
                    },
                },
            }
        })
        .collect();
    let unconfigured: Vec<Waiting> = tracking::waiting_without_source(&ctx.db)
        .await?
        .into_iter()
        .filter(|(scac, _)| ctx.upstreams.carrier(scac).is_none())
        .map(|(scac, waiting_requests)| Waiting {
            scac,
            waiting_requests,
        })
        .collect();
    let (kept, oldest) = early::stats(&ctx.db).await?;
    let n = data.len();
    Ok(SourcesDocument {
        data,
        meta: SourcesMeta {
            size: n,
            total: n,
            sim_url: ctx.upstreams.config().sim_url.clone(),
            subjects: Subjects {
                active,
                due,
                failing,
            },
            unconfigured_carriers: unconfigured,
            early_reports: EarlyReports {
                kept,
                oldest_at: At::opt(oldest),
            },
        },
    })
}

/// The health of every upstream.
#[derive(Serialize, JsonSchema)]
pub struct SourcesDocument {
    /// One per upstream.
    pub data: Vec<Source>,
    /// Counts of the polled subjects and carriers without a source.
    pub meta: SourcesMeta,
}

/// One upstream.
#[derive(Serialize, JsonSchema)]
pub struct Source {
    /// `<kind>:<name>`.
    pub id: String,
    /// `source`.
    #[serde(rename = "type")]
    #[schemars(extend("const" = "source"))]
    pub kind: &'static str,
    /// Its health.
    pub attributes: SourceAttributes,
}

/// The health of one upstream (counts are per process).
#[derive(Serialize, JsonSchema)]
pub struct SourceAttributes {
    /// `carrier`, `terminal`, `dcsa_push` or `x12`.
    pub kind: String,
    /// Its configured name (a SCAC, a FIRMS code).
    pub name: String,
    /// Its address.
    pub url: String,
    /// How boxtrack authenticates: `none`, `headers`, `query` or `oauth2_client_credentials`.
    pub auth: String,
    /// Requests made.
    pub requests: u64,
    /// Requests that failed (an answer with refused records counts as one).
    pub errors: u64,
    /// errors / requests.
    pub error_rate: f64,
    /// Mean latency.
    pub mean_latency_ms: Option<f64>,
    /// The last success.
    pub last_success_at: Option<At>,
    /// The last error.
    pub last_error_at: Option<At>,
    /// What it was.
    pub last_error: Option<String>,
    /// The newest data it returned.
    pub newest_data_at: Option<At>,
    /// How old that is on the upstream's own clock.
    pub data_age_seconds: Option<i64>,
    /// The upstream's clock, read from its answers' `Date`.
    pub clock: Option<Clock>,
    /// Refused records by reason.
    pub refused: BTreeMap<String, u64>,
    /// All refused records.
    pub refused_total: u64,
    /// The last few refused records.
    pub refused_samples: Vec<RefusedSample>,
    /// Its request budget in this process.
    pub budget: Budget,
    /// What is wrong with it, as its last request showed (`null` before boxtrack called it,
    /// and for sources that call boxtrack); what `boxtrack carriers check` says.
    pub diagnosis: Option<Diagnosis>,
}

/// What an upstream's last request showed is wrong, if anything.
#[derive(Serialize, JsonSchema)]
pub struct Diagnosis {
    /// A short code: `ok`, `number_unknown`, `unreachable`, `credentials_refused`,
    /// `credentials_expired`, `forbidden`, `token_refused`, `token_unreachable`,
    /// `token_unusable`, `token_rejected`, `rate_limited`, `wrong_address`,
    /// `unexpected_format`, `request_refused`, `server_error`, `http_error`, `budget_spent`
    /// or `not_configured`.
    #[schemars(extend("enum" = [
        "ok", "number_unknown", "unreachable", "credentials_refused", "credentials_expired",
        "forbidden", "token_refused", "token_unreachable", "token_unusable", "token_rejected",
        "rate_limited", "wrong_address", "unexpected_format", "request_refused", "server_error",
        "http_error", "budget_spent", "not_configured"
    ]))]
    pub code: String,
    /// What it means, in plain words.
    pub says: String,
    /// Seconds the upstream asked to wait (`rate_limited`, `budget_spent`).
    pub retry_after_secs: Option<u64>,
}

/// An upstream's request budget: a token bucket per upstream and process.
#[derive(Serialize, JsonSchema)]
pub struct Budget {
    /// Sustained requests per second (`upstream_requests_per_sec`).
    pub requests_per_sec: f64,
    /// Requests allowed at once (`upstream_burst`).
    pub burst: u32,
    /// Requests it allows right now.
    pub available: u32,
    /// Requests held back because it was spent (each is retried later).
    pub exhausted_total: u64,
}

/// An upstream's clock.
#[derive(Serialize, JsonSchema)]
pub struct Clock {
    /// Its time now.
    pub now: At,
    /// Its seconds per real second.
    pub speed: f64,
}

/// A refused record.
#[derive(Serialize, JsonSchema)]
pub struct RefusedSample {
    /// What it was about.
    pub reference: String,
    /// Why (a reason code).
    pub reason: String,
    /// Why, in words.
    pub detail: String,
    /// When.
    pub at: At,
}

/// Counts beside the upstreams.
#[derive(Serialize, JsonSchema)]
pub struct SourcesMeta {
    /// Upstreams listed.
    pub size: usize,
    /// The same.
    pub total: usize,
    /// The simulator this process reads, if any.
    pub sim_url: Option<String>,
    /// The polled subjects.
    pub subjects: Subjects,
    /// Carriers tracking requests wait for while no source is configured for them.
    pub unconfigured_carriers: Vec<Waiting>,
    /// Reports about containers nobody tracked when they came, kept for when one is.
    pub early_reports: EarlyReports,
}

/// Reports about containers nobody tracked when they came (X12, EDIFACT), kept (settings
/// `early_report_days`, `early_report_max`) and applied when a tracking request makes the
/// container known.
#[derive(Serialize, JsonSchema)]
pub struct EarlyReports {
    /// How many are kept (one per container per file).
    pub kept: i64,
    /// When the oldest came.
    pub oldest_at: Option<At>,
}

/// The polled subjects.
#[derive(Serialize, JsonSchema)]
pub struct Subjects {
    /// Being polled.
    pub active: i64,
    /// Due now.
    pub due: i64,
    /// Failing.
    pub failing: i64,
}

/// A carrier without a source.
#[derive(Serialize, JsonSchema)]
pub struct Waiting {
    /// Its SCAC.
    pub scac: String,
    /// Requests waiting for it.
    pub waiting_requests: i64,
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;

    #[test]
    fn the_documented_codes_are_the_diagnosis_codes() {
        let schema = serde_json::to_value(schemars::schema_for!(Diagnosis)).unwrap();
        let listed: Vec<&str> = schema["properties"]["code"]["enum"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c.as_str().unwrap())
            .collect();
        let codes: Vec<&str> = boxtrack_sources::diagnosis::Code::ALL
            .iter()
            .map(|c| c.as_str())
            .collect();
        assert_eq!(listed, codes);
    }
}
