//! `GET /v2/sandbox/scenarios`: the scripted sandbox journeys and the test numbers that start them.

use boxtrack_sources::sandbox::TEST_NUMBERS;
use boxtrack_sources::scenarios::scenarios;
use schemars::JsonSchema;
use serde::Serialize;

use crate::state::Routes;
use boxtrack_http::auth::Caller;
use boxtrack_http::doc::Doc;
use boxtrack_http::jsonapi::JsonApi;

/// `GET /v2/sandbox/scenarios`.
pub async fn list(_caller: Caller) -> JsonApi {
    let mut data: Vec<Scenario> = TEST_NUMBERS
        .iter()
        .map(|(number, what)| Scenario {
            id: number.to_string(),
            kind: "sandbox_scenario",
            attributes: ScenarioAttributes {
                request_number: number.to_string(),
                scac: "TEST",
                request_types: None,
                title: number.to_string(),
                description: what.to_string(),
                scripted_journey: false,
                journey: None,
            },
        })
        .collect();
    data.extend(scenarios().iter().map(|s| Scenario {
        id: s.number.to_string(),
        kind: "sandbox_scenario",
        attributes: ScenarioAttributes {
            request_number: s.number.to_string(),
            scac: "TEST",
            request_types: Some(vec!["bill_of_lading", "booking_number"]),
            title: s.title.to_string(),
            description: s.description.to_string(),
            scripted_journey: true,
            journey: Some(Journey {
                duration_hours: s.duration_h(),
                steps: s.steps.len(),
                container_numbers: s.containers.clone(),
                port_of_lading_locode: s.route.pol_locode.clone(),
                port_of_discharge_locode: s.route.pod_locode.clone(),
                destination_locode: s.route.destination_locode.clone(),
            }),
        },
    }));
    let total = data.len();
    JsonApi::of(&ScenariosDocument {
        data,
        meta: Meta { size: total, total },
    })
}

/// The sandbox's test numbers and scripted journeys.
#[derive(Serialize, JsonSchema)]
pub struct ScenariosDocument {
    /// Every number.
    pub data: Vec<Scenario>,
    /// How many.
    pub meta: Meta,
}

/// How many numbers.
#[derive(Serialize, JsonSchema)]
pub struct Meta {
    /// In this document.
    pub size: usize,
    /// In all.
    pub total: usize,
}

/// One test number.
#[derive(Serialize, JsonSchema)]
pub struct Scenario {
    /// The number.
    pub id: String,
    /// `sandbox_scenario`.
    #[serde(rename = "type")]
    #[schemars(extend("const" = "sandbox_scenario"))]
    pub kind: &'static str,
    /// What it does.
    pub attributes: ScenarioAttributes,
}

/// What a test number does.
#[derive(Serialize, JsonSchema)]
pub struct ScenarioAttributes {
    /// The number to track.
    pub request_number: String,
    /// `TEST`.
    pub scac: &'static str,
    /// The request types it answers (scripted journeys).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub request_types: Option<Vec<&'static str>>,
    /// Its name.
    pub title: String,
    /// What happens.
    pub description: String,
    /// It plays a journey on the virtual clock.
    pub scripted_journey: bool,
    /// The journey (scripted ones).
    #[serde(flatten)]
    pub journey: Option<Journey>,
}

/// A scripted journey.
#[derive(Serialize, JsonSchema)]
pub struct Journey {
    /// Virtual hours from the first step to the last.
    pub duration_hours: i64,
    /// Steps.
    pub steps: usize,
    /// Its containers.
    pub container_numbers: Vec<String>,
    /// Port of lading.
    pub port_of_lading_locode: Option<String>,
    /// Port of discharge.
    pub port_of_discharge_locode: Option<String>,
    /// Inland destination.
    pub destination_locode: Option<String>,
}

/// This module's operations, each declared with its route and handler.
pub fn routes() -> Routes {
    Routes::default()
        .get("/v2/sandbox/scenarios", list, || {
            Doc::new("Sandbox", "List sandbox test numbers and scenarios")
                .about("Track any of these numbers with `scac: \"TEST\"`. Scripted journeys (`TEST-SCN-*`) play through the real merge path on a virtual clock (`--sandbox-speed`, default one simulated hour per second), emitting the same events and webhooks as real data.")
                .errors(&[401, 429])
                .ok_of::<ScenariosDocument>("Scenarios")
        })
}
