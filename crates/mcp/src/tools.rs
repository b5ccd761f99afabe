//! The MCP tools: their declarations (input and output schemas, titles, annotations) and
//! their calls. Every call goes through the REST router in process with the caller's own
//! credentials, so tools obey exactly the account isolation, entitlements and rate limits of
//! the REST API.

use axum::body::Body;
use axum::http::{Method, Request};
use boxtrack_core::time::parse_micros;
use boxtrack_core::tracking::LfdKind;
use boxtrack_core::tracking::rules;
use serde_json::{Map, Value, json};
use tower::ServiceExt;

use boxtrack_api::state::AppState;

const UUID_PATTERN: &str =
    "^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$";

fn intent() -> Value {
    json!({"type": "string", "maxLength": 200, "description": "Why the tool is called (telemetry only)"})
}

fn uuid(desc: &str) -> Value {
    json!({"type": "string", "format": "uuid", "pattern": UUID_PATTERN, "description": desc})
}

fn paging(props: &mut Map<String, Value>) {
    props.insert(
        "page".into(),
        json!({"type": "integer", "minimum": 1, "description": "1-based page"}),
    );
    props.insert("page_size".into(), json!({"type": "integer", "minimum": 1, "description": "Rows per page (default 25, at most 100)"}));
}

struct Def {
    name: &'static str,
    title: &'static str,
    description: &'static str,
    props: Map<String, Value>,
    required: &'static [&'static str],
    read_only: bool,
    idempotent: bool,
    output: Value,
}

fn object(props: Value) -> Map<String, Value> {
    match props {
        Value::Object(mut m) => {
            m.insert("intent".into(), intent());
            m
        }
        _ => Map::new(),
    }
}

fn passthrough() -> Value {
    json!({"type": "object", "additionalProperties": true})
}

