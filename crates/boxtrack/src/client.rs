//! The client command line: `track`, `containers`, `shipments`, `show` and `watch` speak to a
//! running server over its REST API with an API key (`BOXTRACK_URL`, `BOXTRACK_API_KEY`), and
//! print tables for people or JSON for scripts (`--json`).

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Duration;

use anyhow::{Context, anyhow, bail};
use clap::Args;
use serde_json::{Value, json};

/// How to reach the server.
#[derive(Args, Debug, Clone)]
pub struct Conn {
    /// The server's base address. Env: BOXTRACK_URL.
    #[arg(
        long,
        env = "BOXTRACK_URL",
        default_value = "http://127.0.0.1:8080",
        value_name = "URL"
    )]
    pub url: String,
    /// An API key of the account to act for (`boxtrack keys create` or the console make one).
    /// Env: BOXTRACK_API_KEY.
    #[arg(
        long,
        env = "BOXTRACK_API_KEY",
        hide_env_values = true,
        value_name = "KEY"
    )]
    pub api_key: Option<String>,
    /// Print the API's JSON instead of a table (for scripts).
    #[arg(long)]
    pub json: bool,
}

/// Flags of `track`.
#[derive(Args, Debug)]
pub struct TrackArgs {
    /// The number to track: a bill of lading, a booking or a container number.
    #[arg(value_name = "NUMBER", required_unless_present = "file")]
    number: Option<String>,
    /// The shipping line's SCAC (e.g. MAEU). Without it the server detects the line from the
    /// number; TEST for the sandbox (TEST-SCN-* numbers take it by themselves).
    #[arg(long, value_name = "SCAC")]
    scac: Option<String>,
    /// What the number is: container, bill_of_lading or booking_number. Without it: a valid
    /// ISO 6346 number is a container, anything else a bill of lading.
    #[arg(long = "type", value_name = "TYPE")]
    request_type: Option<String>,
    /// Track every number of a CSV file instead: one per line, columns number[,scac[,type]]
    /// (a header line naming them is skipped; blank lines and lines starting with # too).
    #[arg(long, value_name = "FILE", conflicts_with = "number")]
    file: Option<PathBuf>,
    #[command(flatten)]
    conn: Conn,
}

/// The filters and paging `containers` and `shipments` share.
#[derive(Args, Debug)]
pub struct ListFlags {
    /// A container, bill of lading, booking or reference number to look for (the API's `q`).
    #[arg(long, value_name = "TEXT")]
    q: Option<String>,
    /// The shipping line's SCAC.
    #[arg(long, value_name = "SCAC")]
    carrier: Option<String>,
    /// The port of discharge (UN/LOCODE, e.g. USLAX).
    #[arg(long, value_name = "LOCODE")]
    port: Option<String>,
    /// Only rows changed since this time (ISO 8601).
    #[arg(long, value_name = "TIME")]
    updated_since: Option<String>,
    /// At most this many rows (pages are followed until then).
    #[arg(long, default_value_t = 100, value_name = "N")]
    limit: usize,
    #[command(flatten)]
    conn: Conn,
}

impl ListFlags {
    /// The shared query parameters, `extra` before the page size.
    fn query(&self, extra: &[(&str, Option<String>)]) -> String {
        let mut pairs = vec![
            ("q", self.q.clone()),
            ("filter[carrier]", self.carrier.clone()),
            ("filter[port]", self.port.clone()),
            ("filter[updated_at][start]", self.updated_since.clone()),
        ];
        pairs.extend(extra.iter().cloned());
        pairs.push(("page[size]", Some(self.limit.clamp(1, 100).to_string())));
        query(&pairs)
    }
}

/// Flags of `containers`.
#[derive(Args, Debug)]
pub struct ContainersArgs {
    /// Where the container is: on_ship, available, not_available, picked_up, empty_returned, ...
    #[arg(long, value_name = "STATUS")]
    status: Option<String>,
    /// Only containers ready (true) or not ready (false) for pickup.
    #[arg(long, value_name = "BOOL")]
    ready: Option<bool>,
    /// Only containers whose last free day is on or before this day (YYYY-MM-DD or ISO 8601).
    #[arg(long, value_name = "DATE")]
    lfd_before: Option<String>,
    /// Only containers whose last free day is on or after this day.
    #[arg(long, value_name = "DATE")]
    lfd_after: Option<String>,
    /// Only containers whose tracking stopped (true) or goes on (false).
    #[arg(long, value_name = "BOOL")]
    tracking_stopped: Option<bool>,
    #[command(flatten)]
    list: ListFlags,
}

/// Flags of `shipments`.
#[derive(Args, Debug)]
pub struct ShipmentsArgs {
    /// tracking or tracking_stopped.
    #[arg(long, value_name = "STATUS")]
    status: Option<String>,
    #[command(flatten)]
    list: ListFlags,
}

/// Flags of `show`.
#[derive(Args, Debug)]
pub struct ShowArgs {
    /// A container number or a bill of lading / booking number.
    #[arg(value_name = "NUMBER")]
    number: String,
    #[command(flatten)]
    conn: Conn,
}

