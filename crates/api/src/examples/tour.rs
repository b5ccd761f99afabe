//! The documented operations' examples: a scripted tour of the REST API, as a client would
//! make it, over the sandbox journeys' scratch database (after they have played), through
//! the same router, handlers and views that serve requests. The first answer of 2xx to each
//! operation (method and path template) is its example, with the request body that asked for
//! it.
//!
//! Calls that answer otherwise are left out (their operation keeps no example); the test of
//! the served document lists the operations that may lack one and why.

use std::collections::BTreeMap;

use axum::body::Body;
use axum::http::{Method, Request, header};
use serde::Serialize;
use serde_json::Value;
use tower::ServiceExt as _;
use uuid::Uuid;

use crate::state::AppState;
use boxtrack_app::{AppError, Ctx, keys};
use boxtrack_core::documents;
use boxtrack_http::{ApiConfig, Limiter};

mod charges;
mod parties;

/// One operation's example: the status answered, the request body (JSON, when the call sent
/// one) and the answer (JSON, when there was one).
#[derive(Debug, Clone)]
pub struct Recorded {
    /// The status of the answer.
    pub status: u16,
    /// The request's JSON body.
    pub request: Option<Value>,
    /// The answer's JSON body.
    pub response: Option<Value>,
}

/// Operation (`get`, path template) → its example.
pub type Recordings = BTreeMap<(String, String), Recorded>;

const MT: &str = "application/vnd.api+json";
/// The file the tour attaches as a document.
const FILE: &[u8] = b"%PDF-1.4\n% boxtrack example: arrival notice\n%%EOF\n";

/// The tour's request bodies, by step: data, in `bodies.json`, as a reader of the examples
/// sees them. A string that is exactly `{name}` stands for a value the tour learns on the way
/// (an id it made).
const BODIES: &str = include_str!("bodies.json");

/// The request body of `step`, its `{name}` strings replaced by the values given (null for
/// a step `bodies.json` lacks: the call is then refused and its operation keeps no example,
/// which the served document's test reports).
fn body(step: &str, values: &[(&str, &str)]) -> Value {
    let mut b = serde_json::from_str::<Value>(BODIES)
        .ok()
        .and_then(|all| all.get(step).cloned())
        .unwrap_or(Value::Null);
    fill(&mut b, values);
    b
}

/// Replaces each string of `v` that is exactly `{name}` by the value given for `name`.
fn fill(v: &mut Value, values: &[(&str, &str)]) {
    match v {
        Value::String(s) => {
            let name = s.strip_prefix('{').and_then(|n| n.strip_suffix('}'));
            if let Some((_, to)) = values.iter().find(|(k, _)| Some(*k) == name) {
                *s = (*to).to_string();
            }
        }
        Value::Array(items) => items.iter_mut().for_each(|i| fill(i, values)),
        Value::Object(members) => members.values_mut().for_each(|m| fill(m, values)),
        _ => {}
    }
}

/// `POST /rails/active_storage/direct_uploads`: the file about to be uploaded.
#[derive(Serialize)]
struct Announce<'a> {
    blob: Blob<'a>,
}

/// A file about to be uploaded: its name, type, size and MD5 checksum.
#[derive(Serialize)]
struct Blob<'a> {
    filename: &'a str,
    content_type: &'a str,
    byte_size: usize,
    checksum: String,
}

struct Tour {
    app: axum::Router,
    key: String,
    out: Recordings,
}

impl Tour {
    /// Calls `method path` (`template` is the documented path) with `body`; records the
    /// answer when it is the operation's first 2xx; the answer's JSON (null when none).
    async fn call(
        &mut self,
        method: Method,
        template: &str,
        path: &str,
        body: Option<Value>,
    ) -> Value {
        let mut req = Request::builder()
            .method(method.clone())
            .uri(path)
            .header(header::HOST, "127.0.0.1:8080")
            .header(header::AUTHORIZATION, format!("Token {}", self.key))
            .header(header::ACCEPT, MT);
        let payload = match &body {
            Some(b) => {
                req = req.header(header::CONTENT_TYPE, MT);
                Body::from(b.to_string())
            }
            None => Body::empty(),
        };
        let Ok(req) = req.body(payload) else {
            return Value::Null;
        };
        let Ok(resp) = self.app.clone().oneshot(req).await;
        let status = resp.status().as_u16();
        let bytes = axum::body::to_bytes(resp.into_body(), 8 * 1024 * 1024)
            .await
            .unwrap_or_default();
        let answer: Option<Value> = serde_json::from_slice(&bytes).ok();
        if (200..300).contains(&status) {
            self.out
                .entry((method.as_str().to_lowercase(), template.to_string()))
                .or_insert_with(|| Recorded {
                    status,
                    request: body,
                    response: answer.clone(),
                });
        } else {
            tracing::debug!(%method, path, status, "an example call was not answered 2xx");
        }
        answer.unwrap_or(Value::Null)
    }