fn defs() -> Vec<Def> {
    let mut list_ship = object(json!({
        "number": {"type": "string", "description": "Bill of lading or booking number"},
        "tracking_stopped": {"type": "boolean"},
        "include_containers": {"type": "boolean", "default": false}
    }));
    paging(&mut list_ship);
    let mut list_cont = object(json!({
        "include": {"type": "string", "description": "Comma-separated includes, e.g. shipment,pod_terminal"}
    }));
    paging(&mut list_cont);
    let mut list_tr = object(json!({
        "filters": {"type": "object", "additionalProperties": {"type": "string"}, "description": "Raw filter keys such as filter[status]"},
        "status": {"type": "string"},
        "request_type": {"type": "string"}
    }));
    paging(&mut list_tr);
    let list_out = json!({"type": "object", "properties": {"items": {"type": "array", "items": {"type": "object"}}, "meta": {"type": "object"}, "links": {"type": "object"}}, "required": ["items"]});
    vec![
        Def {
            name: "search_container",
            title: "Search Containers",
            description: "Find tracked containers and shipments by container, booking, bill of lading or reference number (exact matches first).",
            props: object(
                json!({"query": {"type": "string", "minLength": 1, "description": "Container, booking, BL or reference number"}}),
            ),
            required: &["query"],
            read_only: true,
            idempotent: true,
            output: json!({"type": "object", "properties": {
                "containers": {"type": "array", "items": {"type": "object", "properties": {"id": {"type": "string"}, "container_number": {"type": "string"}, "ref_numbers": {"type": "array"}}, "required": ["id", "container_number"]}},
                "shipments": {"type": "array", "items": {"type": "object", "properties": {"id": {"type": "string"}, "number": {"type": "string"}, "ref_numbers": {"type": "array"}}, "required": ["id", "number"]}},
                "total_results": {"type": "integer"}
            }, "required": ["containers", "shipments", "total_results"]}),
        },
        Def {
            name: "track_container",
            title: "Track Container",
            description: "Start tracking a container, bill of lading or booking number (creates a tracking request), or return the container when it is already tracked.",
            props: object(json!({
                "number": {"type": "string", "description": "Container, bill of lading or booking number"},
                "numberType": {"type": "string", "description": "container, bill_of_lading or booking_number (inferred when absent)"},
                "containerNumber": {"type": "string", "description": "Deprecated alias of number"},
                "bookingNumber": {"type": "string", "description": "Deprecated alias of number with numberType booking_number"},
                "scac": {"type": "string", "description": "Shipping line SCAC (inferred when absent)"},
                "refNumbers": {"type": "array", "items": {"type": "string"}}
            })),
            required: &[],
            read_only: false,
            idempotent: false,
            output: passthrough(),
        },
        Def {
            name: "get_container",
            title: "Get Container Details",
            description: "A container's status, availability, holds, fees, last free days, rail and shipment context.",
            props: object(json!({
                "id": uuid("Container id"),
                "include": {"type": "array", "items": {"type": "string", "enum": ["shipment", "pod_terminal", "transport_events"]}, "default": ["shipment"]}
            })),
            required: &["id"],
            read_only: true,
            idempotent: true,
            output: passthrough(),
        },
        Def {
            name: "get_shipment_details",
            title: "Get Shipment Details",
            description: "A shipment's routing (ports, ETAs, ATAs), vessel at the POD, references and containers.",
            props: object(
                json!({"id": uuid("Shipment id"), "include_containers": {"type": "boolean", "default": true}}),
            ),
            required: &["id"],
            read_only: true,
            idempotent: true,
            output: passthrough(),
        },
        Def {
            name: "get_container_transport_events",
            title: "Get Container Transport Events",
            description: "The container's milestone timeline (oldest first) and key milestone times.",
            props: object(json!({"id": uuid("Container id")})),
            required: &["id"],
            read_only: true,
            idempotent: true,
            output: passthrough(),
        },
        Def {
            name: "get_supported_shipping_lines",
            title: "Get Supported Shipping Lines",
            description: "Shipping lines boxtrack tracks, filtered by name or SCAC.",
            props: object(
                json!({"search": {"type": "string", "description": "Name or SCAC filter"}}),
            ),
            required: &[],
            read_only: true,
            idempotent: true,
            output: json!({"type": "object", "properties": {"total_lines": {"type": "integer"}, "shipping_lines": {"type": "array", "items": {"type": "object", "properties": {"scac": {"type": "string"}, "name": {"type": "string"}}, "required": ["scac", "name"]}}}, "required": ["total_lines", "shipping_lines"]}),
        },
        Def {
            name: "get_container_route",
            title: "Get Container Route",
            description: "The container's route, port by port, with arrivals and departures (needs the routing entitlement).",
            props: object(json!({"id": uuid("Container id")})),
            required: &["id"],
            read_only: true,
            idempotent: true,
            output: passthrough(),
        },
        Def {
            name: "list_shipments",
            title: "List Shipments",
            description: "The account's shipments, newest first.",
            props: list_ship,
            required: &[],
            read_only: true,
            idempotent: true,
            output: list_out.clone(),
        },
        Def {
            name: "list_containers",
            title: "List Containers",
            description: "The account's containers, most recently updated first.",
            props: list_cont,
            required: &[],
            read_only: true,
            idempotent: true,
            output: list_out.clone(),
        },
        Def {
            name: "list_tracking_requests",
            title: "List Tracking Requests",
            description: "The account's tracking requests, newest first.",
            props: list_tr,
            required: &[],
            read_only: true,
            idempotent: true,
            output: list_out,
        },
        Def {
            name: "stop_tracking",
            title: "Stop Tracking",
            description: "Stop tracking a shipment and its containers.",
            props: object(json!({"shipment_id": uuid("Shipment id")})),
            required: &["shipment_id"],
            read_only: false,
            idempotent: true,
            output: passthrough(),
        },
        Def {
            name: "resume_tracking",
            title: "Resume Tracking",
            description: "Resume tracking a stopped shipment.",
            props: object(json!({"shipment_id": uuid("Shipment id")})),
            required: &["shipment_id"],
            read_only: false,
            idempotent: true,
            output: passthrough(),
        },
        Def {
            name: "refresh_container",
            title: "Refresh Container",
            description: "Ask the shipping line and terminal now and return what changed (needs the container_refresh entitlement; 10 per minute).",
            props: object(json!({"id": uuid("Container id")})),
            required: &["id"],
            read_only: false,
            idempotent: true,
            output: passthrough(),
        },
        Def {
            name: "list_webhooks",
            title: "List Webhooks",
            description: "The account's webhook subscriptions.",
            props: object(json!({})),
            required: &[],
            read_only: true,
            idempotent: true,
            output: passthrough(),
        },
        Def {
            name: "create_webhook",
            title: "Create Webhook",
            description: "Subscribe an https URL to events (see GET /v2/webhooks/events); the secret is returned once.",
            props: object(json!({
                "url": {"type": "string", "description": "https:// receiver"},
                "events": {"type": "array", "items": {"type": "string"}, "description": "Event names (GET /v2/webhooks/events); none: every event"}
            })),
            required: &["url"],
            read_only: false,
            idempotent: false,
            output: passthrough(),
        },
        Def {
            name: "get_container_readiness",
            title: "Get Container Readiness",
            description: "Can the container be picked up, and what stands in the way: ready flag, active holds, fees, the coalesced last free day and the days left in the port's time zone.",
            props: object(json!({"id": uuid("Container id")})),
            required: &["id"],
            read_only: true,
            idempotent: true,
            output: json!({"type": "object", "properties": {
                "container_number": {"type": "string"}, "ready_for_pickup": {"type": "boolean"},
                "holds": {"type": "array"}, "fees": {"type": "array"},
                "pickup_lfd": {"type": ["string", "null"]}, "days_left": {"type": ["integer", "null"]},
                "time_zone": {"type": ["string", "null"]}
            }, "required": ["container_number", "ready_for_pickup", "holds", "fees"]}),
        },
    ]
}

