//! The MCP server at `/mcp`: transport rules, authentication, every tool, prompts, resources.

use boxtrack_core::plan::{Entitlement, Plan};
use boxtrack_core::ratelimit::Limits;
use serde_json::{Value, json};

use crate::harness::{Resp, TestApp};

struct Mcp<'a> {
    app: &'a TestApp,
    key: String,
    next: std::cell::Cell<u64>,
}

impl Mcp<'_> {
    async fn raw(&self, body: Value, extra: &[(&str, &str)]) -> Resp {
        let mut req = self
            .app
            .client
            .post(self.app.url("/mcp"))
            .header("Authorization", format!("Token {}", self.key))
            .header("Content-Type", "application/json")
            .header("Accept", "application/json, text/event-stream");
        if !extra
            .iter()
            .any(|(k, _)| k.eq_ignore_ascii_case("mcp-protocol-version"))
        {
            req = req.header("MCP-Protocol-Version", "2025-06-18");
        }
        for (k, v) in extra {
            req = req.header(*k, *v);
        }
        self.app.send(req.body(body.to_string())).await
    }

    async fn rpc(&self, method: &str, params: Value) -> Value {
        let id = self.next.get();
        self.next.set(id + 1);
        let r = self
            .raw(
                json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}),
                &[],
            )
            .await;
        assert_eq!(r.status, 200, "{}", r.text);
        let v = r.json();
        assert_eq!(v["id"], id);
        v
    }

    /// Calls a tool; a successful answer's `structuredContent` must match the tool's
    /// `outputSchema` (the contract a client relies on).
    async fn tool(&self, name: &str, args: Value) -> Value {
        let v = self
            .rpc("tools/call", json!({"name": name, "arguments": args}))
            .await;
        assert!(v["error"].is_null(), "{v}");
        let result = v["result"].clone();
        if result["isError"] == false {
            let tools = self.rpc("tools/list", json!({})).await;
            let schema = tools["result"]["tools"]
                .as_array()
                .unwrap()
                .iter()
                .find(|t| t["name"] == name)
                .map(|t| t["outputSchema"].clone())
                .unwrap();
            let validator = jsonschema::draft202012::options()
                .build(&schema)
                .unwrap_or_else(|e| panic!("{name}: the output schema does not compile: {e}"));
            let wrong: Vec<String> = validator
                .iter_errors(&result["structuredContent"])
                .take(8)
                .map(|e| format!("  at {}: {e}", e.instance_path()))
                .collect();
            assert!(
                wrong.is_empty(),
                "{name}: the answer breaks its outputSchema:\n{}\n{}",
                wrong.join("\n"),
                result["structuredContent"]
            );
        }
        result
    }
}

async fn setup() -> (TestApp, String, String, Value) {
    let app = TestApp::spawn().await;
    let (_, key) = app
        .account_with(Plan::Standard, &[Entitlement::Routing], Limits::default())
        .await;
    app.track(&key, "TEST-TR-SUCCEEDED", "bill_of_lading", "TEST")
        .await;
    app.process().await;
    let container = app.containers(&key).await[0].clone();
    let (_, other_key) = app.account().await;
    (app, key, other_key, container)
}

#[tokio::test]
async fn transport_rules_and_authentication() {
    let app = TestApp::spawn().await;
    let (_, key) = app.account().await;
    let m = Mcp {
        app: &app,
        key: key.clone(),
        next: 1.into(),
    };
    let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}});

    // no key: 401 pointing at the protected-resource metadata
    let r = app
        .send(
            app.client
                .post(app.url("/mcp"))
                .header("Content-Type", "application/json")
                .body(init.to_string()),
        )
        .await;
    assert_eq!(r.status, 401);
    assert!(
        r.header("www-authenticate")
            .unwrap()
            .contains("resource_metadata="),
        "{:?}",
        r.headers
    );

    // a publishable key (for the embeds) is not a credential here
    let account = app.account_of(&m.key).await;
    let (_, publishable) = boxtrack_store::publishable::create(&app.db, account.id, None, &[])
        .await
        .unwrap();
    let r = app
        .send(
            app.client
                .post(app.url("/mcp"))
                .header("Authorization", format!("Token {}", publishable.expose()))
                .header("Content-Type", "application/json")
                .header("Accept", "application/json, text/event-stream")
                .body(init.to_string()),
        )
        .await;
    assert_eq!(r.status, 401, "{}", r.text);

    let r = m.raw(init.clone(), &[]).await;
    assert_eq!(r.status, 200, "{}", r.text);
    let v = r.json();
    assert_eq!(v["result"]["protocolVersion"], "2025-06-18");
    assert_eq!(v["result"]["serverInfo"]["name"], "boxtrack");
    assert!(v["result"]["capabilities"]["tools"].is_object());

    // notifications are accepted without an answer
    let r = m
        .raw(
            json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
            &[],
        )
        .await;
    assert_eq!(r.status, 202);
    // unsupported protocol version, foreign origin, batches, wrong media types, GET/DELETE
    assert_eq!(
        m.raw(init.clone(), &[("MCP-Protocol-Version", "1999-01-01")])
            .await
            .status,
        400
    );
    assert_eq!(
        m.raw(init.clone(), &[("Origin", "https://evil.example")])
            .await
            .status,
        403
    );
    assert_eq!(
        m.raw(init.clone(), &[("Origin", "http://localhost:3000")])
            .await
            .status,
        200
    );
    assert_eq!(m.raw(json!([init.clone()]), &[]).await.status, 400);
    let r = app
        .send(
            app.client
                .post(app.url("/mcp"))
                .header("Authorization", format!("Token {key}"))
                .header("Content-Type", "text/plain")
                .body(init.to_string()),
        )
        .await;
    assert_eq!(r.status, 415);
    let r = app
        .send(
            app.client
                .get(app.url("/mcp"))
                .header("Authorization", format!("Token {key}")),
        )
        .await;
    assert_eq!(r.status, 405);
    assert_eq!(r.header("allow").as_deref(), Some("POST"));
    // unknown methods
    assert_eq!(m.rpc("no/such", json!({})).await["error"]["code"], -32601);
    assert_eq!(m.rpc("ping", json!({})).await["result"], json!({}));
}

