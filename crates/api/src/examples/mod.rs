//! Webhook notification examples made the way live notifications are made.
//!
//! Once per process, on first use, every scripted sandbox journey (and the sandbox numbers
//! that fail, await their manifest or stop) is played in a scratch SQLite database through
//! the same tracking-request processor, merge, event log, notification fan-out and envelope
//! code that live deliveries go through; the first notification of each event is that event's
//! example. Nothing is written for an event that no journey produces (the `document.*`
//! events: boxtrack does not extract documents).
//!
//! Then a scripted tour of the REST API over the same data ([`tour`]) records an example
//! request and answer for the documented operations.

pub mod tour;

use std::collections::BTreeMap;
use std::sync::Arc;

use boxtrack_core::paging::Page;
use boxtrack_core::plan::{Entitlement, Plan};
use boxtrack_core::ratelimit::Limits;
use boxtrack_core::requests::{RequestType, ValidRequest};
use boxtrack_sources::scenarios;
use boxtrack_store::{Db, StoreError, accounts, notifications, tracking, webhooks};
use serde_json::Value;
use tokio::sync::OnceCell;

use crate::state::AppState;

/// The examples: each event's envelope, as a delivery of it is sent.
#[derive(Debug, Default)]
pub struct Examples {
    /// Event name → envelope (`data`, `included`, `links`).
    pub by_event: BTreeMap<String, Value>,
    /// Operation (method, path template) → an example request and answer.
    pub by_operation: tour::Recordings,
}

impl Examples {
    /// The notifications of `events` as their deliveries' `data`, and what those deliveries
    /// include, each resource once (`GET /v2/webhook_notifications/examples`).
    pub fn of_events(&self, events: &[&str]) -> (Vec<Value>, Vec<Value>) {
        let mut data = Vec::new();
        let mut included: Vec<Value> = Vec::new();
        for env in events.iter().filter_map(|e| self.by_event.get(*e)) {
            data.push(env["data"].clone());
            for i in env["included"].as_array().into_iter().flatten() {
                boxtrack_views::jsonapi::include_once(&mut included, i.clone());
            }
        }
        (data, included)
    }
}

const H: i64 = 1_000_000; // one simulated hour per real second at the default speed

/// The recorded examples as the application's source of sample notifications
/// ([`boxtrack_app::ctx::Examples`]): `rest` builds the router the tour calls.
pub struct Recorder(pub Option<fn(AppState) -> axum::Router>);

impl boxtrack_app::ctx::Examples for Recorder {
    fn notification<'a>(
        &'a self,
        event: &'a str,
    ) -> std::pin::Pin<
        Box<dyn Future<Output = Result<Option<Value>, boxtrack_app::AppError>> + Send + 'a>,
    > {
        Box::pin(async move { Ok(examples(self.0).await?.by_event.get(event).cloned()) })
    }
}

/// The examples, built on first use and kept for the life of the process; `rest` builds the
/// router the tour calls (`AppState::rest_router`; without one the operations get no example).
pub async fn examples(
    rest: Option<fn(AppState) -> axum::Router>,
) -> Result<&'static Examples, StoreError> {
    use tracing::instrument::WithSubscriber as _;
    static EXAMPLES: OnceCell<Examples> = OnceCell::const_new();
    // the tour's own requests (a carrier no source serves, say) are not the operator's
    // business: nothing it does is logged; its failure is, by the caller
    EXAMPLES
        .get_or_try_init(|| {
            build(rest).with_subscriber(tracing::subscriber::NoSubscriber::default())
        })
        .await
}

async fn build(rest: Option<fn(AppState) -> axum::Router>) -> Result<Examples, StoreError> {
    let dir = std::env::temp_dir().join(format!("boxtrack-examples-{}", uuid::Uuid::now_v7()));
    let path = dir.join("examples.sqlite");
    let db = Db::connect(&format!("sqlite://{}", path.display())).await?;
    let out = play(&db, rest).await;
    db.close().await;
    // scratch data only: whatever is left behind in the temporary folder is harmless
    let _ = std::fs::remove_dir_all(&dir);
    out
}

async fn play(db: &Db, rest: Option<fn(AppState) -> axum::Router>) -> Result<Examples, StoreError> {
    db.migrate().await?;
    let account = subscribed_account(db).await?;
    let journeys = scenarios::scenarios();
    track_every_journey(db, account.id, &journeys).await?;
    play_to_the_end(db, &journeys).await?;
    // a user stops tracking one shipment
    stop_one(db, account.id, "TEST-SCN-IMPORT").await?;
    let rows = first_of_each_event(db, account.id).await?;
    let envelopes = boxtrack_views::notifications::envelopes(db, &rows, Vec::new()).await?;
    let mut examples = Examples {
        by_event: rows.into_iter().map(|r| r.event).zip(envelopes).collect(),
        by_operation: tour::record(db, account.id, rest).await?,
    };
    // the tour cannot ask for these: answering needs the examples being made
    let (data, included) = examples.of_events(&["container.transport.vessel_arrived"]);
    examples.by_operation.insert(
        ("get".into(), "/v2/webhook_notifications/examples".into()),
        tour::Recorded {
            status: 200,
            request: None,
            response: serde_json::to_value(boxtrack_http::jsonapi::Collection {
                included,
                ..boxtrack_http::jsonapi::Collection::of(data)
            })
            .ok(),
        },
    );
    Ok(examples)
}

