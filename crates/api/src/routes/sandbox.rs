//! `GET /v2/sandbox/scenarios`: the scripted sandbox journeys and the test numbers that start them.

use boxtrack_sources::sandbox::TEST_NUMBERS;
use boxtrack_sources::scenarios::scenarios;
use serde_json::{Value, json};

use crate::auth::Caller;
use crate::doc::{Op, body, errors, operation};
use crate::jsonapi::JsonApi;

/// `GET /v2/sandbox/scenarios`.
pub async fn list(_caller: Caller) -> JsonApi {
    let mut data: Vec<Value> = TEST_NUMBERS
        .iter()
        .map(|(number, what)| {
            json!({
                "id": number, "type": "sandbox_scenario",
                "attributes": {"request_number": number, "scac": "TEST", "title": number, "description": what, "scripted_journey": false}
            })
        })
        .collect();
    data.extend(scenarios().iter().map(|s| {
        json!({
            "id": s.number, "type": "sandbox_scenario",
            "attributes": {
                "request_number": s.number,
                "scac": "TEST",
                "request_types": ["bill_of_lading", "booking_number"],
                "title": s.title,
                "description": s.description,
                "scripted_journey": true,
                "duration_hours": s.duration_h(),
                "steps": s.steps.len(),
                "container_numbers": s.containers,
                "port_of_lading_locode": s.route.pol_locode,
                "port_of_discharge_locode": s.route.pod_locode,
                "destination_locode": s.route.destination_locode,
            }
        })
    }));
    let total = data.len();
    JsonApi(json!({"data": data, "meta": {"size": total, "total": total}}))
}

/// Documented operations of this module.
pub fn operations() -> Vec<Op> {
    vec![Op {
        method: "get",
        path: "/v2/sandbox/scenarios",
        op: operation(
            "Sandbox",
            "List sandbox test numbers and scenarios",
            "Track any of these numbers with `scac: \"TEST\"`. Scripted journeys (`TEST-SCN-*`) play through the real merge path on a virtual clock (`--sandbox-speed`, default one simulated hour per second), emitting the same events and webhooks as real data.",
            vec![],
            None,
            errors(&[401, 429]),
            ("200", body("Scenarios", json!({"type": "object"}))),
        ),
    }]
}