#[tokio::test]
async fn every_tool_is_declared_and_callable() {
    let (app, key, other_key, container) = setup().await;
    let m = Mcp {
        app: &app,
        key,
        next: 1.into(),
    };
    let tools = m.rpc("tools/list", json!({})).await["result"]["tools"].clone();
    let names: Vec<&str> = tools
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    for n in [
        "whoami",
        "list_parties",
        "summarize_containers",
        "search_docs",
        "search_container",
        "track_container",
        "get_container",
        "get_shipment_details",
        "get_container_transport_events",
        "get_supported_shipping_lines",
        "get_container_route",
        "list_shipments",
        "list_containers",
        "list_tracking_requests",
        "stop_tracking",
        "resume_tracking",
        "refresh_container",
        "list_webhooks",
        "create_webhook",
        "get_container_readiness",
        "get_demurrage_exposure",
        "enter_container_facts",
    ] {
        assert!(names.contains(&n), "{n} missing from {names:?}");
    }
    for t in tools.as_array().unwrap() {
        assert!(
            t["title"].is_string()
                && t["inputSchema"]["type"] == "object"
                && t["outputSchema"]["type"] == "object",
            "{t}"
        );
        assert!(t["annotations"]["readOnlyHint"].is_boolean(), "{t}");
    }
    let track = tools
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "track_container")
        .unwrap();
    assert_eq!(track["annotations"]["readOnlyHint"], false);

    let cid = container["id"].as_str().unwrap().to_string();
    let number = container["attributes"]["number"]
        .as_str()
        .unwrap()
        .to_string();
    let found = m.tool("search_container", json!({"query": number})).await;
    assert_eq!(found["isError"], false);
    assert_eq!(found["structuredContent"]["containers"][0]["id"], cid);
    assert!(found["content"][0]["text"].as_str().unwrap().contains(&cid));

    let c = m
        .tool(
            "get_container",
            json!({"id": cid, "include": ["transport_events"]}),
        )
        .await;
    let sc = &c["structuredContent"];
    assert_eq!(sc["container_number"], number, "{c}");
    assert!(
        sc["status"].is_string() && sc["status_source"].is_string(),
        "{c}"
    );
    assert_eq!(sc["shipment"]["line"], "TEST", "{c}");
    assert!(sc["demurrage"]["urgency"].is_string(), "{c}");
    assert!(sc["events"]["count"].as_u64().is_some(), "{c}");
    assert_eq!(
        sc["_metadata"]["includes_loaded"],
        json!(["shipment", "pod_terminal", "transport_events"]),
        "{c}"
    );
    let plain = m.tool("get_container", json!({"id": cid})).await;
    assert!(
        plain["structuredContent"].get("events").is_none(),
        "events only when asked: {plain}"
    );
    let shipment_id = c["structuredContent"]["shipment"]["id"]
        .as_str()
        .unwrap()
        .to_string();

    let s = m
        .tool("get_shipment_details", json!({"id": shipment_id}))
        .await;
    let ss = &s["structuredContent"];
    assert_eq!(ss["containers"]["count"], 1, "{s}");
    assert_eq!(ss["containers"]["containers"][0]["id"], cid, "{s}");
    assert_eq!(ss["shipping_line"]["scac"], "TEST", "{s}");
    assert!(
        ss["bill_of_lading"].is_string() && ss["status"].is_string(),
        "{s}"
    );
    assert!(ss["routing"]["port_of_discharge"].is_object(), "{s}");
    assert_eq!(ss["_metadata"]["shipment_status"], ss["status"]);
    let bare = m
        .tool(
            "get_shipment_details",
            json!({"id": shipment_id, "include_containers": false}),
        )
        .await;
    assert!(
        bare["structuredContent"]["containers"].is_string(),
        "without containers, how to get them: {bare}"
    );
    let ev = m
        .tool("get_container_transport_events", json!({"id": cid}))
        .await;
    let es = &ev["structuredContent"];
    let n = es["total_events"].as_u64().unwrap();
    assert_eq!(es["timeline"].as_array().unwrap().len() as u64, n, "{ev}");
    let counted: u64 = es["event_categories"]
        .as_object()
        .unwrap()
        .values()
        .map(|v| v.as_u64().unwrap())
        .sum();
    assert_eq!(counted, n, "every event is counted once: {ev}");
    let times: Vec<&str> = es["timeline"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["timestamp"].as_str().unwrap())
        .collect();
    assert!(
        times.windows(2).all(|w| w[0] <= w[1]),
        "oldest first: {times:?}"
    );
    assert_eq!(
        found["structuredContent"]["containers"][0]["shipping_line"],
        "TEST"
    );
    let lines = m
        .tool("get_supported_shipping_lines", json!({"search": "maersk"}))
        .await;
    assert!(
        lines["structuredContent"]["shipping_lines"]
            .as_array()
            .unwrap()
            .iter()
            .any(|l| l["scac"] == "MAEU"),
        "{lines}"
    );
    let route = m.tool("get_container_route", json!({"id": cid})).await;
    assert_eq!(route["isError"], false, "{route}");
    let r = &route["structuredContent"];
    assert_eq!(
        r["total_legs"].as_u64().unwrap() as usize,
        r["route_locations"].as_array().unwrap().len(),
        "{route}"
    );
    assert!(
        r["route_locations"][0]["inbound"]["mode"].is_null(),
        "nothing arrives at the POL: {route}"
    );
    assert_eq!(
        r["route_locations"][0]["outbound"]["mode"], "vessel",
        "{route}"
    );
    assert!(
        route["structuredContent"]["route_locations"]
            .as_array()
            .unwrap()
            .len()
            >= 2,
        "{route}"
    );
    for (t, args) in [
        (
            "list_shipments",
            json!({"page_size": 500, "include_containers": true}),
        ),
        (
            "list_containers",
            json!({"carrier": "test", "sort": "pickup_lfd"}),
        ),
        ("list_tracking_requests", json!({"status": "succeeded"})),
    ] {
        let l = m.tool(t, args).await;
        let sc = &l["structuredContent"];
        assert_eq!(sc["items"].as_array().unwrap().len(), 1, "{t}: {l}");
        assert_eq!(sc["meta"]["total"], 1, "{t}: {l}");
        assert_eq!(sc["_metadata"]["page"], 1, "{t}: {l}");
        assert_eq!(
            sc["_metadata"]["page_size"], 25,
            "page sizes stop at 25: {l}"
        );
        assert_eq!(sc["_metadata"]["has_more"], false, "{t}: {l}");
    }
    let boxes = m.tool("list_containers", json!({})).await;
    let row = &boxes["structuredContent"]["items"][0];
    assert_eq!(row["number"], number, "{boxes}");
    assert!(
        (row["holds"].is_array() || row["holds"].is_null())
            && row["shipment"]["billOfLading"].is_string(),
        "{boxes}"
    );
    assert_eq!(
        boxes["structuredContent"]["_metadata"]["applied_filters"]["actively_tracked"], true,
        "only actively tracked unless asked: {boxes}"
    );
    // the reference's clients put filters in advanced_filters
    let advanced = m
        .tool(
            "list_containers",
            json!({"advanced_filters": {"shipping_line_scac": "TEST", "has_holds": false}}),
        )
        .await;
    assert_eq!(
        advanced["structuredContent"]["meta"]["total"], 1,
        "{advanced}"
    );
    let twice = m
        .tool(
            "list_containers",
            json!({"pod_code": "USLAX", "advanced_filters": {"pod_code": "USLAX"}}),
        )
        .await;
    assert_eq!(twice["isError"], true, "{twice}");
    assert!(
        twice["content"][0]["text"]
            .as_str()
            .unwrap()
            .starts_with("Invalid list filter \"pod_code\": duplicate filter"),
        "{twice}"
    );
    let odd_day = m
        .tool("list_containers", json!({"pickup_lfd": ">=2026-13-45"}))
        .await;
    assert_eq!(odd_day["isError"], true, "{odd_day}");
    assert!(
        odd_day["content"][0]["text"]
            .as_str()
            .unwrap()
            .starts_with("Invalid list filter \"pickup_lfd\""),
        "{odd_day}"
    );
    // several statuses, any of them; a last free day or none
    let status = row["status"].as_str().unwrap();
    for (args, total) in [
        (json!({"current_status": format!("available, {status}")}), 1),
        (json!({"current_status": "available,grounded"}), 0),
        (json!({"pickup_lfd": "@not_exists"}), 1),
        (json!({"advanced_filters": {"pickup_lfd": "@exists"}}), 0),
    ] {
        let l = m.tool("list_containers", args.clone()).await;
        assert_eq!(
            l["structuredContent"]["meta"]["total"], total,
            "{args}: {l}"
        );
    }
    let none = m.tool("list_containers", json!({"has_holds": true})).await;
    assert_eq!(none["structuredContent"]["meta"]["total"], 0, "{none}");
    let wrong = m
        .tool("list_containers", json!({"current_status": "teleported"}))
        .await;
    assert_eq!(wrong["isError"], true, "{wrong}");
    assert!(
        wrong["content"][0]["text"]
            .as_str()
            .unwrap()
            .contains("current_status must be one of"),
        "{wrong}"
    );
    // milestone and voyage dates: a container has the date or not, and a bound on its day
    // finds it (the container's own dates and its shipment's)
    let total = |l: &Value| {
        l["structuredContent"]["meta"]["total"]
            .as_i64()
            .unwrap_or(-1)
    };
    let loc = c["structuredContent"]["location"].clone();
    let voyage = m
        .tool("get_shipment_details", json!({"id": shipment_id}))
        .await["structuredContent"]
        .clone();
    let arrival = if voyage["routing"]["port_of_discharge"]["ata"].is_null() {
        voyage["routing"]["port_of_discharge"]["eta"].clone()
    } else {
        voyage["routing"]["port_of_discharge"]["ata"].clone()
    };
    for (filter, at) in [
        ("pod_discharged_at", loc["pod_discharged_at"].clone()),
        ("pod_arrived_at", loc["pod_arrived_at"].clone()),
        ("arrival", arrival.clone()),
    ] {
        let known = i64::from(!at.is_null());
        for (args, want) in [
            (json!({ filter: "@exists" }), known),
            (json!({ filter: "@not_exists" }), 1 - known),
            (json!({"advanced_filters": { filter: "@exists" }}), known),
        ] {
            let l = m.tool("list_containers", args.clone()).await;
            assert_eq!(total(&l), want, "{args}: {l}");
        }
        if let Some(day) = at.as_str().map(|t| t[..10].to_string()) {
            for (args, want) in [
                (json!({ filter: format!("={day}") }), 1),
                (
                    json!({ filter: [format!(">={day}"), format!("<={day}")] }),
                    1,
                ),
                (json!({ filter: format!("<{day}") }), 0),
                (json!({ filter: format!(">{day}") }), 0),
            ] {
                let l = m.tool("list_containers", args.clone()).await;
                assert_eq!(total(&l), want, "{args}: {l}");
            }
        }
    }
    let known = i64::from(!arrival.is_null());
    for (args, want) in [
        (json!({"pod_arrival": "@exists"}), known),
        (json!({"pod_arrival": "@not_exists"}), 1 - known),
        (json!({"created_at": "@exists"}), 1),
        (json!({"created_at": "@not_exists"}), 0),
    ] {
        let l = m.tool("list_shipments", args.clone()).await;
        assert_eq!(total(&l), want, "{args}: {l}");
    }
    let arrived = i64::from(!voyage["routing"]["port_of_discharge"]["ata"].is_null());
    let l = m
        .tool("list_shipments", json!({"voyage_status": "arrived"}))
        .await;
    assert_eq!(total(&l), arrived, "{l}");
    // exact voyage texts (any of several), fees
    for (tool, args, want) in [
        ("list_containers", json!({"pol_code": "cnsha"}), 1),
        ("list_containers", json!({"pol_code": "USNYC, CNSHA"}), 1),
        ("list_containers", json!({"pol_code": ["USNYC"]}), 0),
        ("list_containers", json!({"pol_code": "@exists"}), 1),
        (
            "list_containers",
            json!({"destination_code": "@not_exists"}),
            1,
        ),
        ("list_containers", json!({"vessel_name": "@not_exists"}), 1),
        ("list_containers", json!({"has_fees": true}), 0),
        ("list_containers", json!({"has_fees": false}), 1),
        ("list_containers", json!({"has_fees_or_holds": false}), 1),
        ("list_shipments", json!({"pol_code": "CNSHA"}), 1),
        ("list_shipments", json!({"pol_code": "USLAX"}), 0),
    ] {
        let l = m.tool(tool, args.clone()).await;
        assert_eq!(total(&l), want, "{tool} {args}: {l}");
    }
    let odd = m
        .tool("list_containers", json!({"pol_code": "@maybe"}))
        .await;
    assert_eq!(odd["isError"], true, "{odd}");
    // custom fields by name or key, on the container or its shipment
    let account = app.account_of(&m.key).await;
    let mut sales_rep = None;
    for (entity, slug, name, data_type) in [
        ("Shipment", "sales_rep", "Sales Rep", "short_text"),
        ("Container", "weight_kg", "Weight", "number"),
    ] {
        let d = boxtrack_store::custom_fields::DefinitionRow {
            id: uuid::Uuid::now_v7(),
            account_id: account.id,
            entity_type: entity.into(),
            api_slug: slug.into(),
            display_name: name.into(),
            description: None,
            data_type: data_type.into(),
            reference_type: None,
            validation: Value::Null,
            default_format: None,
            default_value: Value::Null,
            created_us: 0,
            updated_us: 0,
        };
        boxtrack_store::custom_fields::create_definition(&app.db, &d)
            .await
            .unwrap();
        if slug == "sales_rep" {
            sales_rep = Some(d);
        }
    }
    let shipment: uuid::Uuid = shipment_id.parse().unwrap();
    boxtrack_store::custom_fields::create_field(
        &app.db,
        &sales_rep.unwrap(),
        shipment,
        &json!("Ann Lee"),
    )
    .await
    .unwrap();
    for (fields, want) in [
        (json!({"Sales Rep": "ann"}), 1),
        (json!({"sales_rep": "Bob, Ann"}), 1),
        (json!({"Sales Rep": "Bob"}), 0),
        (json!({"Sales Rep": "@exists"}), 1),
        (json!({"Sales Rep": "@not_exists"}), 0),
    ] {
        let l = m
            .tool("list_containers", json!({"custom_fields": fields}))
            .await;
        assert_eq!(total(&l), want, "{fields}: {l}");
        if want == 1 {
            assert_eq!(
                l["structuredContent"]["_metadata"]["custom_fields"][0]["api_slug"], "sales_rep",
                "{l}"
            );
        }
    }
    let counted = m
        .tool(
            "summarize_containers",
            json!({"group_by": "current_status", "advanced_filters": {"custom_fields": {"Sales Rep": "Bob"}}}),
        )
        .await;
    assert_eq!(counted["structuredContent"]["total"], 0, "{counted}");
    for (fields, says) in [
        (json!({"Weight": "3"}), "only text and option fields filter"),
        (json!({"Nope": "x"}), "Sales Rep (sales_rep)"),
    ] {
        let l = m
            .tool("list_containers", json!({"custom_fields": fields}))
            .await;
        assert_eq!(l["isError"], true, "{l}");
        assert!(
            l["content"][0]["text"].as_str().unwrap().contains(says),
            "{fields}: {l}"
        );
    }
    // parties by role: boxtrack records the customer, and says so for the other roles
    let shipper = m
        .tool(
            "list_containers",
            json!({"parties": {"shipper": "0190d0b8-0000-7000-8000-000000000000"}}),
        )
        .await;
    assert_eq!(shipper["isError"], true, "{shipper}");
    assert!(
        shipper["content"][0]["text"]
            .as_str()
            .unwrap()
            .contains("parties.customer"),
        "{shipper}"
    );
    let no_customer = m
        .tool(
            "list_containers",
            json!({"advanced_filters": {"parties": {"customer": "@not_exists"}}}),
        )
        .await;
    assert_eq!(total(&no_customer), 1, "{no_customer}");
    // shipment tags: any of them, or all with tags_and
    boxtrack_store::tracking::update_shipment(
        &app.db,
        account.id,
        shipment,
        None,
        Some(vec!["hot".into(), "q4".into()]),
    )
    .await
    .unwrap();
    for (args, want) in [
        (json!({"tags": "hot"}), 1),
        (json!({"tags": "cold,q4"}), 1),
        (json!({"tags": ["cold", "q4"], "tags_and": true}), 0),
        (json!({"tag": ["hot", "q4"], "tags_and": true}), 1),
        (json!({"tags": "ho"}), 0),
    ] {
        for tool in ["list_containers", "list_shipments"] {
            let l = m.tool(tool, args.clone()).await;
            assert_eq!(total(&l), want, "{tool} {args}: {l}");
        }
    }
    let lonely = m.tool("list_containers", json!({"tags_and": true})).await;
    assert_eq!(lonely["isError"], true, "{lonely}");
    let ships = m
        .tool("list_shipments", json!({"include_containers": true}))
        .await;
    assert_eq!(
        ships["structuredContent"]["items"][0]["containers"][0]["id"], cid,
        "{ships}"
    );
    let me = m.tool("whoami", json!({})).await;
    let w = &me["structuredContent"];
    assert_eq!(w["kind"], "api_key", "{me}");
    assert_eq!(w["account"]["plan"], "standard", "{me}");
    assert!(
        w["account"]["tracking_slots"].is_null(),
        "no limit on the plan: {me}"
    );
    assert_eq!(w["features"]["routing"]["status"], "enabled", "{me}");
    assert_eq!(w["features"]["rail_lfd"]["status"], "not_enabled", "{me}");
    for name in ["Acme Imports", "Big Acme Co", "Globex"] {
        boxtrack_store::parties::create(&app.db, account.id, name)
            .await
            .unwrap();
    }
    let found = m
        .tool("list_parties", json!({"search": "acme", "limit": 1}))
        .await;
    let p = &found["structuredContent"];
    assert_eq!(p["total_matched"], 2, "{found}");
    assert_eq!(
        p["parties"][0]["name"], "Acme Imports",
        "the name's start ranks first: {found}"
    );
    assert_eq!(p["next_page"], 2, "{found}");
    let acme = p["parties"][0]["id"].as_str().unwrap().to_string();
    let theirs = m
        .tool("list_containers", json!({"customer_id": acme}))
        .await;
    assert_eq!(theirs["structuredContent"]["meta"]["total"], 0, "{theirs}");
    let by_status = m
        .tool(
            "summarize_containers",
            json!({"group_by": "current_status"}),
        )
        .await;
    let sum = &by_status["structuredContent"];
    assert_eq!(
        (sum["total"].as_u64(), sum["counted"].as_u64()),
        (Some(1), Some(1)),
        "{by_status}"
    );
    assert_eq!(sum["groups"][0]["count"], 1, "{by_status}");
    assert_eq!(sum["truncated"], false, "{by_status}");
    assert_eq!(
        sum["applied_filters"]["actively_tracked"], true,
        "{by_status}"
    );
    let by_hold = m
        .tool(
            "summarize_containers",
            json!({"group_by": "hold_type", "carrier": "TEST"}),
        )
        .await;
    assert_eq!(
        by_hold["structuredContent"]["groups"][0]["key"], "no hold",
        "{by_hold}"
    );
    let docs = m
        .tool("search_docs", json!({"query": "rate limits", "limit": 2}))
        .await;
    assert!(
        (1..=2).contains(&docs["structuredContent"]["total_results"].as_u64().unwrap()),
        "{docs}"
    );
    let odd = m
        .tool("summarize_containers", json!({"group_by": "colour"}))
        .await;
    assert_eq!(odd["isError"], true, "{odd}");
    let ready = m.tool("get_container_readiness", json!({"id": cid})).await;
    assert!(
        ready["structuredContent"]["ready_for_pickup"].is_boolean(),
        "{ready}"
    );

    let stopped = m
        .tool("stop_tracking", json!({"shipment_id": shipment_id}))
        .await;
    assert_eq!(stopped["isError"], false, "{stopped}");
    let resumed = m
        .tool("resume_tracking", json!({"shipment_id": shipment_id}))
        .await;
    assert_eq!(resumed["isError"], false, "{resumed}");

    // an already tracked container comes back as is; a new number starts tracking
    let again = m.tool("track_container", json!({"number": number})).await;
    assert_eq!(
        again["structuredContent"]["tracking_request_created"], false,
        "{again}"
    );
    let new = m
        .tool(
            "track_container",
            json!({"number": "TEST-SCN-IMPORT", "numberType": "bill_of_lading", "scac": "TEST"}),
        )
        .await;
    assert_eq!(
        new["structuredContent"]["tracking_request_created"], true,
        "{new}"
    );

    // webhooks
    let hook = m.tool("create_webhook", json!({"url": "https://hooks.example.com/boxtrack", "events": ["container.transport.vessel_arrived"]})).await;
    assert_eq!(hook["isError"], false, "{hook}");
    assert!(
        hook["structuredContent"]["secret"]
            .as_str()
            .unwrap()
            .starts_with("whsec_"),
        "{hook}"
    );
    let hooks = m.tool("list_webhooks", json!({})).await;
    assert_eq!(
        hooks["structuredContent"]["items"]
            .as_array()
            .unwrap()
            .len(),
        1
    );

    // failures: entitlement, bad arguments, unknown tool, another account's data
    let refresh = m.tool("refresh_container", json!({"id": cid})).await;
    assert_eq!(refresh["isError"], true);
    assert!(
        refresh["content"][0]["text"]
            .as_str()
            .unwrap()
            .contains("container_refresh"),
        "{refresh}"
    );
    let bad = m.tool("get_container", json!({"id": "not-a-uuid"})).await;
    assert_eq!(bad["isError"], true);
    assert!(
        bad["content"][0]["text"].as_str().unwrap().contains("UUID"),
        "{bad}"
    );
    let missing = m.tool("search_container", json!({})).await;
    assert_eq!(missing["isError"], true);
    assert_eq!(
        m.rpc("tools/call", json!({"name": "rm_rf", "arguments": {}}))
            .await["error"]["code"],
        -32602
    );
    let other = Mcp {
        app: &app,
        key: other_key,
        next: 100.into(),
    };
    let theirs = other.tool("get_container", json!({"id": cid})).await;
    assert_eq!(theirs["isError"], true, "{theirs}");
    let no_route = other.tool("get_container_route", json!({"id": cid})).await;
    assert!(
        no_route["content"][0]["text"]
            .as_str()
            .unwrap()
            .contains("routing"),
        "{no_route}"
    );
}

