//! boxtrack's own write tools, on the store as the REST handlers are: stop and resume tracking
//! a shipment (answered with `get_shipment_details`), refresh a container from its upstreams
//! (the REST handler's own function), list and create webhooks.

use super::error::ToolError;
use boxtrack_app::model::Account;
use boxtrack_app::model::WebhookRow;
use boxtrack_app::{AppError, refresh, shipments, webhooks};
use boxtrack_core::plan::Entitlement;
use boxtrack_views::jsonapi::At;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use uuid::Uuid;

use boxtrack_app::refresh::Refreshed;
use boxtrack_app::webhooks::WebhookIn;
use boxtrack_core::paging::{self, Page};
use boxtrack_core::ratelimit::Bucket;
use boxtrack_http::Front;

use super::container::ContainerId;
use super::shipment::ShipmentAnswer;
use super::tool::{Cx, Hints, NoArgs, Tool};

/// The arguments of a tool about one shipment.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ShipmentId {
    /// Shipment id
    pub shipment_id: Uuid,
}

/// `stop_tracking`.
pub struct StopTracking;

impl Tool for StopTracking {
    const GUIDE: super::contract::Guide = super::guides::STOP;
    type Input = ShipmentId;
    type Output = ShipmentAnswer;
    const NAME: &'static str = "stop_tracking";
    const TITLE: &'static str = "Stop Tracking";
    const DESCRIPTION: &'static str = "Stop tracking a shipment and its containers.";
    const HINTS: Hints = Hints::IDEMPOTENT_WRITE;

    async fn call(cx: &Cx<'_>, input: ShipmentId) -> Result<ShipmentAnswer, ToolError> {
        stop_or_resume(cx.state, cx.account, input.shipment_id, true).await
    }
}

/// `resume_tracking`.
pub struct ResumeTracking;

impl Tool for ResumeTracking {
    const GUIDE: super::contract::Guide = super::guides::RESUME;
    type Input = ShipmentId;
    type Output = ShipmentAnswer;
    const NAME: &'static str = "resume_tracking";
    const TITLE: &'static str = "Resume Tracking";
    const DESCRIPTION: &'static str = "Resume tracking a stopped shipment.";
    const HINTS: Hints = Hints::IDEMPOTENT_WRITE;

    async fn call(cx: &Cx<'_>, input: ShipmentId) -> Result<ShipmentAnswer, ToolError> {
        stop_or_resume(cx.state, cx.account, input.shipment_id, false).await
    }
}

/// `refresh_container`.
pub struct RefreshContainer;

impl Tool for RefreshContainer {
    const GUIDE: super::contract::Guide = super::guides::REFRESH;
    type Input = ContainerId;
    type Output = Refreshed;
    const NAME: &'static str = "refresh_container";
    const TITLE: &'static str = "Refresh Container";
    const DESCRIPTION: &'static str = "Ask the shipping line and terminal now and return what changed (needs the container_refresh entitlement; 10 per minute).";
    // refreshing asks the carrier's and terminal's systems
    const HINTS: Hints = Hints {
        open_world: true,
        ..Hints::IDEMPOTENT_WRITE
    };

    fn bucket() -> Bucket {
        Bucket::for_route("PATCH", "/v2/containers/{id}/refresh")
    }

    async fn call(cx: &Cx<'_>, input: ContainerId) -> Result<Self::Output, ToolError> {
        refresh(cx.state, cx.account, input.id).await
    }
}

/// `list_webhooks`.
pub struct ListWebhooks;

impl Tool for ListWebhooks {
    const GUIDE: super::contract::Guide = super::guides::WEBHOOKS;
    type Input = NoArgs;
    type Output = WebhooksAnswer;
    const NAME: &'static str = "list_webhooks";
    const TITLE: &'static str = "List Webhooks";
    const DESCRIPTION: &'static str = "The account's webhook subscriptions.";

    async fn call(cx: &Cx<'_>, _: NoArgs) -> Result<WebhooksAnswer, ToolError> {
        webhooks(cx.state, cx.account).await
    }
}

/// `create_webhook`'s arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct WebhookInput {
    /// https:// receiver
    pub url: String,
    /// Event names (GET /v2/webhooks/events); none: every event
    pub events: Option<Vec<String>>,
}

/// `create_webhook`.
pub struct CreateWebhook;

impl Tool for CreateWebhook {
    const GUIDE: super::contract::Guide = super::guides::CREATE_WEBHOOK;
    type Input = WebhookInput;
    type Output = CreatedWebhook;
    const NAME: &'static str = "create_webhook";
    const TITLE: &'static str = "Create Webhook";
    const DESCRIPTION: &'static str = "Subscribe an https URL to events (see GET /v2/webhooks/events); the secret is returned once.";
    const HINTS: Hints = Hints::WRITE;

    async fn call(cx: &Cx<'_>, input: WebhookInput) -> Result<CreatedWebhook, ToolError> {
        create_webhook(cx.state, cx.account, &input.url, input.events).await
    }
}

