//! Making and changing a webhook: `POST` and `PATCH /v2/webhooks`, the console's webhook form
//! and MCP's `create_webhook` give the same [`WebhookIn`] and are checked by the same rules
//! (the receiver's address, the event catalog, the webhook's own headers).

use std::collections::BTreeMap;

use boxtrack_core::paging::Page;
use boxtrack_core::webhooks as rules;
use boxtrack_store::list::Listed;
use boxtrack_store::notifications::{self, NotificationRow};

pub use boxtrack_store::notifications::{AttemptRow, Filter as NotificationFilter};
use boxtrack_store::webhooks::{self as store, NewWebhook, WebhookChanges, WebhookRow};
use uuid::Uuid;

use crate::AppError;
use crate::ctx::Ctx;

/// A webhook as a front end asks for it: every part optional (a change gives only what
/// changes; a new webhook needs its `url`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct WebhookIn {
    /// The receiver's address.
    pub url: Option<String>,
    /// Whether notifications are sent (a new webhook: yes, unless this says no).
    pub active: Option<bool>,
    /// The events it receives (a new webhook: every event when no list is given; a list names
    /// at least one).
    pub events: Option<Vec<String>>,
    /// Headers sent with every notification.
    pub headers: Option<BTreeMap<String, String>>,
}

/// The receiver's address, as it is kept.
/// `private_urls`: the operator allows `http://` and internal receivers (for tests and local
/// ones).
fn url(raw: &str, private_urls: bool) -> Result<String, AppError> {
    rules::check_url(raw, private_urls)
        .map(|()| raw.trim().to_string())
        .map_err(|e| AppError::unprocessable("url", "invalid", e.to_string()))
}

/// The events of a subscription: named ones of the catalog, at least one.
fn events(named: &[String]) -> Result<Vec<String>, AppError> {
    if named.is_empty() {
        return Err(AppError::unprocessable(
            "events",
            "blank",
            "events must name at least one event; see GET /v2/webhooks/events",
        ));
    }
    rules::validate_events(named).map_err(|e| {
        AppError::unprocessable(
            "events",
            "invalid",
            format!("{e:?} is not a webhook event; see GET /v2/webhooks/events"),
        )
    })
}

/// The webhook's own headers, checked.
fn headers(h: &BTreeMap<String, String>) -> Result<BTreeMap<String, String>, AppError> {
    rules::check_headers(h.iter().map(|(k, v)| (k.as_str(), v.as_str()))).map_err(|e| {
        let code = match e {
            rules::HeaderError::TooMany => "too_long",
            rules::HeaderError::Invalid(_) => "invalid",
            rules::HeaderError::Reserved(_) => "reserved",
        };
        AppError::unprocessable("headers", code, e.to_string())
    })?;
    Ok(h.clone())
}

/// Makes a webhook for the account: every event when no list is given (an empty list is
/// refused), a new signing secret.
pub async fn create(
    ctx: &Ctx,
    account_id: Uuid,
    asked: &WebhookIn,
) -> Result<WebhookRow, AppError> {
    let new = NewWebhook {
        url: url(
            asked.url.as_deref().unwrap_or_default(),
            ctx.policy.allow_private_webhook_urls,
        )?,
        active: asked.active.unwrap_or(true),
        events: match asked.events.as_deref() {
            None => rules::EVENTS.iter().map(|e| e.to_string()).collect(),
            Some(named) => events(named)?,
        },
        headers: asked
            .headers
            .as_ref()
            .map(headers)
            .transpose()?
            .unwrap_or_default(),
        secret: rules::generate_secret(),
    };
    Ok(store::create(&ctx.db, account_id, &new).await?)
}

/// Changes what `asked` names of one of the account's webhooks (its events: at least one).
pub async fn update(
    ctx: &Ctx,
    account_id: Uuid,
    id: Uuid,
    asked: &WebhookIn,
) -> Result<WebhookRow, AppError> {
    let changes = WebhookChanges {
        url: asked
            .url
            .as_deref()
            .map(|u| url(u, ctx.policy.allow_private_webhook_urls))
            .transpose()?,
        active: asked.active,
        events: asked.events.as_deref().map(events).transpose()?,
        headers: asked.headers.as_ref().map(headers).transpose()?,
    };
    Ok(store::update(&ctx.db, account_id, id, changes).await?)
}

