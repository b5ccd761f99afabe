//! The account's event log as `GET /v2/events` pages it: every change in the order it was
//! made, after a sequence number, each as the envelope a webhook delivery of it carries.

pub use boxtrack_store::events::EventRow;
use boxtrack_store::notifications::NotificationRow;
use boxtrack_store::{Db, events};
use boxtrack_views::notifications;
use serde_json::Value;
use uuid::Uuid;

use crate::AppError;

/// A page of the log: the envelopes of the events it shows, and where the next page starts.
#[derive(Debug)]
pub struct LogPage {
    /// Each event shown, as the webhook envelope of its delivery (`data` and `included`).
    pub envelopes: Vec<Value>,
    /// The sequence number of the last event read (`after_seq` when none was): the next
    /// page's `after`.
    pub last: i64,
    /// Whether the page read as many events as it could hold (more may follow).
    pub full: bool,
}

/// A page of the account's log after `after_seq`, at most `size` events read, those of
/// `only_event` shown (all when `None`); the page's related rows are read once for all its
/// events (read from `db`: a replica replays commits in the primary's order, so what it shows
/// is the log as the primary had it a moment ago).
pub async fn page(
    db: &Db,
    account_id: Uuid,
    after_seq: i64,
    size: i64,
    only_event: Option<&str>,
) -> Result<LogPage, AppError> {
    let rows = events::after(db, account_id, after_seq, size).await?;
    let last = rows.last().map_or(after_seq, |e| e.seq);
    let full = rows.len() as i64 == size;
    let shown: Vec<EventRow> = rows
        .into_iter()
        .filter(|e| only_event.is_none_or(|f| e.event == f))
        .collect();
    let ns: Vec<NotificationRow> = shown
        .iter()
        .map(|e| as_notification(account_id, e))
        .collect();
    let envelopes = notifications::envelopes(db, &ns, shown).await?;
    Ok(LogPage {
        envelopes,
        last,
        full,
    })
}

/// An event as the notification a delivery of it would be (no webhook, never attempted).
fn as_notification(account_id: Uuid, e: &EventRow) -> NotificationRow {
    NotificationRow {
        id: e.id,
        account_id,
        webhook_id: Uuid::nil(),
        event_id: e.id,
        seq: e.seq,
        event: e.event.clone(),
        reference_type: reference_type(&e.object_type).to_string(),
        reference_id: e.object_id,
        delivery_status: "pending".into(),
        attempts: 0,
        next_attempt_us: None,
        last_status_code: None,
        last_error: None,
        created_us: e.created_us,
        updated_us: e.created_us,
        replay_of: None,
    }
}

/// The notification's reference type of an event's object.
fn reference_type(object_type: &str) -> &str {
    match object_type {
        "container" => "container",
        "shipment" => "shipment",
        "tracking_request" => "tracking_request",
        _ => "transport_event",
    }
}