    async fn get(&mut self, template: &str, path: &str) -> Value {
        self.call(Method::GET, template, path, None).await
    }

    async fn post(&mut self, template: &str, path: &str, body: Value) -> Value {
        self.call(Method::POST, template, path, Some(body)).await
    }

    async fn patch(&mut self, template: &str, path: &str, body: Option<Value>) -> Value {
        self.call(Method::PATCH, template, path, body).await
    }

    async fn delete(&mut self, template: &str, path: &str) -> Value {
        self.call(Method::DELETE, template, path, None).await
    }

    /// Sends bytes with headers, recording nothing (a file upload).
    async fn put_bytes(&mut self, path: &str, headers: &Value, bytes: &[u8]) {
        let mut req = Request::builder()
            .method(Method::PUT)
            .uri(path)
            .header(header::HOST, "127.0.0.1:8080");
        if let Some(h) = headers.as_object() {
            for (k, v) in h {
                if let Some(v) = v.as_str() {
                    req = req.header(k.as_str(), v);
                }
            }
        }
        if let Ok(req) = req.body(Body::from(bytes.to_vec())) {
            let Ok(_) = self.app.clone().oneshot(req).await;
        }
    }
}

/// The `id` of the first resource or linkage of `kind` anywhere in `v`.
fn first_id(v: &Value, kind: &str) -> Option<String> {
    match v {
        Value::Object(o) => {
            if o.get("type").and_then(Value::as_str) == Some(kind)
                && let Some(id) = o.get("id").and_then(Value::as_str)
            {
                return Some(id.to_string());
            }
            o.values().find_map(|x| first_id(x, kind))
        }
        Value::Array(a) => a.iter().find_map(|x| first_id(x, kind)),
        _ => None,
    }
}

fn id_of(v: &Value) -> String {
    v["data"]["id"].as_str().unwrap_or_default().to_string()
}

/// Plays the tour for `account` (whose journeys have played) on the database of `ctx`.
pub async fn record(
    ctx: &Ctx,
    account: Uuid,
    rest: Option<fn(AppState) -> axum::Router>,
) -> Result<Recordings, AppError> {
    let Some(build) = rest else {
        tracing::warn!("the examples' tour has no router to call; the document keeps none");
        return Ok(Recordings::new());
    };
    let (_, key) = keys::create(ctx, account, Some("examples"), None).await?;
    let state = AppState::new(
        Ctx::new(ctx.db.clone()),
        ApiConfig::default(),
        Limiter::memory(),
    );
    let mut t = Tour {
        app: build(state),
        key: key.expose().to_string(),
        out: Recordings::new(),
    };
    t.get("/v2/account", "/v2/account").await;
    let journey = t.journey().await;
    t.reference(&journey).await;
    t.feeds().await;
    let hook = t.webhooks().await;
    t.parties().await;
    t.charges(&journey).await;
    let definitions = t.field_definitions().await;
    let value_id = t.field_values(&journey).await;
    let other_document = t.documents().await;
    let made = Made {
        hook,
        definitions,
        value_id,
        other_document,
    };
    t.clean_up(&journey, &made).await;
    Ok(t.out)
}

/// What the tour's first calls found: the journey that imports a container.
struct Journey {
    /// Its tracking request.
    tr: String,
    shipment: String,
    container: String,
    /// The shipment, the container and its events as the API showed them.
    ship: Value,
    c: Value,
    events: Value,
}

/// The custom field definitions the tour made.
struct Definitions {
    po: String,
    urgent: String,
    seal: String,
    /// The options of the temperature band, and the one the tour deletes.
    options: String,
    chilled: String,
}

/// What the tour made and deletes at its end.
struct Made {
    hook: String,
    definitions: Definitions,
    value_id: String,
    other_document: String,
}

/// A custom field option's path.
const OPTION_PATH: &str = "/v2/custom_field_definitions/{id}/options/{option_id}";

