//! A tool's call: the account's rate limit for it, then the tool itself.

use serde_json::{Map, Value};

use boxtrack_app::model::Account;
use boxtrack_http::Front;

use super::registry::{Answered, Refusal, find, over_limit};
use super::tool::Cx;

/// A call's outcome: the answer, or a failure explained to the model.
pub enum Outcome {
    /// Success.
    Ok(Box<Answered>),
    /// The arguments do not fit the tool (`isError: true`; said as an input validation
    /// error naming the argument).
    Invalid(String),
    /// A failure (`isError: true`), with the message to show.
    Failed(String),
}

/// Runs a tool. The caller has already checked the arguments ([`super::registry::check`]).
pub async fn call(
    state: &Front,
    account: &Account,
    credential: super::credential::Credential,
    name: &str,
    args: &Map<String, Value>,
) -> Outcome {
    let Some(tool) = find(name) else {
        return Outcome::Failed(format!("unknown tool {name}"));
    };
    if let Some(refused) = over_limit(state, account, tool.bucket()).await {
        return Outcome::Failed(refused);
    }
    let cx = Cx {
        state,
        account,
        credential,
    };
    match tool.run(&cx, args.clone()).await {
        Ok(v) => Outcome::Ok(Box::new(v)),
        Err(Refusal::Invalid(why)) => Outcome::Invalid(why),
        Err(Refusal::Failed(why)) => Outcome::Failed(why),
    }
}
