//! The OpenAPI operations of the web console's pages.

use serde_json::{Value, json};

/// Documented operations of the console and the embeds.
pub fn operations() -> Vec<boxtrack_api::doc::Op> {
    let mut ops = console();
    ops.extend(crate::embed_operations::operations());
    ops.extend(publishable_key_forms());
    ops
}

/// Documented operations of the console's pages.
fn console() -> Vec<boxtrack_api::doc::Op> {
    use boxtrack_api::doc::{Op, operation};
    let html = |d: &str| json!({"description": d, "content": {"text/html": {"schema": {"type": "string"}}}});
    let see_other = |d: &str| json!({"description": d, "headers": {"Location": {"schema": {"type": "string"}}}});
    let form = |props: Value, required: Value| json!({"required": true, "content": {"application/x-www-form-urlencoded": {"schema": {"type": "object", "properties": props, "required": required}}}});
    let not_form = json!({"description": "The body is not application/x-www-form-urlencoded", "content": {"text/plain": {"schema": {"type": "string"}}}});
    let page = |summary: &str,
                description: &str,
                ok: (&str, Value),
                extra: Vec<(&str, Value)>,
                body: Option<Value>| {
        let mut op = operation(
            "Console",
            summary,
            description,
            vec![],
            None,
            Default::default(),
            (ok.0, ok.1),
        );
        op["security"] = json!([]);
        for (status, r) in extra {
            op["responses"][status] = r;
        }
        if let Some(b) = body {
            op["requestBody"] = b;
        }
        op
    };
    let csrf = json!({"csrf": {"type": "string", "description": "The form token of the page the form came from"}});
    let with = |mut base: Value, more: Value| {
        if let (Some(b), Some(m)) = (base.as_object_mut(), more.as_object()) {
            for (k, v) in m {
                b.insert(k.clone(), v.clone());
            }
        }
        base
    };
    let unavailable = html("The database could not be reached");
    let expired = html("The form token is missing or is not this session's (CSRF)");
    let asset = |summary: &str, media: &str| {
        let mut op = operation(
            "Console",
            summary,
            "Compiled into the binary; nothing is fetched from elsewhere.",
            vec![],
            None,
            Default::default(),
            (
                "200",
                json!({"description": summary, "content": {media: {"schema": {"type": "string"}}}}),
            ),
        );
        op["security"] = json!([]);
        op
    };
    vec![
        Op {
            method: "get",
            path: "/console/containers",
            op: {
                let mut op = page(
                    "The containers table",
                    "The signed-in account's containers, most recently updated first, 50 a page, with the API's filters: `q` (number, reference or bill of lading), `status` (a `current_status`), `ready=1`, `lfd_days` (last free day within that many days), `carrier` (SCAC), `port` (POD UN/LOCODE), `updated_days` (updated within that many days), `holds` (`1` with an active terminal hold, `0` without), `sort` (`-updated_at`, the default, `updated_at`, `-created_at`, `created_at`, `pickup_lfd` or `-pickup_lfd`, missing last free days last), `page`. Values that mean nothing are left out.",
                    ("200", html("The table")),
                    vec![
                        ("303", see_other("To /console/sign-in: no session")),
                        ("503", unavailable.clone()),
                    ],
                    None,
                );
                let q = |n: &str, t: &str| json!({"name": n, "in": "query", "required": false, "schema": {"type": t}});
                op["parameters"] = json!([
                    q("q", "string"),
                    q("status", "string"),
                    q("ready", "string"),
                    q("lfd_days", "integer"),
                    q("carrier", "string"),
                    q("port", "string"),
                    q("updated_days", "integer"),
                    q("holds", "string"),
                    q("sort", "string"),
                    q("page", "integer")
                ]);
                op
            },
        },
        Op {
            method: "get",
            path: "/console/containers/{id}",
            op: {
                let mut op = page(
                    "A container",
                    "One of the account's containers: status, readiness, last free day, POD terminal, its bill of lading, its timeline of transport events at the local time of each place, holds, fees with their sums, the last free day of each source, the documents linked to it or its shipment, the custom fields of both, its upstream records 20 a page (`raw_page`), and its route map.",
                    ("200", html("The container page")),
                    vec![
                        ("303", see_other("To /console/sign-in: no session")),
                        ("404", html("No such container in this account")),
                        ("503", unavailable.clone()),
                    ],
                    None,
                );
                op["parameters"] = json!([
                    {"name": "id", "in": "path", "required": true, "schema": {"type": "string"}},
                    {"name": "raw_page", "in": "query", "required": false, "schema": {"type": "integer", "minimum": 1}, "description": "The page of upstream records, newest first"}
                ]);
                op
            },
        },
        Op {
            method: "get",
            path: "/console/documents/{id}/download",
            op: {
                let mut op = page(
                    "Download a document",
                    "One of the account's documents: a download token of 10 minutes, as `GET /v2/documents/{id}/download_url` gives, and a redirect to `/v2/downloads/{token}`.",
                    (
                        "303",
                        see_other(
                            "To /v2/downloads/{token}, or to /console/sign-in without a session",
                        ),
                    ),
                    vec![
                        ("404", html("No such document in this account")),
                        ("503", unavailable.clone()),
                    ],
                    None,
                );
                op["parameters"] = json!([{"name": "id", "in": "path", "required": true, "schema": {"type": "string"}}]);
                op
            },
        },
        Op {
            method: "get",
            path: "/console/shipments",
            op: {
                let mut op = page(
                    "The shipments table",
                    "The signed-in account's shipments, most recently updated first, 50 a page, with the API's filters: `q` (bill of lading, reference or container number), `carrier` (SCAC), `port` (POD UN/LOCODE), `tracking` (`tracked` or `stopped`), `updated_days` (updated within that many days), `sort` (`-updated_at`, the default, `updated_at`, `-created_at` or `created_at`), `page`. Values that mean nothing are left out. The page keeps itself current.",
                    ("200", html("The table")),
                    vec![
                        ("303", see_other("To /console/sign-in: no session")),
                        ("503", unavailable.clone()),
                    ],
                    None,
                );
                let q = |n: &str, t: &str| json!({"name": n, "in": "query", "required": false, "schema": {"type": t}});
                op["parameters"] = json!([
                    q("q", "string"),
                    q("carrier", "string"),
                    q("port", "string"),
                    q("tracking", "string"),
                    q("updated_days", "integer"),
                    q("sort", "string"),
                    q("page", "integer")
                ]);
                op
            },
        },
        Op {
            method: "get",
            path: "/console/webhooks",
            op: page(
                "Webhooks",
                "The account's webhooks (URL, on or off, events, failures in a row) and a form for a new one that receives every event.",
                ("200", html("The page")),
                vec![
                    ("303", see_other("To /console/sign-in: no session")),
                    ("503", unavailable.clone()),
                ],
                None,
            ),
        },
        Op {
            method: "post",
            path: "/console/webhooks",
            op: page(
                "Create a webhook",
                "A webhook for every event at the URL (checked as `POST /v2/webhooks` checks it), with a new signing secret; then its page.",
                ("303", see_other("To the webhook's page")),
                vec![
                    ("400", html("The URL is refused; nothing was created")),
                    ("403", expired.clone()),
                    ("415", not_form.clone()),
                    ("503", unavailable.clone()),
                ],
                Some(form(
                    with(csrf.clone(), json!({"url": {"type": "string"}})),
                    json!(["csrf", "url"]),
                )),
            ),
        },
        Op {
            method: "get",
            path: "/console/webhooks/{id}",
            op: {
                let mut op = page(
                    "A webhook",
                    "Its settings and signing secret, a test delivery, and its 30 newest notifications with every attempt's time, response code, duration and error, each with a button that redelivers it.",
                    ("200", html("The page")),
                    vec![
                        ("303", see_other("To /console/sign-in: no session")),
                        ("404", html("No such webhook in this account")),
                        ("503", unavailable.clone()),
                    ],
                    None,
                );
                op["parameters"] = json!([{"name": "id", "in": "path", "required": true, "schema": {"type": "string"}}]);
                op
            },
        },
        Op {
            method: "post",
            path: "/console/webhooks/{id}",
            op: {
                let mut op = page(
                    "Change a webhook",
                    "Its URL (checked as the API checks it), whether deliveries are sent, and, when `events_shown` is sent (the page's form sends it), the events it subscribes to: every `events` field, at least one, each an event of the catalog.",
                    ("303", see_other("To the webhook's page")),
                    vec![
                        (
                            "400",
                            html("The URL or the events are refused; nothing changed"),
                        ),
                        ("403", expired.clone()),
                        ("404", html("No such webhook in this account")),
                        ("415", not_form.clone()),
                        ("503", unavailable.clone()),
                    ],
                    Some(form(
                        with(
                            csrf.clone(),
                            json!({"url": {"type": "string"}, "active": {"type": "string", "enum": ["1"]}, "events_shown": {"type": "string", "enum": ["1"]}, "events": {"type": "array", "items": {"type": "string", "enum": boxtrack_core::webhooks::EVENTS.as_slice()}}}),
                        ),
                        json!(["csrf", "url"]),
                    )),
                );
                op["parameters"] = json!([{"name": "id", "in": "path", "required": true, "schema": {"type": "string"}}]);
                op
            },
        },
        Op {
            method: "get",
            path: "/console/webhooks/{id}/version",
            op: {
                let mut op = page(
                    "Whether a webhook's page changed",
                    "A version that changes when the webhook's page would (its settings, its newest notifications' states and attempts); the page asks every 5 seconds.",
                    (
                        "200",
                        json!({"description": "The version", "content": {"application/json": {"schema": {"type": "object", "required": ["version"], "properties": {"version": {"type": "string"}}}}}}),
                    ),
                    vec![
                        (
                            "401",
                            json!({"description": "No session", "content": {"application/json": {"schema": {"type": "object"}}}}),
                        ),
                        ("404", html("No such webhook in this account")),
                        ("503", unavailable.clone()),
                    ],
                    None,
                );
                op["parameters"] = json!([{"name": "id", "in": "path", "required": true, "schema": {"type": "string"}}]);
                op
            },
        },
        Op {
            method: "post",
            path: "/console/webhooks/{id}/test",
            op: {
                let mut op = page(
                    "Send a test delivery",
                    "One sample delivery of the chosen event (a sandbox journey's notification) to the webhook's URL, signed with its secret; the page shows the response code, time and body. Nothing is stored.",
                    ("200", html("The webhook's page with the result")),
                    vec![
                        ("400", html("Not an event")),
                        ("403", expired.clone()),
                        ("404", html("No such webhook in this account")),
                        ("415", not_form.clone()),
                        ("503", unavailable.clone()),
                    ],
                    Some(form(
                        with(csrf.clone(), json!({"event": {"type": "string"}})),
                        json!(["csrf", "event"]),
                    )),
                );
                op["parameters"] = json!([{"name": "id", "in": "path", "required": true, "schema": {"type": "string"}}]);
                op
            },
        },
        Op {
            method: "post",
            path: "/console/webhooks/{id}/notifications/{nid}/redeliver",
            op: {
                let mut op = page(
                    "Redeliver a notification",
                    "A new notification of the same event for this webhook (its `replay_of` names the first), delivered as any other.",
                    ("303", see_other("To the webhook's page")),
                    vec![
                        ("403", expired.clone()),
                        (
                            "404",
                            html("No such webhook or notification in this account"),
                        ),
                        ("415", not_form.clone()),
                        ("503", unavailable.clone()),
                    ],
                    Some(form(csrf.clone(), json!(["csrf"]))),
                );
                op["parameters"] = json!([{"name": "id", "in": "path", "required": true, "schema": {"type": "string"}}, {"name": "nid", "in": "path", "required": true, "schema": {"type": "string"}}]);
                op
            },
        },
        Op {
            method: "get",
            path: "/console/sources",
            op: page(
                "Sources",
                "The health of every upstream this process reads (what `GET /v2/sources` answers): last success, requests and errors, the newest data and its age, refused records by reason with the latest samples; the polled subjects; carriers that wait for a source. Keeps itself current.",
                ("200", html("The page")),
                vec![("303", see_other("To /console/sign-in: no session"))],
                None,
            ),
        },
        Op {
            method: "get",
            path: "/console/sources/version",
            op: page(
                "Whether the sources page changed",
                "A version that changes when the sources page would; the page asks every 5 seconds.",
                (
                    "200",
                    json!({"description": "The version", "content": {"application/json": {"schema": {"type": "object", "required": ["version"], "properties": {"version": {"type": "string"}}}}}}),
                ),
                vec![(
                    "401",
                    json!({"description": "No session", "content": {"application/json": {"schema": {"type": "object"}}}}),
                )],
                None,
            ),
        },
        Op {
            method: "get",
            path: "/console/imports",
            op: page(
                "Track many numbers (CSV)",
                "A form for a CSV file (read by the page's script into the text field) or its pasted text: columns `number` (needed), `type`, `scac`, `ref_numbers`, by header or in that order; at most 5,000 rows.",
                ("200", html("The form")),
                vec![("303", see_other("To /console/sign-in: no session"))],
                None,
            ),
        },
        Op {
            method: "post",
            path: "/console/imports/preview",
            op: page(
                "Check an import's rows",
                "Every row of the CSV text, or of the first sheet of an XLSX workbook sent as base64 in `xlsx` (at most 4 MB; the page's script reads a chosen file so), checked as `POST /v2/tracking_requests` checks it (the type inferred from the number when empty; repeats within the file refused), with the reason a row is refused, and a form that tracks the rows that passed.",
                ("200", html("The rows, checked")),
                vec![
                    ("303", see_other("To /console/sign-in: no session")),
                    (
                        "400",
                        html(
                            "The file has no rows, more than 5,000, or is a workbook that cannot be read",
                        ),
                    ),
                    ("403", expired.clone()),
                    ("413", html("The form is larger than a 4 MB workbook needs")),
                    ("415", not_form.clone()),
                ],
                Some(form(
                    with(
                        csrf.clone(),
                        json!({"csv": {"type": "string", "description": "The CSV text"}, "xlsx": {"type": "string", "description": "An XLSX workbook in base64 (read instead of `csv` when not empty)"}}),
                    ),
                    json!(["csrf"]),
                )),
            ),
        },
        Op {
            method: "post",
            path: "/console/imports/run",
            op: page(
                "Track an import's rows",
                "Tracks the rows the preview passed (checked again), each as `POST /v2/tracking_requests` would; a number tracked already is reported as such and not tracked twice. Answers JSON (`results`: line, number, outcome `tracked` | `already tracked` | `refused`, detail) when `Accept` asks for it, else a page.",
                (
                    "200",
                    json!({"description": "The results", "content": {"text/html": {"schema": {"type": "string"}}, "application/json": {"schema": {"type": "object", "required": ["results"], "properties": {"results": {"type": "array", "items": {"type": "object"}}}}}}}),
                ),
                vec![
                    ("303", see_other("To /console/sign-in: no session")),
                    (
                        "400",
                        json!({"description": "rows is not a list of rows, or too long", "content": {"application/json": {"schema": {"type": "object"}}}}),
                    ),
                    ("403", expired.clone()),
                    ("415", not_form.clone()),
                    ("503", unavailable.clone()),
                ],
                Some(form(
                    with(
                        csrf.clone(),
                        json!({"rows": {"type": "string", "description": "The preview's rows, as JSON"}}),
                    ),
                    json!(["csrf", "rows"]),
                )),
            ),
        },
        Op {
            method: "get",
            path: "/console/assets/import.js",
            op: asset("The import pages' script", "text/javascript"),
        },
        Op {
            method: "get",
            path: "/console/containers.csv",
            op: {
                let mut op = page(
                    "Export containers as CSV",
                    "The containers the table's filters select (the same query parameters as `/console/containers`, `page` aside), every page up to 50,000 rows, in the table's order: number, status, ready_for_pickup, pickup_lfd, pod_terminal, on_hold, bill_of_lading, scac, pod_locode, ref_numbers, updated_at, id. Cells a spreadsheet would run as a formula are prefixed with `'`.",
                    (
                        "200",
                        json!({"description": "The CSV file", "content": {"text/csv": {"schema": {"type": "string"}}}}),
                    ),
                    vec![
                        ("303", see_other("To /console/sign-in: no session")),
                        ("503", unavailable.clone()),
                    ],
                    None,
                );
                let q = |n: &str, t: &str| json!({"name": n, "in": "query", "required": false, "schema": {"type": t}});
                op["parameters"] = json!([
                    q("q", "string"),
                    q("status", "string"),
                    q("ready", "string"),
                    q("lfd_days", "integer"),
                    q("carrier", "string"),
                    q("port", "string"),
                    q("updated_days", "integer"),
                    q("holds", "string"),
                    q("sort", "string")
                ]);
                op
            },
        },
        Op {
            method: "get",
            path: "/console/shipments.csv",
            op: {
                let mut op = page(
                    "Export shipments as CSV",
                    "The shipments the table's filters select (the same query parameters as `/console/shipments`, `page` aside), every page up to 50,000 rows, in the table's order, one row per shipment: bill_of_lading, scac, pol_locode, pod_locode, pod_eta, pod_ata, containers (their numbers), ref_numbers, tracking, customer, created_at, updated_at, id. Cells a spreadsheet would run as a formula are prefixed with `'`.",
                    (
                        "200",
                        json!({"description": "The CSV file", "content": {"text/csv": {"schema": {"type": "string"}}}}),
                    ),
                    vec![
                        ("303", see_other("To /console/sign-in: no session")),
                        ("503", unavailable.clone()),
                    ],
                    None,
                );
                let q = |n: &str, t: &str| json!({"name": n, "in": "query", "required": false, "schema": {"type": t}});
                op["parameters"] = json!([
                    q("q", "string"),
                    q("carrier", "string"),
                    q("port", "string"),
                    q("tracking", "string"),
                    q("updated_days", "integer"),
                    q("sort", "string")
                ]);
                op
            },
        },
        Op {
            method: "get",
            path: "/console/live",
            op: page(
                "Whether the account changed (live pages)",
                "The account's version: the newest `updated_us` of its containers, shipments and tracking requests. The console's pages ask every 5 seconds and fetch themselves again when it changes.",
                (
                    "200",
                    json!({"description": "The version", "content": {"application/json": {"schema": {"type": "object", "required": ["version"], "properties": {"version": {"type": "string"}}}}}}),
                ),
                vec![
                    (
                        "401",
                        json!({"description": "No session", "content": {"application/json": {"schema": {"type": "object"}}}}),
                    ),
                    (
                        "503",
                        json!({"description": "The database could not be reached", "content": {"application/json": {"schema": {"type": "object"}}}}),
                    ),
                ],
                None,
            ),
        },
        Op {
            method: "get",
            path: "/console/assets/live.js",
            op: asset(
                "The script that keeps console pages current",
                "text/javascript",
            ),
        },
        Op {
            method: "get",
            path: "/console/containers/{id}/map_geojson",
            op: {
                let mut op = page(
                    "A container's route map (console)",
                    "What `GET /v2/containers/{id}/map_geojson` answers, for the signed-in account (which needs the routing entitlement); the container page's map draws it.",
                    (
                        "200",
                        json!({"description": "A GeoJSON FeatureCollection", "content": {"application/json": {"schema": {"type": "object"}}}}),
                    ),
                    vec![
                        ("303", see_other("To /console/sign-in: no session")),
                        (
                            "403",
                            json!({"description": "The account lacks the routing entitlement", "content": {"application/vnd.api+json": {"schema": {"$ref": "#/components/schemas/Errors"}}}}),
                        ),
                        (
                            "404",
                            json!({"description": "No such container in this account", "content": {"application/vnd.api+json": {"schema": {"$ref": "#/components/schemas/Errors"}}}}),
                        ),
                    ],
                    None,
                );
                op["parameters"] = json!([{"name": "id", "in": "path", "required": true, "schema": {"type": "string"}}]);
                op
            },
        },
        Op {
            method: "get",
            path: "/console/tracking_requests",
            op: {
                let mut op = page(
                    "Tracking requests",
                    "The account's tracking requests, newest first, 50 a page, with their status and why one failed, filtered by `q` (number or reference), `status` and `scac` as the API filters them, and a form to track a number.",
                    ("200", html("The page")),
                    vec![
                        ("303", see_other("To /console/sign-in: no session")),
                        ("503", unavailable.clone()),
                    ],
                    None,
                );
                let q = |n: &str, t: &str| json!({"name": n, "in": "query", "required": false, "schema": {"type": t}});
                op["parameters"] = json!([
                    q("q", "string"),
                    q("status", "string"),
                    q("scac", "string"),
                    q("page", "integer")
                ]);
                op
            },
        },
        Op {
            method: "get",
            path: "/console/tracking_requests.csv",
            op: {
                let mut op = page(
                    "Export tracking requests as CSV",
                    "The requests the filters select (`q`, `status`, `scac`), every page up to 50,000 rows, newest first: request_number, request_type, scac, status, failed_reason, ref_numbers, created_at, updated_at, id. Cells a spreadsheet would run as a formula are prefixed with `'`.",
                    (
                        "200",
                        json!({"description": "The CSV file", "content": {"text/csv": {"schema": {"type": "string"}}}}),
                    ),
                    vec![
                        ("303", see_other("To /console/sign-in: no session")),
                        ("503", unavailable.clone()),
                    ],
                    None,
                );
                let q = |n: &str, t: &str| json!({"name": n, "in": "query", "required": false, "schema": {"type": t}});
                op["parameters"] =
                    json!([q("q", "string"), q("status", "string"), q("scac", "string")]);
                op
            },
        },
        Op {
            method: "post",
            path: "/console/tracking_requests",
            op: page(
                "Track a number",
                "Tracks a number as `POST /v2/tracking_requests` does (the carrier detected from the number when `scac` is empty) and shows the requests again.",
                ("303", see_other("To /console/tracking_requests")),
                vec![
                    (
                        "400",
                        html("The page again, with what is wrong with the number"),
                    ),
                    ("403", expired.clone()),
                    (
                        "409",
                        html(
                            "The number is tracked already, or the plan's container limit is reached",
                        ),
                    ),
                    ("415", not_form.clone()),
                    ("503", unavailable.clone()),
                ],
                Some(form(
                    with(
                        csrf.clone(),
                        json!({"request_number": {"type": "string"}, "request_type": {"type": "string", "enum": ["bill_of_lading", "booking_number", "container"]}, "scac": {"type": "string"}}),
                    ),
                    json!(["csrf", "request_number", "request_type"]),
                )),
            ),
        },
        Op {
            method: "get",
            path: "/console/reference",
            op: page(
                "The API reference",
                "This document rendered by Redoc (vendored into the binary): every operation with its fields, types, enums and descriptions, and which credential it takes.",
                ("200", html("The reference page")),
                vec![],
                None,
            ),
        },
        Op {
            method: "get",
            path: "/console/assets/redoc.standalone.js",
            op: asset("Redoc's standalone bundle (MIT)", "text/javascript"),
        },
        Op {
            method: "get",
            path: "/console/assets/reference.js",
            op: asset("The reference page's script", "text/javascript"),
        },
        Op {
            method: "get",
            path: "/console/assets/container.js",
            op: asset("The container page's script", "text/javascript"),
        },
        Op {
            method: "get",
            path: "/console/assets/favicon.svg",
            op: asset("The console's icon", "image/svg+xml"),
        },
        Op {
            method: "get",
            path: "/console/assets/redoc-licenses.txt",
            op: asset(
                "Redoc's licence and those of what its bundle contains",
                "text/plain",
            ),
        },
        Op {
            method: "get",
            path: "/console",
            op: page(
                "The developer portal",
                "The signed-in user's account: plan, entitlements, rate limits and API keys (masked), with forms to create and revoke keys. Without a session (cookie `btk_console`) it redirects to the sign-in page.",
                ("200", html("The portal page")),
                vec![
                    ("303", see_other("To /console/sign-in")),
                    ("404", html("The user's account no longer exists")),
                    ("503", unavailable.clone()),
                ],
                None,
            ),
        },
        Op {
            method: "get",
            path: "/console/sign-in",
            op: page(
                "The sign-in page",
                "Email and password of a user (`boxtrack users create`); sets the form's double-submit cookie. Signed in already: redirects to the portal.",
                ("200", html("The sign-in form")),
                vec![("303", see_other("To /console"))],
                None,
            ),
        },
        Op {
            method: "post",
            path: "/console/sign-in",
            op: page(
                "Sign in",
                "Checks the form token, the attempts for this email (10 a minute) and the password, starts a 12-hour session (`btk_console` cookie: HttpOnly, SameSite=Strict, Path=/console, Secure behind https) and redirects to the portal. Wrong credentials show the form again.",
                ("303", see_other("To /console, signed in")),
                vec![
                    ("400", html("The form again, with what is wrong")),
                    ("403", expired.clone()),
                    ("415", not_form.clone()),
                    (
                        "429",
                        html(
                            "More than 10 attempts for this email in the last minute: the form again, with Retry-After",
                        ),
                    ),
                    ("503", unavailable.clone()),
                ],
                Some(form(
                    with(
                        csrf.clone(),
                        json!({"email": {"type": "string"}, "password": {"type": "string"}}),
                    ),
                    json!(["csrf", "email", "password"]),
                )),
            ),
        },
        Op {
            method: "post",
            path: "/console/sign-out",
            op: page(
                "Sign out",
                "Ends the session and clears its cookie.",
                ("303", see_other("To /console/sign-in")),
                vec![
                    ("403", expired.clone()),
                    ("415", not_form.clone()),
                    ("503", unavailable.clone()),
                ],
                Some(form(csrf.clone(), json!(["csrf"]))),
            ),
        },
        Op {
            method: "post",
            path: "/console/keys",
            op: page(
                "Create an API key",
                "Issues a key for the signed-in user's account and shows the portal with the full key, this once; afterwards only its hint is shown.",
                ("201", html("The portal with the new key")),
                vec![
                    ("303", see_other("To /console/sign-in: no session")),
                    ("403", expired.clone()),
                    ("415", not_form.clone()),
                    ("503", unavailable.clone()),
                ],
                Some(form(
                    with(
                        csrf.clone(),
                        json!({"name": {"type": "string", "maxLength": 100}}),
                    ),
                    json!(["csrf"]),
                )),
            ),
        },
        Op {
            method: "post",
            path: "/console/keys/{id}/revoke",
            op: {
                let mut op = page(
                    "Revoke an API key",
                    "Revokes one of the account's keys at once (in every process within a second).",
                    ("303", see_other("To /console")),
                    vec![
                        ("403", expired),
                        ("404", html("No such key in this account")),
                        ("415", not_form),
                        ("503", unavailable),
                    ],
                    Some(form(csrf, json!(["csrf"]))),
                );
                op["parameters"] = json!([{"name": "id", "in": "path", "required": true, "schema": {"type": "string"}}]);
                op
            },
        },
    ]
}