/// An account with every entitlement, limits the tour cannot reach, and a webhook of every
/// event (so each event leaves a notification to show).
async fn subscribed_account(db: &Db) -> Result<accounts::Account, StoreError> {
    let (account, _, _) = accounts::create(
        db,
        accounts::NewAccount {
            name: "Webhook examples".into(),
            plan: Plan::Standard,
            entitlements: Entitlement::ALL.to_vec(),
            // the tour makes a hundred calls in a moment
            rate_limits: Limits(
                boxtrack_core::ratelimit::Bucket::ALL
                    .into_iter()
                    .map(|b| (b, 1_000_000))
                    .collect(),
            ),
        },
    )
    .await?;
    webhooks::create(
        db,
        account.id,
        &webhooks::NewWebhook {
            url: "https://example.com/webhooks/boxtrack".into(),
            active: true,
            events: boxtrack_core::webhooks::EVENTS
                .iter()
                .map(|e| e.to_string())
                .collect(),
            headers: BTreeMap::new(),
            secret: "whsec_examples".into(),
        },
    )
    .await?;
    Ok(account)
}

/// A tracking request for each sandbox journey, and for the two that never become a
/// shipment (failed, awaiting the manifest).
async fn track_every_journey(
    db: &Db,
    account_id: uuid::Uuid,
    journeys: &[scenarios::Scenario],
) -> Result<(), StoreError> {
    let mut numbers: Vec<&str> = journeys.iter().map(|s| s.number).collect();
    numbers.extend(["TEST-TR-FAILED", "TEST-TR-AWAITING-MANIFEST"]);
    for number in numbers {
        let request = ValidRequest {
            number: number.to_string(),
            request_type: RequestType::BillOfLading,
            scac: Some(boxtrack_core::carriers::SANDBOX_SCAC.to_string()),
            auto_detect: false,
            ref_numbers: vec!["PO-1234".into()],
            shipment_tags: vec![],
        };
        tracking::create_request(
            db,
            account_id,
            Plan::Standard,
            &request,
            &tracking::RequestExtras::default(),
        )
        .await?;
    }
    Ok(())
}

/// Every journey played by the worker on the journeys' clock, hour by hour.
async fn play_to_the_end(db: &Db, journeys: &[scenarios::Scenario]) -> Result<(), StoreError> {
    let sources: Vec<Arc<dyn boxtrack_sources::Source>> =
        vec![Arc::new(boxtrack_sources::sandbox::Sandbox)];
    let worker = boxtrack_worker::Processor::new(db.clone(), sources);
    let start = boxtrack_store::now_us();
    worker.process_due(start).await?;
    let mut hours: Vec<i64> = journeys
        .iter()
        .flat_map(|s| s.steps.iter().map(|st| st.at_h))
        .collect();
    hours.sort_unstable();
    hours.dedup();
    for h in hours {
        worker.tick(start + h * H).await?;
    }
    Ok(())
}

/// A whole list at once, page by page.
fn all(number: u32) -> Page {
    Page {
        number,
        size: boxtrack_core::paging::MAX_SIZE,
        cursor: None,
    }
}

/// Stops tracking the shipment of the request for `number`.
async fn stop_one(db: &Db, account_id: uuid::Uuid, number: &str) -> Result<(), StoreError> {
    let requests =
        tracking::list_requests(db, account_id, &tracking::RequestFilter::default(), &all(1))
            .await?;
    if let Some(shipment) = requests
        .rows
        .iter()
        .filter(|r| r.request_number == number)
        .find_map(|r| r.shipment_id)
    {
        tracking::stop_shipment(db, account_id, shipment, "cancelled_by_user").await?;
    }
    Ok(())
}

/// The oldest notification of each event (the list is newest first).
async fn first_of_each_event(
    db: &Db,
    account_id: uuid::Uuid,
) -> Result<Vec<notifications::NotificationRow>, StoreError> {
    let mut first: BTreeMap<String, notifications::NotificationRow> = BTreeMap::new();
    for number in 1.. {
        let listed = notifications::list(
            db,
            account_id,
            &notifications::Filter::default(),
            &all(number),
        )
        .await?;
        let last = listed.rows.len() < boxtrack_core::paging::MAX_SIZE as usize;
        for row in listed.rows {
            first.insert(row.event.clone(), row);
        }
        if last {
            break;
        }
    }
    Ok(first.into_values().collect())
}