/// Flags of `watch`.
#[derive(Args, Debug)]
pub struct WatchArgs {
    /// The container number to follow.
    #[arg(value_name = "NUMBER")]
    number: String,
    /// Stop when the container reaches one of these statuses (comma-separated, e.g.
    /// available,picked_up). Without it, follow until interrupted.
    #[arg(long, value_name = "STATUS,...")]
    until: Option<String>,
    /// Seconds between two looks (at least 1).
    #[arg(long, default_value_t = 30, value_name = "SECONDS")]
    interval: u64,
    /// Give up after this many seconds (exit 1).
    #[arg(long, value_name = "SECONDS")]
    timeout: Option<u64>,
    #[command(flatten)]
    conn: Conn,
}

/// Flags of `webhooks receive`.
#[derive(Args, Debug)]
pub struct ReceiveArgs {
    /// Address to receive on; give the webhook the URL http://ADDR/ (any path).
    #[arg(long, default_value = "127.0.0.1:9000", value_name = "ADDR")]
    listen: String,
    /// The webhook's secret (shown when it was created): each delivery's signature is checked
    /// and a bad one answered 401.
    #[arg(
        long,
        env = "BOXTRACK_WEBHOOK_SECRET",
        hide_env_values = true,
        value_name = "SECRET"
    )]
    secret: Option<String>,
    /// The header the signature comes in (the server's webhook_signature_header).
    #[arg(
        long,
        default_value = "X-Boxtrack-Webhook-Signature",
        value_name = "NAME"
    )]
    signature_header: String,
    /// Print each delivery's whole body (pretty JSON) rather than one line.
    #[arg(long)]
    body: bool,
}

/// `boxtrack webhooks receive`: a local receiver that prints each delivery and answers 200.
pub async fn receive(args: &ReceiveArgs) -> anyhow::Result<()> {
    use std::sync::Arc;
    let listener = tokio::net::TcpListener::bind(&args.listen)
        .await
        .with_context(|| format!("cannot listen on {}", args.listen))?;
    let addr = listener.local_addr()?;
    println!("receiving webhooks on http://{addr}/ (Ctrl-C stops)");
    let args = Arc::new((
        args.secret.clone(),
        args.signature_header.to_ascii_lowercase(),
        args.body,
    ));
    let app = axum::Router::new().fallback(
        move |headers: axum::http::HeaderMap, body: axum::body::Bytes| {
            let args = Arc::clone(&args);
            async move {
                let (secret, header, whole) = &*args;
                let check = match secret {
                    None => "signature not checked (no --secret)",
                    Some(sec) => {
                        let sent = headers.get(header.as_str()).and_then(|v| v.to_str().ok());
                        if sent == Some(boxtrack_core::webhooks::sign_hex(sec, &body).as_str()) {
                            "signature ok"
                        } else {
                            println!(
                                "{} refused: bad or missing {header} header",
                                jiff::Timestamp::now()
                            );
                            return axum::http::StatusCode::UNAUTHORIZED;
                        }
                    }
                };
                let doc: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
                say(&delivery_line(&doc, check));
                if *whole {
                    say(&serde_json::to_string_pretty(&doc).unwrap_or_default());
                }
                axum::http::StatusCode::OK
            }
        },
    );
    axum::serve(listener, app)
        .with_graceful_shutdown(async {
            let _ = tokio::signal::ctrl_c().await;
        })
        .await?;
    Ok(())
}

/// A line to standard output; a reader that went away is not the receiver's trouble.
fn say(line: &str) {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    let _ = writeln!(out, "{line}").and_then(|()| out.flush());
}

/// One line for a received delivery: when, the event, what it is about, the signature check.
pub fn delivery_line(doc: &Value, check: &str) -> String {
    let a = &doc["data"]["attributes"];
    let event = a["event"]
        .as_str()
        .unwrap_or("(not a boxtrack notification)");
    let about = doc["included"]
        .as_array()
        .and_then(|i| {
            i.iter().find_map(|r| {
                let ra = &r["attributes"];
                ra["number"]
                    .as_str()
                    .or_else(|| ra["bill_of_lading_number"].as_str())
                    .or_else(|| ra["request_number"].as_str())
            })
        })
        .unwrap_or("");
    format!(
        "{} {event} {about} ({check})",
        a["created_at"]
            .as_str()
            .map_or_else(|| jiff::Timestamp::now().to_string(), str::to_string)
    )
    .replace("  (", " (")
}

/// A server reached with a key.
struct Api {
    http: reqwest::Client,
    base: String,
    key: String,
}

impl Api {
    fn new(conn: &Conn) -> anyhow::Result<Api> {
        let Some(key) = conn.api_key.clone().filter(|k| !k.trim().is_empty()) else {
            bail!(
                "no API key: set BOXTRACK_API_KEY or pass --api-key (`boxtrack keys create --account ID` or the console's API keys page make one)"
            );
        };
        let base = conn.url.trim_end_matches('/').to_string();
        url::Url::parse(&base).with_context(|| format!("--url {base} is not an address"))?;
        let http = reqwest::Client::builder()
            .timeout(Duration::from_secs(60))
            .user_agent(concat!("boxtrack-cli/", env!("CARGO_PKG_VERSION")))
            .build()?;
        Ok(Api { http, base, key })
    }

