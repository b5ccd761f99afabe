//! The operations page for upstreams: `GET /console/sources`, the health of every source this
//! process reads (what `GET /v2/sources` answers: last success, errors and their rate, the
//! newest data and its age, refused records by reason with the latest samples, what is wrong
//! in words: the diagnosis `boxtrack carriers check` gives), the polled
//! subjects, and carriers that tracking requests wait for without a source. The page keeps
//! itself current through `GET /console/sources/version`.

use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use boxtrack_app::sources::{SourceAttributes, SourcesDocument, document};
use boxtrack_core::time::format_micros;
use boxtrack_http::doc::Doc;
use boxtrack_http::front::Mount;
use boxtrack_http::{ApiError, Front};
use maud::{Markup, html};

use crate::common::{self, SignedIn, page_with, session};
use crate::layout::{Place, signed_in};
use crate::live::{self, marker_at};
use crate::pagedoc::{self, Problem, Version};

/// What changes when the page would: every source's counts and times.
pub(crate) fn version_of(doc: &SourcesDocument) -> String {
    let mut parts: Vec<String> = doc
        .data
        .iter()
        .map(|s| {
            let a = &s.attributes;
            format!(
                "{}:{}:{}:{}:{}:{}:{}",
                s.id,
                a.requests,
                a.errors,
                a.refused_total,
                a.last_success_at.as_ref().map_or(0, |t| t.0),
                a.budget.exhausted_total,
                a.diagnosis.as_ref().map_or("", |d| d.code.as_str())
            )
        })
        .collect();
    let m = &doc.meta.subjects;
    parts.push(format!("{}:{}:{}", m.active, m.due, m.failing));
    parts.join("|")
}

fn when(t: Option<i64>) -> String {
    t.map_or("never".to_string(), format_micros)
}

/// The page's main content, but for its live marker.
pub(crate) fn render(doc: &SourcesDocument) -> Markup {
    let m = &doc.meta.subjects;
    let kept = &doc.meta.early_reports;
    let waiting = &doc.meta.unconfigured_carriers;
    html! {
        h1 { "Sources" }
        p { "What this process has asked of each upstream since it started (each process keeps its own counts)." }
        div id="sources-live" data-live {
            p {
                "Polled subjects: " (m.active) " active, " (m.due) " due now, " (m.failing) " failing. Reports about boxes nobody tracks yet, kept for when one is: "
                (kept.kept)
                @if let Some(at) = &kept.oldest_at {
                    " (the oldest from " (format_micros(at.0)) ")"
                }
                "."
            }
            table {
                thead {
                    tr {
                        th scope="col" { "Source" }
                        th scope="col" { "Health" }
                        th scope="col" { "Last success (UTC)" }
                        th scope="col" { "Requests / errors" }
                        th scope="col" { "Newest data (UTC)" }
                        th scope="col" { "Refused records by reason" }
                        th scope="col" { "Request budget" }
                    }
                }
                tbody {
                    @for source in &doc.data {
                        (row(&source.attributes))
                    }
                }
            }
            @if !waiting.is_empty() {
                section aria-labelledby="waiting" {
                    h2 id="waiting" { "Carriers without a source" }
                    ul {
                        @for w in waiting {
                            li {
                                code { (w.scac) }
                                ": " (w.waiting_requests) " tracking request" (if w.waiting_requests == 1 { "" } else { "s" }) " wait for a source"
                            }
                        }
                    }
                }
            }
        }
    }
}

