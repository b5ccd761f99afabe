//! The list of MCP tools ([`TOOLS`]: a new tool is a type implementing
//! [`super::tool::Tool`] and a line there) and what is made from it: `tools/list` (each
//! tool's input and output schemas derived from its types), the check of a call's arguments
//! against the same input schema (compiled once), and the dispatch of a call by name.

use super::error::ToolError;
use std::collections::HashMap;
use std::future::Future;
use std::marker::PhantomData;
use std::pin::Pin;
use std::sync::LazyLock;

use serde_json::{Map, Value};

use boxtrack_app::fields;
use boxtrack_app::model::Account;
use boxtrack_core::ratelimit::Bucket;
use boxtrack_http::{Front, doc};

use super::contract::ResponseContract;
use super::tool::{Cx, Tool};
use crate::protocol::Content;

/// A call's answer, or the failure to tell the model.
pub type Answer<'a> = Pin<Box<dyn Future<Output = Result<Answered, Refusal>> + Send + 'a>>;

/// Why a call has no answer.
pub enum Refusal {
    /// The arguments do not fit the tool's input.
    Invalid(String),
    /// The tool failed (an unknown id, a feature the account lacks, the database away).
    Failed(String),
}

/// A tool's answer as JSON, with its response contract and the resource links it offers.
pub struct Answered {
    /// The answer.
    pub value: Value,
    /// What the answer is for and where to go next.
    pub contract: ResponseContract,
    /// Links to the resources the answer lists.
    pub links: Vec<Content>,
}

/// A [`Tool`] with its types erased, as the server holds the list.
pub trait Declared: Send + Sync {
    /// Its name.
    fn name(&self) -> &'static str;
    /// Its `tools/list` entry.
    fn entry(&self) -> Value;
    /// Its input schema, as `tools/list` shows it.
    fn input_schema(&self) -> Value;
    /// The rate-limit bucket of a call.
    fn bucket(&self) -> Bucket;
    /// Runs it with arguments that passed [`check`].
    fn run<'a>(&'a self, cx: &'a Cx<'a>, args: Map<String, Value>) -> Answer<'a>;
}

/// A tool type as a [`Declared`] value.
pub struct Declare<T>(pub PhantomData<fn() -> T>);

/// The member of `structuredContent` that carries the response contract.
pub const CONTRACT: &str = "_response_contract";

/// The argument every tool takes besides its own: why it is called (telemetry only).
const INTENT: &str = "intent";

impl<T: Tool> Declared for Declare<T> {
    fn name(&self) -> &'static str {
        T::NAME
    }

    fn entry(&self) -> Value {
        let mut output = doc::schema_of::<T::Output>();
        // MCP asks for an object schema at the root (an answer of several shapes is an
        // anyOf of objects)
        if let Some(o) = output.as_object_mut() {
            o.entry("type").or_insert_with(|| "object".into());
            // every answer carries its response contract
            if let Some(Value::Object(props)) = o.get_mut("properties") {
                props.insert(CONTRACT.into(), doc::schema_of::<ResponseContract>());
            }
        }
        let mut entry = Map::new();
        entry.insert("name".into(), T::NAME.into());
        entry.insert("title".into(), T::TITLE.into());
        entry.insert("description".into(), T::DESCRIPTION.into());
        entry.insert("inputSchema".into(), self.input_schema());
        entry.insert("outputSchema".into(), output);
        let mut hints = Map::new();
        hints.insert("title".into(), T::TITLE.into());
        hints.insert("readOnlyHint".into(), T::HINTS.read_only.into());
        hints.insert("destructiveHint".into(), false.into());
        hints.insert("idempotentHint".into(), T::HINTS.idempotent.into());
        hints.insert("openWorldHint".into(), T::HINTS.open_world.into());
        entry.insert("annotations".into(), hints.into());
        entry.into()
    }

    fn input_schema(&self) -> Value {
        let mut schema = doc::request_schema_of::<T::Input>();
        if let Some(o) = schema.as_object_mut() {
            o.remove("description");
            o.insert("type".into(), "object".into());
            // an argument the tool does not take is refused, not ignored
            o.insert("additionalProperties".into(), false.into());
            o.entry("required")
                .or_insert_with(|| Value::Array(Vec::new()));
            let props = o
                .entry("properties")
                .or_insert_with(|| Value::Object(Map::new()));
            if let Some(p) = props.as_object_mut() {
                p.insert(INTENT.into(), intent_schema());
            }
        }
        schema
    }

    fn bucket(&self) -> Bucket {
        T::bucket()
    }

    fn run<'a>(&'a self, cx: &'a Cx<'a>, mut args: Map<String, Value>) -> Answer<'a> {
        Box::pin(async move {
            args.remove(INTENT);
            let input: T::Input = serde_path_to_error::deserialize(Value::Object(args))
                .map_err(|e| Refusal::Invalid(invalid(&e.path().to_string(), e.inner())))?;
            let output = T::call(cx, input)
                .await
                .map_err(|e| Refusal::Failed(e.to_string()))?;
            let contract = T::contract(&output);
            let links = T::links(&output);
            let value = serde_json::to_value(output)
                .map_err(|e| Refusal::Failed(format!("The answer could not be written ({e}).")))?;
            Ok(Answered {
                value,
                contract,
                links,
            })
        })
    }
}