impl Tour {
    /// Tracking requests, shipments and containers of the journey that imports a container.
    async fn journey(&mut self) -> Journey {
        let t = self;
        // tracking requests, shipments and containers of the journey that imports a container
        let requests = t
            .get(
                "/v2/tracking_requests",
                "/v2/tracking_requests?filter[request_number]=TEST-SCN-IMPORT",
            )
            .await;
        let tr = requests["data"][0]["id"]
            .as_str()
            .unwrap_or_default()
            .to_string();
        let one = t
            .get(
                "/v2/tracking_requests/{id}",
                &format!("/v2/tracking_requests/{tr}?include=tracked_object"),
            )
            .await;
        let shipment = first_id(&one["data"]["relationships"], "shipment").unwrap_or_default();
        t.patch(
            "/v2/tracking_requests/{id}",
            &format!("/v2/tracking_requests/{tr}"),
            Some(body("tracking request: new ref numbers", &[])),
        )
        .await;
        t.post(
            "/v2/tracking_requests",
            "/v2/tracking_requests",
            body("tracking request: a bill of lading", &[]),
        )
        .await;
        t.post(
            "/v2/tracking_requests/infer_number",
            "/v2/tracking_requests/infer_number",
            body("infer a number", &[]),
        )
        .await;

        t.get("/v2/shipments", "/v2/shipments").await;
        let ship = t
            .get(
                "/v2/shipments/{id}",
                &format!("/v2/shipments/{shipment}?include=containers,pod_terminal,port_of_lading,port_of_discharge"),
            )
            .await;
        t.patch(
            "/v2/shipments/{id}",
            &format!("/v2/shipments/{shipment}"),
            Some(body("shipment: new tags", &[])),
        )
        .await;
        let container = first_id(&ship["data"]["relationships"], "container").unwrap_or_default();
        t.get("/v2/containers", "/v2/containers").await;
        let c = t
            .get(
                "/v2/containers/{id}",
                &format!("/v2/containers/{container}?include=shipment"),
            )
            .await;
        t.patch(
            "/v2/containers/{id}",
            &format!("/v2/containers/{container}"),
            Some(body("container: new ref numbers", &[])),
        )
        .await;
        t.patch(
            "/v2/containers",
            "/v2/containers",
            Some(body(
                "containers: new ref numbers",
                &[("container", &container)],
            )),
        )
        .await;
        let events = t
            .get(
                "/v2/containers/{id}/transport_events",
                &format!("/v2/containers/{container}/transport_events"),
            )
            .await;
        t.get(
            "/v2/containers/{id}/raw_events",
            &format!("/v2/containers/{container}/raw_events"),
        )
        .await;
        t.get(
            "/v2/containers/{id}/field_sources",
            &format!("/v2/containers/{container}/field_sources"),
        )
        .await;
        t.get(
            "/v2/containers/{id}/entries",
            &format!("/v2/containers/{container}/entries"),
        )
        .await;
        t.get(
            "/v2/containers/{id}/map_geojson",
            &format!("/v2/containers/{container}/map_geojson"),
        )
        .await;
        t.patch(
            "/v2/containers/{id}/refresh",
            &format!("/v2/containers/{container}/refresh"),
            None,
        )
        .await;
        Journey {
            tr,
            shipment,
            container,
            ship,
            c,
            events,
        }
    }

    /// What the journey names: line, ports, terminal, metro area, vessel.
    async fn reference(&mut self, j: &Journey) {
        let t = self;
        let (ship, c, events) = (&j.ship, &j.c, &j.events);
        // what the journey names: line, ports, terminal, metro area, vessel
        let everything = Value::Array(vec![ship.clone(), c.clone(), events.clone()]);
        let lines = t
            .get("/v2/shipping_lines", "/v2/shipping_lines?search=maersk")
            .await;
        if let Some(id) = first_id(&lines, "shipping_line") {
            t.get(
                "/v2/shipping_lines/{id}",
                &format!("/v2/shipping_lines/{id}"),
            )
            .await;
        }
        for (kind, template) in [
            ("port", "/v2/ports/{id}"),
            ("terminal", "/v2/terminals/{id}"),
            ("vessel", "/v2/vessels/{id}"),
        ] {
            if let Some(id) = first_id(&everything, kind) {
                let answer = t.get(template, &template.replace("{id}", &id)).await;
                if let Some(metro) = first_id(&answer["data"]["relationships"], "metro_area") {
                    t.get("/v2/metro_areas/{id}", &format!("/v2/metro_areas/{metro}"))
                        .await;
                }
            }
        }
        t.get("/v2/metro_areas/{id}", "/v2/metro_areas/USLAX").await;
        let pol = first_id(&ship["data"]["relationships"]["port_of_lading"], "port");
        let pod = first_id(&ship["data"]["relationships"]["port_of_discharge"], "port");
        if let (Some(vessel), Some(pol), Some(pod)) = (first_id(&everything, "vessel"), pol, pod) {
            t.get(
                "/v2/vessels/{id}/future_positions",
                &format!(
                    "/v2/vessels/{vessel}/future_positions?port_id={pod}&previous_port_id={pol}"
                ),
            )
            .await;
            t.get(
                "/v2/vessels/{id}/future_positions_with_coordinates",
                &format!("/v2/vessels/{vessel}/future_positions_with_coordinates?port_id={pod}&previous_port_id={pol}&latitude=33.7&longitude=-130.2"),
            )
            .await;
        }
    }