/// A page of the account's webhooks, newest first.
pub async fn list(
    ctx: &Ctx,
    account_id: Uuid,
    page: &Page,
) -> Result<Listed<WebhookRow>, AppError> {
    Ok(store::list(&ctx.db, account_id, page).await?)
}

/// One of the account's webhooks.
pub async fn get(ctx: &Ctx, account_id: Uuid, id: Uuid) -> Result<Option<WebhookRow>, AppError> {
    Ok(store::get(&ctx.db, account_id, id).await?)
}

/// Deletes one of the account's webhooks (its notifications go with it).
pub async fn delete(ctx: &Ctx, account_id: Uuid, id: Uuid) -> Result<(), AppError> {
    Ok(store::delete(&ctx.db, account_id, id).await?)
}

/// The most events one replay sends again.
pub const REPLAY_MAX: i64 = 10_000;

/// Sends the account's webhook `webhook_id` again each event of `events` after the sequence
/// `after_seq` and at or after `since_us` (at most `max`), as new notifications that name what
/// they replay: how many.
pub async fn replay(
    ctx: &Ctx,
    account_id: Uuid,
    webhook_id: Uuid,
    events: &[String],
    after_seq: i64,
    since_us: i64,
    max: i64,
) -> Result<usize, AppError> {
    Ok(notifications::replay(
        &ctx.db, account_id, webhook_id, events, after_seq, since_us, max,
    )
    .await?)
}

/// A page of the account's notifications that `filter` keeps, newest first (read where a list
/// may be: [`Ctx::read_db`]).
pub async fn notifications(
    ctx: &Ctx,
    account_id: Uuid,
    filter: &notifications::Filter,
    page: &Page,
) -> Result<Listed<NotificationRow>, AppError> {
    Ok(notifications::list(ctx.read_db(account_id), account_id, filter, page).await?)
}

/// One of the account's notifications with its delivery attempts, oldest first.
pub async fn notification(
    ctx: &Ctx,
    account_id: Uuid,
    id: Uuid,
) -> Result<Option<(NotificationRow, Vec<AttemptRow>)>, AppError> {
    let Some(n) = notifications::get(&ctx.db, account_id, id).await? else {
        return Ok(None);
    };
    let attempts = notifications::attempts(&ctx.db, n.id).await?;
    Ok(Some((n, attempts)))
}

/// A webhook's `n` newest notifications, each with its delivery attempts (the console's
/// webhook page).
pub async fn newest(
    ctx: &Ctx,
    account_id: Uuid,
    webhook_id: Uuid,
    n: u32,
) -> Result<Vec<(NotificationRow, Vec<AttemptRow>)>, AppError> {
    let filter = notifications::Filter {
        webhook_id: Some(webhook_id),
        ..Default::default()
    };
    let listed = notifications::list(&ctx.db, account_id, &filter, &Page::first(n)).await?;
    let mut out = Vec::with_capacity(listed.rows.len());
    for row in listed.rows {
        let attempts = notifications::attempts(&ctx.db, row.id).await?;
        out.push((row, attempts));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_part_is_checked_and_named() {
        let strict = false;
        assert!(url("https://example.com/hook", strict).is_ok());
        for (result, field) in [
            (url("http://127.0.0.1/hook", strict).map(|_| ()), "url"),
            (events(&[]).map(|_| ()), "events"),
            (
                events(&["container.teleported".into()]).map(|_| ()),
                "events",
            ),
            (
                headers(&BTreeMap::from([("Host".into(), "x".into())])).map(|_| ()),
                "headers",
            ),
        ] {
            match result {
                Err(AppError::Unprocessable { field: f, .. }) => assert_eq!(f, field),
                other => panic!("{field}: {other:?}"),
            }
        }
        assert!(url(" http://127.0.0.1/hook", true).is_err());
    }
}
