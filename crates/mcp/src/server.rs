//! The MCP server (Model Context Protocol 2025-06-18) for AI clients: JSON-RPC 2.0 over
//! Streamable HTTP at `POST /mcp` in stateless JSON mode (no sessions; GET and DELETE answer
//! 405), and the same dispatcher over stdio (`boxtrack mcp --stdio`).
//!
//! Tools (`crate::tools`) read the caller's account only, check its entitlements and count
//! against its REST rate limits. Prompts and completions are here; resources in
//! `crate::resources`.

use crate::tools::{self, Credential, Outcome, ToolError};
use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde_json::Value;

use crate::oauth;
use crate::protocol::{
    self, Answer, Capabilities, Completed, Completion, Content, Empty, Implementation, Initialized,
    Listed, Prompt, PromptArgument, PromptMessage, PromptMessages, Prompts, Role, RpcError,
    ToolResult, Tools,
};
use crate::resources;

use boxtrack_app::accounts;
use boxtrack_app::model::Account;
use boxtrack_core::carriers;
use boxtrack_http::access::AccessNote;
use boxtrack_http::auth::account_for;
use boxtrack_http::error::ApiError;
use boxtrack_http::{ApiConfig, Front, doc};

/// The protocol version boxtrack speaks.
pub const PROTOCOL_VERSION: &str = "2025-06-18";
/// Versions accepted in `MCP-Protocol-Version` and at initialize.
pub const SUPPORTED_VERSIONS: [&str; 3] = ["2025-06-18", "2025-03-26", "2024-11-05"];

const INSTRUCTIONS: &str = "boxtrack tracks ocean containers and shipments with data from shipping lines (DCSA, X12 315), port terminals (availability, holds, fees, last free day) and rail carriers (X12 322). Terms: SCAC = carrier code; BOL = bill of lading; POL/POD = ports of lading/discharge; LFD = last free day before demurrage; holds block pickup. Usual chain: search_container -> get_container / get_shipment_details -> get_container_transport_events (-> get_container_route); get_supported_shipping_lines before track_container; list_* for worklists; get_container_readiness answers 'can I pick it up?'; get_demurrage_exposure answers 'what will my boxes cost?'. Read-only tools change nothing; track_container, stop_tracking, resume_tracking, refresh_container, enter_container_facts and create_webhook act on the account.";

fn rpc_error(id: &Value, code: i64, message: &str) -> Value {
    Answer::error(id, RpcError::new(code, message)).into_value()
}

fn rpc_ok(id: &Value, result: impl serde::Serialize) -> Value {
    Answer::ok(id, result).into_value()
}

/// The prompts the server offers.
fn prompts() -> Prompts {
    let argument = |name, description, required| PromptArgument {
        name,
        description,
        required,
    };
    let container_id = || vec![argument("container_id", "boxtrack container UUID", true)];
    Prompts {
        prompts: vec![
            Prompt {
                name: "track-shipment",
                title: "Track Container Shipment",
                description: "Quick container tracking workflow with carrier autocomplete",
                arguments: vec![
                    argument(
                        "container_number",
                        "Container number (e.g., CAIU1234567)",
                        true,
                    ),
                    argument(
                        "carrier",
                        "Shipping line SCAC code (e.g., MAEU for Maersk); completion offers the known ones",
                        false,
                    ),
                ],
            },
            Prompt {
                name: "check-demurrage",
                title: "Check Demurrage Risk",
                description: "Analyze demurrage/detention risk for a container",
                arguments: container_id(),
            },
            Prompt {
                name: "analyze-delays",
                title: "Analyze Journey Delays",
                description: "Identify delays and root causes in container journey",
                arguments: container_id(),
            },
        ],
    }
}