#[tokio::test]
async fn prompts_completion_and_resources() {
    let (app, key, _, container) = setup().await;
    let m = Mcp {
        app: &app,
        key,
        next: 1.into(),
    };
    let prompts = m.rpc("prompts/list", json!({})).await["result"]["prompts"].clone();
    assert_eq!(prompts.as_array().unwrap().len(), 3);
    let p = m.rpc("prompts/get", json!({"name": "track-shipment", "arguments": {"container_number": "MSCU1234566", "carrier": "MSCU"}})).await;
    let text = p["result"]["messages"][0]["content"]["text"]
        .as_str()
        .unwrap();
    assert!(
        text.contains("MSCU1234566") && text.contains("MSCU"),
        "{text}"
    );
    let bad = m
        .rpc(
            "prompts/get",
            json!({"name": "check-demurrage", "arguments": {"container_id": "x"}}),
        )
        .await;
    assert_eq!(bad["error"]["code"], -32602);
    let done = m.rpc("completion/complete", json!({"ref": {"type": "ref/prompt", "name": "track-shipment"}, "argument": {"name": "carrier", "value": "maer"}})).await;
    assert!(
        done["result"]["completion"]["values"]
            .as_array()
            .unwrap()
            .contains(&json!("MAEU")),
        "{done}"
    );

    let list = m.rpc("resources/list", json!({})).await;
    assert_eq!(
        list["result"]["resources"][0]["uri"],
        "boxtrack://docs/milestone-glossary"
    );
    let templates = m.rpc("resources/templates/list", json!({})).await;
    assert_eq!(
        templates["result"]["resourceTemplates"][0]["uriTemplate"],
        "boxtrack://container/{id}"
    );
    let g = m
        .rpc(
            "resources/read",
            json!({"uri": "boxtrack://docs/milestone-glossary"}),
        )
        .await;
    assert!(
        g["result"]["contents"][0]["text"]
            .as_str()
            .unwrap()
            .contains("vessel_discharged")
    );
    let id = container["id"].as_str().unwrap();
    let c = m
        .rpc(
            "resources/read",
            json!({"uri": format!("boxtrack://container/{id}")}),
        )
        .await;
    let text = c["result"]["contents"][0]["text"].as_str().unwrap();
    assert!(text.starts_with("# Container "), "{c}");
    assert!(
        text.contains("## Demurrage & Fees") && text.contains("**Last Free Day (LFD):**"),
        "{text}"
    );
    // the reference server's spellings are the same resources
    let same = m
        .rpc(
            "resources/read",
            json!({"uri": format!("terminal49://container/{id}")}),
        )
        .await;
    assert_eq!(same["result"]["contents"][0]["text"], text);
    let guide = m
        .rpc(
            "resources/read",
            json!({"uri": "t49:docs/mcp-query-guidance"}),
        )
        .await;
    assert!(
        guide["result"]["contents"][0]["text"]
            .as_str()
            .unwrap()
            .contains("Intent"),
        "{guide}"
    );
    let demurrage = m
        .rpc(
            "prompts/get",
            json!({"name": "check-demurrage", "arguments": {"container_id": id}}),
        )
        .await;
    assert!(
        demurrage["result"]["messages"][0]["content"]["text"]
            .as_str()
            .unwrap()
            .starts_with(&format!(
                "Analyze demurrage risk for container {id}. Check:"
            )),
        "{demurrage}"
    );
    let none = m
        .rpc("resources/read", json!({"uri": "boxtrack://nothing"}))
        .await;
    assert_eq!(none["error"]["code"], -32002);
}

