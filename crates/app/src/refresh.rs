//! Refreshing a container now: `PATCH /v2/containers/{id}/refresh`, the console's refresh
//! button and MCP's `refresh_container` read its sources at once rather than when the
//! scheduler would; a sandbox container plays what its journey has due instead.

use boxtrack_core::tracking::Change;
use boxtrack_sources::poll;
use boxtrack_store::accounts::Account;
use boxtrack_store::reads::{self, ContainerRow};
use boxtrack_store::{now_us, sandbox, subjects};
use boxtrack_views::jsonapi::At;
use boxtrack_worker::playback;
use schemars::JsonSchema;
use serde::Serialize;
use serde_json::Value;
use uuid::Uuid;

use crate::AppError;
use crate::ctx::Ctx;

/// What a refresh changed.
#[derive(Debug, Serialize, JsonSchema)]
pub struct Refreshed {
    /// As the reference says it: which sources were read.
    pub message: &'static str,
    /// The changes to this container (the merge's change records: `kind` and its fields).
    pub changes: Vec<Value>,
    /// Why the terminal could not be read, if it could not.
    pub terminal_errors: Vec<String>,
    /// When the scheduler polls again.
    pub next_refresh_at: Option<At>,
}

/// Polls every source of the account's container `id` now (the carrier, and the terminal once
/// it is discharged) and answers when done, with what changed. The front end checks the
/// account's entitlement first.
pub async fn refresh(ctx: &Ctx, account: &Account, id: Uuid) -> Result<Refreshed, AppError> {
    let c = reads::container(&ctx.db, account.id, id)
        .await?
        .ok_or(AppError::NotFound("container"))?;
    let Some(subject) = subjects::of_container(&ctx.db, account.id, id).await? else {
        return refresh_sandbox(ctx, account.id, &c).await;
    };
    if ctx.upstreams.carrier(&subject.scac).is_none() {
        return Err(AppError::Refused {
            code: "no_upstream",
            detail: format!("No upstream is configured for {}.", subject.scac),
        });
    }
    // an upstream's answer is read on the wall clock (a fixed "now" is the answers' only)
    let now = now_us();
    let report = poll::poll_subject(&ctx.db, &ctx.upstreams, &subject, now).await?;
    if let Some(err) = &report.error {
        return Err(AppError::Upstream(format!(
            "The shipping line could not be read: {err}. Nothing changed; the scheduler retries with backoff."
        )));
    }
    let changes = report.changes.get(&id).cloned().unwrap_or_default();
    let message = if report.terminal_errors.is_empty() {
        "Refreshed from Shipping line, Terminal"
    } else {
        "Refreshed from Shipping line; the terminal could not be read"
    };
    Ok(Refreshed {
        message,
        changes: change_records(&changes),
        terminal_errors: report.terminal_errors,
        next_refresh_at: report.next_due_us.map(At),
    })
}

/// A refresh of a container without an upstream: a sandbox container's journey plays what is
/// due on its virtual clock now, as the worker would on its next pass, and answers like a
/// real refresh; any other such container is refused (`no_upstream`).
async fn refresh_sandbox(
    ctx: &Ctx,
    account: Uuid,
    c: &ContainerRow,
) -> Result<Refreshed, AppError> {
    if sandbox::started_us(&ctx.db, account, c.shipment_id)
        .await?
        .is_none()
    {
        return Err(AppError::Refused {
            code: "no_upstream",
            detail: "This container has no upstream to refresh from.".into(),
        });
    }
    let mut changes = Vec::new();
    if let Some(run) = sandbox::live_run_of(&ctx.db, account, c.shipment_id).await? {
        let (_, changed) =
            playback::play_run(&ctx.db, &run, ctx.now_us(), ctx.policy.sandbox_speed).await?;
        ctx.changes.touch(account);
        changes = changed
            .into_iter()
            .filter(|(container, _)| *container == c.id)
            .flat_map(|(_, cs)| cs)
            .collect();
    }
    Ok(Refreshed {
        message: "Refreshed from Shipping line, Terminal",
        changes: change_records(&changes),
        terminal_errors: Vec::new(),
        next_refresh_at: None,
    })
}

/// The merge's change records as the answer shows them.
fn change_records(changes: &[Change]) -> Vec<Value> {
    changes
        .iter()
        .map(|c| serde_json::to_value(c).unwrap_or(Value::Null))
        .collect()
}