    /// Sends a request; waits out 429s as Retry-After says (up to five times); any other
    /// error status becomes an error that quotes the API's own words.
    async fn send(
        &self,
        method: reqwest::Method,
        path: &str,
        body: Option<&Value>,
    ) -> anyhow::Result<Value> {
        let url = if path.starts_with("http") {
            path.to_string()
        } else {
            format!("{}{path}", self.base)
        };
        for _ in 0..6 {
            let mut req = self
                .http
                .request(method.clone(), &url)
                .header("Authorization", format!("Token {}", self.key))
                .header("Accept", "application/vnd.api+json");
            if let Some(b) = body {
                req = req
                    .header("Content-Type", "application/vnd.api+json")
                    .body(b.to_string());
            }
            let r = req.send().await.map_err(|e| reach_error(&self.base, &e))?;
            let status = r.status();
            if status == reqwest::StatusCode::TOO_MANY_REQUESTS {
                let wait = r
                    .headers()
                    .get("retry-after")
                    .and_then(|v| v.to_str().ok())
                    .and_then(|v| v.parse::<u64>().ok())
                    .unwrap_or(5)
                    .clamp(1, 120);
                tokio::time::sleep(Duration::from_secs(wait)).await;
                continue;
            }
            let text = r.text().await.unwrap_or_default();
            let doc: Value = if text.is_empty() {
                Value::Null
            } else {
                serde_json::from_str(&text).unwrap_or(Value::String(text))
            };
            if status.is_success() {
                return Ok(doc);
            }
            return Err(ApiFailure {
                status: status.as_u16(),
                message: error_text(&doc),
            }
            .into());
        }
        bail!("the server kept answering 429 (rate limited); try again later")
    }

    async fn get(&self, path: &str) -> anyhow::Result<Value> {
        self.send(reqwest::Method::GET, path, None).await
    }

    /// Reads a list, following `links.next` until `limit` rows; the included resources of
    /// every page are kept.
    async fn list(&self, path: &str, limit: usize) -> anyhow::Result<Value> {
        let mut data = Vec::new();
        let mut included = Vec::new();
        let mut next = Some(path.to_string());
        while let Some(p) = next.take() {
            let page = self.get(&p).await?;
            data.extend(page["data"].as_array().cloned().unwrap_or_default());
            included.extend(page["included"].as_array().cloned().unwrap_or_default());
            if data.len() >= limit {
                data.truncate(limit);
                break;
            }
            next = page["links"]["next"].as_str().map(str::to_string);
        }
        Ok(json!({"data": data, "included": included}))
    }
}

/// An error status from the API.
#[derive(Debug)]
struct ApiFailure {
    status: u16,
    message: String,
}

impl std::fmt::Display for ApiFailure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.status {
            401 => write!(f, "the server refused the API key (401): {}", self.message),
            _ => write!(f, "the server answered {}: {}", self.status, self.message),
        }
    }
}

impl std::error::Error for ApiFailure {}

fn reach_error(base: &str, e: &reqwest::Error) -> anyhow::Error {
    if e.is_connect() {
        anyhow!(
            "cannot reach {base}: is `boxtrack serve` running there? (set BOXTRACK_URL or --url)"
        )
    } else if e.is_timeout() {
        anyhow!("{base} did not answer in time")
    } else {
        anyhow!("request to {base} failed: {e}")
    }
}

/// The titles and details of a JSON:API error document, one sentence each.
fn error_text(doc: &Value) -> String {
    let parts: Vec<String> = doc["errors"]
        .as_array()
        .map(|errs| {
            errs.iter()
                .map(|e| {
                    let title = e["title"].as_str().unwrap_or("");
                    match e["detail"].as_str() {
                        Some(d) if !d.is_empty() && d != title => format!("{title}: {d}"),
                        _ => title.to_string(),
                    }
                })
                .collect()
        })
        .unwrap_or_default();
    if parts.is_empty() {
        match doc {
            Value::String(s) => s.chars().take(200).collect(),
            _ => "no error document".to_string(),
        }
    } else {
        parts.join("; ")
    }
}

/// What a tracking request asks for, before it is sent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Wanted {
    /// The number as typed (trimmed).
    pub number: String,
    /// The SCAC, when known.
    pub scac: Option<String>,
    /// container, bill_of_lading or booking_number.
    pub request_type: String,
}

/// Fills in what was not given: sandbox numbers take `TEST`; the type is what the number
/// looks like (a valid ISO 6346 number is a container, else a bill of lading).
pub fn wanted(number: &str, scac: Option<&str>, request_type: Option<&str>) -> Wanted {
    let number = number.trim().to_string();
    let upper = number.to_ascii_uppercase();
    let sandbox = upper.starts_with("TEST-");
    let scac = scac
        .map(|s| s.trim().to_ascii_uppercase())
        .filter(|s| !s.is_empty())
        .or_else(|| sandbox.then(|| "TEST".to_string()));
    let request_type = request_type.map(str::to_string).unwrap_or_else(|| {
        if sandbox {
            return "bill_of_lading".to_string();
        }
        match boxtrack_core::carriers::infer(&number) {
            Ok(i) if i.number_type == boxtrack_core::carriers::NumberType::Container => {
                "container".to_string()
            }
            _ => "bill_of_lading".to_string(),
        }
    });
    Wanted {
        number,
        scac,
        request_type,
    }
}