/// The official Rust SDK's client (rmcp) against the server: handshake, every tool listed and
/// called, account isolation and entitlements.
#[tokio::test]
async fn the_rmcp_client_lists_and_calls_every_tool() {
    use rmcp::ServiceExt;
    use rmcp::model::CallToolRequestParams;
    use rmcp::transport::StreamableHttpClientTransport;
    // reqwest 0.13 is built without a crypto provider in this tree (object_store's TLS uses
    // ring, installed by the binary at start): a process that builds its clients installs one
    let _ = rustls::crypto::ring::default_provider().install_default();
    use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;

    let (app, key, other_key, container) = setup().await;
    let connect = |key: String| {
        let mut headers = std::collections::HashMap::new();
        headers.insert(
            axum::http::header::AUTHORIZATION,
            axum::http::HeaderValue::from_str(&format!("Token {key}")).unwrap(),
        );
        let cfg =
            StreamableHttpClientTransportConfig::with_uri(app.url("/mcp")).custom_headers(headers);
        ().serve(StreamableHttpClientTransport::from_config(cfg))
    };
    let client = connect(key.clone()).await.unwrap();
    let info = client.peer_info().unwrap();
    assert_eq!(info.server_info.as_ref().unwrap().name, "boxtrack");
    let tools = client.list_all_tools().await.unwrap();
    assert_eq!(tools.len(), 22);
    let call = |name: &'static str, args: Value| {
        let params = CallToolRequestParams::new(name)
            .with_arguments(args.as_object().cloned().unwrap_or_default());
        client.call_tool(params)
    };
    let cid = container["id"].as_str().unwrap().to_string();
    let number = container["attributes"]["number"]
        .as_str()
        .unwrap()
        .to_string();
    let c = call("get_container", json!({"id": cid})).await.unwrap();
    assert_eq!(c.is_error, Some(false));
    let shipment_id = c.structured_content.as_ref().unwrap()["shipment"]["id"]
        .as_str()
        .unwrap()
        .to_string();
    // every tool, with arguments that work for this account
    let calls: Vec<(&'static str, Value)> = vec![
        ("whoami", json!({})),
        ("list_parties", json!({"search": "acme"})),
        ("summarize_containers", json!({"group_by": "pod_terminal"})),
        ("search_docs", json!({"query": "webhook signature"})),
        ("search_container", json!({"query": number})),
        ("get_container", json!({"id": cid})),
        ("get_shipment_details", json!({"id": shipment_id})),
        ("get_container_transport_events", json!({"id": cid})),
        ("get_supported_shipping_lines", json!({"search": "cma"})),
        ("get_container_route", json!({"id": cid})),
        ("list_shipments", json!({})),
        ("list_containers", json!({"page": 1, "page_size": 10})),
        ("list_tracking_requests", json!({})),
        ("get_container_readiness", json!({"id": cid})),
        ("get_demurrage_exposure", json!({})),
        (
            "enter_container_facts",
            json!({"id": cid, "clear": ["pickup_lfd"]}),
        ),
        ("stop_tracking", json!({"shipment_id": shipment_id})),
        ("resume_tracking", json!({"shipment_id": shipment_id})),
        ("list_webhooks", json!({})),
        (
            "create_webhook",
            json!({"url": "https://hooks.example.com/x"}),
        ),
        (
            "track_container",
            json!({"number": "TEST-TR-FAILED", "numberType": "bill_of_lading", "scac": "TEST"}),
        ),
    ];
    for (name, args) in calls {
        let r = call(name, args).await.unwrap();
        assert_eq!(r.is_error, Some(false), "{name}: {:?}", r.content);
        assert!(r.structured_content.is_some(), "{name}");
    }
    // refresh needs an entitlement this account lacks: an isError result naming it
    let r = call("refresh_container", json!({"id": cid})).await.unwrap();
    assert_eq!(r.is_error, Some(true));
    // what a person knows: entered, shown over the sources; a time that is none refused
    let r = call(
        "enter_container_facts",
        json!({"id": cid, "pickup_appointment_at": "2099-01-01T08:00:00Z"}),
    )
    .await
    .unwrap();
    assert_eq!(r.is_error, Some(false), "{:?}", r.content);
    assert_eq!(
        r.structured_content.unwrap()["pickup_appointment_at"],
        "2099-01-01T08:00:00Z"
    );
    // recorded as entered by the key's hint, through MCP
    let account = app.account_of(&key).await;
    let cid_uuid: uuid::Uuid = cid.parse().unwrap();
    let entries = boxtrack_app::entries::history(&app.front.ctx, account.id, cid_uuid)
        .await
        .unwrap();
    let by = &entries[0].entered_by;
    assert!(
        by.starts_with("API key ") && by.ends_with(" via MCP"),
        "{by}"
    );
    let r = call(
        "enter_container_facts",
        json!({"id": cid, "pickup_lfd": "Friday"}),
    )
    .await
    .unwrap();
    assert_eq!(r.is_error, Some(true));
    // another account sees nothing of this one, and has no routing entitlement
    let other = connect(other_key).await.unwrap();
    let theirs = other
        .call_tool(
            CallToolRequestParams::new("get_container")
                .with_arguments(json!({"id": cid}).as_object().cloned().unwrap()),
        )
        .await
        .unwrap();
    assert_eq!(theirs.is_error, Some(true));
    let found = other
        .call_tool(
            CallToolRequestParams::new("search_container")
                .with_arguments(json!({"query": number}).as_object().cloned().unwrap()),
        )
        .await
        .unwrap();
    assert_eq!(found.structured_content.unwrap()["total_results"], 0);
    client.cancel().await.unwrap();
    other.cancel().await.unwrap();
}

