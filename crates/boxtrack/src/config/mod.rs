//! Settings: defaults, then `boxtrack.toml`, then `BOXTRACK_*` environment variables, then
//! command-line flags, merged by figment ([`layers`]) into one [`layers::RawSettings`] that
//! refuses unknown keys; every setting is declared once in [`specs`]. Every value is then
//! checked here at start, and a bad one stops the start with a message that names the
//! setting and where it came from.

use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::path::Path;
use std::time::Duration;

use anyhow::bail;
use boxtrack_sources::upstream::{Endpoint, EndpointConfig};

mod flags;
mod layers;
pub mod specs;

pub use flags::{GLOBAL, SERVE, SettingFlags, WEBHOOKS};
pub use layers::{Layer, config_file};

/// Where rate-limit state is kept.
#[derive(Clone, PartialEq, Eq)]
pub enum RateLimitStore {
    /// In memory for SQLite (one process), in the database for PostgreSQL.
    Auto,
    /// In this process's memory.
    Memory,
    /// In the database, shared by every process.
    Database,
    /// In a Redis server (`redis://` address), shared by every process using it.
    Redis(String),
}

impl std::fmt::Debug for RateLimitStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RateLimitStore::Auto => f.write_str("Auto"),
            RateLimitStore::Memory => f.write_str("Memory"),
            RateLimitStore::Database => f.write_str("Database"),
            // the address may hold a password
            RateLimitStore::Redis(url) => {
                write!(f, "Redis({})", boxtrack_store::db::redact_url(url))
            }
        }
    }
}

/// Log output format.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LogFormat {
    /// Human-readable lines.
    Text,
    /// One JSON object per line.
    Json,
}

/// What a `serve` process runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// The API and the background work (the default; the only choice on SQLite).
    All,
    /// The API only: requests, MCP, console. Scale these out behind a proxy.
    Api,
    /// The background work only (tracking requests, polling, webhook deliveries), with
    /// `/healthz`, `/readyz` and `/metrics` on the listen address.
    Worker,
}

impl Role {
    /// The role's name as a setting writes it.
    pub fn as_str(self) -> &'static str {
        match self {
            Role::All => "all",
            Role::Api => "api",
            Role::Worker => "worker",
        }
    }

    /// Whether the process answers API requests.
    pub fn api(self) -> bool {
        matches!(self, Role::All | Role::Api)
    }

    /// Whether the process runs the background work.
    pub fn worker(self) -> bool {
        matches!(self, Role::All | Role::Worker)
    }
}

/// Validated settings.
#[derive(Debug, Clone)]
pub struct Settings {
    /// What this process runs.
    pub role: Role,
    /// The log filter when `RUST_LOG` is not set (`info`, `warn`, `boxtrack=debug,info`, ...).
    pub log_level: Option<String>,
    /// How long a stopping process waits for requests and deliveries in flight.
    pub shutdown_timeout: Duration,
    /// How long a stopping process keeps answering (with `/readyz` at 503) before it stops
    /// accepting connections, so that a load balancer notices first.
    pub drain_delay: Duration,
    /// Address to listen on.
    pub listen: SocketAddr,
    /// `sqlite://PATH` or `postgres://...`.
    pub database_url: String,
    /// Database connections this process keeps at most (`None`: the backend's default).
    pub database_pool_size: Option<u32>,
    /// How long a request waits for a free database connection.
    pub database_acquire_timeout: Duration,
    /// `postgres://...` URLs of read replicas of a PostgreSQL primary (empty: none).
    pub database_replica_urls: Vec<String>,
    /// How far a replica may lag before its reads go to the primary.
    pub database_replica_max_lag: Duration,
    /// Absolute base address for links, when behind a proxy.
    pub public_url: Option<String>,
    /// Where rate-limit state lives.
    pub rate_limit_store: RateLimitStore,
    /// Log format.
    pub log_format: LogFormat,
    /// Per-request time limit.
    pub request_timeout: Duration,
    /// Time a client has to send a request's head (and an idle connection stays open).
    pub header_timeout: Duration,
    /// Connections served at once.
    pub max_connections: usize,
    /// Sandbox journeys: simulated seconds per real second.
    pub sandbox_speed: f64,
    /// Seconds of a carrier's clock between checks of a bill awaiting its manifest.
    pub manifest_recheck_secs: i64,
    /// Days reports about containers nobody tracks yet are kept.
    pub early_report_days: i64,
    /// How many such reports are kept at most.
    pub early_report_max: i64,
    /// How long each kind of history is kept (`retention_*_days`).
    pub retention: boxtrack_store::retention::Retention,
    /// Bytes of rendered single-resource reads kept in memory (0: no read cache).
    pub read_cache_bytes: usize,
    /// Allow http:// and internal webhook URLs (tests, local receivers).
    pub allow_private_webhook_urls: bool,
    /// Egress addresses of webhook deliveries, published at GET /v2/webhooks/ips.
    pub webhook_source_ips: Vec<String>,
    /// Seconds before a webhook delivery attempt counts as failed.
    pub webhook_timeout: Duration,
    /// Failed deliveries in a row after which a webhook is deactivated.
    pub webhook_deactivate_after: i64,
    /// Seconds before each webhook retry (its length is the number of retries).
    pub webhook_retry_schedule: Vec<i64>,
    /// Header name of the hex body signature.
    pub webhook_signature_header: String,
    /// Upstreams: a simulator and/or carriers and terminals from the configuration file.
    pub upstreams: boxtrack_sources::upstream::UpstreamConfig,
    /// Base64 secret DCSA push calls are signed with (push is off without one).
    pub dcsa_push_secret: Option<String>,
    /// An AIS feed to follow (`host:port`, NMEA sentences per line).
    pub ais_feed: Option<String>,
    /// A WebSocket AIS feed to follow (`ais_websocket_url` with `ais_websocket_key`).
    pub ais_websocket: Option<boxtrack_sources::ais::stream::StreamConfig>,
    /// Browser origins allowed to call `/mcp` besides loopback and `public_url`.
    pub mcp_allowed_origins: Vec<String>,
    /// Test mode: `/mcp` without credentials acts for this account (loopback listeners only).
    pub mcp_open_account: Option<uuid::Uuid>,
    /// Where the bytes of documents live: `database` or `s3://BUCKET[/PREFIX]` (credentials,
    /// region and endpoint from the AWS_* variables).
    pub document_store: String,
}