fn get_prompt(params: &Value) -> Result<PromptMessages, ToolError> {
    let name = params["name"].as_str().unwrap_or("");
    let args = &params["arguments"];
    let arg = |k: &str| args[k].as_str().map(str::trim).filter(|s| !s.is_empty());
    let text = match name {
        "track-shipment" => {
            let n = arg("container_number").ok_or("argument container_number is required")?;
            match arg("carrier") {
                Some(c) => format!(
                    "Track container {n} with carrier {c}. Show current status, location, and any holds or issues."
                ),
                None => format!(
                    "Track container {n}. Show current status, location, and any holds or issues."
                ),
            }
        }
        "check-demurrage" | "analyze-delays" => {
            let id = arg("container_id").ok_or("argument container_id is required")?;
            uuid::Uuid::parse_str(id).map_err(|_| "container_id must be a UUID")?;
            if name == "check-demurrage" {
                format!(
                    "Analyze demurrage risk for container {id}. Check:\n- Last Free Day (LFD) and days remaining\n- Current availability status\n- Any holds blocking pickup\n- Terminal fees\n- Recommended action to avoid demurrage charges"
                )
            } else {
                format!(
                    "Analyze the journey timeline for container {id}:\n- Identify any delays vs. expected schedule\n- Compare actual vs. estimated times for each milestone\n- Highlight unusual gaps or extended stays\n- Determine root causes (port congestion, vessel delays, customs, etc.)\n- Provide summary of impact on overall transit time"
                )
            }
        }
        other => return Err(format!("unknown prompt {other}").into()),
    };
    Ok(PromptMessages {
        messages: vec![PromptMessage {
            role: Role::User,
            content: Content::text(text),
        }],
    })
}

fn complete(params: &Value) -> Completed {
    let value = params["argument"]["value"]
        .as_str()
        .unwrap_or("")
        .to_lowercase();
    let is_carrier = params["ref"]["type"] == "ref/prompt"
        && params["ref"]["name"] == "track-shipment"
        && params["argument"]["name"] == "carrier";
    let values: Vec<String> = if is_carrier {
        carriers::shipping_lines()
            .iter()
            .filter(|l| l.scac != carriers::SANDBOX_SCAC)
            .filter(|l| {
                value.is_empty()
                    || l.scac.to_lowercase().contains(&value)
                    || l.name.to_lowercase().contains(&value)
                    || l.short_name.to_lowercase().contains(&value)
            })
            .map(|l| l.scac.clone())
            .take(100)
            .collect()
    } else {
        vec![]
    };
    Completed {
        completion: Completion {
            total: values.len(),
            values,
            has_more: false,
        },
    }
}

/// Handles one JSON-RPC message; `None` for notifications (no answer).
pub async fn dispatch(
    state: &Front,
    account: &Account,
    credential: Credential,
    msg: &Value,
) -> Option<Value> {
    let id = msg.get("id").cloned();
    let method = msg["method"].as_str().unwrap_or("");
    let Some(id) = id else {
        // a notification (notifications/initialized, notifications/cancelled...) or a response
        return None;
    };
    if msg["jsonrpc"] != "2.0" || method.is_empty() {
        return Some(rpc_error(&id, -32600, "Invalid Request"));
    }
    let params = msg
        .get("params")
        .cloned()
        .unwrap_or_else(|| Value::Object(serde_json::Map::new()));
    Some(match method {
        "initialize" => initialize(&id, &params),
        "ping" => rpc_ok(&id, Empty {}),
        "tools/list" => rpc_ok(
            &id,
            Tools {
                tools: tools::list(),
            },
        ),
        "tools/call" => call_tool(state, account, credential, &id, &params).await,
        "prompts/list" => rpc_ok(&id, prompts()),
        "prompts/get" => match get_prompt(&params) {
            Ok(v) => rpc_ok(&id, v),
            Err(e) => rpc_error(&id, -32602, &e.to_string()),
        },
        "resources/list" => rpc_ok(&id, resources::list()),
        "resources/templates/list" => rpc_ok(&id, resources::templates()),
        "resources/read" => {
            match resources::read(state, account, params["uri"].as_str().unwrap_or("")).await {
                Ok(v) => rpc_ok(&id, v),
                Err(e) => Answer::error(&id, e).into_value(),
            }
        }
        "completion/complete" => rpc_ok(&id, complete(&params)),
        other => rpc_error(&id, -32601, &format!("Method not found: {other}")),
    })
}

/// The answer to `initialize`: the protocol version asked for when boxtrack speaks it, else
/// its own, with what the server offers.
fn initialize(id: &Value, params: &Value) -> Value {
    let asked = params["protocolVersion"].as_str();
    let version = SUPPORTED_VERSIONS
        .into_iter()
        .find(|v| Some(*v) == asked)
        .unwrap_or(PROTOCOL_VERSION);
    let fixed = || Listed {
        list_changed: false,
    };
    rpc_ok(
        id,
        Initialized {
            protocol_version: version,
            capabilities: Capabilities {
                tools: fixed(),
                prompts: fixed(),
                resources: fixed(),
                completions: Empty {},
            },
            server_info: Implementation {
                name: "boxtrack",
                title: "boxtrack container tracking",
                version: env!("CARGO_PKG_VERSION"),
            },
            instructions: INSTRUCTIONS,
        },
    )
}