/// `tools/list` entries.
pub fn list() -> Vec<Value> {
    defs()
        .into_iter()
        .map(|d| {
            json!({
                "name": d.name,
                "title": d.title,
                "description": d.description,
                "inputSchema": {"type": "object", "properties": d.props, "required": d.required},
                "outputSchema": d.output,
                "annotations": {
                    "title": d.title,
                    "readOnlyHint": d.read_only,
                    "destructiveHint": false,
                    "idempotentHint": d.idempotent,
                    "openWorldHint": false
                }
            })
        })
        .collect()
}

/// Checks arguments against a tool's input schema: required keys, types, UUID format,
/// enums, lengths. Returns the first problem.
pub fn validate(name: &str, args: &Map<String, Value>) -> Result<(), String> {
    let Some(d) = defs().into_iter().find(|d| d.name == name) else {
        return Err(format!("unknown tool {name}"));
    };
    for r in d.required {
        if args.get(*r).is_none_or(Value::is_null) {
            return Err(format!("argument {r} is required"));
        }
    }
    for (k, v) in args {
        let Some(schema) = d.props.get(k) else {
            return Err(format!("unknown argument {k}"));
        };
        let ok = match schema["type"].as_str() {
            Some("string") => v.as_str().is_some_and(|s| {
                let n = s.chars().count() as u64;
                n >= schema["minLength"].as_u64().unwrap_or(0)
                    && schema["maxLength"].as_u64().is_none_or(|m| n <= m)
                    && (schema["format"] != "uuid" || uuid::Uuid::parse_str(s).is_ok())
            }),
            Some("boolean") => v.is_boolean(),
            Some("integer") => v
                .as_i64()
                .is_some_and(|n| n >= schema["minimum"].as_i64().unwrap_or(i64::MIN)),
            Some("array") => v.as_array().is_some_and(|a| {
                a.iter().all(|x| {
                    x.is_string()
                        && schema["items"]["enum"]
                            .as_array()
                            .is_none_or(|e| e.contains(x))
                })
            }),
            Some("object") => v
                .as_object()
                .is_some_and(|o| o.values().all(Value::is_string)),
            _ => true,
        };
        if !ok {
            let what = match (schema["type"].as_str(), schema["format"].as_str()) {
                (_, Some("uuid")) => "a UUID".to_string(),
                (Some(t), _) => format!("of type {t}"),
                _ => "valid".to_string(),
            };
            return Err(format!("argument {k} must be {what}"));
        }
    }
    Ok(())
}

/// A call's outcome: structured content, or a failure explained to the model.
pub enum Outcome {
    /// Success.
    Ok(Value),
    /// A failure (`isError: true`), with the message to show.
    Failed(String),
}

struct Rest<'a> {
    state: &'a AppState,
    account: &'a boxtrack_store::accounts::Account,
}

