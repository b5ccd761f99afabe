//! Where settings come from: the configuration file, `BOXTRACK_*` environment variables and
//! command-line flags. Each is a [`Layer`]; [`figment`] merges them over the defaults (later
//! wins), keeps which layer gave each value, and extracts one typed [`RawSettings`], refusing
//! unknown keys and values of the wrong shape with the key and its source named.
//! [`super::resolve_with`] then checks what each value means.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use anyhow::Context;
use boxtrack_sources::upstream::EndpointConfig;
use figment::value::{Dict, Map, Value};
use figment::{Figment, Metadata, Profile, Provider};
use serde::{Deserialize, Serialize};

/// Every setting's name (the file key; `BOXTRACK_<NAME>` in the environment; `--name` with
/// dashes as a flag).
pub const NAMES: [&str; 30] = [
    "listen",
    "role",
    "log_level",
    "shutdown_timeout_secs",
    "drain_delay_secs",
    "database_url",
    "public_url",
    "rate_limit_store",
    "log_format",
    "request_timeout_secs",
    "header_timeout_secs",
    "max_connections",
    "sandbox_speed",
    "manifest_recheck_secs",
    "early_report_days",
    "early_report_max",
    "read_cache_mib",
    "allow_private_webhook_urls",
    "webhook_source_ips",
    "webhook_timeout_secs",
    "webhook_deactivate_after",
    "webhook_retry_schedule",
    "webhook_signature_header",
    "sim_url",
    "upstream_requests_per_sec",
    "dcsa_push_secret",
    "ais_feed",
    "mcp_allowed_origins",
    "mcp_open_account",
    "document_store",
];

/// A setting's value as a layer gives it: text, a number or true/false (a file may write
/// `request_timeout_secs = 10` or `"10"`; the environment and flags give text). What it
/// means is checked once, in [`super::resolve_with`], whichever layer gave it.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(transparent)]
pub struct Scalar(pub String);

impl<'de> Deserialize<'de> for Scalar {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Scalar, D::Error> {
        struct V;
        impl serde::de::Visitor<'_> for V {
            type Value = Scalar;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a string, a number or true/false")
            }
            fn visit_str<E>(self, v: &str) -> Result<Scalar, E> {
                Ok(Scalar(v.to_string()))
            }
            fn visit_i64<E>(self, v: i64) -> Result<Scalar, E> {
                Ok(Scalar(v.to_string()))
            }
            fn visit_u64<E>(self, v: u64) -> Result<Scalar, E> {
                Ok(Scalar(v.to_string()))
            }
            fn visit_f64<E>(self, v: f64) -> Result<Scalar, E> {
                Ok(Scalar(v.to_string()))
            }
            fn visit_bool<E>(self, v: bool) -> Result<Scalar, E> {
                Ok(Scalar(v.to_string()))
            }
        }
        d.deserialize_any(V)
    }
}