/// The answer to `tools/call`: an unknown tool is a protocol error; arguments the tool's
/// schema or the tool refuses, and a tool's failure, are a result marked as an error.
async fn call_tool(
    state: &Front,
    account: &Account,
    credential: Credential,
    id: &Value,
    params: &Value,
) -> Value {
    let name = params["name"].as_str().unwrap_or("");
    let args = params["arguments"].as_object().cloned().unwrap_or_default();
    if !tools::exists(name) {
        return rpc_error(id, -32602, &format!("Unknown tool: {name}"));
    }
    let invalid = |why: &dyn std::fmt::Display| {
        ToolResult::failed(format!(
            "Input validation error: Invalid arguments for tool {name}: {why}"
        ))
    };
    let result = match tools::validate(name, &args) {
        Err(why) => invalid(&why),
        Ok(()) => match tools::call(state, account, credential, name, &args).await {
            Outcome::Ok(answered) => tools::result(name, *answered),
            Outcome::Invalid(why) => invalid(&why),
            Outcome::Failed(why) => ToolResult::failed(why),
        },
    };
    rpc_ok(id, result)
}

fn json_response(status: StatusCode, body: &Value) -> Response {
    let mut r = (status, body.to_string()).into_response();
    r.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    r
}

/// The answer to a request refused before any JSON-RPC is read (the transport's rules,
/// credentials): plain JSON, not a JSON-RPC message.
#[derive(serde::Serialize, schemars::JsonSchema)]
struct TransportError<'a> {
    /// The status's reason (`unauthorized` for a missing credential).
    error: &'a str,
    /// What to do.
    message: &'a str,
}

fn transport_error(status: StatusCode, error: &str, message: &str) -> Response {
    json_response(
        status,
        &protocol::to_value(TransportError { error, message }),
    )
}

fn plain_error(status: StatusCode, message: &str) -> Response {
    transport_error(
        status,
        status.canonical_reason().unwrap_or("Error"),
        message,
    )
}

/// Whether the `Origin` header (if any) may call: loopback origins, the configured public
/// address and `mcp_allowed_origins`. The request's own `Host` is not trusted (a DNS-rebinding
/// page has a matching one). Browsers send `Origin`; other clients usually do not.
fn origin_allowed(headers: &HeaderMap, config: &ApiConfig) -> bool {
    let Some(origin) = headers.get(header::ORIGIN).and_then(|v| v.to_str().ok()) else {
        return true;
    };
    let Ok(o) = url::Url::parse(origin) else {
        return false;
    };
    if matches!(o.host_str(), Some("localhost" | "127.0.0.1" | "[::1]")) {
        return true;
    }
    let serialized = o.origin().ascii_serialization();
    config
        .public_url
        .iter()
        .chain(config.mcp_allowed_origins.iter())
        .filter_map(|p| url::Url::parse(p).ok())
        .any(|p| p.origin().ascii_serialization() == serialized)
}

/// `POST /mcp`.
pub async fn post(
    State(state): State<Front>,
    note: Option<axum::Extension<AccessNote>>,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    if let Some(refused) = transport_refusal(&headers, &state.config) {
        return refused;
    }
    let (account, credential) =
        match caller(&state, &headers, note.as_ref().map(|axum::Extension(n)| n)).await {
            Ok(found) => found,
            Err(refused) => return refused,
        };
    let msg = match message(&body) {
        Ok(msg) => msg,
        Err(refused) => return *refused,
    };
    match dispatch(&state, &account, credential, &msg).await {
        Some(answer) => json_response(StatusCode::OK, &answer),
        None => StatusCode::ACCEPTED.into_response(),
    }
}