impl Rest<'_> {
    async fn call(&self, method: Method, path: &str, body: Option<Value>) -> (u16, Value) {
        let router = boxtrack_api::rest::router(self.state).with_state(self.state.clone());
        let mut req = Request::builder()
            .method(method)
            .uri(path)
            .extension(boxtrack_api::auth::Internal(self.account.clone()))
            .header("Host", "localhost");
        let body = match body {
            Some(b) => {
                req = req.header("Content-Type", "application/vnd.api+json");
                Body::from(b.to_string())
            }
            None => Body::empty(),
        };
        let Ok(req) = req.body(body) else {
            return (500, Value::Null);
        };
        let Ok(resp) = router.oneshot(req).await;
        let status = resp.status().as_u16();
        let bytes = axum::body::to_bytes(resp.into_body(), 16 * 1024 * 1024)
            .await
            .unwrap_or_default();
        (
            status,
            serde_json::from_slice(&bytes).unwrap_or(Value::Null),
        )
    }

    async fn get(&self, path: &str) -> Result<Value, String> {
        match self.call(Method::GET, path, None).await {
            (200, v) => Ok(v),
            (_, v) => Err(error_text(&v)),
        }
    }
}

fn error_text(v: &Value) -> String {
    v["errors"][0]["detail"]
        .as_str()
        .or(v["errors"][0]["title"].as_str())
        .unwrap_or("the request failed")
        .to_string()
}

fn enc(s: &str) -> String {
    url::form_urlencoded::byte_serialize(s.as_bytes()).collect()
}

fn page_query(args: &Map<String, Value>) -> String {
    let page = args.get("page").and_then(Value::as_i64).unwrap_or(1).max(1);
    let size = args
        .get("page_size")
        .and_then(Value::as_i64)
        .unwrap_or(25)
        .clamp(1, 100);
    format!("page[number]={page}&page[size]={size}")
}

fn list_result(doc: Value) -> Value {
    let items: Vec<Value> = doc["data"]
        .as_array()
        .cloned()
        .unwrap_or_default()
        .into_iter()
        .map(|r| {
            let mut a = r["attributes"].clone();
            a["id"] = r["id"].clone();
            a
        })
        .collect();
    json!({"items": items, "meta": doc["meta"], "links": doc["links"]})
}

fn flat(resource: &Value) -> Value {
    let mut a = resource["attributes"].clone();
    a["id"] = resource["id"].clone();
    a
}

fn included<'a>(doc: &'a Value, kind: &str) -> Vec<&'a Value> {
    doc["included"]
        .as_array()
        .map(|v| v.iter().filter(|r| r["type"] == kind).collect())
        .unwrap_or_default()
}