/// Merges the layers (later wins) and validates every value; upstream credentials named as
/// environment variables are read from this process's environment.
pub fn resolve(file: Option<(&Path, Layer)>, env: Layer, flags: Layer) -> anyhow::Result<Settings> {
    resolve_with(file, env, flags, &|name| std::env::var(name).ok())
}

/// [`resolve`] with the environment variables upstream credentials are read from given by
/// `secrets` (by name). Each setting is read by one named step below; defaults come from
/// the declarations ([`specs::SETTINGS`]).
pub fn resolve_with(
    file: Option<(&Path, Layer)>,
    env: Layer,
    flags: Layer,
    secrets: &dyn Fn(&str) -> Option<String>,
) -> anyhow::Result<Settings> {
    let layers::Merged {
        raw,
        chosen,
        file_label,
    } = layers::merge(file, env, flags)?;
    let v = Values { chosen: &chosen };
    let listen = listen(&v)?;
    let role = role(&v)?;
    Ok(Settings {
        database_url: database_url(&v, role)?,
        role,
        log_level: log_level(&v)?,
        shutdown_timeout: v.secs("shutdown_timeout_secs", 0..=3600)?,
        drain_delay: v.secs("drain_delay_secs", 0..=600)?,
        database_pool_size: pool_size(&v)?,
        database_acquire_timeout: v.secs("database_acquire_timeout_secs", 1..=600)?,
        database_replica_urls: replica_urls(&v)?,
        database_replica_max_lag: v
            .number(
                "database_replica_max_lag_ms",
                100..=3_600_000,
                "milliseconds",
            )
            .map(Duration::from_millis)?,
        public_url: v.absolute("public_url", "")?,
        rate_limit_store: rate_limit_store(&v)?,
        log_format: log_format(&v)?,
        request_timeout: v.secs("request_timeout_secs", 1..=3600)?,
        header_timeout: v.secs("header_timeout_secs", 1..=3600)?,
        max_connections: v.number("max_connections", 1..=1_000_000, "connections")?,
        sandbox_speed: v.positive(
            "sandbox_speed",
            1e7,
            "a positive number of simulated seconds per real second (3600 = one hour per second)",
        )?,
        manifest_recheck_secs: v.number(
            "manifest_recheck_secs",
            60..=7 * 86_400,
            "seconds of the carrier's clock",
        )?,
        early_report_days: v.number("early_report_days", 0..=3_650, "days")?,
        early_report_max: v.number("early_report_max", 0..=100_000_000, "reports")?,
        retention: boxtrack_store::retention::Retention {
            events_days: v.number("retention_events_days", 0..=36_500, "days")?,
            payloads_days: v.number("retention_payloads_days", 0..=36_500, "days")?,
            notifications_days: v.number("retention_notifications_days", 0..=36_500, "days")?,
        },
        read_cache_bytes: read_cache_bytes(&v)?,
        allow_private_webhook_urls: v.boolean("allow_private_webhook_urls")?,
        webhook_source_ips: webhook_source_ips(&v)?,
        webhook_timeout: v.secs("webhook_timeout_secs", 1..=300)?,
        webhook_deactivate_after: v.number(
            "webhook_deactivate_after",
            1..=1_000_000,
            "failed deliveries",
        )?,
        webhook_retry_schedule: webhook_retry_schedule(&v)?,
        webhook_signature_header: webhook_signature_header(&v)?,
        upstreams: upstreams(&v, &raw, file_label.as_deref(), secrets)?,
        dcsa_push_secret: dcsa_push_secret(&v)?,
        ais_feed: ais_feed(&v)?,
        ais_websocket: ais_websocket(&v, &raw, file_label.as_deref(), secrets)?,
        mcp_allowed_origins: mcp_allowed_origins(&v)?,
        mcp_open_account: mcp_open_account(&v, listen)?,
        document_store: document_store(&v)?,
        listen,
    })
}

/// The merged values and where each came from, read with the declared defaults.
struct Values<'a> {
    chosen: &'a BTreeMap<String, (String, String)>,
}