/// The rows of a numbers file: `number[,scac[,type]]`, a header and comments skipped.
pub fn parse_numbers(text: &str) -> Result<Vec<Wanted>, String> {
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.trim().trim_start_matches('\u{feff}');
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let cells: Vec<&str> = line
            .split([',', ';', '\t'])
            .map(|c| c.trim().trim_matches('"'))
            .collect();
        if i == 0 && cells[0].eq_ignore_ascii_case("number") {
            continue;
        }
        if cells.len() > 3 {
            return Err(format!(
                "line {}: {} columns; a row is number[,scac[,type]]",
                i + 1,
                cells.len()
            ));
        }
        if cells[0].is_empty() {
            return Err(format!("line {}: no number", i + 1));
        }
        let scac = cells.get(1).copied().filter(|s| !s.is_empty());
        let kind = cells.get(2).copied().filter(|s| !s.is_empty());
        if let Some(k) = kind
            && !["container", "bill_of_lading", "booking_number"].contains(&k)
        {
            return Err(format!(
                "line {}: type {k:?} is not container, bill_of_lading or booking_number",
                i + 1
            ));
        }
        out.push(wanted(cells[0], scac, kind));
    }
    if out.is_empty() {
        return Err("the file holds no numbers".to_string());
    }
    Ok(out)
}

fn tracking_body(w: &Wanted) -> Value {
    let mut attrs = json!({"request_number": w.number, "request_type": w.request_type});
    match &w.scac {
        Some(s) => attrs["scac"] = json!(s),
        None => attrs["auto_detect_vocc_scac"] = json!(true),
    }
    json!({"data": {"type": "tracking_request", "attributes": attrs}})
}

/// `boxtrack track`.
pub async fn track(args: &TrackArgs) -> anyhow::Result<()> {
    let api = Api::new(&args.conn)?;
    if let Some(file) = &args.file {
        let text = std::fs::read_to_string(file)
            .with_context(|| format!("cannot read {}", file.display()))?;
        let rows = parse_numbers(&text).map_err(|e| anyhow!("{}: {e}", file.display()))?;
        return track_many(&api, &rows, args.conn.json).await;
    }
    let number = args.number.as_deref().unwrap_or_default();
    let w = wanted(number, args.scac.as_deref(), args.request_type.as_deref());
    let doc = api
        .send(
            reqwest::Method::POST,
            "/v2/tracking_requests",
            Some(&tracking_body(&w)),
        )
        .await?;
    if args.conn.json {
        println!("{}", serde_json::to_string_pretty(&doc)?);
        return Ok(());
    }
    let a = &doc["data"]["attributes"];
    println!(
        "{}",
        table(
            &["TRACKING REQUEST", "NUMBER", "TYPE", "SCAC", "STATUS"],
            &[vec![
                text(&doc["data"]["id"]),
                text(&a["request_number"]),
                text(&a["request_type"]),
                text(&a["scac"]),
                text(&a["status"]),
            ]],
        )
    );
    println!(
        "follow it with: boxtrack show {} (or boxtrack watch CONTAINER)",
        w.number
    );
    Ok(())
}

async fn track_many(api: &Api, rows: &[Wanted], json_out: bool) -> anyhow::Result<()> {
    let bar = indicatif::ProgressBar::new(rows.len() as u64);
    bar.set_style(
        indicatif::ProgressStyle::with_template("{bar:40} {pos}/{len} {msg}")
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
    );
    let mut out = Vec::new();
    let (mut created, mut already, mut failed) = (0, 0, 0);
    for w in rows {
        bar.set_message(w.number.clone());
        let r = api
            .send(
                reqwest::Method::POST,
                "/v2/tracking_requests",
                Some(&tracking_body(w)),
            )
            .await;
        let (result, id, detail) = match r {
            Ok(doc) => {
                created += 1;
                ("created", text(&doc["data"]["id"]), String::new())
            }
            Err(e) => match e.downcast_ref::<ApiFailure>() {
                Some(f) if f.status == 422 && f.message.contains("already exists") => {
                    already += 1;
                    ("already tracked", String::new(), String::new())
                }
                Some(f) if f.status < 500 && f.status != 401 && f.status != 403 => {
                    failed += 1;
                    ("refused", String::new(), f.message.clone())
                }
                // the server or the key is the trouble: every other row would fail alike
                _ => {
                    bar.finish_and_clear();
                    return Err(e);
                }
            },
        };
        out.push((w.clone(), result, id, detail));
        bar.inc(1);
    }
    bar.finish_and_clear();
    if json_out {
        for (w, result, id, detail) in &out {
            println!(
                "{}",
                json!({"number": w.number, "scac": w.scac, "request_type": w.request_type,
                       "result": result, "tracking_request_id": (!id.is_empty()).then_some(id),
                       "error": (!detail.is_empty()).then_some(detail)})
            );
        }
    } else {
        let body: Vec<Vec<String>> = out
            .iter()
            .map(|(w, result, id, detail)| {
                vec![
                    w.number.clone(),
                    w.scac.clone().unwrap_or_else(|| "auto".into()),
                    w.request_type.clone(),
                    result.to_string(),
                    if detail.is_empty() {
                        id.clone()
                    } else {
                        detail.clone()
                    },
                ]
            })
            .collect();
        println!(
            "{}",
            table(
                &["NUMBER", "SCAC", "TYPE", "RESULT", "TRACKING REQUEST / WHY"],
                &body
            )
        );
        println!("{created} created, {already} already tracked, {failed} refused");
    }
    if failed > 0 {
        bail!("{failed} of {} numbers were refused", rows.len());
    }
    Ok(())
}