/// Runs a tool. The caller has already validated the arguments.
pub async fn call(
    state: &AppState,
    account: &boxtrack_store::accounts::Account,
    name: &str,
    args: &Map<String, Value>,
) -> Outcome {
    let rest = Rest { state, account };
    let s = |k: &str| args.get(k).and_then(Value::as_str).map(str::to_string);
    let r: Result<Value, String> = match name {
        "search_container" => {
            let q = s("query").unwrap_or_default();
            rest.get(&format!("/v2/search?query={}", enc(&q)))
                .await
                .map(|doc| {
                    let mut containers = vec![];
                    let mut shipments = vec![];
                    for h in doc["data"].as_array().cloned().unwrap_or_default() {
                        let a = &h["attributes"];
                        match a["entity_type"].as_str() {
                            Some("container") => containers.push(json!({"id": h["relationships"]["entity"]["data"]["id"], "container_number": a["number"], "ref_numbers": a["ref_numbers"]})),
                            Some("shipment") => shipments.push(json!({"id": h["relationships"]["entity"]["data"]["id"], "number": a["number"], "ref_numbers": a["ref_numbers"]})),
                            _ => {}
                        }
                    }
                    let total = containers.len() + shipments.len();
                    json!({"containers": containers, "shipments": shipments, "total_results": total})
                })
        }
        "track_container" => track(&rest, args).await,
        "get_container" => {
            let id = s("id").unwrap_or_default();
            let mut inc = vec!["shipment".to_string(), "pod_terminal".to_string()];
            for i in args.get("include").and_then(Value::as_array).into_iter().flatten() {
                if let Some(i) = i.as_str()
                    && !inc.iter().any(|x| x == i)
                {
                    inc.push(i.to_string());
                }
            }
            rest.get(&format!("/v2/containers/{id}?include={}", inc.join(",")))
                .await
                .map(|doc| {
                    let mut c = flat(&doc["data"]);
                    c["shipment"] = included(&doc, "shipment").first().map_or(Value::Null, |s| flat(s));
                    c["pod_terminal"] = included(&doc, "terminal").first().map_or(Value::Null, |t| flat(t));
                    let events = included(&doc, "transport_event");
                    if inc.iter().any(|i| i == "transport_events") {
                        c["events"] = json!({"count": events.len(), "latest_event": events.first().map(|e| flat(e))});
                    }
                    c
                })
        }
        "get_shipment_details" => {
            let id = s("id").unwrap_or_default();
            let with = args.get("include_containers").and_then(Value::as_bool).unwrap_or(true);
            let path = if with {
                format!("/v2/shipments/{id}?include=containers")
            } else {
                format!("/v2/shipments/{id}")
            };
            rest.get(&path).await.map(|doc| {
                let mut v = flat(&doc["data"]);
                if with {
                    let cs: Vec<Value> = included(&doc, "container").into_iter().map(flat).collect();
                    v["containers"] = json!({"count": cs.len(), "containers": cs});
                }
                v
            })
        }
        "get_container_transport_events" => {
            let id = s("id").unwrap_or_default();
            rest.get(&format!("/v2/containers/{id}/transport_events?page[size]=100"))
                .await
                .map(|doc| {
                    let mut timeline: Vec<Value> = doc["data"].as_array().cloned().unwrap_or_default().iter().map(flat).collect();
                    timeline.sort_by(|a, b| a["timestamp"].as_str().cmp(&b["timestamp"].as_str()));
                    json!({"total_events": timeline.len(), "timeline": timeline})
                })
        }
        "get_supported_shipping_lines" => rest.get("/v2/shipping_lines?page[size]=100").await.map(|doc| {
            let needle = s("search").unwrap_or_default().to_lowercase();
            let mut lines: Vec<Value> = doc["data"]
                .as_array()
                .cloned()
                .unwrap_or_default()
                .iter()
                .map(|l| {
                    let a = &l["attributes"];
                    json!({"scac": a["scac"], "name": a["name"], "short_name": a["short_name"], "bol_prefix": a["bill_of_lading_prefix"]})
                })
                .filter(|l| l["scac"] != "TEST")
                .filter(|l| {
                    needle.is_empty()
                        || ["scac", "name", "short_name"].iter().any(|k| {
                            l[k].as_str().is_some_and(|v| v.to_lowercase().contains(&needle))
                        })
                })
                .collect();
            lines.sort_by(|a, b| a["name"].as_str().cmp(&b["name"].as_str()));
            json!({"total_lines": lines.len(), "shipping_lines": lines})
        }),
        "get_container_route" => {
            if !account.has(boxtrack_core::plan::Entitlement::Routing) {
                return Outcome::Failed("Routing data is not enabled for this account (entitlement `routing`). Alternative: get_shipment_details shows the ports with their ETAs and ATAs.".into());
            }
            let id = s("id").unwrap_or_default();
            rest.get(&format!("/v2/containers/{id}?include=shipment"))
                .await
                .map(|doc| {
                    let sh = included(&doc, "shipment").first().map_or(Value::Null, |s| flat(s));
                    let legs = [
                        ("port_of_lading", "pol_etd_at", "pol_atd_at"),
                        ("port_of_discharge", "pod_eta_at", "pod_ata_at"),
                        ("destination", "destination_eta_at", "destination_ata_at"),
                    ];
                    let locations: Vec<Value> = legs
                        .iter()
                        .filter(|(p, _, _)| !sh[format!("{p}_locode")].is_null())
                        .map(|(p, est, act)| json!({"port": {"code": sh[format!("{p}_locode")], "name": sh[format!("{p}_name")]}, "estimated": sh[*est], "actual": sh[*act]}))
                        .collect();
                    json!({"total_legs": locations.len().saturating_sub(1), "route_locations": locations, "vessel_at_pod": {"name": sh["pod_vessel_name"], "imo": sh["pod_vessel_imo"]}})
                })
        }
        "list_shipments" => {
            let mut q = page_query(args);
            if let Some(n) = s("number") {
                q.push_str(&format!("&number={}", enc(&n)));
            }
            if let Some(b) = args.get("tracking_stopped").and_then(Value::as_bool) {
                q.push_str(&format!("&filter[tracking_stopped]={b}"));
            }
            if args.get("include_containers").and_then(Value::as_bool).unwrap_or(false) {
                q.push_str("&include=containers");
            }
            rest.get(&format!("/v2/shipments?{q}")).await.map(list_result)
        }
        "list_containers" => {
            let mut q = page_query(args);
            if let Some(i) = s("include") {
                q.push_str(&format!("&include={}", enc(&i)));
            }
            rest.get(&format!("/v2/containers?{q}")).await.map(list_result)
        }
        "list_tracking_requests" => {
            let mut q = page_query(args);
            if let Some(f) = args.get("filters").and_then(Value::as_object) {
                for (k, v) in f {
                    if k.starts_with("filter[") {
                        q.push_str(&format!("&{}={}", enc(k), enc(v.as_str().unwrap_or(""))));
                    }
                }
            }
            if let Some(st) = s("status") {
                q.push_str(&format!("&filter[status]={}", enc(&st)));
            }
            rest.get(&format!("/v2/tracking_requests?{q}")).await.map(list_result)
        }
        "stop_tracking" | "resume_tracking" => {
            let id = s("shipment_id").unwrap_or_default();
            let action = if name == "stop_tracking" { "stop_tracking" } else { "resume_tracking" };
            match rest.call(Method::PATCH, &format!("/v2/shipments/{id}/{action}"), None).await {
                (200, doc) => Ok(flat(&doc["data"])),
                (_, doc) => Err(error_text(&doc)),
            }
        }
        "refresh_container" => {
            let id = s("id").unwrap_or_default();
            match rest.call(Method::PATCH, &format!("/v2/containers/{id}/refresh"), None).await {
                (200, v) => Ok(v),
                (_, doc) => Err(error_text(&doc)),
            }
        }
        "list_webhooks" => rest.get("/v2/webhooks").await.map(list_result),
        "create_webhook" => {
            // no events named: every event of the catalog
            let events = match args.get("events").and_then(Value::as_array) {
                Some(e) if !e.is_empty() => Value::Array(e.clone()),
                _ => json!(boxtrack_core::webhooks::EVENTS.to_vec()),
            };
            let body = json!({"data": {"type": "webhook", "attributes": {"url": s("url"), "active": true, "events": events}}});
            match rest.call(Method::POST, "/v2/webhooks", Some(body)).await {
                (201, doc) => Ok(flat(&doc["data"])),
                (_, doc) => Err(error_text(&doc)),
            }
        }
        "get_container_readiness" => {
            let id = s("id").unwrap_or_default();
            match rest.get(&format!("/v2/containers/{id}")).await {
                Err(e) => Err(e),
                Ok(doc) => {
                let now = data_now(&rest, &doc).await;
                let a = &doc["data"]["attributes"];
                let deadlines = &a["import_deadlines"];
                let mut known = std::collections::BTreeMap::new();
                for (k, kind) in [
                    ("pickup_lfd_line", LfdKind::Line),
                    ("pickup_lfd_terminal", LfdKind::Terminal),
                    ("pickup_lfd_rail", LfdKind::Rail),
                ] {
                    if let Some(t) = deadlines[k].as_str().and_then(parse_micros) {
                        known.insert(kind, t);
                    }
                }
                // a rail LFD is kept at the inland ramp, in its zone
                let zone = rules::lfd_zone(
                    &known,
                    true,
                    a["pod_timezone"].as_str(),
                    a["final_destination_timezone"].as_str(),
                )
                .map(str::to_string);
                let lfd = a["pickup_lfd"].as_str().map(str::to_string);
                let days_left = lfd
                    .as_deref()
                    .and_then(parse_micros)
                    .and_then(|l| rules::days_until(l, zone.as_deref(), now));
                let fees: Vec<Value> = a["fees_at_pod_terminal"]
                    .as_array()
                    .cloned()
                    .unwrap_or_default()
                    .into_iter()
                    .filter(|f| f["type"] != "total")
                    .collect();
                let holds: Vec<Value> = a["holds_at_pod_terminal"]
                    .as_array()
                    .cloned()
                    .unwrap_or_default()
                    .into_iter()
                    .filter(|h| h["status"] == "hold")
                    .collect();
                Ok(json!({
                    "container_number": a["number"], "ready_for_pickup": a["ready_for_pickup"].as_bool().unwrap_or(false),
                    "current_status": a["current_status"], "holds": holds, "fees": fees,
                    "pickup_lfd": lfd, "days_left": days_left, "time_zone": zone,
                    "pickup_appointment_at": a["pickup_appointment_at"]
                }))
                }
            }
        }
        other => Err(format!("unknown tool {other}")),
    };
    match r {
        Ok(v) => Outcome::Ok(v),
        Err(e) => Outcome::Failed(e),
    }
}