/// Tools on the read layer count against the account's REST rate limits, and a refused call
/// is a tool error that says when to call again, never a protocol error.
#[tokio::test]
async fn the_tools_keep_the_account_s_rate_limits() {
    use boxtrack_core::ratelimit::Bucket;
    let app = TestApp::spawn().await;
    let (_, key) = app
        .account_with(
            Plan::Standard,
            &[],
            Limits([(Bucket::Default, 2)].into_iter().collect()),
        )
        .await;
    let m = Mcp {
        app: &app,
        key,
        next: 1.into(),
    };
    for _ in 0..2 {
        let ok = m.tool("whoami", json!({})).await;
        assert_eq!(ok["isError"], false, "{ok}");
    }
    let refused = m.tool("search_container", json!({"query": "MSCU"})).await;
    assert_eq!(refused["isError"], true, "{refused}");
    let text = refused["content"][0]["text"].as_str().unwrap();
    assert!(
        text.contains("rate limit of 2 requests a minute") && text.contains("Wait"),
        "{text}"
    );
}

/// `boxtrack mcp --stdio` answers each line with `boxtrack_mcp::dispatch` (the binary's test
/// covers the line handling): for the same account and data, dispatch gives every tool's
/// answer exactly as `POST /mcp` does.
#[tokio::test]
async fn stdio_and_http_give_the_same_answers() {
    let app = TestApp::spawn().await;
    let (account, key) = app
        .account_with(Plan::Standard, &[Entitlement::Routing], Limits::default())
        .await;
    app.track(&key, "TEST-SCN-IMPORT", "bill_of_lading", "TEST")
        .await;
    app.process().await;
    let container = app.containers(&key).await[0].clone();
    let cid = container["id"].as_str().unwrap().to_string();
    let number = container["attributes"]["number"]
        .as_str()
        .unwrap()
        .to_string();
    let m = Mcp {
        app: &app,
        key,
        next: 1.into(),
    };
    let state = boxtrack_http::Front::new(
        boxtrack_app::Ctx::new(app.db.clone()),
        boxtrack_http::ApiConfig::default(),
        boxtrack_http::Limiter::memory(),
    );
    let shipment =
        m.tool("get_container", json!({"id": cid})).await["structuredContent"]["shipment"]["id"]
            .clone();
    for (name, args) in [
        (
            "get_container",
            json!({"id": cid, "include": ["transport_events"]}),
        ),
        ("get_shipment_details", json!({"id": shipment})),
        ("get_container_transport_events", json!({"id": cid})),
        ("get_container_route", json!({"id": cid})),
        ("search_container", json!({"query": number})),
        ("list_containers", json!({})),
        (
            "summarize_containers",
            json!({"group_by": "current_status"}),
        ),
        ("whoami", json!({})),
    ] {
        let over_http = m.tool(name, args.clone()).await;
        let msg = json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {"name": name, "arguments": args}});
        let over_stdio = boxtrack_mcp::dispatch(
            &state,
            &account,
            boxtrack_mcp::tools::Credential::ApiKey(uuid::Uuid::nil()),
            &msg,
        )
        .await
        .unwrap();
        assert_eq!(
            over_stdio["result"]["structuredContent"], over_http["structuredContent"],
            "{name}"
        );
        assert_eq!(over_stdio["result"]["isError"], false, "{name}");
    }
}