/// Every setting, as the merged layers give it (`None`: the default applies). The defaults
/// and what each value may be are in [`super::Settings`] and the README's settings table.
#[derive(Debug, Default, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct RawSettings {
    /// Address to listen on (default 127.0.0.1:8080).
    pub listen: Option<Scalar>,
    /// What a `serve` process runs: all, api or worker.
    pub role: Option<Scalar>,
    /// The log filter when RUST_LOG is not set.
    pub log_level: Option<Scalar>,
    /// Seconds a stopping process waits for work in flight (default 30).
    pub shutdown_timeout_secs: Option<Scalar>,
    /// Seconds a stopping process keeps answering with /readyz at 503 (default 0).
    pub drain_delay_secs: Option<Scalar>,
    /// `sqlite://PATH` or `postgres://USER@HOST/DB`.
    pub database_url: Option<Scalar>,
    /// Absolute base address for links, behind a proxy.
    pub public_url: Option<Scalar>,
    /// auto, memory, database or a redis:// address.
    pub rate_limit_store: Option<Scalar>,
    /// text or json.
    pub log_format: Option<Scalar>,
    /// Seconds before a request is abandoned (default 30).
    pub request_timeout_secs: Option<Scalar>,
    /// Seconds a client has to send a request's head; idle connections close after it (default 10).
    pub header_timeout_secs: Option<Scalar>,
    /// Connections served at once; more are answered 503 (default 4096).
    pub max_connections: Option<Scalar>,
    /// Sandbox journeys: simulated seconds per real second (default 3600).
    pub sandbox_speed: Option<Scalar>,
    /// Seconds of a carrier's clock between checks of a bill awaiting its manifest (default 14400).
    pub manifest_recheck_secs: Option<Scalar>,
    /// Days reports about containers nobody tracks yet are kept (default 30).
    pub early_report_days: Option<Scalar>,
    /// How many such reports are kept at most (default 100000).
    pub early_report_max: Option<Scalar>,
    /// MiB of rendered reads kept in memory (default 128; 0 turns the cache off).
    pub read_cache_mib: Option<Scalar>,
    /// Accept http:// and private webhook URLs (default false).
    pub allow_private_webhook_urls: Option<Scalar>,
    /// Comma-separated egress addresses of webhook deliveries.
    pub webhook_source_ips: Option<Scalar>,
    /// Seconds before a delivery attempt counts as failed (default 30).
    pub webhook_timeout_secs: Option<Scalar>,
    /// Failed deliveries in a row after which a webhook is set inactive (default 100).
    pub webhook_deactivate_after: Option<Scalar>,
    /// Comma-separated seconds before each retry.
    pub webhook_retry_schedule: Option<Scalar>,
    /// Header of the hex body signature (default X-Boxtrack-Webhook-Signature).
    pub webhook_signature_header: Option<Scalar>,
    /// Base address of a running `boxtrack sim`.
    pub sim_url: Option<Scalar>,
    /// Requests per second to each upstream (default 20).
    pub upstream_requests_per_sec: Option<Scalar>,
    /// Base64 secret DCSA push calls are signed with.
    pub dcsa_push_secret: Option<Scalar>,
    /// HOST:PORT of an AIS feed.
    pub ais_feed: Option<Scalar>,
    /// Browser origins allowed to call /mcp.
    pub mcp_allowed_origins: Option<Scalar>,
    /// TEST ONLY: the account /mcp acts for without credentials.
    pub mcp_open_account: Option<Scalar>,
    /// Where the bytes of documents live: database (the default) or s3://BUCKET[/PREFIX].
    pub document_store: Option<Scalar>,
    /// `[carriers.SCAC]` tables: DCSA endpoint and credentials per carrier (file only).
    #[serde(skip_serializing)]
    pub carriers: Option<BTreeMap<String, EndpointConfig>>,
    /// `[terminals.CODE]` tables: availability feed and credentials per terminal (file only).
    #[serde(skip_serializing)]
    pub terminals: Option<BTreeMap<String, EndpointConfig>>,
}

/// The settings one layer gives, as figment values by name.
#[derive(Clone, Default)]
pub struct Layer {
    values: Dict,
}

impl std::fmt::Debug for Layer {
    // the values may be credentials: only their names are shown
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Layer")
            .field("keys", &self.values.keys().collect::<Vec<_>>())
            .finish()
    }
}

impl Layer {
    /// The value of a setting as text, when this layer gives one.
    #[cfg(test)]
    pub fn get(&self, name: &str) -> Option<String> {
        match self.values.get(name)? {
            Value::String(_, s) => Some(s.clone()),
            Value::Bool(_, b) => Some(b.to_string()),
            Value::Num(_, n) => n
                .to_f64()
                .map(|f| n.to_i128().map_or_else(|| f.to_string(), |i| i.to_string())),
            _ => None,
        }
    }

    /// This layer with `name` set to `value` (a flag that was given); `None` leaves it unset.
    /// Panics on a name that is not a setting (a programming error, not input).
    #[must_use]
    pub fn with(mut self, name: &str, value: Option<impl ToString>) -> Layer {
        assert!(NAMES.contains(&name), "{name} is not a setting");
        if let Some(v) = value {
            self.values
                .insert(name.to_string(), Value::from(v.to_string()));
        }
        self
    }

    /// Reads `BOXTRACK_<NAME>` variables from an environment map (other `BOXTRACK_*`
    /// variables, such as the client's BOXTRACK_URL, are not settings of the server).
    pub fn from_env(env: &BTreeMap<String, String>) -> Layer {
        let mut layer = Layer::default();
        for name in NAMES {
            if let Some(v) = env.get(&format!("BOXTRACK_{}", name.to_uppercase())) {
                layer
                    .values
                    .insert(name.to_string(), Value::from(v.clone()));
            }
        }
        layer
    }

    /// Reads a TOML file.
    pub fn from_file(path: &Path) -> anyhow::Result<Layer> {
        let text = std::fs::read_to_string(path)
            .with_context(|| format!("cannot read configuration file {}", path.display()))?;
        Layer::parse(&text)
            .with_context(|| format!("configuration file {} is not valid", path.display()))
    }

    /// Reads TOML text: top-level settings (strings, numbers or booleans), and the
    /// `[carriers.*]` and `[terminals.*]` tables. An unknown key, or a value of the wrong
    /// shape, is an error naming it.
    pub fn parse(text: &str) -> anyhow::Result<Layer> {
        let data = <figment::providers::Toml as figment::providers::Format>::string(text)
            .data()
            .map_err(|e| anyhow::anyhow!("{}", explain(&e, &|_| String::new())))?;
        let layer = Layer {
            values: data.into_iter().next().map(|(_, d)| d).unwrap_or_default(),
        };
        layer
            .extract()
            .map_err(|e| anyhow::anyhow!("{}", explain(&e, &|_| String::new())))?;
        Ok(layer)
    }

