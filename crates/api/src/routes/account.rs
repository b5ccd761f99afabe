//! `GET /v2/account`: the caller's own account (plan, entitlements, rate limits).

use boxtrack_app::model::Account;
use serde_json::Value;

use crate::state::Routes;
use boxtrack_http::auth::Caller;
use boxtrack_http::doc::{Doc, single};
use boxtrack_http::jsonapi::JsonApi;
use boxtrack_views::accounts;

/// The `account` resource object.
pub fn to_resource(a: &Account) -> Value {
    accounts::account(a).to_value()
}

/// `GET /v2/account`.
pub async fn show(caller: Caller) -> JsonApi {
    let mut r = to_resource(&caller.account);
    r["links"]["self"] = "/v2/account".into();
    JsonApi::single(r, vec![])
}

/// This module's one operation: `GET /v2/account`.
pub fn routes() -> Routes {
    Routes::default().get("/v2/account", show, || {
        Doc::new("Accounts", "Get your account")
            .about("The account that owns the API key: plan, entitlements and the rate limits in force.")
            .errors(&[401, 429])
            .ok("The account", single("Account"))
    })
}