/// The transport's rules before anything is read: the Origin, the protocol version, the
/// content type and what the client accepts. The refusal, or `None`.
fn transport_refusal(headers: &HeaderMap, config: &ApiConfig) -> Option<Response> {
    if !origin_allowed(headers, config) {
        return Some(plain_error(StatusCode::FORBIDDEN, "Invalid Origin header"));
    }
    if let Some(v) = headers
        .get("mcp-protocol-version")
        .and_then(|v| v.to_str().ok())
        && !SUPPORTED_VERSIONS.contains(&v)
    {
        return Some(plain_error(
            StatusCode::BAD_REQUEST,
            &format!(
                "Unsupported MCP-Protocol-Version {v}; supported: {}",
                SUPPORTED_VERSIONS.join(", ")
            ),
        ));
    }
    let ct = headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("");
    if !ct.starts_with("application/json") {
        return Some(plain_error(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            "Content-Type must be application/json",
        ));
    }
    let accept = headers
        .get(header::ACCEPT)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("*/*");
    if !(accept.contains("application/json") || accept.contains("*/*")) {
        return Some(plain_error(
            StatusCode::NOT_ACCEPTABLE,
            "Accept must include application/json",
        ));
    }
    None
}

/// Who is calling: an API key (`Token`), an OAuth access token (`Bearer`), or, without a
/// credential, the account the operator opened `/mcp` to. The refusal when none of them is.
async fn caller(
    state: &Front,
    headers: &HeaderMap,
    note: Option<&AccessNote>,
) -> Result<(Account, Credential), Response> {
    // authentication: an API key (Token) or a bearer token
    let auth = headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("");
    let found = match auth.split_once(' ') {
        Some((scheme, token)) if scheme.eq_ignore_ascii_case("bearer") => {
            let resource = oauth::mcp_resource(state, headers);
            oauth::account_for_bearer(state, token.trim(), &resource)
                .await
                .map(|found| found.map(|(a, user)| (a, Credential::User(user))))
                .map_err(ApiError::from)
        }
        _ => account_for(&state.ctx, auth)
            .await
            .map(|found| found.map(|(k, a)| (a, Credential::ApiKey(k)))),
    };
    let found = match (found, state.config.mcp_open_account) {
        (Ok(None), Some(open)) if auth.is_empty() => accounts::get(&state.ctx, open)
            .await
            .map(|found| found.map(|a| (a, Credential::Open)))
            .map_err(ApiError::from),
        (f, _) => f,
    };
    match found {
        Ok(Some(a)) => {
            if let Some(n) = note {
                n.set_account(a.0.id);
            }
            Ok(a)
        }
        Ok(None) => {
            let base = state.config.public_url.clone().unwrap_or_else(|| {
                let host = headers
                    .get(header::HOST)
                    .and_then(|v| v.to_str().ok())
                    .unwrap_or("localhost");
                format!("http://{host}")
            });
            let mut r = transport_error(
                StatusCode::UNAUTHORIZED,
                "unauthorized",
                "Send Authorization: Token <API key>, or Bearer <OAuth access token> (see the protected resource metadata)",
            );
            if let Ok(v) = HeaderValue::from_str(&format!(
                "Bearer resource_metadata=\"{base}/.well-known/oauth-protected-resource/mcp\""
            )) {
                r.headers_mut().insert(header::WWW_AUTHENTICATE, v);
            }
            Err(r)
        }
        Err(e) => Err(e.into_response()),
    }
}

/// The body as one JSON-RPC 2.0 message (an id written `7.0` read as `7`), or the 400 that
/// says why it is not one.
fn message(body: &[u8]) -> Result<Value, Box<Response>> {
    let Ok(mut msg) = serde_json::from_slice::<Value>(body) else {
        return Err(Box::new(json_response(
            StatusCode::BAD_REQUEST,
            &rpc_error(&Value::Null, -32700, "Parse error"),
        )));
    };
    if msg.is_array() {
        return Err(Box::new(json_response(
            StatusCode::BAD_REQUEST,
            &rpc_error(
                &Value::Null,
                -32600,
                "Batches are not supported in protocol 2025-06-18",
            ),
        )));
    }
    // one JSON-RPC message is an object with "jsonrpc": "2.0" and a method (a request or a
    // notification) or a result or error (a response to the server): anything else is an
    // invalid request, not a notification to accept silently
    let id_ok = match msg.get("id") {
        None | Some(Value::String(_)) => true,
        // an integer of 64 bits with a sign, as the document says; JSON Schema's "integer"
        // admits one written with a fraction or an exponent (`7.0`, `4.5e16`), answered as the
        // plain integer
        Some(Value::Number(n)) => match whole_id(n) {
            Some(i) => {
                msg["id"] = Value::from(i);
                true
            }
            None => false,
        },
        Some(_) => false,
    };
    let is_message = msg["jsonrpc"] == "2.0"
        && id_ok
        && msg.get("params").is_none_or(Value::is_object)
        && (msg["method"].is_string() || msg.get("result").is_some() || msg.get("error").is_some());
    if !is_message {
        let id = match &msg["id"] {
            v @ Value::String(_) => v.clone(),
            Value::Number(n) if n.is_i64() => msg["id"].clone(),
            _ => Value::Null,
        };
        return Err(Box::new(json_response(
            StatusCode::BAD_REQUEST,
            &rpc_error(
                &id,
                -32600,
                "Invalid Request: one JSON-RPC 2.0 message is an object with \"jsonrpc\": \"2.0\" and a \"method\"",
            ),
        )));
    }
    Ok(msg)
}