    fn extract(&self) -> Result<RawSettings, Box<figment::Error>> {
        Figment::from(Tagged {
            label: String::new(),
            layer: self.clone(),
        })
        .extract()
        .map_err(Box::new)
    }
}

/// A layer with the words that name where its values come from.
struct Tagged {
    label: String,
    layer: Layer,
}

impl Provider for Tagged {
    fn metadata(&self) -> Metadata {
        Metadata::named(self.label.clone())
    }

    fn data(&self) -> Result<Map<Profile, Dict>, figment::Error> {
        Ok(Profile::Default.collect(self.layer.values.clone()))
    }
}

/// The layers merged: the typed settings, and where each came from ("from flag --listen",
/// "default", ...).
pub struct Merged {
    /// The settings.
    pub raw: RawSettings,
    /// Each given setting's value as text with the words naming its source.
    pub chosen: BTreeMap<String, (String, String)>,
    /// Where the `[carriers.*]` and `[terminals.*]` tables came from.
    pub file_label: Option<String>,
}

/// Merges the layers (later wins) with figment and extracts the settings.
pub fn merge(file: Option<(&Path, Layer)>, env: Layer, flags: Layer) -> anyhow::Result<Merged> {
    let file_label = file.as_ref().map(|(p, _)| format!("from {}", p.display()));
    let mut fig = Figment::new();
    if let (Some((_, layer)), Some(label)) = (file, &file_label) {
        fig = fig.merge(Tagged {
            label: label.clone(),
            layer,
        });
    }
    fig = fig
        .merge(Tagged {
            label: "environment".into(),
            layer: env,
        })
        .merge(Tagged {
            label: "flags".into(),
            layer: flags,
        });
    let source = |key: &str| -> String {
        match fig.find_metadata(key).map(|m| m.name.as_ref()) {
            Some("environment") => {
                format!("from environment variable BOXTRACK_{}", key.to_uppercase())
            }
            Some("flags") => format!("from flag --{}", key.replace('_', "-")),
            Some(label) if !label.is_empty() => label.to_string(),
            _ => "default".to_string(),
        }
    };
    let raw: RawSettings = fig
        .extract()
        .map_err(|e| anyhow::anyhow!("{}", explain(&e, &source)))?;
    let mut chosen = BTreeMap::new();
    if let Ok(serde_json::Value::Object(given)) = serde_json::to_value(&raw) {
        for (key, v) in given {
            if let serde_json::Value::String(s) = v {
                let src = source(&key);
                chosen.insert(key, (s, src));
            }
        }
    }
    Ok(Merged {
        raw,
        chosen,
        file_label,
    })
}

/// figment's error in our words: the setting, what is wrong, and where it came from.
fn explain(e: &figment::Error, source: &dyn Fn(&str) -> String) -> String {
    use figment::error::Kind;
    let key = e.path.join(".");
    let from = if key.is_empty() {
        String::new()
    } else {
        match source(e.path.first().map_or("", String::as_str)) {
            s if s.is_empty() || s == "default" => String::new(),
            s => format!(" ({s})"),
        }
    };
    match &e.kind {
        Kind::UnknownField(name, _) => {
            let at = if key.is_empty() { name.clone() } else { key };
            format!(
                "unknown setting {at:?}{from}; the settings are {}, [carriers.*] and [terminals.*]",
                NAMES.join(", ")
            )
        }
        Kind::InvalidType(actual, expected) => {
            let actual = match actual.to_string().as_str() {
                "sequence" => "an array".to_string(),
                "map" => "a table".to_string(),
                other => other.to_string(),
            };
            format!("setting {key}{from} must be {expected}, not {actual}")
        }
        other => {
            if key.is_empty() {
                other.to_string()
            } else {
                format!("setting {key}{from}: {other}")
            }
        }
    }
}

/// Finds the configuration file: the one named by `--config` / `BOXTRACK_CONFIG` (which must
/// exist), or `./boxtrack.toml` when present.
pub fn config_file(
    explicit: Option<&Path>,
    env: &BTreeMap<String, String>,
) -> anyhow::Result<Option<PathBuf>> {
    if let Some(p) = explicit {
        return Ok(Some(p.to_path_buf()));
    }
    if let Some(p) = env.get("BOXTRACK_CONFIG") {
        return Ok(Some(PathBuf::from(p)));
    }
    let default = PathBuf::from("boxtrack.toml");
    Ok(default.exists().then_some(default))
}