/// The portal's forms for publishable keys.
fn publishable_key_forms() -> Vec<boxtrack_api::doc::Op> {
    use boxtrack_api::doc::{Op, operation};
    let html = |d: &str| json!({"description": d, "content": {"text/html": {"schema": {"type": "string"}}}});
    let form = |props: Value| json!({"required": true, "content": {"application/x-www-form-urlencoded": {"schema": {"type": "object", "properties": props, "required": ["csrf"]}}}});
    let op = |summary: &str,
              description: &str,
              ok: (&str, Value),
              extra: Vec<(&str, Value)>,
              body: Value| {
        let mut op = operation(
            "Console",
            summary,
            description,
            vec![],
            None,
            Default::default(),
            ok,
        );
        op["security"] = json!([]);
        for (status, r) in extra {
            op["responses"][status] = r;
        }
        op["requestBody"] = body;
        op
    };
    let csrf =
        json!({"type": "string", "description": "The form token of the page the form came from"});
    let mut revoke = op(
        "Revoke a publishable key",
        "Revokes one of the account's publishable keys; the map and widget stop working with it at once.",
        (
            "303",
            json!({"description": "To /console", "headers": {"Location": {"schema": {"type": "string"}}}}),
        ),
        vec![
            (
                "403",
                html("The form token is missing or is not this session's (CSRF)"),
            ),
            ("404", html("No such publishable key in this account")),
            (
                "415",
                json!({"description": "The body is not application/x-www-form-urlencoded", "content": {"text/plain": {"schema": {"type": "string"}}}}),
            ),
            ("503", html("The database could not be reached")),
        ],
        form(json!({"csrf": csrf})),
    );
    revoke["parameters"] =
        json!([{"name": "id", "in": "path", "required": true, "schema": {"type": "string"}}]);
    vec![
        Op {
            method: "post",
            path: "/console/publishable_keys",
            op: op(
                "Create a publishable key",
                "Issues a publishable key (`btp_…`) for the embeddable map and widget, optionally limited to listed origins (one per line), and shows it this once. Needs the `widget` entitlement.",
                ("201", html("The portal with the new key")),
                vec![
                    (
                        "303",
                        json!({"description": "To /console/sign-in: no session", "headers": {"Location": {"schema": {"type": "string"}}}}),
                    ),
                    (
                        "400",
                        html("An allowed origin is not an origin; nothing was created"),
                    ),
                    (
                        "403",
                        html(
                            "The form token is not this session's, or the account lacks the widget entitlement",
                        ),
                    ),
                    (
                        "415",
                        json!({"description": "The body is not application/x-www-form-urlencoded", "content": {"text/plain": {"schema": {"type": "string"}}}}),
                    ),
                    ("503", html("The database could not be reached")),
                ],
                form(
                    json!({"csrf": csrf, "name": {"type": "string", "maxLength": 100}, "origins": {"type": "string", "description": "Allowed origins, one per line; empty for any"}}),
                ),
            ),
        },
        Op {
            method: "post",
            path: "/console/publishable_keys/{id}/revoke",
            op: revoke,
        },
    ]
}
