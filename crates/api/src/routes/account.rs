//! `GET /v2/account`: the caller's own account (plan, entitlements, rate limits).

use boxtrack_core::ratelimit::Bucket;
use boxtrack_store::accounts::Account;
use serde_json::{Map, Value, json};

use crate::auth::Caller;
use crate::doc::{Op, body, errors, operation, single};
use crate::jsonapi::{JsonApi, resource};

/// The `account` resource object.
pub fn to_resource(a: &Account) -> Value {
    let limits: Map<String, Value> = Bucket::ALL
        .iter()
        .map(|b| (b.as_str().to_string(), json!(a.rate_limits.limit(*b))))
        .collect();
    resource(
        "account",
        a.id,
        "accounts",
        json!({
            "company_name": a.name,
            "plan": a.plan.as_str(),
            "entitlements": a.entitlements.iter().map(|e| e.as_str()).collect::<Vec<_>>(),
            "active_container_limit": a.plan.active_container_limit(),
            "rate_limits": limits,
            "created_at": boxtrack_core::time::format_micros(a.created_us),
        }),
        None,
    )
}

/// `GET /v2/account`.
pub async fn show(caller: Caller) -> JsonApi {
    let mut r = to_resource(&caller.account);
    r["links"]["self"] = json!("/v2/account");
    JsonApi::single(r, vec![])
}

/// The OpenAPI schema of the resource.
pub fn schema() -> Value {
    json!({
        "type": "object", "required": ["id", "type", "attributes"],
        "properties": {
            "id": {"type": "string", "format": "uuid"},
            "type": {"const": "account"},
            "attributes": {"type": "object", "properties": {
                "company_name": {"type": "string"},
                "plan": {"enum": ["free", "standard"]},
                "entitlements": {"type": "array", "items": {"enum": ["routing", "rail_lfd", "container_refresh", "widget"]}},
                "active_container_limit": {"type": ["integer", "null"], "description": "Most containers tracked at once; null when unlimited"},
                "rate_limits": {"type": "object", "additionalProperties": {"type": "integer"}, "description": "Requests per rolling minute, by bucket"},
                "created_at": {"type": "string", "format": "date-time"}
            }},
            "links": {"type": "object", "properties": {"self": {"type": "string"}}}
        }
    })
}

/// Documented operations of this module.
pub fn operations() -> Vec<Op> {
    vec![Op {
        method: "get",
        path: "/v2/account",
        op: operation(
            "Accounts",
            "Get your account",
            "The account that owns the API key: plan, entitlements and the rate limits in force.",
            vec![],
            None,
            errors(&[401, 429]),
            ("200", body("The account", single("Account"))),
        ),
    }]
}
