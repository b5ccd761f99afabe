//! `GET /v2/sources`: the health of every configured upstream (beyond the reference).

use axum::extract::State;
use boxtrack_app::sources::{self, SourcesDocument};

use crate::state::AppState;
use crate::state::Routes;
use boxtrack_http::auth::Caller;
use boxtrack_http::doc::Doc;
use boxtrack_http::error::ApiResult;
use boxtrack_http::jsonapi::JsonApi;

/// `GET /v2/sources`.
pub async fn list(State(state): State<AppState>, _caller: Caller) -> ApiResult<JsonApi> {
    Ok(JsonApi::of(&sources::document(&state.ctx).await?))
}

/// This module's operations, each declared with its route and handler.
pub fn routes() -> Routes {
    Routes::default()
        .get("/v2/sources", list, || {
            Doc::new("Sources", "Source health")
                .about("Each upstream this process has called or has configured (carrier DCSA endpoints, terminal feeds, DCSA push subscriptions): how boxtrack authenticates to it (`auth`: `none`, `headers`, `query` or `oauth2_client_credentials`; never the credentials), requests, error rate (an answer with refused records counts as an error), mean latency, last success and error, how old the newest data it returned is on the upstream's own clock (`clock`: its time and speed, read from the `Date` of its answers), and the records it refused: counts by reason (`refused`: bad_event_id, bad_date_time, created_in_future, created_before_2000, bad_classifier, unknown_code, missing_field, unreadable, unreadable_answer for DCSA; bad_currency for terminal feeds; x12_refused for refused parts of X12 files, under `x12:ingest`) and the last few (`refused_samples`: reference, reason, detail, at). Each distinct record counts once. `diagnosis` says what the upstream's last request showed is wrong, as `boxtrack carriers check` does: a `code` (ok, number_unknown, unreachable, credentials_refused, credentials_expired, forbidden, token_refused, token_unreachable, token_unusable, token_rejected, rate_limited, wrong_address, unexpected_format, request_refused, server_error, http_error, budget_spent, not_configured), a sentence (`says`) and, when the upstream asked to wait, `retry_after_secs`; `null` before boxtrack called it and for sources that call boxtrack. `meta.subjects` counts the polled subjects (active, due now, failing); `meta.unconfigured_carriers` lists carriers that tracking requests wait for while no source is configured for them (scac, waiting_requests; those requests show `failed_reason: data_unavailable`); `meta.early_reports` counts the X12 and EDIFACT reports about containers nobody tracked when they came, kept to be applied when a tracking request makes the container known (kept, oldest_at). Counts are per process.")
                .errors(&[401, 429])
                .ok_of::<SourcesDocument>("Upstreams")
        })
}