fn query(pairs: &[(&str, Option<String>)]) -> String {
    let mut u = url::form_urlencoded::Serializer::new(String::new());
    for (k, v) in pairs {
        if let Some(v) = v {
            u.append_pair(k, v);
        }
    }
    u.finish()
}

/// Prints the API's document for scripts, or what `render` makes of it for people.
fn print(doc: &Value, json_out: bool, render: fn(&Value) -> String) -> anyhow::Result<()> {
    if json_out {
        println!("{}", serde_json::to_string_pretty(doc)?);
    } else {
        println!("{}", render(doc));
    }
    Ok(())
}

/// `boxtrack containers`.
pub async fn containers(args: &ContainersArgs) -> anyhow::Result<()> {
    let l = &args.list;
    let api = Api::new(&l.conn)?;
    let q = l.query(&[
        ("filter[current_status]", args.status.clone()),
        (
            "filter[ready_for_pickup]",
            args.ready.map(|b| b.to_string()),
        ),
        ("filter[pickup_lfd][end]", args.lfd_before.clone()),
        ("filter[pickup_lfd][start]", args.lfd_after.clone()),
        (
            "filter[tracking_stopped]",
            args.tracking_stopped.map(|b| b.to_string()),
        ),
        ("include", Some("shipment".into())),
    ]);
    let doc = api.list(&format!("/v2/containers?{q}"), l.limit).await?;
    print(&doc, l.conn.json, containers_table)
}

/// The table `boxtrack containers` prints.
pub fn containers_table(doc: &Value) -> String {
    let shipments = included(doc, "shipment");
    let rows: Vec<Vec<String>> = doc["data"]
        .as_array()
        .map(|d| {
            d.iter()
                .map(|c| {
                    let a = &c["attributes"];
                    let s = shipments
                        .get(
                            c["relationships"]["shipment"]["data"]["id"]
                                .as_str()
                                .unwrap_or(""),
                        )
                        .map(|s| &s["attributes"]);
                    vec![
                        text(&a["number"]),
                        text(&a["current_status"]),
                        s.map(|s| text(&s["bill_of_lading_number"]))
                            .unwrap_or_default(),
                        s.map(|s| {
                            day(&s["pod_ata_at"])
                                .or_else(|| day(&s["pod_eta_at"]))
                                .unwrap_or_default()
                        })
                        .unwrap_or_default(),
                        day(&a["pickup_lfd"]).unwrap_or_default(),
                        yes_no(&a["ready_for_pickup"]),
                        holds_summary(a),
                    ]
                })
                .collect()
        })
        .unwrap_or_default();
    if rows.is_empty() {
        return "no containers".to_string();
    }
    table(
        &[
            "CONTAINER",
            "STATUS",
            "BILL OF LADING",
            "POD ETA/ATA",
            "LFD",
            "READY",
            "HOLDS",
        ],
        &rows,
    )
}

/// `boxtrack shipments`.
pub async fn shipments(args: &ShipmentsArgs) -> anyhow::Result<()> {
    let l = &args.list;
    let api = Api::new(&l.conn)?;
    let q = l.query(&[("filter[status]", args.status.clone())]);
    let doc = api.list(&format!("/v2/shipments?{q}"), l.limit).await?;
    print(&doc, l.conn.json, shipments_table)
}

/// The table `boxtrack shipments` prints.
pub fn shipments_table(doc: &Value) -> String {
    let rows: Vec<Vec<String>> = doc["data"]
        .as_array()
        .map(|d| {
            d.iter()
                .map(|s| {
                    let a = &s["attributes"];
                    let containers = s["relationships"]["containers"]["data"]
                        .as_array()
                        .map_or(0, Vec::len);
                    vec![
                        text(&a["bill_of_lading_number"]),
                        text(&a["shipping_line_scac"]),
                        format!(
                            "{} → {}",
                            text(&a["port_of_lading_locode"]),
                            text(&a["port_of_discharge_locode"])
                        ),
                        day(&a["pod_ata_at"])
                            .map(|d| format!("{d} (arrived)"))
                            .or_else(|| day(&a["pod_eta_at"]))
                            .unwrap_or_default(),
                        containers.to_string(),
                        if a["line_tracking_stopped_at"].is_null() {
                            "tracking"
                        } else {
                            "stopped"
                        }
                        .to_string(),
                    ]
                })
                .collect()
        })
        .unwrap_or_default();
    if rows.is_empty() {
        return "no shipments".to_string();
    }
    table(
        &[
            "BILL OF LADING",
            "LINE",
            "ROUTE",
            "POD ETA",
            "CONTAINERS",
            "TRACKING",
        ],
        &rows,
    )
}