/// "Now" on the clock of a container's data: a sandbox journey runs on its virtual clock
/// (started at its run's start, `sandbox_speed` times faster than real time); everything else
/// on the wall clock.
async fn data_now(rest: &Rest<'_>, container: &Value) -> i64 {
    let now = boxtrack_store::now_us();
    let shipment = container["data"]["relationships"]["shipment"]["data"]["id"]
        .as_str()
        .and_then(|s| uuid::Uuid::parse_str(s).ok());
    let Some(shipment) = shipment else { return now };
    match boxtrack_store::sandbox::started_us(&rest.state.db, rest.account.id, shipment).await {
        // the journey's clock read zero at its start and runs sandbox_speed times faster
        Ok(Some(started)) => boxtrack_core::schedule::SourceClock::reading(
            started,
            started,
            rest.state.config.sandbox_speed.max(1.0),
        )
        .now_at(now.max(started)),
        _ => now,
    }
}

async fn track(rest: &Rest<'_>, args: &Map<String, Value>) -> Result<Value, String> {
    let s = |k: &str| args.get(k).and_then(Value::as_str).map(str::to_string);
    let raw = s("number")
        .or(s("containerNumber"))
        .or(s("bookingNumber"))
        .unwrap_or_default();
    let number: String = raw.split_whitespace().collect::<String>().to_uppercase();
    if number.is_empty() {
        return Err("a number is required (container, bill of lading or booking)".into());
    }
    // already tracked?
    let found = rest
        .get(&format!("/v2/search?query={}", enc(&number)))
        .await?;
    for h in found["data"].as_array().cloned().unwrap_or_default() {
        if h["attributes"]["entity_type"] == "container" && h["attributes"]["number"] == number {
            let id = h["relationships"]["entity"]["data"]["id"]
                .as_str()
                .unwrap_or_default()
                .to_string();
            let c = rest.get(&format!("/v2/containers/{id}")).await?;
            let mut v = flat(&c["data"]);
            v["tracking_request_created"] = json!(false);
            return Ok(v);
        }
    }
    let mut kind =
        s("numberType").or_else(|| s("bookingNumber").map(|_| "booking_number".to_string()));
    let mut scac = s("scac");
    if kind.is_none() || scac.is_none() {
        let body = json!({"number": number});
        let (status, inferred) = rest
            .call(
                Method::POST,
                "/v2/tracking_requests/infer_number",
                Some(body),
            )
            .await;
        if status == 200 {
            let a = &inferred["data"]["attributes"];
            kind = kind.or(a["request_type"].as_str().map(str::to_string));
            scac = scac.or(a["shipping_line"]["selected"]["scac"]
                .as_str()
                .map(str::to_string));
        }
    }
    let kind = kind.unwrap_or_else(|| "container".into());
    let mut attrs = json!({"request_number": number, "request_type": kind});
    if let Some(sc) = &scac {
        attrs["scac"] = json!(sc);
    }
    if let Some(refs) = args.get("refNumbers") {
        attrs["ref_numbers"] = refs.clone();
    }
    let body = json!({"data": {"type": "tracking_request", "attributes": attrs}});
    match rest
        .call(Method::POST, "/v2/tracking_requests", Some(body))
        .await
    {
        (201, doc) => Ok(json!({
            "tracking_request_created": true,
            "tracking_request": flat(&doc["data"]),
            "message": "Tracking started; the shipment and its containers appear once the line answers (usually within seconds)."
        })),
        (_, doc) => Err(error_text(&doc)),
    }
}