impl Values<'_> {
    /// The value of `name` (its default when no layer gave one) and where it came from.
    fn take(&self, name: &str) -> (String, String) {
        self.chosen.get(name).cloned().unwrap_or_else(|| {
            let default = specs::spec(name).and_then(|s| s.default).unwrap_or("");
            (default.to_string(), "default".to_string())
        })
    }

    /// The value of `name` when some layer gave one, trimmed, and where it came from.
    fn given(&self, name: &str) -> Option<(String, &str)> {
        self.chosen
            .get(name)
            .map(|(v, src)| (v.trim().to_string(), src.as_str()))
    }

    /// A whole number within `range`.
    fn number<T>(
        &self,
        name: &str,
        range: std::ops::RangeInclusive<T>,
        unit: &str,
    ) -> anyhow::Result<T>
    where
        T: std::str::FromStr + PartialOrd + std::fmt::Display,
    {
        let (value, src) = self.take(name);
        in_range(name, &value, &src, range, unit)
    }

    /// Seconds within `range`.
    fn secs(&self, name: &str, range: std::ops::RangeInclusive<u64>) -> anyhow::Result<Duration> {
        self.number(name, range, "seconds").map(Duration::from_secs)
    }

    /// A finite number above 0 and at most `max`.
    fn positive(&self, name: &str, max: f64, what: &str) -> anyhow::Result<f64> {
        let (value, src) = self.take(name);
        value
            .trim()
            .parse()
            .ok()
            .filter(|n: &f64| n.is_finite() && *n > 0.0 && *n <= max)
            .ok_or_else(|| anyhow::anyhow!("setting {name} = {value:?} ({src}) must be {what}"))
    }

    /// `true` or `false`.
    fn boolean(&self, name: &str) -> anyhow::Result<bool> {
        let (value, src) = self.take(name);
        value.trim().parse().map_err(|_| {
            anyhow::anyhow!("setting {name} = {value:?} ({src}) must be true or false")
        })
    }

    /// The comma-separated entries of `name`, each checked by `valid`.
    fn list(
        &self,
        name: &str,
        valid: impl Fn(&str) -> bool,
        what: &str,
    ) -> anyhow::Result<Vec<String>> {
        let (value, src) = self.take(name);
        value
            .split(',')
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(|e| {
                if valid(e) {
                    Ok(e.to_string())
                } else {
                    Err(anyhow::anyhow!(
                        "setting {name} ({src}) contains {e:?}, which is not {what}"
                    ))
                }
            })
            .collect()
    }

    /// An absolute http(s) address without a trailing slash, when given.
    fn absolute(&self, name: &str, what: &str) -> anyhow::Result<Option<String>> {
        let Some((v, src)) = self.given(name) else {
            return Ok(None);
        };
        let v = v.trim_end_matches('/').to_string();
        if !(v.starts_with("http://") || v.starts_with("https://")) || v.contains(' ') {
            bail!(
                "setting {name} = {v:?} ({src}) must be an absolute http:// or https:// address{what}"
            );
        }
        Ok(Some(v))
    }
}

fn listen(v: &Values<'_>) -> anyhow::Result<SocketAddr> {
    let (raw, src) = v.take("listen");
    raw.trim().parse().map_err(|_| {
        anyhow::anyhow!("setting listen = {raw:?} ({src}) is not an address such as 127.0.0.1:8080")
    })
}

fn role(v: &Values<'_>) -> anyhow::Result<Role> {
    let (raw, src) = v.take("role");
    Ok(match raw.trim() {
        "all" => Role::All,
        "api" => Role::Api,
        "worker" => Role::Worker,
        other => bail!("setting role = {other:?} ({src}) must be api, worker or all"),
    })
}

fn log_level(v: &Values<'_>) -> anyhow::Result<Option<String>> {
    let Some((level, src)) = v.given("log_level") else {
        return Ok(None);
    };
    if level.is_empty() || tracing_subscriber::EnvFilter::try_new(&level).is_err() {
        bail!(
            "setting log_level = {level:?} ({src}) must be a level (error, warn, info, debug, trace) or filter directives such as boxtrack=debug,info"
        );
    }
    Ok(Some(level))
}

fn database_url(v: &Values<'_>, role: Role) -> anyhow::Result<String> {
    let (url, src) = v.take("database_url");
    let url = url.trim().to_string();
    let valid = url
        .strip_prefix("sqlite://")
        .or_else(|| url.strip_prefix("sqlite:"))
        .is_some_and(|p| !p.is_empty())
        || url.starts_with("postgres://")
        || url.starts_with("postgresql://");
    if !valid {
        bail!(
            "setting database_url = {:?} ({src}) must be sqlite://PATH or postgres://USER@HOST/DB",
            boxtrack_store::db::redact_url(&url)
        );
    }
    if role != Role::All && url.starts_with("sqlite") {
        bail!(
            "setting role = {} ({}): API and worker processes run apart on PostgreSQL only; a SQLite file takes one process that does both (role all)",
            role.as_str(),
            v.take("role").1
        );
    }
    Ok(url)
}

fn rate_limit_store(v: &Values<'_>) -> anyhow::Result<RateLimitStore> {
    let (store, src) = v.take("rate_limit_store");
    Ok(match store.trim() {
        "auto" => RateLimitStore::Auto,
        "memory" => RateLimitStore::Memory,
        "database" => RateLimitStore::Database,
        url if url.starts_with("redis://") => RateLimitStore::Redis(url.to_string()),
        url if url.starts_with("rediss://") => bail!(
            "setting rate_limit_store ({src}): rediss:// (TLS) is not built in; reach Redis over a private network or a local TLS tunnel and give its redis:// address"
        ),
        _ => bail!(
            "setting rate_limit_store ({src}) must be auto, memory, database or a redis:// address"
        ),
    })
}

fn log_format(v: &Values<'_>) -> anyhow::Result<LogFormat> {
    let (fmt, src) = v.take("log_format");
    Ok(match fmt.trim() {
        "text" => LogFormat::Text,
        "json" => LogFormat::Json,
        other => bail!("setting log_format = {other:?} ({src}) must be text or json"),
    })
}

/// `database_pool_size`: unset, or 1–1,000 connections.
fn pool_size(v: &Values<'_>) -> anyhow::Result<Option<u32>> {
    v.given("database_pool_size")
        .map(|(value, src)| in_range("database_pool_size", &value, src, 1..=1000, "connections"))
        .transpose()
}