/// The JSON-RPC id `n` as a signed 64-bit integer, when it is one (whether written `7`, `7.0`
/// or `7e0`); `None` for fractions and numbers out of range.
fn whole_id(n: &serde_json::Number) -> Option<i64> {
    if let Some(i) = n.as_i64() {
        return Some(i);
    }
    if n.is_u64() {
        return None;
    }
    let f = n.as_f64()?;
    // 2^63 is the first float past i64::MAX. -2^63 itself is refused: an integer written
    // below i64::MIN (-9223372036854775809) reads as that float, and written as an integer
    // i64::MIN is read as an integer above
    const TWO_63: f64 = 9_223_372_036_854_775_808.0;
    (f.fract() == 0.0 && f > -TWO_63 && f < TWO_63).then_some(f as i64)
}

/// The documentation of `POST /mcp`.
pub fn doc() -> doc::Doc {
    use boxtrack_http::doc::{Doc, object};
    use boxtrack_http::schema::{Schema, Type};
    let transport_error = |d: &str| Doc::json_of::<TransportError<'_>>(d);
    let version = Schema::any().constant("2.0");
    let message = Schema::object()
        .required(&["jsonrpc"])
        .prop("jsonrpc", version.clone())
        .prop("method", Schema::string())
        .prop(
            "id",
            Schema::of_any(&[Type::String, Type::Integer]).range(i64::MIN, i64::MAX),
        )
        .prop("params", Schema::object());
    let message = message.any_of_required(&[&["method"], &["result"], &["error"]]);
    let rpc_error = Schema::one_of(vec![
        Schema::string(),
        Schema::record(&[("code", Schema::integer()), ("message", Schema::string())]),
    ]);
    let refusal = Schema::record(&[("error", rpc_error)])
        .prop("message", Schema::string())
        .prop("jsonrpc", version)
        .prop(
            "id",
            Schema::of_any(&[Type::String, Type::Integer, Type::Null]),
        );
    Doc::new("MCP", "MCP message")
        .about("Model Context Protocol 2025-06-18 over Streamable HTTP, stateless JSON mode: one JSON-RPC 2.0 message per POST (`initialize`, `tools/list`, `tools/call`, `prompts/list`, `prompts/get`, `resources/list`, `resources/templates/list`, `resources/read`, `completion/complete`, `ping`); notifications (and responses) get 202; anything that is not one message is a 400 JSON-RPC error. GET and DELETE answer 405: the server keeps no sessions and opens no server-initiated stream. `Authorization: Token <API key>`; 401 carries `WWW-Authenticate: Bearer resource_metadata=...`. `MCP-Protocol-Version` other than 2025-06-18, 2025-03-26 or 2024-11-05 is 400; a foreign `Origin` is 403. Tools read only the caller's account, check its entitlements, and count against its REST rate limits; failures are tool results with `isError`.")
        .body_media(&["application/json"], message)
        .answer("200", Doc::json_answer("A JSON-RPC response", object()))
        .answer("202", Doc::empty_answer("A notification or a response was accepted; nothing to answer"))
        .answer("400", Doc::json_answer("Not one JSON-RPC message (a JSON-RPC error response), or an unsupported MCP-Protocol-Version", refusal))
        .answer("401", transport_error("No or an unknown key or token; WWW-Authenticate names the protected resource metadata"))
        .answer("403", transport_error("A foreign Origin"))
        .answer("415", transport_error("Content-Type is not application/json"))
}
