//! The tools' declarations: names, titles, annotations, input and output schemas, and the
//! check of a call's arguments against them.

use serde_json::{Map, Value, json};

pub(super) const UUID_PATTERN: &str =
    "^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$";

pub(super) fn intent() -> Value {
    json!({"type": "string", "maxLength": 200, "description": "Why the tool is called (telemetry only)"})
}

pub(super) fn uuid(desc: &str) -> Value {
    json!({"type": "string", "format": "uuid", "pattern": UUID_PATTERN, "description": desc})
}

pub(super) fn paging(props: &mut Map<String, Value>) {
    props.insert(
        "page".into(),
        json!({"type": "integer", "minimum": 1, "description": "1-based page"}),
    );
    props.insert("page_size".into(), json!({"type": "integer", "minimum": 1, "description": "Rows per page (default 25, at most 100)"}));
}

pub(super) struct Def {
    name: &'static str,
    title: &'static str,
    description: &'static str,
    props: Map<String, Value>,
    required: &'static [&'static str],
    read_only: bool,
    idempotent: bool,
    output: Value,
}

pub(super) fn object(props: Value) -> Map<String, Value> {
    match props {
        Value::Object(mut m) => {
            m.insert("intent".into(), intent());
            m
        }
        _ => Map::new(),
    }
}

pub(super) fn passthrough() -> Value {
    json!({"type": "object", "additionalProperties": true})
}

