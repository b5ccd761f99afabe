//! The messages of JSON-RPC 2.0 and of the Model Context Protocol that the server writes, as
//! types: an answer, an error, a tool's result and its content blocks, the server's
//! description at `initialize`, prompts, completions and resources. Each serializes to the
//! member names the protocol's schema gives (camelCase where it says so).

use serde::Serialize;
use serde_json::Value;

/// A JSON-RPC answer to the request `id`: its result or its error.
#[derive(Debug, Serialize)]
pub struct Answer {
    jsonrpc: &'static str,
    id: Value,
    #[serde(flatten)]
    outcome: Outcome,
}

/// What a request came to.
#[derive(Debug, Serialize)]
#[serde(rename_all = "lowercase")]
enum Outcome {
    Result(Value),
    Error(RpcError),
}

/// A JSON-RPC error object.
#[derive(Debug, Clone, Serialize)]
pub struct RpcError {
    /// The code (`-32602` invalid params, `-32002` resource not found, …).
    pub code: i64,
    /// What went wrong, for a person.
    pub message: String,
    /// More about it (the resource not found).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub data: Option<Value>,
}

impl RpcError {
    /// An error with its code and message.
    pub fn new(code: i64, message: impl Into<String>) -> RpcError {
        RpcError {
            code,
            message: message.into(),
            data: None,
        }
    }
}

impl Answer {
    /// The result of the request `id`.
    pub fn ok(id: &Value, result: impl Serialize) -> Answer {
        Answer {
            jsonrpc: "2.0",
            id: id.clone(),
            outcome: Outcome::Result(to_value(result)),
        }
    }

    /// The error of the request `id`.
    pub fn error(id: &Value, error: RpcError) -> Answer {
        Answer {
            jsonrpc: "2.0",
            id: id.clone(),
            outcome: Outcome::Error(error),
        }
    }

    /// The answer as JSON.
    pub fn into_value(self) -> Value {
        to_value(self)
    }
}

/// A value as JSON (the protocol's types are plain structs: this cannot fail).
pub fn to_value(v: impl Serialize) -> Value {
    serde_json::to_value(v).unwrap_or(Value::Null)
}

/// Nothing (`ping`'s result).
#[derive(Debug, Serialize)]
pub struct Empty {}

/// Who a content block is meant for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    /// The person using the client.
    User,
    /// The model.
    Assistant,
}

/// Hints on a content block: for whom, how much it matters.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Annotations {
    /// Who should see it.
    pub audience: Vec<Role>,
    /// 0 (least) to 1 (most).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub priority: Option<f64>,
}

/// One block of a tool's result or a prompt message.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Content {
    /// Text.
    Text {
        /// The text.
        text: String,
        /// For whom.
        #[serde(skip_serializing_if = "Option::is_none")]
        annotations: Option<Annotations>,
    },
    /// A link to a resource the client may read.
    ResourceLink {
        /// The resource's URI.
        uri: String,
        /// Its name.
        name: String,
        /// What it is.
        #[serde(skip_serializing_if = "Option::is_none")]
        description: Option<String>,
        /// Its media type.
        #[serde(rename = "mimeType", skip_serializing_if = "Option::is_none")]
        mime_type: Option<String>,
    },
}

impl Content {
    /// A text block for everyone.
    pub fn text(text: impl Into<String>) -> Content {
        Content::Text {
            text: text.into(),
            annotations: None,
        }
    }
}

/// A tool's result (`tools/call`).
#[derive(Debug, Clone, Serialize)]
pub struct ToolResult {
    /// What a client shows.
    pub content: Vec<Content>,
    /// The same answer as JSON, of the tool's output schema.
    #[serde(rename = "structuredContent", skip_serializing_if = "Option::is_none")]
    pub structured: Option<Value>,
    /// Whether the call failed (the text says why).
    #[serde(rename = "isError")]
    pub is_error: bool,
}

impl ToolResult {
    /// A failed call, with why.
    pub fn failed(why: impl Into<String>) -> ToolResult {
        ToolResult {
            content: vec![Content::text(why)],
            structured: None,
            is_error: true,
        }
    }
}

/// The server's answer to `initialize`.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Initialized {
    /// The protocol version both sides speak.
    pub protocol_version: &'static str,
    /// What the server offers.
    pub capabilities: Capabilities,
    /// Who it is.
    pub server_info: Implementation,
    /// How to use it, for the model.
    pub instructions: &'static str,
}

/// What the server offers: tools, prompts, resources (none of whose lists change) and
/// completions.
#[derive(Debug, Serialize)]
pub struct Capabilities {
    /// Tools.
    pub tools: Listed,
    /// Prompts.
    pub prompts: Listed,
    /// Resources.
    pub resources: Listed,
    /// Argument completion.
    pub completions: Empty,
}