    /// The account's feed, search, the sandbox's journeys, sources, the event catalog.
    async fn feeds(&mut self) {
        let t = self;
        // the account's feed, search, the sandbox's journeys, sources, the event catalog
        t.get("/v2/events", "/v2/events?page[size]=3").await;
        t.get("/v2/search", "/v2/search?query=TEST-SCN-IMPORT")
            .await;
        t.get("/v2/sandbox/scenarios", "/v2/sandbox/scenarios")
            .await;
        t.get("/v2/sources", "/v2/sources").await;
        t.get("/v2/webhooks/events", "/v2/webhooks/events").await;
        t.get("/v2/webhooks/ips", "/v2/webhooks/ips").await;
    }

    /// Webhooks and their notifications; returns the webhook made.
    async fn webhooks(&mut self) -> String {
        let t = self;
        // webhooks and their notifications
        t.get("/v2/webhooks", "/v2/webhooks").await;
        let hook = t
            .post("/v2/webhooks", "/v2/webhooks", body("webhook: new", &[]))
            .await;
        let hook = id_of(&hook);
        t.get("/v2/webhooks/{id}", &format!("/v2/webhooks/{hook}"))
            .await;
        t.patch(
            "/v2/webhooks/{id}",
            &format!("/v2/webhooks/{hook}"),
            Some(body("webhook: fewer events", &[])),
        )
        .await;
        t.post(
            "/v2/webhooks/{id}/replay",
            &format!("/v2/webhooks/{hook}/replay"),
            body("webhook: replay from the start", &[]),
        )
        .await;
        let notes = t
            .get(
                "/v2/webhook_notifications",
                "/v2/webhook_notifications?page[size]=2",
            )
            .await;
        if let Some(n) = notes["data"][0]["id"].as_str() {
            t.get(
                "/v2/webhook_notifications/{id}",
                &format!("/v2/webhook_notifications/{n}"),
            )
            .await;
        }
        hook
    }

    /// Custom field definitions and options.
    async fn field_definitions(&mut self) -> Definitions {
        let t = self;
        // custom fields: definitions, options, values on each kind of entity
        let po = t
            .post(
                "/v2/custom_field_definitions",
                "/v2/custom_field_definitions",
                body("field definition: PO number", &[]),
            )
            .await;
        let po = id_of(&po);
        let band = t
            .post(
                "/v2/custom_field_definitions",
                "/v2/custom_field_definitions",
                body("field definition: temperature band", &[]),
            )
            .await;
        let band = id_of(&band);
        let urgent = t
            .post(
                "/v2/custom_field_definitions",
                "/v2/custom_field_definitions",
                body("field definition: urgent", &[]),
            )
            .await;
        let urgent = id_of(&urgent);
        let seal = t
            .post(
                "/v2/custom_field_definitions",
                "/v2/custom_field_definitions",
                body("field definition: seal number", &[]),
            )
            .await;
        let seal = id_of(&seal);
        t.get(
            "/v2/custom_field_definitions",
            "/v2/custom_field_definitions",
        )
        .await;
        t.get(
            "/v2/custom_field_definitions/{id}",
            &format!("/v2/custom_field_definitions/{po}"),
        )
        .await;
        t.patch(
            "/v2/custom_field_definitions/{id}",
            &format!("/v2/custom_field_definitions/{po}"),
            Some(body("field definition: renamed", &[])),
        )
        .await;
        let options = format!("/v2/custom_field_definitions/{band}/options");
        let frozen = t
            .post(
                "/v2/custom_field_definitions/{id}/options",
                &options,
                body("option: frozen", &[]),
            )
            .await;
        let frozen = id_of(&frozen);
        let chilled = t
            .post(
                "/v2/custom_field_definitions/{id}/options",
                &options,
                body("option: chilled", &[]),
            )
            .await;
        let chilled = id_of(&chilled);
        t.get("/v2/custom_field_definitions/{id}/options", &options)
            .await;
        t.get(OPTION_PATH, &format!("{options}/{frozen}")).await;
        t.patch(
            OPTION_PATH,
            &format!("{options}/{frozen}"),
            Some(body("option: frozen, relabelled", &[])),
        )
        .await;
        Definitions {
            po,
            urgent,
            seal,
            options,
            chilled,
        }
    }

