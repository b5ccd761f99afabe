//! The OpenAPI operations of the embeddable map and widget (`/embed/…`).

use boxtrack_api::doc::{Op, errors, operation};
use serde_json::{Value, json};

/// The widget's answer (`GET /embed/v1/track`).
fn track_schema() -> Value {
    let s = |d: &str| json!({"type": ["string", "null"], "description": d});
    let port = json!({"type": ["object", "null"], "required": ["locode", "name", "time_zone"], "properties": {
        "locode": {"type": "string"}, "name": {"type": ["string", "null"]}, "time_zone": {"type": ["string", "null"]}}});
    let milestone = json!({"type": "object", "required": ["event", "label", "at", "estimated", "location", "locode", "time_zone"], "properties": {
        "event": {"type": "string", "description": "The milestone without `container.transport.` (`vessel_loaded`, …)"},
        "label": {"type": "string"}, "at": s("ISO 8601, UTC"), "estimated": {"type": "boolean"},
        "location": s("The place's name"), "locode": s("UN/LOCODE"), "time_zone": s("IANA zone of the place")}});
    let container = json!({"type": "object", "required": ["id", "number", "status", "status_label", "pickup_lfd", "ready_for_pickup", "holds", "milestones"], "properties": {
        "id": {"type": "string", "format": "uuid"}, "number": {"type": "string"},
        "status": {"type": "string", "description": "The container's `current_status`"}, "status_label": {"type": "string"},
        "pickup_lfd": s("The last free day (ISO 8601)"), "ready_for_pickup": {"type": "boolean"},
        "holds": {"type": "array", "items": {"type": "object", "required": ["name", "status"], "properties": {"name": {"type": "string"}, "status": {"type": "string"}}}},
        "milestones": {"type": "array", "items": milestone}}});
    json!({"type": "object", "required": ["data"], "properties": {"data": {"type": "array", "items": {
        "type": "object", "required": ["shipment", "containers"], "properties": {
            "shipment": {"type": "object", "required": ["id", "bill_of_lading_number", "shipping_line_scac", "shipping_line_name", "port_of_lading", "port_of_discharge", "pod_eta_at", "pod_ata_at", "ref_numbers"], "properties": {
                "id": {"type": "string", "format": "uuid"}, "bill_of_lading_number": {"type": "string"},
                "shipping_line_scac": {"type": "string"}, "shipping_line_name": {"type": ["string", "null"]},
                "port_of_lading": port.clone(), "port_of_discharge": port,
                "pod_eta_at": s("Estimated arrival at the port of discharge"), "pod_ata_at": s("Actual arrival"),
                "ref_numbers": {"type": "array", "items": {"type": "string"}}}},
            "containers": {"type": "array", "items": container}}}}}})
}

/// Documented operations of the embeds.
pub fn operations() -> Vec<Op> {
    let asset = |path: &'static str, summary: &str, media: &str| {
        let mut op = operation(
            "Embeds",
            summary,
            "Compiled into the binary; readable from any origin. See docs/embedding.md.",
            vec![],
            None,
            Default::default(),
            (
                "200",
                json!({"description": summary, "content": {media: {"schema": if media.ends_with("json") {
                    json!({"type": "object"})
                } else {
                    json!({"type": "string"})
                }}}}),
            ),
        );
        op["security"] = json!([]);
        Op {
            method: "get",
            path,
            op,
        }
    };
    let publishable = json!([{"Publishable": []}]);
    let failures = errors(&[400, 401, 403, 404, 429]);
    let mut map = operation(
        "Embeds",
        "A container's journey for the embeddable map",
        "What `GET /v2/containers/{id}/map_geojson` answers, for a publishable key (`Authorization: Token btp_…`) of the container's account with the `widget` entitlement, from one of the key's allowed origins. The container must be on the given shipment. Answers carry CORS headers for the asking origin.",
        vec![
            json!({"name": "shipment_id", "in": "query", "required": true, "schema": {"type": "string", "format": "uuid"}}),
            json!({"name": "container_id", "in": "query", "required": true, "schema": {"type": "string", "format": "uuid"}}),
        ],
        None,
        failures.clone(),
        (
            "200",
            json!({"description": "A GeoJSON FeatureCollection (ports, the path sailed, the vessel, the legs ahead)", "content": {"application/geo+json": {"schema": {"type": "object", "required": ["type", "features"], "properties": {"type": {"type": "string", "enum": ["FeatureCollection"]}, "features": {"type": "array", "items": {"type": "object"}}}}}}}),
        ),
    );
    map["security"] = publishable.clone();
    let mut track = operation(
        "Embeds",
        "What the tracking widget shows for a number",
        "The account's shipments and containers whose bill of lading, container or reference number is exactly `number` (case aside; no partial matches), at most 10 shipments, with status, milestones, ETA and last free day. Same credential and origin rules as the map.",
        vec![
            json!({"name": "number", "in": "query", "required": true, "schema": {"type": "string", "minLength": 3, "maxLength": 40, "pattern": "^[A-Za-z0-9./_-]+$"}}),
        ],
        None,
        failures,
        (
            "200",
            json!({"description": "What was found (`data` is empty when nothing was)", "content": {"application/json": {"schema": track_schema()}}}),
        ),
    );
    track["security"] = publishable;
    let preflight = |path: &'static str| {
        let mut op = operation(
            "Embeds",
            "CORS preflight",
            "Allows `GET` with an `Authorization` header from the asking origin; the key's origins are checked on the request itself.",
            vec![],
            None,
            Default::default(),
            ("204", json!({"description": "Preflight answered"})),
        );
        op["security"] = json!([]);
        Op {
            method: "options",
            path,
            op,
        }
    };
    vec![
        asset(
            "/embed/map.js",
            "The embeddable map's script",
            "text/javascript",
        ),
        asset(
            "/embed/map.css",
            "The embeddable map's stylesheet",
            "text/css",
        ),
        asset(
            "/embed/widget.js",
            "The tracking widget's script",
            "text/javascript",
        ),
        asset(
            "/embed/widget.css",
            "The tracking widget's stylesheet",
            "text/css",
        ),
        asset(
            "/embed/land-110m.geojson",
            "The map's base map (Natural Earth 1:110m land)",
            "application/geo+json",
        ),
        asset(
            "/embed/licenses.txt",
            "Licences of the embeds' libraries and data",
            "text/plain",
        ),
        Op {
            method: "get",
            path: "/embed/v1/map_geojson",
            op: map,
        },
        preflight("/embed/v1/map_geojson"),
        Op {
            method: "get",
            path: "/embed/v1/track",
            op: track,
        },
        preflight("/embed/v1/track"),
    ]
}
