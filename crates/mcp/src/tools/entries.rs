//! `enter_container_facts`: what a person knows first-hand about a container (a last free day
//! the line told them, the appointment booked, the pickup, the delivery, the empty return),
//! entered through the same use case as REST's `PATCH /v2/containers/{id}`: merged as reports
//! of source `user_input` that win over the sources' until cleared, refused where they
//! contradict the journey, audited. Answered with the container's readiness.

use boxtrack_app::entries;
use boxtrack_core::time::parse_micros;
use boxtrack_core::tracking::entries::Entry;
use schemars::JsonSchema;
use serde::Deserialize;
use uuid::Uuid;

use super::container::{Readiness, readiness};
use super::error::ToolError;
use super::tool::{Cx, Hints, Tool};

/// What to enter or clear.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct EnterInput {
    /// Container id
    pub id: Uuid,
    /// The last free day the person knows (RFC 3339, e.g. 2026-03-12T23:59:00-08:00)
    #[serde(default)]
    pub pickup_lfd: Option<String>,
    /// The pickup appointment booked (RFC 3339)
    #[serde(default)]
    pub pickup_appointment_at: Option<String>,
    /// When the box was picked up at the port (RFC 3339)
    #[serde(default)]
    pub pod_full_out_at: Option<String>,
    /// When it was delivered (RFC 3339)
    #[serde(default)]
    pub delivered_at: Option<String>,
    /// When the empty was returned (RFC 3339)
    #[serde(default)]
    pub empty_terminated_at: Option<String>,
    /// Attributes to clear (what a person entered goes; the sources' values show again)
    #[serde(default)]
    pub clear: Vec<String>,
}

/// `enter_container_facts`.
pub struct EnterContainerFacts;

impl Tool for EnterContainerFacts {
    const GUIDE: super::contract::Guide = super::guides::ENTER;
    type Input = EnterInput;
    type Output = Readiness;
    const NAME: &'static str = "enter_container_facts";
    const TITLE: &'static str = "Enter Container Facts";
    const DESCRIPTION: &'static str = "Record what a person knows first-hand about a container: a last free day the line told them (pickup_lfd), the pickup appointment booked, the pickup (pod_full_out_at), the delivery, the empty return; or clear what a person entered. Entries win over the sources until cleared and are refused when they contradict the journey (a pickup before the discharge).";
    const HINTS: Hints = Hints::IDEMPOTENT_WRITE;

    async fn call(cx: &Cx<'_>, input: EnterInput) -> Result<Readiness, ToolError> {
        let given = [
            (Entry::PickupLfd, &input.pickup_lfd),
            (Entry::PickupAppointment, &input.pickup_appointment_at),
            (Entry::PodFullOut, &input.pod_full_out_at),
            (Entry::Delivered, &input.delivered_at),
            (Entry::EmptyTerminated, &input.empty_terminated_at),
        ];
        let mut asked = vec![];
        for (entry, text) in given {
            if let Some(text) = text {
                let at = parse_micros(text).ok_or_else(|| {
                    ToolError::from(format!(
                        "Invalid {}: {text:?} is not an RFC 3339 time.",
                        entry.name()
                    ))
                })?;
                asked.push((entry, Some(at)));
            }
        }
        for name in &input.clear {
            let entry = Entry::parse(name).ok_or_else(|| {
                let all: Vec<&str> = Entry::ALL.iter().map(|e| e.name()).collect();
                ToolError::from(format!(
                    "Invalid clear: {name:?} is none of {}.",
                    all.join(", ")
                ))
            })?;
            asked.push((entry, None));
        }
        if asked.is_empty() {
            return Err("Name what to enter or clear.".into());
        }
        let who = match cx.credential {
            super::credential::Credential::ApiKey(k) => entries::Author::Key(k),
            super::credential::Credential::User(id) => entries::Author::User(id),
            super::credential::Credential::Open => entries::Author::Open,
        };
        let by = entries::author(&cx.state.ctx, cx.account.id, who, Some("MCP")).await;
        entries::enter(&cx.state.ctx, cx.account.id, input.id, &by, &asked)
            .await
            .map_err(ToolError::from_app("container"))?;
        readiness(cx.state, cx.account, input.id).await
    }
}