/// A capability whose list is fixed.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Listed {
    /// Whether the list may change (never).
    pub list_changed: bool,
}

/// A program's name and version.
#[derive(Debug, Serialize)]
pub struct Implementation {
    /// Its name.
    pub name: &'static str,
    /// Its name for people.
    pub title: &'static str,
    /// Its version.
    pub version: &'static str,
}

/// A prompt the server offers.
#[derive(Debug, Serialize)]
pub struct Prompt {
    /// Its name.
    pub name: &'static str,
    /// Its title.
    pub title: &'static str,
    /// What it does.
    pub description: &'static str,
    /// What it takes.
    pub arguments: Vec<PromptArgument>,
}

/// An argument of a prompt.
#[derive(Debug, Serialize)]
pub struct PromptArgument {
    /// Its name.
    pub name: &'static str,
    /// What it is.
    pub description: &'static str,
    /// Whether it must be given.
    pub required: bool,
}

/// The prompts (`prompts/list`).
#[derive(Debug, Serialize)]
pub struct Prompts {
    /// Every prompt.
    pub prompts: Vec<Prompt>,
}

/// A prompt's messages (`prompts/get`).
#[derive(Debug, Serialize)]
pub struct PromptMessages {
    /// The messages.
    pub messages: Vec<PromptMessage>,
}

/// One message of a prompt.
#[derive(Debug, Serialize)]
pub struct PromptMessage {
    /// Who says it.
    pub role: Role,
    /// What.
    pub content: Content,
}

/// The values offered for an argument (`completion/complete`).
#[derive(Debug, Serialize)]
pub struct Completed {
    /// The values.
    pub completion: Completion,
}

/// Values offered for an argument.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Completion {
    /// The values (at most 100).
    pub values: Vec<String>,
    /// How many there are.
    pub total: usize,
    /// Whether more were left out.
    pub has_more: bool,
}

/// The tools (`tools/list`).
#[derive(Debug, Serialize)]
pub struct Tools<T: Serialize> {
    /// Every tool.
    pub tools: T,
}

/// A resource the server lists.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Resource {
    /// Its URI.
    pub uri: &'static str,
    /// Its name.
    pub name: &'static str,
    /// Its title.
    pub title: &'static str,
    /// What it is.
    pub description: &'static str,
    /// Its media type.
    pub mime_type: &'static str,
}

/// The resources (`resources/list`).
#[derive(Debug, Serialize)]
pub struct Resources {
    /// Every resource.
    pub resources: Vec<Resource>,
}

/// A family of resources by URI template.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ResourceTemplate {
    /// The RFC 6570 template.
    pub uri_template: &'static str,
    /// Its name.
    pub name: &'static str,
    /// Its title.
    pub title: &'static str,
    /// What it is.
    pub description: &'static str,
    /// The media type of each.
    pub mime_type: &'static str,
}

/// The resource templates (`resources/templates/list`).
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ResourceTemplates {
    /// Every template.
    pub resource_templates: Vec<ResourceTemplate>,
}

/// A resource's contents (`resources/read`).
#[derive(Debug, Serialize)]
pub struct ResourceContents {
    /// The one text.
    pub contents: Vec<TextContents>,
}

/// The text of a resource.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TextContents {
    /// Its URI.
    pub uri: String,
    /// Its media type.
    pub mime_type: String,
    /// The text.
    pub text: String,
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn an_answer_carries_its_result_or_its_error() {
        assert_eq!(
            Answer::ok(&json!(7), Empty {}).into_value(),
            json!({"jsonrpc": "2.0", "id": 7, "result": {}})
        );
        assert_eq!(
            Answer::error(&json!("a"), RpcError::new(-32601, "Method not found: x")).into_value(),
            json!({"jsonrpc": "2.0", "id": "a", "error": {"code": -32601, "message": "Method not found: x"}})
        );
    }

    #[test]
    fn content_blocks_are_tagged_with_their_type() {
        let steering = Content::Text {
            text: "next".into(),
            annotations: Some(Annotations {
                audience: vec![Role::Assistant],
                priority: None,
            }),
        };
        assert_eq!(
            to_value(&steering),
            json!({"type": "text", "text": "next", "annotations": {"audience": ["assistant"]}})
        );
        let link = Content::ResourceLink {
            uri: "boxtrack://container/1".into(),
            name: "c".into(),
            description: None,
            mime_type: Some("application/json".into()),
        };
        assert_eq!(
            to_value(&link),
            json!({"type": "resource_link", "uri": "boxtrack://container/1", "name": "c", "mimeType": "application/json"})
        );
        assert_eq!(
            to_value(ToolResult::failed("no")),
            json!({"content": [{"type": "text", "text": "no"}], "isError": true})
        );
    }
}
