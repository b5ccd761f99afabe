//! Webhook notification examples made the way live notifications are made.
//!
//! Once per process, on first use, every scripted sandbox journey is played in a scratch
//! database ([`boxtrack_app::examples`]); the first notification of each event is that
//! event's example. Nothing is written for an event that no journey produces (the `document.*`
//! events: boxtrack does not extract documents).
//!
//! Then a scripted tour of the REST API over the same data ([`tour`]) records an example
//! request and answer for the documented operations.

pub mod tour;

use std::collections::BTreeMap;

use boxtrack_app::examples::Scratch;
use boxtrack_app::{AppError, ctx};
use boxtrack_http::jsonapi::Collection;
use boxtrack_views::jsonapi;
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
                jsonapi::include_once(&mut included, i.clone());
            }
        }
        (data, included)
    }
}

/// The recorded examples as the application's source of sample notifications
/// ([`boxtrack_app::ctx::Examples`]): `rest` builds the router the tour calls.
pub struct Recorder(pub Option<fn(AppState) -> axum::Router>);

impl ctx::Examples for Recorder {
    fn notification<'a>(
        &'a self,
        event: &'a str,
    ) -> std::pin::Pin<Box<dyn Future<Output = Result<Option<Value>, AppError>> + Send + 'a>> {
        Box::pin(async move { Ok(examples(self.0).await?.by_event.get(event).cloned()) })
    }
}

/// The examples, built on first use and kept for the life of the process; `rest` builds the
/// router the tour calls (`AppState::rest_router`; without one the operations get no example).
pub async fn examples(
    rest: Option<fn(AppState) -> axum::Router>,
) -> Result<&'static Examples, AppError> {
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

async fn build(rest: Option<fn(AppState) -> axum::Router>) -> Result<Examples, AppError> {
    let scratch = Scratch::played().await?;
    let out = play(&scratch, rest).await;
    scratch.close().await;
    out
}

async fn play(
    scratch: &Scratch,
    rest: Option<fn(AppState) -> axum::Router>,
) -> Result<Examples, AppError> {
    let mut examples = Examples {
        by_event: scratch.first_notifications().await?,
        by_operation: tour::record(&scratch.ctx, scratch.account_id, rest).await?,
    };
    // the tour cannot ask for these: answering needs the examples being made
    let (data, included) = examples.of_events(&["container.transport.vessel_arrived"]);
    examples.by_operation.insert(
        ("get".into(), "/v2/webhook_notifications/examples".into()),
        tour::Recorded {
            status: 200,
            request: None,
            response: serde_json::to_value(Collection {
                included,
                ..Collection::of(data)
            })
            .ok(),
        },
    );
    Ok(examples)
}