    /// Custom field values on each kind of entity; returns the value made through `/v2/custom_fields`.
    async fn field_values(&mut self, j: &Journey) -> String {
        let t = self;
        let (tr, shipment, container) = (&j.tr, &j.shipment, &j.container);
        for (kind, id, slug) in [
            ("shipments", shipment.as_str(), "po_number"),
            ("containers", container.as_str(), "temperature_band"),
            ("tracking_requests", tr.as_str(), "urgent"),
        ] {
            let base = format!("/v2/{kind}/{id}/custom_fields");
            let template = format!("/v2/{kind}/{{id}}/custom_fields");
            let first = body(&format!("field value: {kind}"), &[]);
            t.post(&template, &base, first).await;
            t.get(&template, &base).await;
            t.patch(
                &format!("{template}/{{api_slug}}"),
                &format!("{base}/{slug}"),
                Some(body(&format!("field value: {kind}, changed"), &[])),
            )
            .await;
        }
        let made = t
            .post(
                "/v2/custom_fields",
                "/v2/custom_fields",
                body(
                    "field value: a container's seal",
                    &[("container", container)],
                ),
            )
            .await;
        let value_id = id_of(&made);
        t.get("/v2/custom_fields", "/v2/custom_fields").await;
        t.get(
            "/v2/custom_fields/{id}",
            &format!("/v2/custom_fields/{value_id}"),
        )
        .await;
        t.patch(
            "/v2/custom_fields/{id}",
            &format!("/v2/custom_fields/{value_id}"),
            Some(body("field value: changed", &[])),
        )
        .await;
        value_id
    }

    /// Documents: announced, uploaded, attached, read, typed, downloaded; returns the one deleted at the end.
    async fn documents(&mut self) -> String {
        let t = self;
        // documents: announced, uploaded, attached, read, typed, downloaded
        let mut docs = Vec::new();
        for (filename, content_type, bytes, name) in [
            (
                "TEST-SCN-IMPORT arrival notice.pdf",
                "application/pdf",
                FILE,
                "Arrival notice TEST-SCN-IMPORT",
            ),
            (
                "TEST-SCN-IMPORT delivery order.pdf",
                "application/pdf",
                b"%PDF-1.4\n% boxtrack example: delivery order\n%%EOF\n".as_slice(),
                "Delivery order TEST-SCN-IMPORT",
            ),
        ] {
            let blob = t
                .call(
                    Method::POST,
                    "/rails/active_storage/direct_uploads",
                    "/rails/active_storage/direct_uploads",
                    serde_json::to_value(Announce {
                        blob: Blob {
                            filename,
                            content_type,
                            byte_size: bytes.len(),
                            checksum: documents::checksum(bytes),
                        },
                    })
                    .ok(),
                )
                .await;
            if let Some(url) = blob["direct_upload"]["url"].as_str() {
                let path = url.find("/v2/").map_or(url, |i| &url[i..]).to_string();
                t.put_bytes(&path, &blob["direct_upload"]["headers"], bytes)
                    .await;
            }
            let signed = blob["signed_id"].as_str().unwrap_or_default().to_string();
            let made = t
                .post(
                    "/v2/documents",
                    "/v2/documents",
                    body("document: new", &[("name", name), ("signed", &signed)]),
                )
                .await;
            docs.push(id_of(&made));
        }
        let (doc, other) = (docs[0].clone(), docs[1].clone());
        t.get("/v2/documents", "/v2/documents").await;
        t.get("/v2/documents/types", "/v2/documents/types").await;
        t.get("/v2/documents/{id}", &format!("/v2/documents/{doc}"))
            .await;
        t.patch(
            "/v2/documents/{id}",
            &format!("/v2/documents/{doc}"),
            Some(body("document: typed", &[])),
        )
        .await;
        t.get(
            "/v2/documents/{id}/download_url",
            &format!("/v2/documents/{doc}/download_url"),
        )
        .await;
        for action in ["reclassify", "relink"] {
            let template = format!("/v2/documents/{{id}}/{action}");
            t.call(
                Method::POST,
                &template,
                &format!("/v2/documents/{doc}/{action}"),
                None,
            )
            .await;
        }
        t.get("/v2/email_submissions", "/v2/email_submissions")
            .await;
        other
    }

