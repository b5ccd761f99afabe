//! Where settings come from: the configuration file, `BOXTRACK_*` environment variables and
//! command-line flags. Each is a [`Layer`]; [`figment`] merges them over the defaults (later
//! wins), keeps which layer gave each value, and reads one [`RawSettings`], refusing
//! unknown keys and values of the wrong shape with the key and its source named.
//! [`super::resolve_with`] then checks what each value means.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use anyhow::Context;
use boxtrack_sources::auth::SecretSource;
use boxtrack_sources::profiles::CarrierConfig;
use boxtrack_sources::upstream::EndpointConfig;
use figment::value::{Dict, Map, Value};
use figment::{Figment, Metadata, Profile, Provider};
use serde::Deserialize;

/// The merged layers as typed values: every setting a layer gave, as text, and the
/// upstream tables. Extracted with [`Value`]s at the top so that an unknown key or a value of
/// the wrong shape is refused naming the key and its source.
#[derive(Debug, Default, Clone)]
pub struct RawSettings {
    /// The settings some layer gave (the declared names only).
    pub values: BTreeMap<String, String>,
    /// `[carriers.SCAC]` tables (a profile and its credentials, or every key written).
    pub carriers: Option<BTreeMap<String, CarrierConfig>>,
    /// `[terminals.CODE]` tables.
    pub terminals: Option<BTreeMap<String, EndpointConfig>>,
    /// `ais_websocket_key`: a credential (a string, `{ env = … }` or `{ file = … }`).
    pub ais_websocket_key: Option<SecretSource>,
}

/// The upstream tables (the rest of the file is read key by key).
#[derive(Deserialize)]
struct Tables {
    #[serde(default)]
    carriers: Option<BTreeMap<String, CarrierConfig>>,
    #[serde(default)]
    terminals: Option<BTreeMap<String, EndpointConfig>>,
    #[serde(default)]
    ais_websocket_key: Option<SecretSource>,
}

/// Reads the merged figment: the upstream tables typed, every other top-level key a declared
/// setting with a scalar value.
fn read(fig: &Figment, source: &dyn Fn(&str) -> String) -> anyhow::Result<RawSettings> {
    let tables: Tables = fig
        .extract()
        .map_err(|e| anyhow::anyhow!("{}", explain(&e, source)))?;
    let top: BTreeMap<String, Value> = fig
        .extract()
        .map_err(|e| anyhow::anyhow!("{}", explain(&e, source)))?;
    let mut values = BTreeMap::new();
    for (key, v) in top {
        if key == "carriers" || key == "terminals" || key == "ais_websocket_key" {
            continue;
        }
        let from = match source(&key) {
            s if s.is_empty() || s == "default" => String::new(),
            s => format!(" ({s})"),
        };
        if super::specs::spec(&key).is_none() {
            anyhow::bail!(
                "unknown setting {key:?}{from}; the settings are {}, [carriers.*] and [terminals.*]",
                super::specs::names().collect::<Vec<_>>().join(", ")
            );
        }
        let text = match v {
            Value::String(_, s) => s,
            Value::Bool(_, b) => b.to_string(),
            Value::Num(_, n) => match (n.to_u128(), n.to_i128(), n.to_f64()) {
                (Some(u), _, _) => u.to_string(),
                (_, Some(i), _) => i.to_string(),
                (_, _, Some(f)) => f.to_string(),
                _ => anyhow::bail!("setting {key}{from} must be a number it can read"),
            },
            Value::Array(..) => {
                anyhow::bail!(
                    "setting {key}{from} must be a string, a number or true/false, not an array"
                )
            }
            _ => anyhow::bail!(
                "setting {key}{from} must be a string, a number or true/false, not a table"
            ),
        };
        values.insert(key, text);
    }
    Ok(RawSettings {
        values,
        carriers: tables.carriers,
        terminals: tables.terminals,
        ais_websocket_key: tables.ais_websocket_key,
    })
}

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
        assert!(
            super::specs::spec(name).is_some(),
            "{name} is not a setting"
        );
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
        for spec in super::specs::SETTINGS {
            if let Some(v) = env.get(&spec.env()) {
                layer
                    .values
                    .insert(spec.name.to_string(), Value::from(v.clone()));
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
        layer.extract()?;
        Ok(layer)
    }

    fn extract(&self) -> anyhow::Result<RawSettings> {
        let fig = Figment::from(Tagged {
            label: String::new(),
            layer: self.clone(),
        });
        read(&fig, &|_| String::new())
    }
}

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
    let raw = read(&fig, &source)?;
    let chosen = raw
        .values
        .iter()
        .map(|(key, v)| (key.clone(), (v.clone(), source(key))))
        .collect();
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
                super::specs::names().collect::<Vec<_>>().join(", ")
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
