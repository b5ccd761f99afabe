//! `GET /v2/account`: the caller's own account (plan, entitlements, rate limits).

use boxtrack_store::accounts::Account;
use serde_json::{Value, json};

use crate::auth::Caller;
use crate::doc::{Op, body, errors, operation, single};
use crate::jsonapi::JsonApi;

/// The `account` resource object.
pub fn to_resource(a: &Account) -> Value {
    boxtrack_views::accounts::account(a).to_value()
}

/// `GET /v2/account`.
pub async fn show(caller: Caller) -> JsonApi {
    let mut r = to_resource(&caller.account);
    r["links"]["self"] = json!("/v2/account");
    JsonApi::single(r, vec![])
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

/// This module's routes with the documentation of their operations.
pub fn routes() -> crate::doc::Routes {
    crate::doc::Routes::new(operations).route("/v2/account", axum::routing::get(show))
}