/// A source's row: its name, kind and address, health, last success, requests and errors
/// (with the last error), its newest data and age, what it refused (by reason, with the latest
/// samples) and its request budget.
fn row(a: &SourceAttributes) -> Markup {
    let wrong = a.diagnosis.as_ref().filter(|d| d.code != "ok");
    let health = if a.requests == 0 {
        "not asked yet"
    } else if let Some(d) = wrong {
        d.code.as_str()
    } else if a.error_rate > 0.5 {
        "failing"
    } else if a.errors > 0 {
        "degraded"
    } else {
        "healthy"
    };
    let refused = a
        .refused
        .iter()
        .map(|(why, n)| format!("{n} × {why}"))
        .collect::<Vec<_>>()
        .join(", ");
    html! {
        tr {
            td {
                strong { (a.name) } " " small { (a.kind) }
                br;
                small { (a.url) }
            }
            td {
                (health)
                @if let Some(d) = wrong {
                    br;
                    small { (d.says) }
                }
            }
            td { (when(a.last_success_at.as_ref().map(|t| t.0))) }
            td {
                (a.requests) " / " (a.errors) " (" (format!("{:.1}", a.error_rate * 100.0)) "%)"
                @if let Some(e) = &a.last_error {
                    br;
                    small { "last: " (when(a.last_error_at.as_ref().map(|t| t.0))) " " (e) }
                }
            }
            td {
                (when(a.newest_data_at.as_ref().map(|t| t.0)))
                @if let Some(secs) = a.data_age_seconds {
                    br;
                    small { (age(secs)) " old" }
                }
            }
            td {
                @if refused.is_empty() {
                    "none"
                } @else {
                    (refused)
                }
                @if !a.refused_samples.is_empty() {
                    details {
                        summary { "latest refused" }
                        ul {
                            @for r in &a.refused_samples {
                                li {
                                    (format_micros(r.at.0)) " · " code { (r.reference) } " · " (r.reason) ": " (r.detail)
                                }
                            }
                        }
                    }
                }
            }
            td {
                (a.budget.available) " of " (a.budget.burst) " now"
                br;
                small { (a.budget.requests_per_sec) "/s sustained; held back " (a.budget.exhausted_total) "×" }
            }
        }
    }
}

/// A number of seconds as the largest whole unit (`3 h`, `2 d`).
fn age(secs: i64) -> String {
    match secs {
        s if s < 120 => format!("{s} s"),
        s if s < 7_200 => format!("{} min", s / 60),
        s if s < 172_800 => format!("{} h", s / 3_600),
        s => format!("{} d", s / 86_400),
    }
}

/// `GET /console/sources`.
pub async fn page(State(state): State<Front>, SignedIn(s): SignedIn) -> Response {
    let doc = match document(&state.ctx).await {
        Ok(d) => d,
        Err(e) => return common::app_unavailable(e),
    };
    let main = html! {
        (render(&doc))
        (marker_at(&version_of(&doc), "/console/sources/version"))
    };
    page_with(
        StatusCode::OK,
        "Sources",
        signed_in(Place::Sources, &s, main),
        &[],
        &[live::SCRIPT],
    )
}

/// `GET /console/sources/version`: `{"version": …}`, which changes when the page would.
pub async fn version(State(state): State<Front>, headers: HeaderMap) -> Response {
    if session(&state, &headers).await.is_none() {
        return (StatusCode::UNAUTHORIZED, Problem::says("signed out")).into_response();
    }
    match document(&state.ctx).await {
        Ok(d) => axum::Json(Version {
            version: version_of(&d),
        })
        .into_response(),
        Err(e) => ApiError::from(e).into_response(),
    }
}

/// This page's routes, each declared with its documentation.
pub(crate) fn routes() -> Mount {
    use crate::pagedoc::{html, page, see_other};

    Mount::default()
        .public_get("/console/sources", self::page, || Doc::from_value(page(
                "Sources",
                "The health of every upstream this process reads (what `GET /v2/sources` answers): what is wrong in words, last success, requests and errors, the newest data and its age, refused records by reason with the latest samples; the polled subjects; carriers that wait for a source. Keeps itself current.",
                ("200", html("The page")),
                vec![("303", see_other("To /console/sign-in: no session"))],
                None,
            )))
        .public_get("/console/sources/version", self::version, || Doc::from_value(page(
                "Whether the sources page changed",
                "A version that changes when the sources page would; the page asks every 5 seconds.",
                (
                    "200",
                    pagedoc::version_answer(),
                ),
                vec![(
                    "401",
                    pagedoc::problem("No session"),
                )],
                None,
            )))
}

#[cfg(test)]
mod tests {
    use super::*;
    use boxtrack_app::sources::{
        Budget, Diagnosis, EarlyReports, RefusedSample, Source, SourcesMeta, Subjects, Waiting,
    };
    use boxtrack_views::jsonapi::At;