/// `boxtrack show`.
pub async fn show(args: &ShowArgs) -> anyhow::Result<()> {
    let api = Api::new(&args.conn)?;
    let number = args.number.trim().to_ascii_uppercase();
    let q = query(&[
        ("filter[number]", Some(number.clone())),
        (
            "include",
            Some("shipment,transport_events,pod_terminal".into()),
        ),
    ]);
    let doc = api.get(&format!("/v2/containers?{q}")).await?;
    if doc["data"].as_array().is_some_and(|d| !d.is_empty()) {
        return print(&doc, args.conn.json, container_summary);
    }
    let q = query(&[
        ("q", Some(number.clone())),
        ("include", Some("containers".into())),
    ]);
    let doc = api.get(&format!("/v2/shipments?{q}")).await?;
    if doc["data"].as_array().is_some_and(|d| !d.is_empty()) {
        return print(&doc, args.conn.json, shipment_summary);
    }
    let q = query(&[("q", Some(number.clone()))]);
    let requests = api.get(&format!("/v2/tracking_requests?{q}")).await?;
    if let Some(r) = requests["data"].as_array().and_then(|d| d.first()) {
        let a = &r["attributes"];
        bail!(
            "{number} has no shipment yet: its tracking request is {}{}",
            text(&a["status"]),
            a["failed_reason"]
                .as_str()
                .map(|f| format!(" ({f})"))
                .unwrap_or_default()
        );
    }
    bail!("{number} is not tracked by this account: `boxtrack track {number}` starts")
}

/// The readable summary of one container (`show` on a container number).
pub fn container_summary(doc: &Value) -> String {
    let c = &doc["data"][0];
    let a = &c["attributes"];
    let ship = included(doc, "shipment")
        .get(
            c["relationships"]["shipment"]["data"]["id"]
                .as_str()
                .unwrap_or(""),
        )
        .map(|s| s["attributes"].clone())
        .unwrap_or(Value::Null);
    let terminal = included(doc, "terminal")
        .get(
            c["relationships"]["pod_terminal"]["data"]["id"]
                .as_str()
                .unwrap_or(""),
        )
        .map(|t| text(&t["attributes"]["name"]));
    let mut lines = vec![format!(
        "Container {}{}",
        text(&a["number"]),
        a["equipment_length"]
            .as_i64()
            .map(|l| format!(" ({l}' {})", text(&a["equipment_type"])))
            .unwrap_or_default()
    )];
    let mut field = |k: &str, v: String| {
        if !v.is_empty() {
            lines.push(format!("  {k:<16}{v}"));
        }
    };
    field("Status", text(&a["current_status"]));
    if !ship.is_null() {
        field(
            "Bill of lading",
            format!(
                "{} ({})",
                text(&ship["bill_of_lading_number"]),
                text(&ship["shipping_line_scac"])
            ),
        );
        field(
            "Route",
            format!(
                "{} → {}",
                text(&ship["port_of_lading_name"]),
                text(&ship["port_of_discharge_name"])
            ),
        );
        field("Vessel", text(&ship["pod_vessel_name"]));
        match (day(&ship["pod_ata_at"]), day(&ship["pod_eta_at"])) {
            (Some(ata), _) => field("Arrived", ata),
            (None, Some(eta)) => field("ETA", eta),
            _ => {}
        }
    }
    field("Terminal", terminal.unwrap_or_default());
    field(
        "Last free day",
        day(&a["pickup_lfd"]).unwrap_or_else(|| "not known".into()),
    );
    field(
        "Ready",
        if a["ready_for_pickup"] == true {
            "yes".to_string()
        } else if a["availability_known"] == true {
            "no".to_string()
        } else {
            "not known".to_string()
        },
    );
    field("Holds", holds_summary(a));
    field("Fees", fees_summary(a));
    let mut events: Vec<&Value> = doc["included"]
        .as_array()
        .map(|i| {
            i.iter()
                .filter(|r| r["type"] == "transport_event")
                .collect()
        })
        .unwrap_or_default();
    events.sort_by_key(|e| {
        e["attributes"]["timestamp"]
            .as_str()
            .unwrap_or("")
            .to_string()
    });
    if !events.is_empty() {
        lines.push("  Last events".to_string());
        for e in events.iter().rev().take(5) {
            let ea = &e["attributes"];
            lines.push(format!(
                "    {:<17} {}{}",
                minute(&ea["timestamp"]),
                text(&ea["event"]),
                ea["location_locode"]
                    .as_str()
                    .map(|l| format!(" at {l}"))
                    .unwrap_or_default()
            ));
        }
    }
    lines.join("\n")
}

