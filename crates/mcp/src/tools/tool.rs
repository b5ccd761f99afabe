//! The one shape of an MCP tool: a [`Tool`] names itself, says what it does, takes a typed
//! input and gives a typed output. A leaf: every tool module implements it, and
//! `super::registry` lists the implementations and makes `tools/list`, the argument check
//! and the dispatch from them.

use super::error::ToolError;
use std::future::Future;

use schemars::JsonSchema;
use serde::Serialize;
use serde::de::DeserializeOwned;

use boxtrack_app::model::Account;
use boxtrack_core::ratelimit::Bucket;
use boxtrack_http::Front;

use super::contract::{Guide, ResponseContract};
use super::credential::Credential;
use crate::protocol::Content;

/// What a call runs with: the service, the caller's account and how the caller signed in.
pub struct Cx<'a> {
    /// The service.
    pub state: &'a Front,
    /// The caller's account (every read is scoped to it).
    pub account: &'a Account,
    /// How the caller signed in.
    pub credential: Credential,
}

/// How a tool behaves, as MCP's annotations tell a client.
#[derive(Debug, Clone, Copy)]
pub struct Hints {
    /// Changes nothing.
    pub read_only: bool,
    /// Calling it twice does what calling it once does.
    pub idempotent: bool,
    /// Reaches systems outside boxtrack (a carrier's, a terminal's).
    pub open_world: bool,
}

impl Hints {
    /// A read: changes nothing.
    pub const READ: Hints = Hints {
        read_only: true,
        idempotent: true,
        open_world: false,
    };
    /// A change that is the same however often it is made.
    pub const IDEMPOTENT_WRITE: Hints = Hints {
        read_only: false,
        idempotent: true,
        open_world: false,
    };
    /// A change that makes something new each time.
    pub const WRITE: Hints = Hints {
        read_only: false,
        idempotent: false,
        open_world: false,
    };
}

/// An MCP tool.
pub trait Tool: Send + Sync + 'static {
    /// Its arguments (the input schema is derived from it).
    type Input: DeserializeOwned + JsonSchema + Send;
    /// Its answer (the output schema and the structured content).
    type Output: Serialize + JsonSchema + Send;
    /// The name clients call it by.
    const NAME: &'static str;
    /// The title shown to people.
    const TITLE: &'static str;
    /// What it does and when to use it, for the model.
    const DESCRIPTION: &'static str;
    /// Its behaviour.
    const HINTS: Hints = Hints::READ;
    /// What its answers are for and where to go next ([`super::guides`]).
    const GUIDE: Guide;

    /// The response contract of an answer: the guide's, unless the answer says more of
    /// itself (a list: how many rows, whether the call narrowed it).
    fn contract(_output: &Self::Output) -> ResponseContract {
        Self::GUIDE.contract()
    }

    /// Resource links to what the answer lists (a list of containers: each container).
    fn links(_output: &Self::Output) -> Vec<Content> {
        Vec::new()
    }

    /// The rate-limit bucket a call counts against (the REST route it stands for).
    fn bucket() -> Bucket {
        Bucket::Default
    }

    /// Runs it; `Err` is a failure explained to the model.
    fn call(
        cx: &Cx<'_>,
        input: Self::Input,
    ) -> impl Future<Output = Result<Self::Output, ToolError>> + Send;
}

/// The input of a tool that takes no arguments of its own.
#[derive(Debug, serde::Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct NoArgs {}
