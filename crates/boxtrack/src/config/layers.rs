//! Where settings come from, each as raw text by name: the configuration file, `BOXTRACK_*`
//! environment variables and command-line flags. [`super::resolve`] merges the layers (later
//! wins) and validates every value, so a value means the same whichever layer gave it.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use anyhow::{Context, bail};
use boxtrack_sources::upstream::EndpointConfig;

/// Every setting's name (the file key; `BOXTRACK_<NAME>` in the environment; `--name` with
/// dashes as a flag).
pub const NAMES: [&str; 24] = [
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
    "sandbox_speed",
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
];

/// The settings one layer gives, as raw text by name, and (from the file only) the upstream
/// tables.
#[derive(Debug, Clone, Default)]
pub struct Layer {
    values: BTreeMap<&'static str, String>,
    carriers: Option<BTreeMap<String, EndpointConfig>>,
    terminals: Option<BTreeMap<String, EndpointConfig>>,
}

impl Layer {
    /// The raw value of a setting, when this layer gives one.
    pub fn get(&self, name: &str) -> Option<String> {
        self.values.get(name).cloned()
    }

    /// This layer with `name` set to `value` (a flag that was given); `None` leaves it unset.
    /// Panics on a name that is not a setting (a programming error, not input).
    #[must_use]
    pub fn with(mut self, name: &str, value: Option<impl ToString>) -> Layer {
        let Some(key) = NAMES.iter().find(|n| **n == name) else {
            panic!("{name} is not a setting");
        };
        if let Some(v) = value {
            self.values.insert(key, v.to_string());
        }
        self
    }

    /// `[carriers.SCAC]` tables: DCSA endpoint and credentials per carrier.
    pub fn carriers(&self) -> Option<&BTreeMap<String, EndpointConfig>> {
        self.carriers.as_ref()
    }

    /// `[terminals.CODE]` tables: availability feed and credentials per terminal.
    pub fn terminals(&self) -> Option<&BTreeMap<String, EndpointConfig>> {
        self.terminals.as_ref()
    }

    /// Reads `BOXTRACK_<NAME>` variables from an environment map.
    pub fn from_env(env: &BTreeMap<String, String>) -> Layer {
        let mut layer = Layer::default();
        for name in NAMES {
            if let Some(v) = env.get(&format!("BOXTRACK_{}", name.to_uppercase())) {
                layer.values.insert(name, v.clone());
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
    /// `[carriers.*]` and `[terminals.*]` tables. An unknown key is an error naming it.
    pub fn parse(text: &str) -> anyhow::Result<Layer> {
        let table: toml::Table = toml::from_str(text)?;
        let mut layer = Layer::default();
        for (key, value) in table {
            match key.as_str() {
                "carriers" | "terminals" => {
                    let tables: BTreeMap<String, EndpointConfig> = value
                        .try_into()
                        .map_err(|e| anyhow::anyhow!("[{key}.*] tables: {e}"))?;
                    if key == "carriers" {
                        layer.carriers = Some(tables);
                    } else {
                        layer.terminals = Some(tables);
                    }
                }
                _ => {
                    let Some(name) = NAMES.iter().find(|n| **n == key) else {
                        bail!(
                            "unknown setting {key:?}; the settings are {}, [carriers.*] and [terminals.*]",
                            NAMES.join(", ")
                        );
                    };
                    let raw = match value {
                        toml::Value::String(s) => s,
                        toml::Value::Integer(n) => n.to_string(),
                        toml::Value::Float(n) => n.to_string(),
                        toml::Value::Boolean(b) => b.to_string(),
                        other => bail!(
                            "setting {key} must be a string, a number or true/false, not {}",
                            other.type_str()
                        ),
                    };
                    layer.values.insert(name, raw);
                }
            }
        }
        Ok(layer)
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