pub(super) fn defs() -> Vec<Def> {
    let tracking = json!({
        "actively_tracked": {"type": "boolean", "description": "Only actively tracked records (true) or only stopped ones (false)"},
        "tracking_stopped": {"type": "boolean", "description": "Only stopped records (true) or only tracked ones (false)"},
        "include_stopped_tracking": {"type": "boolean", "default": false, "description": "Default false: only actively tracked records, as the dashboard shows. True: tracked and stopped ones, for history questions"},
        "updated_after": {"type": "string", "description": "Changed at or after this date (YYYY-MM-DD) or time (RFC 3339)"},
        "customer_id": {"type": "string", "format": "uuid", "pattern": UUID_PATTERN, "description": "Only those of this party (the customer on the tracking request); list_parties finds its id by name"},
        "advanced_filters": {"type": "object", "description": "The same filters, as the reference's clients send them; a filter goes here or at the top level, never both"},
        "updated_at": {"type": ["string", "array"], "items": {"type": "string"}, "description": "Changed on a day: YYYY-MM-DD, today, N.days.ago or N.days.from_now, optionally after =, <, <=, > or >=; a list of bounds that all hold, e.g. [\">=7.days.ago\", \"<today\"]. UTC days"}
    });
    let with = |mut base: Map<String, Value>, more: &Value| {
        if let Some(m) = more.as_object() {
            for (k, v) in m {
                base.insert(k.clone(), v.clone());
            }
        }
        base
    };
    let mut list_cont = with(
        object(json!({
            "number": {"type": "string", "maxLength": 64, "description": "One container number"},
            "current_status": {"type": "string", "description": format!("The container's status, or several separated by commas (any of them): {}", boxtrack_core::tracking::rules::ContainerStatus::ALL.iter().map(|c| c.as_str()).collect::<Vec<_>>().join(", "))},
            "status": {"type": "string", "description": "The same as current_status"},
            "pod_code": {"type": "string", "description": "Port of discharge (UN/LOCODE)"},
            "port": {"type": "string", "description": "The same as pod_code"},
            "shipping_line_scac": {"type": "string", "description": "The shipping line's SCAC"},
            "carrier": {"type": "string", "description": "The same as shipping_line_scac"},
            "has_holds": {"type": "boolean", "description": "With an active terminal hold (true) or without one (false)"},
            "ready_for_pickup": {"type": "boolean", "description": "Available and without active holds"},
            "pickup_lfd": {"type": ["string", "array"], "items": {"type": "string"}, "description": "Last free day bounds, as updated_at writes them, e.g. [\">=today\", \"<=3.days.from_now\"] for those due within three days (UTC days); or @exists / @not_exists"},
            "sort": {"type": "string", "enum": super::lists::CONTAINER_SORTS, "description": "Order; default -updated_at. pickup_lfd puts the soonest last free day first, those without one last"},
            "include": {"type": "array", "items": {"type": "string", "enum": ["shipment", "pod_terminal"]}, "description": "Accepted for the reference's clients: each row always carries its shipment and POD terminal in brief"}
        })),
        &tracking,
    );
    let date_bound = |what: &str| json!({"type": ["string", "array"], "items": {"type": "string"}, "description": format!("{what}: date bounds as updated_at writes them (UTC days), or @exists / @not_exists")});
    for (name, _, what) in super::lists::CONTAINER_DATE_FILTERS {
        list_cont.insert(name.into(), date_bound(what));
    }
    list_cont.insert("last_free_day_on".into(), json!({"type": "array", "items": {"type": "string", "format": "date"}, "minItems": 2, "maxItems": 2, "description": "Last free day from FROM to TO, both included: [\"YYYY-MM-DD\", \"YYYY-MM-DD\"]; pickup_lfd takes other bounds"}));
    list_cont.insert("parties".into(), json!({"type": "object", "properties": {"customer": {"type": "string", "description": "The customer's party id, @exists or @not_exists"}}, "description": format!("Parties keyed by role ({}). boxtrack records one party per tracking request, its customer; other roles are refused with a message", super::lists::PARTY_ROLES.join(", "))}));
    let tag_props = json!({
        "tags": {"type": ["string", "array"], "items": {"type": "string"}, "description": "Shipment tags: names separated by commas or a list; any of them unless tags_and"},
        "tag": {"type": ["string", "array"], "items": {"type": "string"}, "description": "The same as tags"},
        "tags_and": {"type": "boolean", "description": "With tags: every tag, not any"}
    });
    list_cont = with(list_cont, &tag_props);
    list_cont.insert("custom_fields".into(), json!({"type": "object", "additionalProperties": {"type": "string"}, "description": "Custom fields by display name or key, e.g. {\"Sales Rep\": \"Ann\"}: text fields match containers whose own or shipment value contains the text, option fields an option's value (case-insensitive); values separated by commas mean any of them; @exists / @not_exists test presence; different fields all hold. Only text and option fields filter"}));
    let code = |what: &str| json!({"type": ["string", "array"], "items": {"type": "string"}, "description": format!("{what}: exact, several separated by commas or a list (any of them); or @exists / @not_exists")});
    list_cont.insert("pol_code".into(), code("Port of lading (UN/LOCODE)"));
    list_cont.insert(
        "destination_code".into(),
        code("Inland destination (UN/LOCODE)"),
    );
    list_cont.insert(
        "vessel_name".into(),
        code("The vessel at the port of discharge, as the line names it"),
    );
    list_cont.insert("has_fees".into(), json!({"type": "boolean", "description": "With terminal fees (true) or with none reported (false)"}));
    list_cont.insert("has_fees_or_holds".into(), json!({"type": "boolean", "description": "With terminal fees or an active hold (true), or with neither (false)"}));
    let mut summary_props = list_cont.clone();
    for k in ["sort", "include"] {
        summary_props.remove(k);
    }
    summary_props.insert(
        "group_by".into(),
        json!({"type": "string", "enum": super::summary::GROUP_BY, "description": "Dimension to count by. Terminals and ports are labeled by name, shipping lines by SCAC; hold_type counts each active hold (a container with two holds counts twice); dates are the port's calendar days"}),
    );
    summary_props.insert(
        "max_rows".into(),
        json!({"type": "integer", "minimum": 1, "default": super::summary::DEFAULT_MAX_ROWS, "description": "Most containers to count (at most 6000); the answer says when the set was larger"}),
    );
    paging(&mut list_cont);
    let mut list_ship = with(
        object(json!({
            "number": {"type": "string", "maxLength": 64, "description": "One bill of lading or booking number"},
            "status": {"type": "string", "enum": ["tracked", "stopped"], "description": "Tracked or stopped"},
            "pod_code": {"type": "string", "description": "Port of discharge (UN/LOCODE)"},
            "port": {"type": "string", "description": "The same as pod_code"},
            "shipping_line_scac": {"type": "string", "description": "The shipping line's SCAC"},
            "carrier": {"type": "string", "description": "The same as shipping_line_scac"},
            "sort": {"type": "string", "enum": super::lists::SHIPMENT_SORTS, "description": "Order; default -updated_at"},
            "include_containers": {"type": "boolean", "default": false, "description": "Include each shipment's containers (id, number, status)"}
        })),
        &tracking,
    );
    for (name, _, what) in super::lists::SHIPMENT_DATE_FILTERS {
        list_ship.insert(name.into(), date_bound(what));
    }
    list_ship.insert("voyage_status".into(), json!({"type": "string", "enum": ["arrived", "on_ship"], "description": "arrived: the vessel has arrived at the port of discharge; on_ship: departed from the port of lading and not yet arrived"}));
    list_ship.insert("party_id".into(), json!({"type": "string", "description": "The customer's party id, @exists or @not_exists (the same as customer_id)"}));
    list_ship = with(list_ship, &tag_props);
    list_ship.insert("pol_code".into(), code("Port of lading (UN/LOCODE)"));
    paging(&mut list_ship);
    let mut list_tr = object(json!({
        "request_number": {"type": "string", "maxLength": 64, "description": "One tracking request number"},
        "status": {"type": "string", "enum": super::request_list::REQUEST_STATUSES, "description": "The request's status (succeeded is created)"},
        "scac": {"type": "string", "description": "The carrier's SCAC"},
        "request_type": {"type": "string", "enum": ["bill_of_lading", "booking_number", "container"]},
        "filters": {"type": "object", "additionalProperties": {"type": "string"}, "description": "Older spelling: filter[status], filter[scac], filter[request_number]"}
    }));
    paging(&mut list_tr);
    vec![
        Def {
            name: "whoami",
            title: "Who Am I",
            description: "Who is calling and for which account: the credential's kind (API key or signed-in user), the account's plan, its tracking slots (containers tracked against the plan's limit) and which features are enabled. Call it before questions about what the account can do.",
            props: object(json!({})),
            required: &[],
            read_only: true,
            idempotent: true,
            output: boxtrack_api::doc::schema_of::<super::account::WhoamiAnswer>(),
        },
        Def {
            name: "summarize_containers",
            title: "Summarize Containers",
            description: "Count containers grouped by POD terminal, status, shipping line, port of discharge, hold type, LFD date or arrival date, with the same filters as list_containers. Use it for \"how many\" and \"break down by\" questions; use list_containers for \"which ones\". Like the dashboard, only actively tracked containers are counted unless include_stopped_tracking is true. Report the total, and say so when truncated is true.",
            props: summary_props,
            required: &["group_by"],
            read_only: true,
            idempotent: true,
            output: boxtrack_api::doc::schema_of::<super::summary::SummaryAnswer>(),
        },
        Def {
            name: "search_docs",
            title: "Search boxtrack Docs",
            description: "Search boxtrack's own documentation (the README and docs/ of the version answering): the API guide, webhooks and their signatures, rate limits and errors, the last free day and polling rules, the console and embeds, this MCP server. Returns matching sections with their title, place and text. Use it for how-to and definition questions, not for account data, and cite the places in the answer.",
            props: object(json!({
                "query": {"type": "string", "minLength": 1, "maxLength": 256, "description": "A short documentation query, e.g. \"webhook signature\""},
                "limit": {"type": "integer", "minimum": 1, "default": super::search_docs::DEFAULT_LIMIT, "description": "Most sections to return, 1 to 10"}
            })),
            required: &["query"],
            read_only: true,
            idempotent: true,
            output: boxtrack_api::doc::schema_of::<super::search_docs::DocsAnswer>(),
        },
        Def {
            name: "list_parties",
            title: "List Parties",
            description: "Find the companies this account names on its tracking requests (customers) by name and return their ids, best match first (exact, then the start of the name, then a part of it; case and punctuation ignored). Use a party's id as customer_id in list_containers or list_shipments. When several match, ask the user which one.",
            props: object(json!({
                "search": {"type": "string", "minLength": 1, "maxLength": 100, "description": "A company name or part of one; leave out to list them alphabetically"},
                "limit": {"type": "integer", "minimum": 1, "default": 25, "description": "Parties per page, 1 to 50"},
                "page": {"type": "integer", "minimum": 1, "description": "1-based page"}
            })),
            required: &[],
            read_only: true,
            idempotent: true,
            output: boxtrack_api::doc::schema_of::<super::account::PartiesAnswer>(),
        },
        Def {
            name: "search_container",
            title: "Search Containers",
            description: "Search for containers and shipments by container number, booking number, bill of lading or reference number, exact matches first. Returns the account's own records; use get_container or get_shipment_details with a returned id for the details. Pass one identifier, never a message.",
            props: object(
                json!({"query": {"type": "string", "minLength": 1, "maxLength": 128, "description": "One container number, booking number, bill of lading number or customer reference (at most 128 characters); an identifier only, never a message"}}),
            ),
            required: &["query"],
            read_only: true,
            idempotent: true,
            output: boxtrack_api::doc::schema_of::<super::search::SearchAnswer>(),
        },
        Def {
            name: "track_container",
            title: "Track Container",
            description: "Track a container, bill of lading or booking number. Returns the container (get_container's answer) when the account tracks it already; otherwise infers the kind of number and the carrier when they are not given and creates a tracking request. If the new request is still pending, use list_tracking_requests or search_container a little later.",
            props: object(json!({
                "number": {"type": "string", "maxLength": 64, "description": "One container, bill of lading or booking number (at most 64 characters); an identifier only, never a message"},
                "numberType": {"type": "string", "description": "Optional override: container, bill_of_lading or booking_number (BL, B/L and BOOKING are read too); inferred when absent"},
                "containerNumber": {"type": "string", "description": "Deprecated alias of number"},
                "bookingNumber": {"type": "string", "description": "Deprecated alias of number with numberType booking_number"},
                "scac": {"type": "string", "maxLength": 4, "description": "Optional four-letter shipping-line SCAC (e.g. MAEU for Maersk); inferred when absent"},
                "refNumbers": {"type": "array", "items": {"type": "string"}}
            })),
            required: &[],
            read_only: false,
            idempotent: false,
            output: boxtrack_api::doc::schema_of::<super::track::TrackAnswer>(),
        },
        Def {
            name: "get_container",
            title: "Get Container Details",
            description: "Get container information with flexible data loading. Returns core container data (status, location, equipment, dates), the last free day with its urgency in the terminal's calendar, fees, holds and rail, plus optional shipment, terminal, transport-event or custom-field data. Transport events are summarized only; call get_container_transport_events for the complete milestone timeline.",
            props: object(json!({
                "id": uuid("The container's id (UUID)"),
                "include": {"type": "array", "items": {"type": "string", "enum": super::container::INCLUDES}, "default": ["shipment"],
                    "description": "Related data to include. Default ['shipment']; the shipment and the POD terminal are always loaded. transport_events: a summary (count, rail events, latest); custom_fields: the account's fields set on the container."}
            })),
            required: &["id"],
            read_only: true,
            idempotent: true,
            output: boxtrack_api::doc::schema_of::<super::container::ContainerAnswer>(),
        },
        Def {
            name: "get_shipment_details",
            title: "Get Shipment Details",
            description: "Get detailed shipment information including routing, bill of lading, containers and port details: the shipping line, ports with their terminals, ETAs and ATAs in their zones, the vessel at the port of discharge, and the container list. Use get_container with a returned container UUID for pickup availability, holds, fees and the last free day.",
            props: object(json!({
                "id": uuid("The shipment's id (UUID)"),
                "include_containers": {"type": "boolean", "default": true, "description": "Include the list of containers. Default: true"},
                "include_custom_fields": {"type": "boolean", "default": false, "description": "Include the account's custom fields set on the shipment. Default: false"}
            })),
            required: &["id"],
            read_only: true,
            idempotent: true,
            output: boxtrack_api::doc::schema_of::<super::shipment::ShipmentAnswer>(),
        },
        Def {
            name: "get_container_transport_events",
            title: "Get Container Transport Events",
            description: "Get the transport event timeline of a container: every milestone and move (vessel loaded, departed, arrived, discharged, rail moves, pickup), oldest first, with where each happened, counts by kind and the milestones reached, without loading the whole container.",
            props: object(json!({"id": uuid("Container id")})),
            required: &["id"],
            read_only: true,
            idempotent: true,
            output: boxtrack_api::doc::schema_of::<super::events::EventsAnswer>(),
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
            output: boxtrack_api::doc::schema_of::<super::route::LinesAnswer>(),
        },
        Def {
            name: "get_container_route",
            title: "Get Container Route",
            description: "The container's route, port by port, with arrivals and departures (needs the routing entitlement).",
            props: object(json!({"id": uuid("Container id")})),
            required: &["id"],
            read_only: true,
            idempotent: true,
            output: boxtrack_api::doc::schema_of::<super::route::RouteAnswer>(),
        },
        Def {
            name: "list_shipments",
            title: "List Shipments",
            description: "Return one requested page of shipments (at most 25), most recently updated first, filtered by number, port, carrier, tracking state or last change. Like the dashboard, only actively tracked shipments unless include_stopped_tracking is true. Report meta.total for the set; when _metadata.has_more, results are partial: ask for next_page with the same filters. Use get_shipment_details with a returned id for routing and containers.",
            props: list_ship,
            required: &[],
            read_only: true,
            idempotent: true,
            output: boxtrack_api::doc::schema_of::<
                super::lists::ListAnswer<super::lists::ShipmentRow>,
            >(),
        },
        Def {
            name: "list_containers",
            title: "List Containers",
            description: "Return one requested page of containers (at most 25), filtered by status, port, carrier, holds, readiness, tracking state or last change, in compact rows (empty holds or fees mean none reported). Like the dashboard, only actively tracked containers unless include_stopped_tracking is true. Report meta.total for the set; when _metadata.has_more, results are partial: ask for next_page with the same filters and sort. Use get_container with a returned id for a detailed snapshot.",
            props: list_cont,
            required: &[],
            read_only: true,
            idempotent: true,
            output: boxtrack_api::doc::schema_of::<
                super::lists::ListAnswer<super::lists::ContainerRow>,
            >(),
        },
        Def {
            name: "list_tracking_requests",
            title: "List Tracking Requests",
            description: "Return one requested page of tracking requests (at most 25), newest first, optionally filtered by request number, status, carrier or kind of number. For created requests, use search_container to find the tracked containers and shipments.",
            props: list_tr,
            required: &[],
            read_only: true,
            idempotent: true,
            output: boxtrack_api::doc::schema_of::<
                super::lists::ListAnswer<super::request_list::RequestRow>,
            >(),
        },
        Def {
            name: "stop_tracking",
            title: "Stop Tracking",
            description: "Stop tracking a shipment and its containers.",
            props: object(json!({"shipment_id": uuid("Shipment id")})),
            required: &["shipment_id"],
            read_only: false,
            idempotent: true,
            output: boxtrack_api::doc::schema_of::<super::shipment::ShipmentAnswer>(),
        },
        Def {
            name: "resume_tracking",
            title: "Resume Tracking",
            description: "Resume tracking a stopped shipment.",
            props: object(json!({"shipment_id": uuid("Shipment id")})),
            required: &["shipment_id"],
            read_only: false,
            idempotent: true,
            output: boxtrack_api::doc::schema_of::<super::shipment::ShipmentAnswer>(),
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
            output: boxtrack_api::doc::schema_of::<super::writes::WebhooksAnswer>(),
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
            output: boxtrack_api::doc::schema_of::<super::writes::CreatedWebhook>(),
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
                "holds": {"type": ["array", "null"], "description": "Active holds; null while no source has reported holds"},
                "fees": {"type": ["array", "null"], "description": "Fees (total lines left out); null while no source has reported fees"},
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
        .map(|mut d| {
            // MCP asks for an object schema at the root (an answer of several shapes is an
            // anyOf of objects)
            if d.output.get("type").is_none() {
                d.output["type"] = json!("object");
            }
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
                    // refreshing asks the carrier's and terminal's systems
                    "openWorldHint": d.name == "refresh_container"
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
            Some("object") => v.as_object().is_some_and(|o| {
                schema["additionalProperties"]["type"] != "string"
                    || o.values().all(Value::is_string)
            }),
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