/// An argument that does not deserialize, said as the argument checks say it.
fn invalid(path: &str, e: &serde_json::Error) -> String {
    let text = e.to_string();
    let text = text.split(" at line ").next().unwrap_or_default();
    if path.is_empty() || path == "." {
        text.to_string()
    } else {
        format!("argument {path} {text}")
    }
}

fn intent_schema() -> Value {
    let mut s = Map::new();
    s.insert("type".into(), "string".into());
    s.insert("maxLength".into(), 200.into());
    s.insert(
        "description".into(),
        "Why the tool is called (telemetry only)".into(),
    );
    s.into()
}

/// Every tool, in the order `tools/list` gives them.
pub static TOOLS: [&dyn Declared; 22] = [
    &Declare::<super::account::Whoami>(PhantomData),
    &Declare::<super::summary::SummarizeContainers>(PhantomData),
    &Declare::<super::search_docs::SearchDocs>(PhantomData),
    &Declare::<super::account::ListParties>(PhantomData),
    &Declare::<super::search::SearchContainer>(PhantomData),
    &Declare::<super::track::TrackContainer>(PhantomData),
    &Declare::<super::container::GetContainer>(PhantomData),
    &Declare::<super::shipment::GetShipmentDetails>(PhantomData),
    &Declare::<super::events::GetTransportEvents>(PhantomData),
    &Declare::<super::route::GetSupportedShippingLines>(PhantomData),
    &Declare::<super::route::GetContainerRoute>(PhantomData),
    &Declare::<super::lists::ListShipments>(PhantomData),
    &Declare::<super::lists::ListContainers>(PhantomData),
    &Declare::<super::request_list::ListTrackingRequests>(PhantomData),
    &Declare::<super::writes::StopTracking>(PhantomData),
    &Declare::<super::writes::ResumeTracking>(PhantomData),
    &Declare::<super::writes::RefreshContainer>(PhantomData),
    &Declare::<super::entries::EnterContainerFacts>(PhantomData),
    &Declare::<super::writes::ListWebhooks>(PhantomData),
    &Declare::<super::writes::CreateWebhook>(PhantomData),
    &Declare::<super::container::GetContainerReadiness>(PhantomData),
    &Declare::<super::charges::GetDemurrageExposure>(PhantomData),
];

/// The tool of this name.
pub fn find(name: &str) -> Option<&'static dyn Declared> {
    TOOLS.iter().copied().find(|t| t.name() == name)
}

/// `tools/list` entries.
pub fn list() -> Vec<Value> {
    TOOLS.iter().map(|t| t.entry()).collect()
}

/// Each tool's compiled input schema, made once per process.
static CHECKS: LazyLock<HashMap<&'static str, Option<jsonschema::Validator>>> = LazyLock::new(
    || {
        TOOLS
            .iter()
            .map(|t| {
                let compiled = jsonschema::draft202012::options()
                    .should_validate_formats(true)
                    .build(&t.input_schema());
                if let Err(e) = &compiled {
                    tracing::error!(tool = t.name(), error = %e, "a tool's input schema does not compile");
                }
                (t.name(), compiled.ok())
            })
            .collect()
    },
);

/// Checks a call's arguments against the tool's input schema: required arguments, unknown
/// ones, types, formats, lengths, ranges, words. Returns the first problem, naming the
/// argument.
pub fn check(name: &str, args: &Map<String, Value>) -> Result<(), ToolError> {
    let Some(Some(validator)) = CHECKS.get(name) else {
        return Err(format!("unknown tool {name}").into());
    };
    let args = Value::Object(args.clone());
    match validator.iter_errors(&args).next() {
        None => Ok(()),
        Some(e) => Err(problem(&e).into()),
    }
}