/// The text blocks of a tool result that parse as JSON, and the steering block among them.
fn blocks(result: &Value) -> (Vec<Value>, Option<(Value, Value)>) {
    let mut json_blocks = Vec::new();
    let mut steering = None;
    for b in result["content"].as_array().unwrap() {
        if b["type"] != "text" {
            continue;
        }
        if let Ok(v) = serde_json::from_str::<Value>(b["text"].as_str().unwrap()) {
            if v["_agent_steering"] == true {
                steering = Some((v, b["annotations"].clone()));
            } else {
                json_blocks.push(v);
            }
        }
    }
    (json_blocks, steering)
}

/// What the reference's clients and its eval suite check of every answer: the answer as a
/// JSON block, an assistant-only steering block that names what to do next, and the response
/// contract in the structured content; list answers say what they are (display, whether the
/// total is exact, unscoped or empty) and link their containers; argument errors are input
/// validation errors naming the argument; a feature the account lacks is a soft answer.
#[tokio::test]
async fn every_answer_carries_its_contract_and_steering() {
    let (app, key, other_key, container) = setup().await;
    let m = Mcp {
        app: &app,
        key,
        next: 1.into(),
    };
    let cid = container["id"].as_str().unwrap().to_string();
    let number = container["attributes"]["number"]
        .as_str()
        .unwrap()
        .to_string();
    let ships = m
        .tool("list_shipments", json!({"include_containers": true}))
        .await;
    let sid = ships["structuredContent"]["items"][0]["id"]
        .as_str()
        .unwrap()
        .to_string();
    assert_eq!(
        ships["structuredContent"]["items"][0]["containers"][0]["id"], cid,
        "{ships}"
    );
    let calls = [
        ("list_shipments", json!({"page_size": 5})),
        ("list_containers", json!({"page_size": 5})),
        ("list_tracking_requests", json!({"page_size": 5})),
        ("get_supported_shipping_lines", json!({})),
        ("get_container", json!({"id": cid})),
        (
            "get_shipment_details",
            json!({"id": sid, "include_containers": true}),
        ),
        ("get_container_transport_events", json!({"id": cid})),
        ("get_container_route", json!({"id": cid})),
        ("search_container", json!({"query": number})),
        ("search_container", json!({"query": "ZZZZ0000000ZZZZ"})),
        ("track_container", json!({"number": number})),
        ("get_container_readiness", json!({"id": cid})),
        ("get_demurrage_exposure", json!({})),
        (
            "enter_container_facts",
            json!({"id": cid, "clear": ["pickup_lfd"]}),
        ),
        ("whoami", json!({})),
        (
            "summarize_containers",
            json!({"group_by": "current_status"}),
        ),
        ("list_parties", json!({})),
        ("search_docs", json!({"query": "rate limits"})),
        ("stop_tracking", json!({"shipment_id": sid})),
        ("resume_tracking", json!({"shipment_id": sid})),
        (
            "create_webhook",
            json!({"url": "https://hooks.example.com/contract", "events": ["container.updated"]}),
        ),
        ("list_webhooks", json!({})),
    ];
    for (name, args) in &calls {
        let (name, args) = (*name, args.clone());
        let r = m.tool(name, args.clone()).await;
        assert_eq!(r["isError"], false, "{name} {args}: {r}");
        let (json_blocks, steering) = blocks(&r);
        assert!(!json_blocks.is_empty(), "{name}: no JSON answer block: {r}");
        let (steer, annotations) = steering.unwrap_or_else(|| panic!("{name}: no steering"));
        assert_eq!(annotations["audience"], json!(["assistant"]), "{name}");
        assert!(
            steer["suggested_tools"]
                .as_array()
                .is_some_and(|t| !t.is_empty())
                && steer["suggested_follow_ups"].is_array(),
            "{name}: {steer}"
        );
        let c = &r["structuredContent"]["_response_contract"];
        for key in ["purpose", "presentation_guidance"] {
            assert!(
                c[key].as_str().is_some_and(|s| !s.is_empty()),
                "{name}: {c}"
            );
        }
        for key in [
            "can_answer",
            "requires_more_data",
            "relevant_fields",
            "suggested_follow_ups",
            "suggested_tools",
        ] {
            assert!(c[key].is_array(), "{name}: {key} in {c}");
        }
        // the answer block is the structured content without its contract
        let mut data = r["structuredContent"].clone();
        data.as_object_mut().unwrap().remove("_response_contract");
        assert!(
            json_blocks.contains(&data),
            "{name}: the answer block is not the answer"
        );
        if [
            "list_shipments",
            "list_containers",
            "list_tracking_requests",
        ]
        .contains(&name)
        {
            assert!(c["display"]["column_catalog_resource"].is_string(), "{c}");
            assert!(c["total_is_reliable"].is_boolean(), "{c}");
            assert!(
                c["presentation_guidance"]
                    .as_str()
                    .unwrap()
                    .contains("unscoped"),
                "an unfiltered list says so: {c}"
            );
        }
    }
    // every declared tool but refresh_container (it needs an entitlement this account lacks:
    // a tool error, checked in `every_tool_is_declared_and_callable`) answered above
    let listed = m.rpc("tools/list", json!({})).await["result"]["tools"].clone();
    for t in listed.as_array().unwrap() {
        let name = t["name"].as_str().unwrap();
        assert!(
            name == "refresh_container" || calls.iter().any(|(n, _)| *n == name),
            "{name} has no contract check"
        );
    }
    // the eval's particular checks
    let requests = m.tool("list_tracking_requests", json!({})).await;
    let row = &requests["structuredContent"]["items"][0];
    assert!(
        row["requestType"].is_string() && row["status"].is_string(),
        "{row}"
    );
    let lines =
        m.tool("get_supported_shipping_lines", json!({})).await["structuredContent"].clone();
    assert_eq!(
        lines["total_lines"].as_u64(),
        lines["shipping_lines"].as_array().map(|a| a.len() as u64)
    );
    let found = m.tool("search_container", json!({"query": number})).await;
    assert!(
        found["structuredContent"]["containers"]
            .as_array()
            .unwrap()
            .iter()
            .any(|c| c["container_number"] == number.as_str()),
        "{found}"
    );
    let nothing = m
        .tool("search_container", json!({"query": "ZZZZ0000000ZZZZ"}))
        .await;
    assert_eq!(nothing["structuredContent"]["total_results"], 0);
    let again = m.tool("track_container", json!({"number": number})).await;
    assert_eq!(
        again["structuredContent"]["tracking_request_created"],
        false
    );
    assert!(again["structuredContent"]["id"].is_string(), "{again}");

    // a list's containers are linked, and the links (and the reference's spelling) resolve
    let listed = m.tool("list_containers", json!({})).await;
    let links: Vec<&Value> = listed["content"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|b| b["type"] == "resource_link")
        .collect();
    assert_eq!(
        links.len(),
        listed["structuredContent"]["items"]
            .as_array()
            .unwrap()
            .len()
    );
    assert_eq!(links[0]["uri"], format!("boxtrack://container/{cid}"));
    assert_eq!(links[0]["name"], format!("Container {number}"));
    for uri in [
        format!("boxtrack://container/{cid}"),
        format!("terminal49://container/{cid}"),
    ] {
        let read = m.rpc("resources/read", json!({"uri": uri})).await;
        assert!(
            read["result"]["contents"][0]["text"]
                .as_str()
                .is_some_and(|t| t.contains(&number)),
            "{read}"
        );
    }
    // a filter that matches nothing: the guidance says what to try instead
    let none = m
        .tool(
            "list_containers",
            json!({"status": "empty_returned", "carrier": "ZZZZ"}),
        )
        .await;
    let guidance = none["structuredContent"]["_response_contract"]["presentation_guidance"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        guidance.contains("No containers match") && !guidance.contains("unscoped"),
        "{guidance}"
    );

    // argument problems are input validation errors that name the argument; unknown ids
    // are tool errors
    let missing = m.tool("get_container", json!({})).await;
    assert_eq!(missing["isError"], true);
    let text = missing["content"][0]["text"].as_str().unwrap();
    assert!(
        text.starts_with("Input validation error: Invalid arguments for tool get_container:")
            && text.contains("argument id"),
        "{text}"
    );
    let unknown = m
        .tool(
            "get_container",
            json!({"id": "00000000-0000-0000-0000-000000000000"}),
        )
        .await;
    assert_eq!(unknown["isError"], true, "{unknown}");

    // the route with the entitlement, and a soft answer without it (nothing of it leaks)
    let route = m.tool("get_container_route", json!({"id": cid})).await;
    assert!(
        route["structuredContent"]["route_locations"].is_array(),
        "{route}"
    );
    let (_, plain) = app
        .account_with(Plan::Standard, &[], Limits::default())
        .await;
    let p = Mcp {
        app: &app,
        key: plain,
        next: 1.into(),
    };
    let soft = p.tool("get_container_route", json!({"id": cid})).await;
    assert_eq!(soft["isError"], false, "{soft}");
    let s = &soft["structuredContent"];
    assert_eq!(s["error"], "FeatureNotEnabled", "{soft}");
    assert!(
        s["alternative"]
            .as_str()
            .is_some_and(|a| a.contains("get_container_transport_events"))
    );
    assert!(s.get("route_locations").is_none(), "{soft}");
    let _ = other_key;
}