/// `database_replica_urls`: `postgres://` URLs, and only beside a PostgreSQL `database_url`
/// (a SQLite file has no replicas).
fn replica_urls(v: &Values<'_>) -> anyhow::Result<Vec<String>> {
    let urls = v.list(
        "database_replica_urls",
        |u| {
            (u.starts_with("postgres://") || u.starts_with("postgresql://"))
                && url::Url::parse(u).is_ok_and(|u| u.host_str().is_some())
        },
        "a postgres:// URL",
    )?;
    let (primary, src) = v.take("database_url");
    if !urls.is_empty() && !primary.trim().starts_with("postgres") {
        bail!(
            "setting database_replica_urls ({}): read replicas need a PostgreSQL database_url, and database_url = {:?} ({src}) is SQLite; remove database_replica_urls, or move to PostgreSQL first",
            v.take("database_replica_urls").1,
            boxtrack_store::db::redact_url(primary.trim())
        );
    }
    Ok(urls)
}

fn read_cache_bytes(v: &Values<'_>) -> anyhow::Result<usize> {
    let (mib, src) = v.take("read_cache_mib");
    mib.trim()
        .parse::<usize>()
        .ok()
        .filter(|n| *n <= 1 << 20)
        .map(|n| n << 20)
        .ok_or_else(|| {
            anyhow::anyhow!(
                "setting read_cache_mib = {mib:?} ({src}) must be a whole number of MiB from 0 (no read cache) to 1048576"
            )
        })
}

fn webhook_source_ips(v: &Values<'_>) -> anyhow::Result<Vec<String>> {
    v.list(
        "webhook_source_ips",
        |ip| ip.parse::<std::net::IpAddr>().is_ok(),
        "an IP address",
    )
}

fn webhook_retry_schedule(v: &Values<'_>) -> anyhow::Result<Vec<i64>> {
    let (sched, src) = v.take("webhook_retry_schedule");
    sched
        .split(',')
        .map(|p| p.trim().parse::<i64>().ok().filter(|n| (1..=7 * 86_400).contains(n)))
        .collect::<Option<Vec<_>>>()
        .filter(|v| !v.is_empty() && v.len() <= 50)
        .ok_or_else(|| anyhow::anyhow!("setting webhook_retry_schedule = {sched:?} ({src}) must be 1 to 50 comma-separated delays in seconds (1 s to 7 days each)"))
}

fn webhook_signature_header(v: &Values<'_>) -> anyhow::Result<String> {
    let (header, src) = v.take("webhook_signature_header");
    let header = header.trim().to_string();
    let valid = !header.is_empty()
        && header
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_');
    let taken = [
        "content-type",
        "webhook-id",
        "webhook-timestamp",
        "webhook-signature",
    ]
    .contains(&header.to_ascii_lowercase().as_str());
    if !valid || taken {
        bail!(
            "setting webhook_signature_header = {header:?} ({src}) must be a header name of letters, digits and dashes, not one boxtrack already sets"
        );
    }
    Ok(header)
}

/// The simulator, the `[carriers.SCAC]` and `[terminals.CODE]` tables (checked, and their
/// secrets read, now) and the request budget.
fn upstreams(
    v: &Values<'_>,
    raw: &layers::RawSettings,
    file_label: Option<&str>,
    secrets: &dyn Fn(&str) -> Option<String>,
) -> anyhow::Result<boxtrack_sources::upstream::UpstreamConfig> {
    let src = file_label.unwrap_or("from the configuration file");
    let tables = |kind: &str,
                  tables: Option<&BTreeMap<String, EndpointConfig>>|
     -> anyhow::Result<BTreeMap<String, Endpoint>> {
        tables
            .into_iter()
            .flatten()
            .map(|(name, table)| {
                if kind == "terminals" && table.dcsa_version.is_some() {
                    anyhow::bail!("setting terminals.{name}.dcsa_version ({src}): a terminal's feed has no DCSA version (it belongs in a [carriers.SCAC] table)");
                }
                table
                    .resolve(secrets)
                    .map(|ep| (name.clone(), ep))
                    .map_err(|e| {
                        anyhow::anyhow!("setting {kind}.{name}.{} ({src}): {}", e.field, e.reason)
                    })
            })
            .collect()
    };
    // a carrier's table may name a profile: expanded first, then checked like the others
    let carriers = raw
        .carriers
        .iter()
        .flatten()
        .map(|(name, table)| {
            table.expand().map(|t| (name.clone(), t)).map_err(|e| {
                anyhow::anyhow!("setting carriers.{name}.{} ({src}): {}", e.field, e.reason)
            })
        })
        .collect::<anyhow::Result<BTreeMap<_, _>>>()?;
    let requests_per_sec = v.positive(
        "upstream_requests_per_sec",
        10_000.0,
        "a positive number of requests per second per upstream",
    )?;
    Ok(boxtrack_sources::upstream::UpstreamConfig {
        sim_url: v.absolute("sim_url", " of a running `boxtrack sim`")?,
        carriers: tables("carriers", Some(&carriers))?,
        terminals: tables("terminals", raw.terminals.as_ref())?,
        requests_per_sec,
        burst: (requests_per_sec * 2.0).ceil() as u32,
        timeout: Duration::from_secs(20),
        poll_speedup: 1.0,
    })
}

fn dcsa_push_secret(v: &Values<'_>) -> anyhow::Result<Option<String>> {
    use base64::Engine;
    let Some((secret, src)) = v.given("dcsa_push_secret") else {
        return Ok(None);
    };
    let n = base64::engine::general_purpose::STANDARD
        .decode(&secret)
        .map(|k| k.len())
        .unwrap_or(0);
    if !(32..=64).contains(&n) {
        bail!(
            "setting dcsa_push_secret ({src}) must be base64 of 32 to 64 random bytes, as DCSA subscriptions use (e.g. `openssl rand -base64 32`)"
        );
    }
    Ok(Some(secret))
}