/// Stops (`stop`) or resumes tracking a shipment; its details as they now are.
pub(super) async fn stop_or_resume(
    state: &Front,
    account: &Account,
    shipment: Uuid,
    stop: bool,
) -> Result<ShipmentAnswer, ToolError> {
    let done = if stop {
        shipments::stop(&state.ctx, account.id, shipment).await
    } else {
        shipments::resume(&state.ctx, account, shipment).await
    };
    match done {
        Ok(()) => {}
        Err(AppError::NotFound(_)) => {
            return Err(format!(
                "No shipment found with id {shipment}. Use search_container to find a shipment's id by its bill of lading."
            ).into());
        }
        Err(AppError::Store(e)) => return Err(ToolError::failing("shipment", "changed")(e)),
        Err(e) => return Err(e.into()),
    }
    // what this call committed retires the account's cached reads, as REST writes do
    state.ctx.changes.touch(account.id);
    super::shipment::get(state, account, shipment, true, false).await
}

/// `refresh_container`: the refresh of `boxtrack_app::refresh`.
pub(super) async fn refresh(
    state: &Front,
    account: &Account,
    id: Uuid,
) -> Result<Refreshed, ToolError> {
    if !account.has(Entitlement::ContainerRefresh) {
        return Err("Refreshing a container is not enabled for this account (entitlement `container_refresh`); the operator can enable it. Without it, boxtrack polls on its schedule (get_container shows the latest).".into());
    }
    match refresh::refresh(&state.ctx, account, id).await {
        Ok(done) => {
            state.ctx.changes.touch(account.id);
            Ok(done)
        }
        Err(e) => Err(e.into()),
    }
}

/// A webhook.
#[derive(Debug, Serialize, JsonSchema)]
pub struct WebhookBrief {
    /// Webhook id.
    pub id: Uuid,
    /// Where deliveries go.
    pub url: String,
    /// Whether deliveries are sent.
    pub active: bool,
    /// The events it subscribes to.
    pub events: Vec<String>,
    /// Why it was switched off, if it was.
    pub deactivated_reason: Option<String>,
    /// When it was made.
    pub created_at: At,
}

/// `list_webhooks`'s answer.
#[derive(Debug, Serialize, JsonSchema)]
pub struct WebhooksAnswer {
    /// The account's webhooks, newest first.
    pub items: Vec<WebhookBrief>,
    /// How many.
    pub total: u64,
}

/// `create_webhook`'s answer: the webhook and its signing secret (shown here and in the
/// console; check each delivery's signature with it).
#[derive(Debug, Serialize, JsonSchema)]
pub struct CreatedWebhook {
    /// The webhook.
    #[serde(flatten)]
    pub webhook: WebhookBrief,
    /// The signing secret.
    pub secret: String,
}

fn brief(w: &WebhookRow) -> WebhookBrief {
    WebhookBrief {
        id: w.id,
        url: w.url.clone(),
        active: w.active,
        events: w.events.clone(),
        deactivated_reason: w.deactivated_reason.clone(),
        created_at: At(w.created_us),
    }
}

/// `list_webhooks`.
pub(super) async fn webhooks(
    state: &Front,
    account: &Account,
) -> Result<WebhooksAnswer, ToolError> {
    let listed = webhooks::list(&state.ctx, account.id, &Page::first(paging::MAX_SIZE))
        .await
        .map_err(ToolError::from_app("webhooks"))?;
    Ok(WebhooksAnswer {
        items: listed.rows.iter().map(brief).collect(),
        total: listed.total,
    })
}

/// `create_webhook`: the use case `POST /v2/webhooks` and the console run
/// ([`boxtrack_app::webhooks::create`]: https and not internal, unless the operator allows
/// private addresses; events of the catalog, all when none are named).
pub(super) async fn create_webhook(
    state: &Front,
    account: &Account,
    url: &str,
    events: Option<Vec<String>>,
) -> Result<CreatedWebhook, ToolError> {
    let asked = WebhookIn {
        url: Some(url.to_string()),
        // an empty list, as none: every event (as the tool always took it)
        events: events.filter(|e| !e.is_empty()),
        ..Default::default()
    };
    let w = webhooks::create(&state.ctx, account.id, &asked)
        .await
        .map_err(|e| match e {
            AppError::Unprocessable {
                field: "url",
                detail,
                ..
            } => {
                format!("The webhook's {detail}.")
            }
            AppError::Unprocessable {
                field: "events",
                detail,
                ..
            } => {
                // (the REST path the detail names is not the agent's way to the catalog)
                let why = detail.split("; see").next().unwrap_or_default();
                format!("{why}; the catalog is in the milestone glossary resource.")
            }
            other => format!("The webhook could not be made ({other}); try again shortly."),
        })?;
    Ok(CreatedWebhook {
        webhook: brief(&w),
        secret: w.secret.clone(),
    })
}