/// Requests the served document calls invalid are refused: one JSON-RPC message is an object
/// with an integer or string id; a client registration's redirect URIs are strings; the
/// authorization server's metadata ignores query parameters it does not know (RFC 6749 §3.1).
#[tokio::test]
async fn requests_the_document_calls_invalid_are_refused() {
    let app = TestApp::spawn().await;
    let (_, key) = app.account().await;
    // a message as sent, byte for byte (some of these are not JSON a `Value` keeps)
    let post = |body: &'static str| {
        app.send(
            app.client
                .post(app.url("/mcp"))
                .header("Authorization", format!("Token {key}"))
                .header("Content-Type", "application/json")
                .header("Accept", "application/json, text/event-stream")
                .body(body),
        )
    };
    // one JSON-RPC message is an object: anything else is refused, not taken as a notification
    for body in [
        r#""AAA""#,
        r#"{"jsonrpc": "2.0", "method": "ping", "id": true}"#,
        r#"{"jsonrpc": "2.0", "method": "ping", "params": "x"}"#,
        r#"{"jsonrpc": "2.0", "method": "ping", "id": 1.5}"#,
        r#"{"jsonrpc": "2.0", "method": "ping", "id": 9.3e18}"#,
        // below i64::MIN: read as the float -2^63, still refused (schemathesis, CI)
        r#"{"jsonrpc": "2.0", "method": "ping", "id": -9223372036854775809}"#,
    ] {
        let r = post(body).await;
        assert_eq!(r.status, 400, "{body}: {}", r.text);
        assert_eq!(r.json()["error"]["code"], -32600, "{body}");
    }
    // ...while a whole number is an integer however it is written, and answered as one
    for (body, id) in [
        (
            r#"{"jsonrpc": "2.0", "method": "ping", "id": 4.5e16}"#,
            45_000_000_000_000_000_i64,
        ),
        (r#"{"jsonrpc": "2.0", "method": "ping", "id": -7.0}"#, -7),
    ] {
        let r = post(body).await;
        assert_eq!(r.status, 200, "{body}: {}", r.text);
        assert_eq!(r.json()["id"], id, "{body}");
    }

    // a client registration with a redirect URI that is not a string is refused whole
    let r = app
        .send(
            app.client
                .post(app.url("/oauth/register"))
                .header("Content-Type", "application/json")
                .body(r#"{"redirect_uris": ["https://client.example/cb", 5]}"#),
        )
        .await;
    assert_eq!(r.status, 400, "{}", r.text);
    let r = app
        .send(
            app.client
                .get(app.url("/.well-known/oauth-authorization-server?x=1")),
        )
        .await;
    assert_eq!(r.status, 200, "{}", r.text);
}

/// The operations MCP adds to the served document, each with its route: GET and DELETE
/// `/mcp` answer 405 (no sessions, no stream), which POST's description says; they are not
/// operations.
#[test]
fn the_mount_documents_each_of_its_operations() {
    let mut documented: Vec<(String, String)> = boxtrack_mcp::mount()
        .operations()
        .into_iter()
        .map(|o| (o.method.to_uppercase(), o.path.to_string()))
        .collect();
    documented.sort();
    let mut expected: Vec<(String, String)> = [
        ("POST", "/mcp"),
        ("GET", "/.well-known/oauth-protected-resource"),
        ("GET", "/.well-known/oauth-protected-resource/mcp"),
        ("GET", "/.well-known/oauth-authorization-server"),
        ("POST", "/oauth/register"),
        ("GET", "/oauth/authorize"),
        ("POST", "/oauth/authorize"),
        ("POST", "/oauth/token"),
    ]
    .into_iter()
    .map(|(m, p)| (m.to_string(), p.to_string()))
    .collect();
    expected.sort();
    assert_eq!(documented, expected);
}

#[tokio::test]
async fn a_container_answer_carries_its_charges_and_a_tool_sums_the_exposure() {
    let app = TestApp::spawn().await;
    let (account, key) = app.account().await;
    app.track(&key, "TEST-SCN-IMPORT", "bill_of_lading", "TEST")
        .await;
    app.tick_at(boxtrack_store::now_us()).await;
    let cid = app.containers(&key).await[0]["id"]
        .as_str()
        .unwrap()
        .to_string();
    let m = Mcp {
        app: &app,
        key,
        next: 1.into(),
    };
    // no tariff: no charges in the answer, nothing priced
    let c = m.tool("get_container", json!({"id": cid})).await;
    assert!(c["structuredContent"].get("charges").is_none(), "{c}");
    let e = m.tool("get_demurrage_exposure", json!({})).await;
    assert_eq!(e["structuredContent"]["boxes"], 1, "{e}");
    assert_eq!(e["structuredContent"]["priced"], 0, "{e}");

    let doc: boxtrack_core::charges::TariffDoc = serde_json::from_value(json!({
        "name": "Sandbox demurrage", "issuer": boxtrack_core::carriers::SANDBOX_SCAC,
        "kind": "demurrage", "ports": ["*"], "equipment": ["*"], "valid_from": "2020-01-01",
        "valid_to": null, "currency": "USD",
        "free_time": {"days": 4, "count": "calendar", "from": "discharged", "starts": "next_day"},
        "charges": {"count": "calendar"},
        "tiers": [{"from_day": 1, "to_day": null, "rate": "90.00"}],
        "source": {"url": "https://example.com/t", "retrieved": "2026-12-01"}
    }))
    .unwrap();
    boxtrack_app::charges::add_tariff(&app.front.ctx, Some(account.id), doc)
        .await
        .unwrap();
    // the journey has not reached its port yet: priced, nothing owed, no last free day
    let c = m.tool("get_container", json!({"id": cid})).await;
    let dem = &c["structuredContent"]["charges"]["charges"][0];
    assert_eq!(dem["kind"], "demurrage", "{c}");
    assert_eq!(dem["amount"], "0.00", "{c}");
    assert!(dem["last_free_day"].is_null(), "{c}");
    let e = m.tool("get_demurrage_exposure", json!({})).await;
    let s = &e["structuredContent"];
    assert_eq!(s["priced"], 1, "{e}");
    assert_eq!(
        s["totals"],
        json!([{"currency": "USD", "boxes": 1, "accrued": "0.00", "tomorrow_adds": "0.00"}]),
        "{e}"
    );
    assert_eq!(s["accruing_count"], 0, "{e}");
}