fn ais_feed(v: &Values<'_>) -> anyhow::Result<Option<String>> {
    let Some((feed, src)) = v.given("ais_feed") else {
        return Ok(None);
    };
    let valid = feed
        .rsplit_once(':')
        .is_some_and(|(h, p)| !h.is_empty() && p.parse::<u16>().is_ok_and(|p| p > 0));
    if !valid {
        bail!(
            "setting ais_feed = {feed:?} ({src}) must be HOST:PORT of a TCP feed of NMEA sentences"
        );
    }
    Ok(Some(feed))
}

/// The WebSocket AIS feed: followed when `ais_websocket_key` is set (its secret read now).
fn ais_websocket(
    v: &Values<'_>,
    raw: &layers::RawSettings,
    file_label: Option<&str>,
    secrets: &dyn Fn(&str) -> Option<String>,
) -> anyhow::Result<Option<boxtrack_sources::ais::stream::StreamConfig>> {
    let Some(key) = &raw.ais_websocket_key else {
        return Ok(None);
    };
    let src = file_label.unwrap_or("from the configuration file");
    let key = key
        .read(secrets)
        .map_err(|e| anyhow::anyhow!("setting ais_websocket_key ({src}): {e}"))?;
    let (url, url_src) = v.take("ais_websocket_url");
    let url = url.trim().to_string();
    let valid = url::Url::parse(&url)
        .is_ok_and(|u| matches!(u.scheme(), "ws" | "wss") && u.host_str().is_some());
    if !valid {
        bail!("setting ais_websocket_url = {url:?} ({url_src}) must be a ws:// or wss:// address");
    }
    Ok(Some(boxtrack_sources::ais::stream::StreamConfig {
        url,
        key,
    }))
}

fn mcp_allowed_origins(v: &Values<'_>) -> anyhow::Result<Vec<String>> {
    let origins = v.list(
        "mcp_allowed_origins",
        |o| {
            url::Url::parse(o)
                .is_ok_and(|u| matches!(u.scheme(), "http" | "https") && u.host_str().is_some())
        },
        "an origin such as https://app.example.com",
    )?;
    Ok(origins
        .into_iter()
        .map(|o| o.trim_end_matches('/').to_string())
        .collect())
}

fn mcp_open_account(v: &Values<'_>, listen: SocketAddr) -> anyhow::Result<Option<uuid::Uuid>> {
    let Some((id, src)) = v.given("mcp_open_account") else {
        return Ok(None);
    };
    let id = uuid::Uuid::parse_str(&id).map_err(|_| {
        anyhow::anyhow!("setting mcp_open_account = {id:?} ({src}) is not an account id")
    })?;
    if !listen.ip().is_loopback() {
        bail!(
            "setting mcp_open_account ({src}) turns MCP authentication off and is only accepted when listen is a loopback address, not {listen}"
        );
    }
    Ok(Some(id))
}

fn document_store(v: &Values<'_>) -> anyhow::Result<String> {
    let (store, src) = v.take("document_store");
    let store = store.trim().to_string();
    if store != "database"
        && let Err(why) = boxtrack_store::files::parse_s3(&store)
    {
        bail!("setting document_store ({src}) must be database or s3://BUCKET[/PREFIX]: {why}");
    }
    Ok(store)
}