/// The readable summary of one shipment (`show` on a bill of lading or booking number).
pub fn shipment_summary(doc: &Value) -> String {
    let s = &doc["data"][0];
    let a = &s["attributes"];
    let mut lines = vec![format!(
        "Shipment {} ({})",
        text(&a["bill_of_lading_number"]),
        text(&a["shipping_line_scac"])
    )];
    lines.push(format!(
        "  {:<16}{} → {}",
        "Route",
        text(&a["port_of_lading_name"]),
        text(&a["port_of_discharge_name"])
    ));
    if let Some(v) = a["pod_vessel_name"].as_str() {
        lines.push(format!("  {:<16}{v}", "Vessel"));
    }
    match (day(&a["pod_ata_at"]), day(&a["pod_eta_at"])) {
        (Some(ata), _) => lines.push(format!("  {:<16}{ata}", "Arrived")),
        (None, Some(eta)) => lines.push(format!("  {:<16}{eta}", "ETA")),
        _ => {}
    }
    let ids: Vec<&str> = s["relationships"]["containers"]["data"]
        .as_array()
        .map(|d| d.iter().filter_map(|r| r["id"].as_str()).collect())
        .unwrap_or_default();
    let containers = included(doc, "container");
    let rows: Vec<Vec<String>> = ids
        .iter()
        .filter_map(|id| containers.get(*id))
        .map(|c| {
            let ca = &c["attributes"];
            vec![
                text(&ca["number"]),
                text(&ca["current_status"]),
                day(&ca["pickup_lfd"]).unwrap_or_default(),
                yes_no(&ca["ready_for_pickup"]),
                holds_summary(ca),
            ]
        })
        .collect();
    if !rows.is_empty() {
        lines.push(String::new());
        lines.push(table(
            &["CONTAINER", "STATUS", "LFD", "READY", "HOLDS"],
            &rows,
        ));
    }
    lines.join("\n")
}

/// `boxtrack watch`: looks every `interval`, prints each change, and stops at a named status.
pub async fn watch(args: &WatchArgs) -> anyhow::Result<()> {
    let api = Api::new(&args.conn)?;
    let number = args.number.trim().to_ascii_uppercase();
    let until: Vec<String> = args
        .until
        .as_deref()
        .map(|u| {
            u.split(',')
                .map(|s| s.trim().to_string())
                .filter(|s| !s.is_empty())
                .collect()
        })
        .unwrap_or_default();
    let spinner = indicatif::ProgressBar::new_spinner();
    spinner.enable_steady_tick(Duration::from_millis(120));
    let started = std::time::Instant::now();
    let q = query(&[("filter[number]", Some(number.clone()))]);
    let mut last: Option<BTreeMap<&'static str, String>> = None;
    loop {
        let doc = api.get(&format!("/v2/containers?{q}")).await?;
        let Some(c) = doc["data"].as_array().and_then(|d| d.first()) else {
            spinner.finish_and_clear();
            bail!(
                "{number} is not a container this account tracks (`boxtrack containers` lists them)"
            );
        };
        let now = watched(&c["attributes"]);
        let changes = changes(last.as_ref(), &now);
        if !changes.is_empty() {
            let stamp = jiff::Zoned::now().strftime("%H:%M:%S").to_string();
            spinner.suspend(|| {
                if args.conn.json {
                    println!("{}", json!({"at": jiff::Timestamp::now().to_string(), "container": number, "changes": changes.iter().map(|(k, v)| json!({"field": k, "value": v})).collect::<Vec<_>>()}));
                } else {
                    for (k, v) in &changes {
                        println!("{stamp} {number} {k}: {v}");
                    }
                }
            });
        }
        let status = now.get("status").cloned().unwrap_or_default();
        if until.contains(&status) {
            spinner.finish_and_clear();
            if !args.conn.json {
                println!("{number} is {status}");
            }
            return Ok(());
        }
        last = Some(now);
        if let Some(t) = args.timeout
            && started.elapsed() >= Duration::from_secs(t)
        {
            spinner.finish_and_clear();
            bail!(
                "{number} did not reach {} within {t} s (it is {status})",
                until.join(" or ")
            );
        }
        spinner.set_message(format!(
            "{number}: {status}; next look in {} s",
            args.interval.max(1)
        ));
        tokio::time::sleep(Duration::from_secs(args.interval.max(1))).await;
    }
}

/// What `watch` follows of a container.
fn watched(a: &Value) -> BTreeMap<&'static str, String> {
    BTreeMap::from([
        ("status", text(&a["current_status"])),
        (
            "last free day",
            day(&a["pickup_lfd"]).unwrap_or_else(|| "not known".into()),
        ),
        ("ready for pickup", yes_no(&a["ready_for_pickup"])),
        ("holds", holds_summary(a)),
        ("fees", fees_summary(a)),
    ])
}

/// The fields that differ from the last look (all of them on the first).
pub fn changes(
    before: Option<&BTreeMap<&'static str, String>>,
    now: &BTreeMap<&'static str, String>,
) -> Vec<(&'static str, String)> {
    now.iter()
        .filter(|(k, v)| before.and_then(|b| b.get(*k)) != Some(*v))
        .map(|(k, v)| (*k, v.clone()))
        .collect()
}