/// One schema error, in words that name the argument.
fn problem(e: &jsonschema::ValidationError<'_>) -> String {
    use jsonschema::error::ValidationErrorKind as Kind;
    let at = e
        .instance_path()
        .as_str()
        .trim_start_matches('/')
        .replace('/', ".");
    let under = |name: &str| {
        if at.is_empty() {
            name.to_string()
        } else {
            format!("{at}.{name}")
        }
    };
    match e.kind() {
        Kind::Required { property } => {
            format!(
                "argument {} is required",
                under(property.as_str().unwrap_or("?"))
            )
        }
        Kind::AdditionalProperties { unexpected } => format!(
            "unknown argument {}",
            under(unexpected.first().map_or("?", String::as_str))
        ),
        Kind::Format { format } if format == "uuid" => {
            let finder = if at.contains("customer") || at.contains("part") {
                "list_parties finds a party's id by name"
            } else {
                "search_container finds ids by number"
            };
            format!("argument {at} must be a UUID ({finder})")
        }
        Kind::Type { kind } => {
            use jsonschema::error::TypeKind;
            let types: Vec<String> = match kind {
                TypeKind::Single(t) => vec![t.to_string()],
                // an optional argument: null means "not given"
                TypeKind::Multiple(set) => set
                    .iter()
                    .map(|t| t.to_string())
                    .filter(|t| t != "null")
                    .collect(),
            };
            let words: Vec<&str> = types.iter().map(String::as_str).collect();
            format!("argument {at} must be of type {}", fields::either(&words))
        }
        _ => format!("argument {at}: {e}"),
    }
}

/// The account's rate limit for a tool, as REST counts it: why the call is refused, or
/// `None`.
pub async fn over_limit(state: &Front, account: &Account, bucket: Bucket) -> Option<String> {
    let limit = account.rate_limits.limit(bucket);
    match state.limiter.check(account.id, bucket, limit).await {
        Ok(d) if d.allowed => None,
        Ok(d) => {
            state.metrics.record_rate_limited(bucket.as_str());
            Some(format!(
                "The account's rate limit of {limit} requests a minute for {bucket} is reached. Wait {} seconds, then call again (webhooks spare polling).",
                d.retry_after_secs()
            ))
        }
        Err(_) => Some("The rate limit could not be checked; try again shortly.".into()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(v: Value) -> Map<String, Value> {
        v.as_object().cloned().unwrap_or_default()
    }

    #[test]
    fn every_tool_is_listed_once_with_a_compiled_described_object_schema() {
        let mut names: Vec<&str> = TOOLS.iter().map(|t| t.name()).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), TOOLS.len(), "a name twice");
        for t in TOOLS {
            assert!(
                matches!(CHECKS.get(t.name()), Some(Some(_))),
                "{}",
                t.name()
            );
            let s = t.input_schema();
            assert_eq!(s["type"], "object", "{}", t.name());
            assert_eq!(s["additionalProperties"], false, "{}", t.name());
            for (k, p) in s["properties"].as_object().into_iter().flatten() {
                assert!(
                    p["description"].as_str().is_some_and(|d| !d.is_empty()),
                    "{} {k} has no description",
                    t.name()
                );
            }
            let e = t.entry();
            assert_eq!(e["outputSchema"]["type"], "object", "{}", t.name());
        }
    }

    #[test]
    fn the_list_filters_are_at_the_top_and_in_advanced_filters() {
        let s = find("list_containers")
            .map(|t| t.input_schema())
            .unwrap_or_default();
        for k in [
            "pod_code",
            "arrival",
            "pickup_lfd",
            "custom_fields",
            "page",
            "sort",
        ] {
            assert!(s["properties"].get(k).is_some(), "{k}: {s}");
        }
        let adv = &s["properties"]["advanced_filters"];
        assert!(adv.to_string().contains("\"arrival\""), "{adv}");
        assert!(
            check(
                "list_containers",
                &args(serde_json::json!({"advanced_filters": {"pod_code": "USLAX"}}))
            )
            .is_ok()
        );
        assert!(
            check(
                "list_containers",
                &args(serde_json::json!({"pickup_lfd": [">=today", "<=3.days.from_now"]}))
            )
            .is_ok()
        );
    }

    #[test]
    fn argument_problems_name_the_argument() {
        for (tool, given, says) in [
            (
                "search_container",
                serde_json::json!({}),
                "argument query is required",
            ),
            (
                "get_container",
                serde_json::json!({"id": "not-a-uuid"}),
                "argument id must be a UUID",
            ),
            (
                "get_container",
                serde_json::json!({"id": "0190d0b8-0000-7000-8000-000000000000", "colour": 1}),
                "unknown argument colour",
            ),
            (
                "list_containers",
                serde_json::json!({"has_holds": "yes"}),
                "argument has_holds must be of type boolean",
            ),
            (
                "list_containers",
                serde_json::json!({"customer_id": "bob"}),
                "list_parties",
            ),
            (
                "search_docs",
                serde_json::json!({"query": ""}),
                "argument query",
            ),
            (
                "summarize_containers",
                serde_json::json!({"group_by": "colour"}),
                "argument group_by",
            ),
        ] {
            let e = check(tool, &args(given.clone())).unwrap_err();
            assert!(e.to_string().contains(says), "{tool} {given}: {e}");
        }
        assert!(check("whoami", &args(serde_json::json!({"intent": "who"}))).is_ok());
    }
}