/// `value` of setting `name` (from `src`) as a number within `range`, or an error naming the
/// setting, where it came from and what it takes.
fn in_range<T>(
    name: &str,
    value: &str,
    src: &str,
    range: std::ops::RangeInclusive<T>,
    unit: &str,
) -> anyhow::Result<T>
where
    T: std::str::FromStr + PartialOrd + std::fmt::Display,
{
    value
        .trim()
        .parse()
        .ok()
        .filter(|n| range.contains(n))
        .ok_or_else(|| {
            anyhow::anyhow!(
                "setting {name} = {value:?} ({src}) must be {} to {} {unit}",
                range.start(),
                range.end()
            )
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn layer(listen: Option<&str>, db: Option<&str>) -> Layer {
        Layer::default()
            .with("listen", listen)
            .with("database_url", db)
    }

    #[test]
    fn roles_drain_and_log_levels_are_checked() {
        let s = resolve(None, Layer::default(), Layer::default()).unwrap();
        assert_eq!(s.role, Role::All);
        assert_eq!(s.shutdown_timeout, Duration::from_secs(30));
        assert_eq!(s.drain_delay, Duration::ZERO);
        assert!(s.log_level.is_none());
        let pg = Layer::default()
            .with("database_url", Some("postgres://u@h/db"))
            .with("role", Some("worker"))
            .with("drain_delay_secs", Some("5"))
            .with("log_level", Some("boxtrack::access=warn,info"));
        let s = resolve(None, Layer::default(), pg).unwrap();
        assert_eq!(s.role, Role::Worker);
        assert!(s.role.worker() && !s.role.api());
        assert_eq!(s.drain_delay, Duration::from_secs(5));
        for (name, bad, says) in [
            ("role", "both", "must be api, worker or all"),
            ("drain_delay_secs", "-1", "must be 0 to 600 seconds"),
            ("shutdown_timeout_secs", "soon", "must be 0 to 3600 seconds"),
            ("log_level", "[[[", "must be a level"),
        ] {
            let err = resolve(
                None,
                Layer::default(),
                Layer::default().with(name, Some(bad)),
            )
            .unwrap_err()
            .to_string();
            assert!(err.contains(says) && err.contains("from flag"), "{err}");
        }
        // apart only on PostgreSQL
        let err = resolve(
            None,
            Layer::default(),
            Layer::default().with("role", Some("api")),
        )
        .unwrap_err()
        .to_string();
        assert!(err.contains("PostgreSQL only"), "{err}");
    }

    #[test]
    fn defaults_apply() {
        let s = resolve(None, Layer::default(), Layer::default()).unwrap();
        assert_eq!(s.listen.to_string(), "127.0.0.1:8080");
        assert_eq!(s.database_url, "sqlite://./data/boxtrack.db");
        assert_eq!(s.rate_limit_store, RateLimitStore::Auto);
        assert_eq!(s.request_timeout, Duration::from_secs(30));
    }

    #[test]
    fn read_replicas_are_postgres_urls_beside_a_postgres_primary() {
        let s = resolve(None, Layer::default(), Layer::default()).unwrap();
        assert!(s.database_replica_urls.is_empty());
        assert_eq!(s.database_replica_max_lag, Duration::from_secs(5));
        let env = Layer::default()
            .with("database_url", Some("postgres://u@primary/db"))
            .with(
                "database_replica_urls",
                Some("postgres://u@r1/db, postgresql://u@r2:5433/db"),
            )
            .with("database_replica_max_lag_ms", Some("250"));
        let s = resolve(None, env, Layer::default()).unwrap();
        assert_eq!(
            s.database_replica_urls,
            ["postgres://u@r1/db", "postgresql://u@r2:5433/db"]
        );
        assert_eq!(s.database_replica_max_lag, Duration::from_millis(250));
        let sqlite = Layer::default().with("database_replica_urls", Some("postgres://u@r1/db"));
        let err = resolve(None, Layer::default(), sqlite)
            .unwrap_err()
            .to_string();
        assert!(err.contains("need a PostgreSQL database_url"), "{err}");
        for (name, bad) in [
            ("database_replica_urls", "mysql://r1/db"),
            ("database_replica_max_lag_ms", "10"),
        ] {
            let flags = Layer::default()
                .with("database_url", Some("postgres://u@primary/db"))
                .with(name, Some(bad));
            let err = resolve(None, Layer::default(), flags)
                .unwrap_err()
                .to_string();
            assert!(err.contains(name), "{err}");
        }
    }

    #[test]
    fn a_redis_rate_limit_store_is_an_address_whose_password_stays_hidden() {
        let flags =
            Layer::default().with("rate_limit_store", Some("redis://:s3cret@10.0.0.5:6379/2"));
        let s = resolve(None, Layer::default(), flags).unwrap();
        assert_eq!(
            s.rate_limit_store,
            RateLimitStore::Redis("redis://:s3cret@10.0.0.5:6379/2".into())
        );
        assert!(!format!("{s:?}").contains("s3cret"));
        for bad in ["rediss://:s3cret@h", "redis", "valkey://h"] {
            let flags = Layer::default().with("rate_limit_store", Some(bad));
            let err = resolve(None, Layer::default(), flags)
                .unwrap_err()
                .to_string();
            assert!(
                err.contains("rate_limit_store") && err.contains("--rate-limit-store"),
                "{err}"
            );
            assert!(!err.contains("s3cret"), "{err}");
        }
    }

    #[test]
    fn later_layers_win() {
        let file = layer(Some("127.0.0.1:1"), Some("sqlite://f.db"));
        let env = layer(Some("127.0.0.1:2"), None);
        let flags = layer(None, Some("postgres://h/db"));
        let s = resolve(Some((Path::new("boxtrack.toml"), file)), env, flags).unwrap();
        assert_eq!(s.listen.port(), 2);
        assert_eq!(s.database_url, "postgres://h/db");
    }

    #[test]
    fn bad_values_name_the_setting_and_source() {
        let env = layer(Some("nowhere"), None);
        let err = resolve(None, env, Layer::default())
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("listen") && err.contains("BOXTRACK_LISTEN"),
            "{err}"
        );
        let flags = layer(None, Some("mysql://x"));
        let err = resolve(None, Layer::default(), flags)
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("database_url") && err.contains("--database-url"),
            "{err}"
        );
        let file = Layer::default().with("log_format", Some("xml"));
        let err = resolve(
            Some((Path::new("b.toml"), file)),
            Layer::default(),
            Layer::default(),
        )
        .unwrap_err()
        .to_string();
        assert!(
            err.contains("log_format") && err.contains("b.toml"),
            "{err}"
        );
    }

    #[test]
    fn env_is_read_by_name() {
        let env: BTreeMap<String, String> = [
            ("BOXTRACK_LISTEN".to_string(), "0.0.0.0:9".to_string()),
            ("BOXTRACK_REQUEST_TIMEOUT_SECS".to_string(), "x".to_string()),
        ]
        .into_iter()
        .collect();
        let layer = Layer::from_env(&env);
        assert_eq!(layer.get("listen").as_deref(), Some("0.0.0.0:9"));
        let err = resolve(None, layer, Layer::default())
            .unwrap_err()
            .to_string();
        assert!(err.contains("BOXTRACK_REQUEST_TIMEOUT_SECS"), "{err}");
    }

    #[test]
    fn webhook_settings_are_validated() {
        let s = resolve(None, Layer::default(), Layer::default()).unwrap();
        assert_eq!(s.webhook_retry_schedule.len(), 12);
        let bad = Layer::default().with("webhook_retry_schedule", Some("5,x"));
        let err = resolve(None, Layer::default(), bad)
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("webhook_retry_schedule") && err.contains("--webhook-retry-schedule"),
            "{err}"
        );
        let short = Layer::default().with("webhook_retry_schedule", Some("1, 2"));
        assert_eq!(
            resolve(None, Layer::default(), short)
                .unwrap()
                .webhook_retry_schedule,
            vec![1, 2]
        );
    }

    fn with_carriers(text: &str) -> Option<(&'static Path, Layer)> {
        Some((Path::new("b.toml"), Layer::parse(text).unwrap()))
    }

    #[test]
    fn upstream_credentials_are_read_at_start_and_never_shown() {
        let text = r#"
            [carriers.MAEU]
            url = "https://api.maersk.example/track-and-trace"
            [carriers.MAEU.auth]
            type = "oauth2_client_credentials"
            token_url = "https://api.maersk.example/oauth2/access_token"
            client_id = "client-1"
            client_secret = { env = "MAEU_CLIENT_SECRET" }
            [terminals.Y258]
            url = "https://feeds.terminal.example/availability"
            auth_header = "Authorization"
            auth_value = "Bearer legacy-token-value"
        "#;
        let secrets =
            |name: &str| (name == "MAEU_CLIENT_SECRET").then(|| "super-secret-value".to_string());
        let s = resolve_with(
            with_carriers(text),
            Layer::default(),
            Layer::default(),
            &secrets,
        )
        .unwrap();
        assert_eq!(
            s.upstreams.carriers["MAEU"].auth.scheme(),
            "oauth2_client_credentials"
        );
        assert_eq!(s.upstreams.terminals["Y258"].auth.scheme(), "headers");
        let shown = format!("{s:?} {:?}", Layer::parse(text).unwrap());
        assert!(!shown.contains("super-secret-value"), "{shown}");
        assert!(!shown.contains("legacy-token-value"), "{shown}");

        // a missing variable stops the start, naming the carrier, the key and the file
        let err = resolve_with(
            with_carriers(text),
            Layer::default(),
            Layer::default(),
            &|_| None,
        )
        .unwrap_err()
        .to_string();
        assert!(
            err.contains("carriers.MAEU.auth.client_secret")
                && err.contains("b.toml")
                && err.contains("MAEU_CLIENT_SECRET is not set"),
            "{err}"
        );
        let err = resolve_with(
            with_carriers("[terminals.T1]\nurl = \"feeds.example\""),
            Layer::default(),
            Layer::default(),
            &|_| None,
        )
        .unwrap_err()
        .to_string();
        assert!(err.contains("terminals.T1.url"), "{err}");
        let err = Layer::parse(
            "[carriers.X]\nurl = \"https://x.example\"\n[carriers.X.auth]\ntype = \"basic\"",
        )
        .unwrap_err()
        .to_string();
        assert!(err.contains("basic"), "{err}");
    }

    #[test]
    fn a_carrier_names_its_dcsa_version() {
        let resolved = |text: &str| {
            resolve_with(
                with_carriers(text),
                Layer::default(),
                Layer::default(),
                &|_| None,
            )
        };
        let s = resolved(
            "[carriers.ONEY]\nurl = \"https://x.example/dcsa\"\ndcsa_version = \"3.0\"\n[carriers.MAEU]\nurl = \"https://y.example\"",
        )
        .unwrap();
        use boxtrack_sources::dcsa::Version;
        assert_eq!(s.upstreams.carriers["ONEY"].dcsa_version, Version::V3_0);
        assert_eq!(s.upstreams.carriers["MAEU"].dcsa_version, Version::V2_2);
        let err = resolved("[carriers.ONEY]\nurl = \"https://x.example\"\ndcsa_version = \"4.1\"")
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("carriers.ONEY.dcsa_version") && err.contains("2.2 or 3.0"),
            "{err}"
        );
        let err = resolved("[terminals.T1]\nurl = \"https://t.example\"\ndcsa_version = \"3.0\"")
            .unwrap_err()
            .to_string();
        assert!(err.contains("terminals.T1.dcsa_version"), "{err}");
    }

    #[test]
    fn the_websocket_ais_feed_needs_its_key() {
        let secrets = |name: &str| (name == "AISSTREAM_API_KEY").then(|| "k3y".to_string());
        let resolved = |text: &str| {
            resolve_with(
                with_carriers(text),
                Layer::default(),
                Layer::default(),
                &secrets,
            )
            .map_err(|e| e.to_string())
        };
        assert!(resolved("").unwrap().ais_websocket.is_none());
        let s = resolved("ais_websocket_key = { env = \"AISSTREAM_API_KEY\" }").unwrap();
        let ws = s.ais_websocket.unwrap();
        assert_eq!(ws.url, "wss://stream.aisstream.io/v0/stream");
        assert_eq!(ws.key.expose(), "k3y");
        assert!(!format!("{ws:?}").contains("k3y"));
        let s = resolved(
            "ais_websocket_url = \"ws://127.0.0.1:9000/v0/stream\"\nais_websocket_key = \"inline\"",
        )
        .unwrap();
        assert_eq!(
            s.ais_websocket.unwrap().url,
            "ws://127.0.0.1:9000/v0/stream"
        );
        let err = resolved("ais_websocket_key = { env = \"MISSING\" }").unwrap_err();
        assert!(
            err.contains("ais_websocket_key") && err.contains("MISSING"),
            "{err}"
        );
        let err = resolved("ais_websocket_url = \"https://x.example\"\nais_websocket_key = \"k\"")
            .unwrap_err();
        assert!(err.contains("ais_websocket_url"), "{err}");
    }

    #[test]
    fn a_carrier_named_by_its_profile_needs_only_its_credentials() {
        let secrets = |name: &str| (name == "HLCU_SECRET").then(|| "s3cr3t".to_string());
        let resolved = |text: &str| {
            resolve_with(
                with_carriers(text),
                Layer::default(),
                Layer::default(),
                &secrets,
            )
            .map_err(|e| e.to_string())
        };
        let s = resolved(
            "[carriers.HLCU]\nprofile = \"hapag-lloyd\"\nclient_id = \"my-id\"\nclient_secret = { env = \"HLCU_SECRET\" }",
        )
        .unwrap();
        let hl = &s.upstreams.carriers["HLCU"];
        assert_eq!(hl.url, "https://api.hlag.com/hlag/external");
        assert_eq!(hl.auth.scheme(), "headers");
        assert!(!format!("{s:?}").contains("s3cr3t"));
        // a key written in the table beats the profile's
        let s = resolved(
            "[carriers.MAEU]\nprofile = \"maersk\"\nurl = \"https://api.carrier.example/tnt\"\nclient_id = \"ck\"\nclient_secret = { env = \"HLCU_SECRET\" }",
        )
        .unwrap();
        assert_eq!(
            s.upstreams.carriers["MAEU"].auth.scheme(),
            "oauth2_client_credentials"
        );
        assert_eq!(
            s.upstreams.carriers["MAEU"].url,
            "https://api.carrier.example/tnt"
        );
        // each failure names the carrier, the key and the file
        let err = resolved(
            "[carriers.MAEU]\nprofile = \"maersk\"\nclient_id = \"a\"\nclient_secret = \"b\"",
        )
        .unwrap_err();
        assert!(
            err.contains("carriers.MAEU.url")
                && err.contains("b.toml")
                && err.contains("no confirmed base URL"),
            "{err}"
        );
        let err = resolved("[carriers.MAEU]\nprofile = \"mearsk\"").unwrap_err();
        assert!(
            err.contains("carriers.MAEU.profile") && err.contains("\"mearsk\" is not a profile"),
            "{err}"
        );
        let err =
            resolved("[carriers.HLCU]\nprofile = \"hapag-lloyd\"\nclient_id = \"a\"").unwrap_err();
        assert!(
            err.contains("carriers.HLCU.client_secret") && err.contains("is missing"),
            "{err}"
        );
        let err = resolved(
            "[carriers.HLCU]\nprofile = \"hapag-lloyd\"\nclient_id = \"a\"\nclient_secret = { env = \"NOT_SET\" }",
        )
        .unwrap_err();
        assert!(
            err.contains("carriers.HLCU.auth.headers.X-IBM-Client-Secret")
                && err.contains("NOT_SET"),
            "{err}"
        );
        let err = resolved("[carriers.COSU]\nprofile = \"cosco\"").unwrap_err();
        assert!(
            err.contains("carriers.COSU.api_key") && err.contains("secret_key"),
            "{err}"
        );
        let err = resolved("[carriers.HDMU]\nprofile = \"hmm\"").unwrap_err();
        assert!(
            err.contains("carriers.HDMU.profile") && err.contains("own format"),
            "{err}"
        );
        // without a profile a carrier still needs its url
        let err = resolved("[carriers.X]\nauth_header = \"K\"\nauth_value = \"v\"").unwrap_err();
        assert!(err.contains("carriers.X.url"), "{err}");
    }

    #[test]
    fn file_values_of_any_scalar_type_are_validated_like_the_others() {
        let file = Layer::parse(
            "request_timeout_secs = 10\nallow_private_webhook_urls = true\nsandbox_speed = 60.5",
        )
        .unwrap();
        let s = resolve(
            Some((Path::new("b.toml"), file)),
            Layer::default(),
            Layer::default(),
        )
        .unwrap();
        assert_eq!(s.request_timeout, Duration::from_secs(10));
        assert!(s.allow_private_webhook_urls);
        assert!((s.sandbox_speed - 60.5).abs() < f64::EPSILON);
        let file = Layer::parse("listen = 8080").unwrap();
        let err = resolve(
            Some((Path::new("b.toml"), file)),
            Layer::default(),
            Layer::default(),
        )
        .unwrap_err()
        .to_string();
        assert!(err.contains("listen") && err.contains("b.toml"), "{err}");
        let err = Layer::parse("listen = [1]").unwrap_err().to_string();
        assert!(err.contains("listen") && err.contains("array"), "{err}");
    }

    #[test]
    fn unknown_file_keys_are_refused() {
        let err = Layer::parse("lisen = \"x\"").unwrap_err().to_string();
        assert!(err.contains("unknown setting \"lisen\""), "{err}");
        let err = Layer::parse("[carriers.MAEU]\nurl = \"https://x.example\"\nurll = \"y\"")
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("urll") && err.contains("carriers.MAEU"),
            "{err}"
        );
    }

    #[test]
    fn every_setting_is_a_field_of_the_one_struct() {
        for name in specs::names() {
            let flags = Layer::default().with(name, Some("x"));
            let merged = layers::merge(None, Layer::default(), flags).unwrap();
            assert_eq!(
                merged.chosen.get(name),
                Some(&(
                    "x".to_string(),
                    format!("from flag --{}", name.replace('_', "-"))
                ))
            );
        }
    }

    #[test]
    fn the_mcp_test_switch_needs_a_loopback_listener() {
        let id = uuid::Uuid::now_v7().to_string();
        let open = |listen: &str| {
            Layer::default()
                .with("listen", Some(listen))
                .with("mcp_open_account", Some(id.as_str()))
        };
        let e = resolve(None, Layer::default(), open("0.0.0.0:8080")).unwrap_err();
        assert!(e.to_string().contains("loopback"), "{e}");
        let s = resolve(None, Layer::default(), open("127.0.0.1:8080")).unwrap();
        assert_eq!(s.mcp_open_account.map(|u| u.to_string()), Some(id.clone()));
        let bad = Layer::default().with("mcp_allowed_origins", Some("not an origin"));
        assert!(resolve(None, Layer::default(), bad).is_err());
    }
}