    fn doc(requests: u64) -> SourcesDocument {
        SourcesDocument {
            data: vec![Source {
                id: "terminal:<apm>".into(),
                kind: "source",
                attributes: SourceAttributes {
                    kind: "terminal".into(),
                    name: "<apm>".into(),
                    url: "https://terminal.example/api".into(),
                    auth: "none".into(),
                    requests,
                    errors: 1,
                    error_rate: 1.0 / requests.max(1) as f64,
                    mean_latency_ms: Some(12.0),
                    last_success_at: Some(At(1_764_000_000_000_000)),
                    last_error_at: Some(At(1_764_000_100_000_000)),
                    last_error: Some("HTTP 503".into()),
                    newest_data_at: None,
                    data_age_seconds: Some(7_200),
                    clock: None,
                    refused: [("bad_container_number".to_string(), 3)]
                        .into_iter()
                        .collect(),
                    refused_total: 3,
                    refused_samples: vec![RefusedSample {
                        reference: "MSCU0000000".into(),
                        reason: "bad_container_number".into(),
                        detail: "the check digit is wrong".into(),
                        at: At(1_764_000_000_000_000),
                    }],
                    budget: Budget {
                        requests_per_sec: 20.0,
                        burst: 40,
                        available: 37,
                        exhausted_total: 2,
                    },
                    diagnosis: None,
                },
            }],
            meta: SourcesMeta {
                size: 1,
                total: 1,
                sim_url: None,
                subjects: Subjects {
                    active: 5,
                    due: 1,
                    failing: 0,
                },
                unconfigured_carriers: vec![Waiting {
                    scac: "ZIMU".into(),
                    waiting_requests: 2,
                }],
                early_reports: EarlyReports {
                    kept: 3,
                    oldest_at: Some(At(1_764_000_000_000_000)),
                },
            },
        }
    }

    #[test]
    fn the_page_shows_health_refusals_by_reason_and_waiting_carriers() {
        let html = render(&doc(10)).into_string();
        assert!(
            html.contains("kept for when one is: 3 (the oldest from"),
            "{html}"
        );
        assert!(html.contains("&lt;apm&gt;") && !html.contains("<apm>"));
        assert!(html.contains("10 / 1 (10.0%)"), "{html}");
        assert!(html.contains("3 × bad_container_number"), "{html}");
        assert!(html.contains("MSCU0000000") && html.contains("the check digit is wrong"));
        assert!(html.contains("2 h old"));
        assert!(html.contains("<code>ZIMU</code>: 2 tracking requests wait"));
        assert!(html.contains("5 active, 1 due now, 0 failing"));
        assert!(html.contains(">degraded<"), "{html}");
        assert!(
            html.contains("37 of 40 now<br><small>20/s sustained; held back 2×</small>"),
            "{html}"
        );
        // the version moves with the counts
        assert_ne!(version_of(&doc(10)), version_of(&doc(11)));
    }

    #[test]
    fn the_page_says_what_is_wrong_in_words() {
        let mut d = doc(10);
        d.data[0].attributes.diagnosis = Some(Diagnosis {
            code: "forbidden".into(),
            says: "Forbidden (HTTP 403): a <subscription> missing.".into(),
            retry_after_secs: None,
        });
        let html = render(&d).into_string();
        assert!(
            html.contains("<td>forbidden<br><small>Forbidden (HTTP 403): a &lt;subscription&gt; missing.</small></td>"),
            "{html}"
        );
        d.data[0].attributes.diagnosis = Some(Diagnosis {
            code: "ok".into(),
            says: "Connected.".into(),
            retry_after_secs: None,
        });
        let html = render(&d).into_string();
        assert!(
            html.contains(">degraded<") && !html.contains("Connected."),
            "{html}"
        );
    }

    #[test]
    fn ages_read_in_the_largest_whole_unit() {
        assert_eq!(age(59), "59 s");
        assert_eq!(age(600), "10 min");
        assert_eq!(age(3 * 3_600), "3 h");
        assert_eq!(age(5 * 86_400), "5 d");
    }
}