fn holds_summary(a: &Value) -> String {
    if a["holds_at_pod_terminal"].is_null() {
        return "not reported".to_string();
    }
    let held: Vec<String> = a["holds_at_pod_terminal"]
        .as_array()
        .map(|h| {
            h.iter()
                .filter(|h| h["status"] == "hold")
                .map(|h| text(&h["name"]))
                .collect()
        })
        .unwrap_or_default();
    if held.is_empty() {
        "none".to_string()
    } else {
        held.join(", ")
    }
}

fn fees_summary(a: &Value) -> String {
    if a["fees_at_pod_terminal"].is_null() {
        return "not reported".to_string();
    }
    let fees: Vec<String> = a["fees_at_pod_terminal"]
        .as_array()
        .map(|f| {
            f.iter()
                .map(|f| {
                    format!(
                        "{} {} {}",
                        text(&f["type"]),
                        match &f["amount"] {
                            Value::Number(n) => n.to_string(),
                            other => text(other),
                        },
                        text(&f["currency_code"])
                    )
                })
                .collect()
        })
        .unwrap_or_default();
    if fees.is_empty() {
        "none".to_string()
    } else {
        fees.join(", ")
    }
}

fn included(doc: &Value, kind: &str) -> BTreeMap<String, Value> {
    doc["included"]
        .as_array()
        .map(|i| {
            i.iter()
                .filter(|r| r["type"] == kind)
                .filter_map(|r| Some((r["id"].as_str()?.to_string(), r.clone())))
                .collect()
        })
        .unwrap_or_default()
}

fn text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Null => String::new(),
        other => other.to_string(),
    }
}

fn yes_no(v: &Value) -> String {
    match v {
        Value::Bool(true) => "yes".into(),
        Value::Bool(false) => "no".into(),
        _ => String::new(),
    }
}

/// The day of an ISO 8601 time or date as the API wrote it (its local offset kept).
fn day(v: &Value) -> Option<String> {
    v.as_str().map(|s| s.chars().take(10).collect())
}

/// Day and minute of an ISO 8601 time (`2026-03-04 09:30`).
fn minute(v: &Value) -> String {
    v.as_str()
        .map(|s| s.chars().take(16).collect::<String>().replacen('T', " ", 1))
        .unwrap_or_default()
}

use crate::admin::table;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_take_their_type_and_the_sandbox_its_scac() {
        assert_eq!(
            wanted("msku1234565", None, None),
            Wanted {
                number: "msku1234565".into(),
                scac: None,
                request_type: "container".into()
            }
        );
        assert_eq!(
            wanted("MAEU123456789", Some("maeu"), None).request_type,
            "bill_of_lading"
        );
        assert_eq!(
            wanted("MAEU123456789", Some("maeu"), None).scac.as_deref(),
            Some("MAEU")
        );
        let sandbox = wanted("TEST-SCN-HOLDS", None, None);
        assert_eq!(sandbox.scac.as_deref(), Some("TEST"));
        assert_eq!(sandbox.request_type, "bill_of_lading");
        assert_eq!(
            wanted("X1", None, Some("booking_number")).request_type,
            "booking_number"
        );
    }

    #[test]
    fn number_files_skip_headers_and_comments_and_name_bad_lines() {
        let rows = parse_numbers(
            "number,scac,type\n# a comment\n\nMAEU1,MAEU\nTEST-SCN-RAIL\nX2,,booking_number\n",
        )
        .unwrap();
        assert_eq!(rows.len(), 3);
        assert_eq!(rows[0].scac.as_deref(), Some("MAEU"));
        assert_eq!(rows[1].scac.as_deref(), Some("TEST"));
        assert_eq!(rows[2].request_type, "booking_number");
        assert_eq!(rows[2].scac, None);
        assert!(parse_numbers("A,B,C,D\n").unwrap_err().contains("line 1"));
        assert!(parse_numbers("A,B,ship\n").unwrap_err().contains("ship"));
        assert!(
            parse_numbers("number\n")
                .unwrap_err()
                .contains("no numbers")
        );
    }

    #[test]
    fn tables_align_columns() {
        let t = table(
            &["A", "LONGER"],
            &[
                vec!["xyz".into(), "1".into()],
                vec!["q".into(), "22".into()],
            ],
        );
        assert_eq!(t, "A    LONGER\nxyz  1\nq    22");
    }

    #[test]
    fn watch_reports_only_what_changed() {
        let a = watched(&json!({"current_status": "on_ship", "ready_for_pickup": false}));
        assert_eq!(changes(None, &a).len(), a.len());
        let b = watched(&json!({"current_status": "available", "ready_for_pickup": false}));
        assert_eq!(
            changes(Some(&a), &b),
            vec![("status", "available".to_string())]
        );
        assert!(changes(Some(&b), &b).is_empty());
    }

    #[test]
    fn api_errors_read_as_sentences() {
        let doc = json!({"errors": [{"title": "Unprocessable Entity", "detail": "Request number is invalid"}, {"title": "Bad"}]});
        assert_eq!(
            error_text(&doc),
            "Unprocessable Entity: Request number is invalid; Bad"
        );
        assert_eq!(error_text(&json!("plain")), "plain");
    }
}