    /// Keys, and what the tour made, deleted.
    async fn clean_up(&mut self, j: &Journey, made: &Made) {
        let t = self;
        let (tr, shipment, container) = (&j.tr, &j.shipment, &j.container);
        let Made {
            hook,
            definitions,
            value_id,
            other_document: other,
        } = made;
        let Definitions {
            po,
            urgent,
            seal,
            options,
            chilled,
        } = definitions;
        // keys, and what the tour made, deleted
        t.get("/v2/api_keys", "/v2/api_keys").await;
        let made = t
            .post("/v2/api_keys", "/v2/api_keys", body("api key: new", &[]))
            .await;
        let made = id_of(&made);
        t.get("/v2/api_keys/{id}", &format!("/v2/api_keys/{made}"))
            .await;
        let publishable = t
            .post(
                "/v2/publishable_keys",
                "/v2/publishable_keys",
                body("publishable key: new", &[]),
            )
            .await;
        let publishable = format!("/v2/publishable_keys/{}", id_of(&publishable));
        t.get("/v2/publishable_keys", "/v2/publishable_keys").await;
        t.get("/v2/publishable_keys/{id}", &publishable).await;
        t.delete("/v2/publishable_keys/{id}", &publishable).await;
        t.patch(
            "/v2/shipments/{id}/stop_tracking",
            &format!("/v2/shipments/{shipment}/stop_tracking"),
            None,
        )
        .await;
        t.patch(
            "/v2/shipments/{id}/resume_tracking",
            &format!("/v2/shipments/{shipment}/resume_tracking"),
            None,
        )
        .await;
        t.delete(
            "/v2/custom_fields/{id}",
            &format!("/v2/custom_fields/{value_id}"),
        )
        .await;
        for (kind, id, slug) in [
            ("shipments", shipment.as_str(), "po_number"),
            ("containers", container.as_str(), "temperature_band"),
            ("tracking_requests", tr.as_str(), "urgent"),
        ] {
            t.delete(
                &format!("/v2/{kind}/{{id}}/custom_fields/{{api_slug}}"),
                &format!("/v2/{kind}/{id}/custom_fields/{slug}"),
            )
            .await;
        }
        t.delete(OPTION_PATH, &format!("{options}/{chilled}")).await;
        for id in [&seal, &urgent, &po] {
            t.delete(
                "/v2/custom_field_definitions/{id}",
                &format!("/v2/custom_field_definitions/{id}"),
            )
            .await;
        }
        t.delete("/v2/documents/{id}", &format!("/v2/documents/{other}"))
            .await;
        t.delete("/v2/webhooks/{id}", &format!("/v2/webhooks/{hook}"))
            .await;
        t.delete("/v2/api_keys/{id}", &format!("/v2/api_keys/{made}"))
            .await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_body_is_json_and_named_by_the_tour() {
        let all: serde_json::Map<String, Value> = serde_json::from_str(BODIES).unwrap_or_default();
        assert!(all.len() > 20, "bodies.json did not parse");
        let tour = [
            include_str!("tour.rs"),
            include_str!("tour/charges.rs"),
            include_str!("tour/parties.rs"),
        ]
        .concat();
        for step in all.keys() {
            // the custom field values are named through their entity kind
            let named = tour.contains(&format!("\"{step}\""))
                || step.starts_with("field value: shipments")
                || step.starts_with("field value: containers")
                || step.starts_with("field value: tracking_requests");
            assert!(
                named,
                "{step} is in bodies.json but the tour never sends it"
            );
        }
    }

    #[test]
    fn a_placeholder_is_replaced_only_where_it_is_the_whole_string() {
        let b = body("containers: new ref numbers", &[("container", "0190-id")]);
        assert_eq!(b["data"][0]["id"], "0190-id");
        assert_eq!(b["data"][0]["attributes"]["ref_numbers"][0], "PO-1234");
        assert_eq!(body("no such step", &[]), Value::Null);
    }
}
