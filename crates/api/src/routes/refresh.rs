//! `PATCH /v2/containers/{id}/refresh`: a container's sources read now, not when the
//! scheduler would; a sandbox container plays what its journey has due instead.

use axum::Json;
use axum::extract::State;
use boxtrack_store::reads::{self, ContainerRow};
use schemars::JsonSchema;
use serde::Serialize;
use serde_json::Value;

use crate::auth::Caller;
use crate::error::{ApiError, ApiResult};
use crate::extract::IdPath;
use crate::state::AppState;

/// `PATCH /v2/containers/{id}/refresh`: polls every source of the container now (the carrier,
/// and the terminal once it is discharged) and answers when done, with what changed.
pub async fn refresh(
    State(state): State<AppState>,
    caller: Caller,
    IdPath(id): IdPath,
) -> ApiResult<Json<Refreshed>> {
    caller.require(boxtrack_core::plan::Entitlement::ContainerRefresh)?;
    let c = reads::container(&state.db, caller.account.id, id)
        .await?
        .ok_or_else(|| ApiError::not_found("container"))?;
    let Some(subject) =
        boxtrack_store::subjects::of_container(&state.db, caller.account.id, id).await?
    else {
        return refresh_sandbox(&state, &caller, &c).await;
    };
    if state.upstreams.carrier(&subject.scac).is_none() {
        return Err(ApiError::new(
            axum::http::StatusCode::UNPROCESSABLE_ENTITY,
            format!("No upstream is configured for {}.", subject.scac),
        )
        .with_code("no_upstream"));
    }
    let report = boxtrack_sources::poll::poll_subject(
        &state.db,
        &state.upstreams,
        &subject,
        boxtrack_store::now_us(),
    )
    .await?;
    if let Some(err) = &report.error {
        return Err(ApiError::new(
            axum::http::StatusCode::BAD_GATEWAY,
            format!("The shipping line could not be read: {err}. Nothing changed; the scheduler retries with backoff."),
        )
        .with_code("upstream_failed"));
    }
    let changes = report.changes.get(&id).cloned().unwrap_or_default();
    let message = if report.terminal_errors.is_empty() {
        "Refreshed from Shipping line, Terminal"
    } else {
        "Refreshed from Shipping line; the terminal could not be read"
    };
    Ok(Json(Refreshed {
        message,
        changes: change_records(&changes),
        terminal_errors: report.terminal_errors,
        next_refresh_at: report.next_due_us.map(boxtrack_views::jsonapi::At),
    }))
}

/// A refresh of a container without an upstream: a sandbox container's journey plays what is
/// due on its virtual clock now, as the worker would on its next pass, and answers like a
/// real refresh; any other such container is 422 `no_upstream`.
async fn refresh_sandbox(
    state: &AppState,
    caller: &Caller,
    c: &ContainerRow,
) -> ApiResult<Json<Refreshed>> {
    let account = caller.account.id;
    if boxtrack_store::sandbox::started_us(&state.db, account, c.shipment_id)
        .await?
        .is_none()
    {
        return Err(ApiError::new(
            axum::http::StatusCode::UNPROCESSABLE_ENTITY,
            "This container has no upstream to refresh from.",
        )
        .with_code("no_upstream"));
    }
    let mut changes = Vec::new();
    if let Some(run) =
        boxtrack_store::sandbox::live_run_of(&state.db, account, c.shipment_id).await?
    {
        let now = state.now_us();
        let (_, changed) =
            boxtrack_worker::playback::play_run(&state.db, &run, now, state.config.sandbox_speed)
                .await?;
        state.reads.changes().touch(account);
        changes = changed
            .into_iter()
            .filter(|(container, _)| *container == c.id)
            .flat_map(|(_, cs)| cs)
            .collect();
    }
    Ok(Json(Refreshed {
        message: "Refreshed from Shipping line, Terminal",
        changes: change_records(&changes),
        terminal_errors: Vec::new(),
        next_refresh_at: None,
    }))
}

/// The merge's change records as the answer shows them.
fn change_records(changes: &[boxtrack_core::tracking::Change]) -> Vec<Value> {
    changes
        .iter()
        .map(|c| serde_json::to_value(c).unwrap_or(Value::Null))
        .collect()
}

/// What a refresh changed.
#[derive(Serialize, JsonSchema)]
pub struct Refreshed {
    /// As the reference says it: which sources were read.
    pub message: &'static str,
    /// The changes to this container (the merge's change records: `kind` and its fields).
    pub changes: Vec<Value>,
    /// Why the terminal could not be read, if it could not.
    pub terminal_errors: Vec<String>,
    /// When the scheduler polls again.
    pub next_refresh_at: Option<boxtrack_views::jsonapi::At>,
}
