//! How boxtrack authenticates to an upstream: the `[carriers.SCAC]` / `[terminals.CODE]`
//! tables of `boxtrack.toml` as written ([`EndpointConfig`]), checked and with their secrets
//! read at start ([`Endpoint`]), and the pure rules of the OAuth 2.0 client-credentials grant
//! (RFC 6749 §4.4): when a token is due for refresh, how its answer is read.
//!
//! Schemes (`[carriers.SCAC.auth]`, `type = …`):
//! - `headers`: one or several fixed headers (`headers = { "X-Api-Key" = { env = "KEY" } }`);
//! - `query`: a key in the query string (`param = "apikey"`, `value = …`);
//! - `oauth2_client_credentials`: a bearer token from `token_url`, refreshed before it expires,
//!   with optional fixed `headers` besides it.
//!
//! Every credential is a string written inline, `{ env = "VARIABLE" }` or
//! `{ file = "/run/secrets/name" }` (the file's contents, trimmed). Secrets are read once at
//! start; a missing variable or unreadable file stops the start. Their values never appear in
//! `Debug` output, logs or errors.

use std::collections::BTreeMap;
use std::fmt;
use std::path::PathBuf;
use std::time::Duration;

use serde::Deserialize;
use serde::de::{self, MapAccess, Visitor};

/// Token lifetime assumed when a token answer has no `expires_in`.
pub const DEFAULT_TOKEN_LIFETIME: Duration = Duration::from_secs(3600);

/// A secret value, read. Its `Debug` output is `Secret([redacted])`; only [`Secret::expose`]
/// gives the value.
#[derive(Clone, PartialEq, Eq)]
pub struct Secret(String);

impl Secret {
    /// Wraps a value.
    pub fn new(value: impl Into<String>) -> Secret {
        Secret(value.into())
    }

    /// The value, for the one place that sends it.
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Secret([redacted])")
    }
}

/// Where a credential comes from, as written in the configuration: a string (the value
/// itself), `{ value = "…" }`, `{ env = "VARIABLE" }` or `{ file = "/path" }`.
#[derive(Clone, PartialEq, Eq)]
pub enum SecretSource {
    /// Written inline.
    Value(String),
    /// An environment variable, by name.
    Env(String),
    /// A file whose contents (trimmed) are the value.
    File(PathBuf),
}

impl fmt::Debug for SecretSource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SecretSource::Value(_) => f.write_str("Value([redacted])"),
            SecretSource::Env(name) => f.debug_tuple("Env").field(name).finish(),
            SecretSource::File(path) => f.debug_tuple("File").field(path).finish(),
        }
    }
}

const SECRET_SHAPE: &str = "a credential: a string, { env = \"VARIABLE\" }, { file = \"/path/to/file\" } or { value = \"...\" }";

impl<'de> Deserialize<'de> for SecretSource {
    fn deserialize<D: de::Deserializer<'de>>(d: D) -> Result<SecretSource, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = SecretSource;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(SECRET_SHAPE)
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<SecretSource, E> {
                Ok(SecretSource::Value(v.to_string()))
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<SecretSource, A::Error> {
                let mut found: Option<SecretSource> = None;
                while let Some(key) = map.next_key::<String>()? {
                    let value: String = map.next_value()?;
                    let source = match key.as_str() {
                        "value" => SecretSource::Value(value),
                        "env" => SecretSource::Env(value),
                        "file" => SecretSource::File(PathBuf::from(value)),
                        other => {
                            return Err(de::Error::custom(format!(
                                "unknown key {other:?} in {SECRET_SHAPE}"
                            )));
                        }
                    };
                    if found.replace(source).is_some() {
                        return Err(de::Error::custom(format!(
                            "only one of env, file or value in {SECRET_SHAPE}"
                        )));
                    }
                }
                found.ok_or_else(|| de::Error::custom(format!("empty table: {SECRET_SHAPE}")))
            }
        }
        d.deserialize_any(V)
    }
}

impl SecretSource {
    /// Reads the value: the inline text, the variable (through `env`) or the file.
    pub fn read(&self, env: &dyn Fn(&str) -> Option<String>) -> Result<Secret, String> {
        let value = match self {
            SecretSource::Value(v) => v.trim().to_string(),
            SecretSource::Env(name) => env(name)
                .ok_or_else(|| format!("environment variable {name} is not set"))?
                .trim()
                .to_string(),
            SecretSource::File(path) => std::fs::read_to_string(path)
                .map_err(|e| format!("cannot read {}: {e}", path.display()))?
                .trim()
                .to_string(),
        };
        if value.is_empty() {
            return Err(match self {
                SecretSource::Value(_) => "is empty".to_string(),
                SecretSource::Env(name) => format!("environment variable {name} is empty"),
                SecretSource::File(path) => format!("{} is empty", path.display()),
            });
        }
        Ok(Secret(value))
    }
}

/// How the client authenticates to the token endpoint (RFC 6749 §2.3.1).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ClientAuth {
    /// HTTP Basic with the form-encoded client id and secret (the default).
    #[default]
    Basic,
    /// `client_id` and `client_secret` in the form body.
    Body,
}

/// `[carriers.SCAC.auth]` as written.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum AuthConfig {
    /// Fixed headers on every request.
    Headers {
        /// Header name → credential.
        headers: BTreeMap<String, SecretSource>,
    },
    /// A key in the query string.
    Query {
        /// Parameter name, e.g. `apikey`.
        param: String,
        /// The key.
        value: SecretSource,
    },
    /// OAuth 2.0 client credentials: `Authorization: Bearer <token>` from `token_url`.
    #[serde(rename = "oauth2_client_credentials")]
    OAuth2ClientCredentials {
        /// Token endpoint.
        token_url: String,
        /// Client id.
        client_id: SecretSource,
        /// Client secret.
        client_secret: SecretSource,
        /// Space-separated scopes to ask for.
        #[serde(default)]
        scope: Option<String>,
        /// `basic` (default) or `body`.
        #[serde(default)]
        client_auth: ClientAuth,
        /// Fixed headers sent besides the token (some carriers also want their consumer key).
        #[serde(default)]
        headers: BTreeMap<String, SecretSource>,
    },
    /// COSCO's COP: every request signed with HMAC-SHA1 from an API key and a secret key
    /// (`crate::cosco`).
    #[serde(rename = "cosco_hmac")]
    CoscoHmac {
        /// The API key (`username` of the signature).
        api_key: SecretSource,
        /// The secret key that signs.
        secret_key: SecretSource,
    },
}

/// One `[carriers.SCAC]` or `[terminals.CODE]` table as written.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EndpointConfig {
    /// Base URL (a DCSA carrier: the part before `/v2/events`; a terminal: the part before
    /// `/containers/{number}`).
    pub url: String,
    /// One credential header's name (the older, single-header form of `auth`).
    #[serde(default)]
    pub auth_header: Option<String>,
    /// Its value.
    #[serde(default)]
    pub auth_value: Option<SecretSource>,
    /// How to authenticate.
    #[serde(default)]
    pub auth: Option<AuthConfig>,
    /// A carrier's DCSA Track & Trace version: `"2.2"` (the default) or `"3.0"`.
    #[serde(default)]
    pub dcsa_version: Option<String>,
    /// What a carrier's API speaks: `"dcsa"` (the default) or `"cosco_cop"` (COSCO's own
    /// tracking API, `crate::cosco`).
    #[serde(default)]
    pub format: Option<String>,
}

/// What a carrier's API speaks.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum ApiFormat {
    /// DCSA Track & Trace, in the endpoint's `dcsa_version`.
    #[default]
    Dcsa,
    /// COSCO's COP tracking API (`crate::cosco`).
    CoscoCop,
}

impl ApiFormat {
    /// Its name in a carrier's table.
    pub fn name(self) -> &'static str {
        match self {
            ApiFormat::Dcsa => "dcsa",
            ApiFormat::CoscoCop => "cosco_cop",
        }
    }
}

/// OAuth 2.0 client credentials, read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OAuth2 {
    /// Token endpoint.
    pub token_url: String,
    /// Client id.
    pub client_id: Secret,
    /// Client secret.
    pub client_secret: Secret,
    /// Scopes asked for.
    pub scope: Option<String>,
    /// Where the client credentials go.
    pub client_auth: ClientAuth,
    /// Fixed headers sent besides the token.
    pub headers: Vec<(reqwest::header::HeaderName, Secret)>,
}

/// How an upstream is authenticated, with its secrets read.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum Auth {
    /// Nothing.
    #[default]
    None,
    /// Fixed headers.
    Headers(Vec<(reqwest::header::HeaderName, Secret)>),
    /// A key in the query string.
    Query {
        /// Parameter name.
        param: String,
        /// The key.
        value: Secret,
    },
    /// A bearer token from a token endpoint.
    OAuth2(Box<OAuth2>),
    /// COSCO's COP signature of every request.
    CoscoHmac {
        /// The API key.
        api_key: Secret,
        /// The secret key.
        secret_key: Secret,
    },
}

impl Auth {
    /// The scheme's name, as in the configuration (`none`, `headers`, `query`,
    /// `oauth2_client_credentials`).
    pub fn scheme(&self) -> &'static str {
        match self {
            Auth::None => "none",
            Auth::Headers(_) => "headers",
            Auth::Query { .. } => "query",
            Auth::OAuth2(_) => "oauth2_client_credentials",
            Auth::CoscoHmac { .. } => "cosco_hmac",
        }
    }

    /// Every secret it holds (to be kept out of words an upstream sends back).
    pub fn secrets(&self) -> Vec<&Secret> {
        match self {
            Auth::None => vec![],
            Auth::Headers(h) => h.iter().map(|(_, v)| v).collect(),
            Auth::Query { value, .. } => vec![value],
            Auth::OAuth2(o) => [&o.client_id, &o.client_secret]
                .into_iter()
                .chain(o.headers.iter().map(|(_, v)| v))
                .collect(),
            Auth::CoscoHmac {
                api_key,
                secret_key,
            } => vec![api_key, secret_key],
        }
    }
}

/// An upstream ready to call: its base URL and credentials.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Endpoint {
    /// Base URL.
    pub url: String,
    /// Credentials.
    pub auth: Auth,
    /// The DCSA version a carrier speaks (a terminal's feed has none).
    pub dcsa_version: crate::dcsa::Version,
    /// What a carrier's API speaks.
    pub format: ApiFormat,
}

impl Endpoint {
    /// An upstream without credentials.
    pub fn open(url: impl Into<String>) -> Endpoint {
        Endpoint {
            url: url.into(),
            auth: Auth::None,
            dcsa_version: crate::dcsa::Version::default(),
            format: ApiFormat::Dcsa,
        }
    }

    /// The same upstream, speaking this DCSA version.
    pub fn speaking(mut self, version: crate::dcsa::Version) -> Endpoint {
        self.dcsa_version = version;
        self
    }
}

/// A value of an upstream's table that cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{field}: {reason}")]
pub struct ConfigError {
    /// The key inside the table, e.g. `auth.client_secret`.
    pub field: String,
    /// What is wrong (never the secret itself).
    pub reason: String,
}

fn bad(field: impl Into<String>, reason: impl Into<String>) -> ConfigError {
    ConfigError {
        field: field.into(),
        reason: reason.into(),
    }
}

fn http_url(field: &str, url: &str) -> Result<String, ConfigError> {
    let url = url.trim();
    let ok = (url.starts_with("http://") || url.starts_with("https://"))
        && reqwest::Url::parse(url).is_ok_and(|u| u.host_str().is_some());
    if !ok {
        return Err(bad(
            field,
            format!("{url:?} must be an absolute http:// or https:// address"),
        ));
    }
    Ok(url.to_string())
}

fn read(
    field: &str,
    source: &SecretSource,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<Secret, ConfigError> {
    source.read(env).map_err(|reason| bad(field, reason))
}

fn header_secret(
    field: &str,
    name: &str,
    source: &SecretSource,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<(reqwest::header::HeaderName, Secret), ConfigError> {
    let header = reqwest::header::HeaderName::from_bytes(name.trim().as_bytes())
        .map_err(|_| bad(field, format!("{name:?} is not a header name")))?;
    let value = read(field, source, env)?;
    if reqwest::header::HeaderValue::from_str(value.expose()).is_err() {
        return Err(bad(
            field,
            "the value is not usable in a header (control characters or non-ASCII)",
        ));
    }
    Ok((header, value))
}

fn headers(
    prefix: &str,
    map: &BTreeMap<String, SecretSource>,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<Vec<(reqwest::header::HeaderName, Secret)>, ConfigError> {
    map.iter()
        .map(|(name, source)| header_secret(&format!("{prefix}.{name}"), name, source, env))
        .collect()
}

impl EndpointConfig {
    /// Checks the table and reads its secrets (`env` looks an environment variable up).
    pub fn resolve(&self, env: &dyn Fn(&str) -> Option<String>) -> Result<Endpoint, ConfigError> {
        Ok(Endpoint {
            url: http_url("url", &self.url)?,
            auth: self.auth(env)?,
            dcsa_version: self.version()?,
            format: self.format()?,
        })
    }

    /// The credentials, read: from the `auth` table, or the older one-header form.
    fn auth(&self, env: &dyn Fn(&str) -> Option<String>) -> Result<Auth, ConfigError> {
        let legacy = self.auth_header.is_some() || self.auth_value.is_some();
        if legacy && self.auth.is_some() {
            return Err(bad(
                "auth_header",
                "use either auth_header/auth_value or an auth table, not both",
            ));
        }
        Ok(match (&self.auth, &self.auth_header, &self.auth_value) {
            (None, None, None) => Auth::None,
            (None, Some(name), Some(value)) => {
                Auth::Headers(vec![header_secret("auth_value", name, value, env)?])
            }
            (None, Some(_), None) => return Err(bad("auth_value", "is missing for auth_header")),
            (None, None, Some(_)) => return Err(bad("auth_header", "is missing for auth_value")),
            (Some(AuthConfig::Headers { headers: map }), _, _) => {
                if map.is_empty() {
                    return Err(bad("auth.headers", "names no header"));
                }
                Auth::Headers(headers("auth.headers", map, env)?)
            }
            (Some(AuthConfig::Query { param, value }), _, _) => {
                let param = param.trim();
                if param.is_empty()
                    || param
                        .chars()
                        .any(|c| c.is_whitespace() || c.is_control() || "&=#?".contains(c))
                {
                    return Err(bad(
                        "auth.param",
                        format!("{param:?} is not a query parameter name"),
                    ));
                }
                Auth::Query {
                    param: param.to_string(),
                    value: read("auth.value", value, env)?,
                }
            }
            (
                Some(AuthConfig::OAuth2ClientCredentials {
                    token_url,
                    client_id,
                    client_secret,
                    scope,
                    client_auth,
                    headers: map,
                }),
                _,
                _,
            ) => {
                let extra = headers("auth.headers", map, env)?;
                if let Some((name, _)) = extra
                    .iter()
                    .find(|(n, _)| *n == reqwest::header::AUTHORIZATION)
                {
                    return Err(bad(
                        format!("auth.headers.{name}"),
                        "is set by boxtrack itself with the access token",
                    ));
                }
                let scope = match scope.as_deref().map(str::trim) {
                    None => None,
                    Some("") => return Err(bad("auth.scope", "is empty (leave it out instead)")),
                    Some(s) => Some(s.to_string()),
                };
                Auth::OAuth2(Box::new(OAuth2 {
                    token_url: http_url("auth.token_url", token_url)?,
                    client_id: read("auth.client_id", client_id, env)?,
                    client_secret: read("auth.client_secret", client_secret, env)?,
                    scope,
                    client_auth: *client_auth,
                    headers: extra,
                }))
            }
            (
                Some(AuthConfig::CoscoHmac {
                    api_key,
                    secret_key,
                }),
                _,
                _,
            ) => Auth::CoscoHmac {
                api_key: read("auth.api_key", api_key, env)?,
                secret_key: read("auth.secret_key", secret_key, env)?,
            },
        })
    }

    /// The DCSA version written (2.2 when none).
    fn version(&self) -> Result<crate::dcsa::Version, ConfigError> {
        match self.dcsa_version.as_deref() {
            None => Ok(crate::dcsa::Version::default()),
            Some(v) => crate::dcsa::Version::parse(v).ok_or_else(|| {
                bad(
                    "dcsa_version",
                    format!("{v:?} is not a DCSA Track & Trace version (2.2 or 3.0)"),
                )
            }),
        }
    }

    /// The format written (DCSA when none).
    fn format(&self) -> Result<ApiFormat, ConfigError> {
        match self.format.as_deref().map(str::trim) {
            None | Some("dcsa") => Ok(ApiFormat::Dcsa),
            Some("cosco_cop") => Ok(ApiFormat::CoscoCop),
            Some(f) => Err(bad(
                "format",
                format!("{f:?} is not a format boxtrack reads (dcsa or cosco_cop)"),
            )),
        }
    }
}

/// How long after it was issued a token of this `lifetime` is replaced: at 80 % of its life
/// or 60 s before it ends, whichever comes first, but not before half its life (so a very
/// short-lived token is still used for a while).
pub fn refresh_after(lifetime: Duration) -> Duration {
    let eighty = lifetime.mul_f64(0.8);
    let margin = lifetime.saturating_sub(Duration::from_secs(60));
    eighty.min(margin).max(lifetime / 2)
}

/// Whether a token `age` old, issued for `lifetime`, is due for refresh.
pub fn token_due(age: Duration, lifetime: Duration) -> bool {
    age >= refresh_after(lifetime)
}

/// A token endpoint's successful answer, read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IssuedToken {
    /// The access token.
    pub access_token: Secret,
    /// Its lifetime (`expires_in`, or [`DEFAULT_TOKEN_LIFETIME`] when not said).
    pub lifetime: Duration,
}

/// Reads a token endpoint's answer (RFC 6749 §5.1 and §5.2). The reason of an `Err` quotes
/// the endpoint's `error` code and description, never the request's credentials.
pub fn read_token_answer(status: u16, body: &str) -> Result<IssuedToken, String> {
    let json: Option<serde_json::Value> = serde_json::from_str(body).ok();
    if !(200..300).contains(&status) {
        let code = json
            .as_ref()
            .and_then(|j| j.get("error"))
            .and_then(|e| e.as_str())
            .map(|e| short(e, 60));
        let description = json
            .as_ref()
            .and_then(|j| j.get("error_description"))
            .and_then(|e| e.as_str())
            .map(|e| short(e, 160));
        return Err(match (code, description) {
            (Some(c), Some(d)) => format!("token endpoint answered HTTP {status} ({c}: {d})"),
            (Some(c), None) => format!("token endpoint answered HTTP {status} ({c})"),
            _ => format!("token endpoint answered HTTP {status}"),
        });
    }
    let json = json.ok_or("the token endpoint's answer is not JSON")?;
    let token = json
        .get("access_token")
        .and_then(|t| t.as_str())
        .filter(|t| !t.trim().is_empty())
        .ok_or("the token endpoint's answer has no access_token")?;
    if let Some(kind) = json.get("token_type").and_then(|t| t.as_str())
        && !kind.eq_ignore_ascii_case("bearer")
    {
        return Err(format!(
            "token type {:?} is not supported (only Bearer)",
            short(kind, 40)
        ));
    }
    let lifetime = match json.get("expires_in") {
        None | Some(serde_json::Value::Null) => DEFAULT_TOKEN_LIFETIME,
        Some(v) => {
            let secs = v
                .as_u64()
                .or_else(|| v.as_f64().filter(|f| *f >= 0.0).map(|f| f as u64))
                .or_else(|| v.as_str().and_then(|s| s.trim().parse::<u64>().ok()))
                .ok_or("expires_in is not a number of seconds")?;
            Duration::from_secs(secs.max(1))
        }
    };
    if reqwest::header::HeaderValue::from_str(&format!("Bearer {token}")).is_err() {
        return Err("the access token is not usable in a header".into());
    }
    Ok(IssuedToken {
        access_token: Secret(token.to_string()),
        lifetime,
    })
}

fn short(s: &str, max: usize) -> String {
    let clean: String = s.chars().filter(|c| !c.is_control()).take(max).collect();
    if s.chars().count() > max {
        format!("{clean}…")
    } else {
        clean
    }
}

/// `application/x-www-form-urlencoded` encoding of one value, as RFC 6749 §2.3.1 asks of the
/// client id and secret before they go into HTTP Basic.
pub fn form_encode(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for b in s.bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'*' => {
                out.push(b as char)
            }
            b' ' => out.push('+'),
            _ => out.push_str(&format!("%{b:02X}")),
        }
    }
    out
}

/// The `Authorization` value of HTTP Basic client authentication (RFC 6749 §2.3.1).
pub fn basic_credentials(client_id: &Secret, client_secret: &Secret) -> String {
    use base64::Engine;
    let pair = format!(
        "{}:{}",
        form_encode(client_id.expose()),
        form_encode(client_secret.expose())
    );
    format!(
        "Basic {}",
        base64::engine::general_purpose::STANDARD.encode(pair)
    )
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;

    fn parse(text: &str) -> Result<EndpointConfig, String> {
        #[derive(Deserialize)]
        struct File {
            carriers: BTreeMap<String, EndpointConfig>,
        }
        toml::from_str::<File>(text)
            .map(|f| f.carriers.into_values().next().unwrap())
            .map_err(|e| e.to_string())
    }

    fn env(name: &str) -> Option<String> {
        match name {
            "MAEU_SECRET" => Some("s3cr3t-from-env\n".into()),
            "EMPTY" => Some("  ".into()),
            _ => None,
        }
    }

    #[test]
    fn every_scheme_reads_its_secrets() {
        let dir = std::env::temp_dir().join(format!("boxtrack-auth-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("secret");
        std::fs::write(&file, "from-a-file\n").unwrap();
        let oauth = parse(&format!(
            r#"
            [carriers.MAEU]
            url = "https://api.maersk.example/track-and-trace"
            [carriers.MAEU.auth]
            type = "oauth2_client_credentials"
            token_url = "https://api.maersk.example/oauth2/access_token"
            client_id = "my-client"
            client_secret = {{ env = "MAEU_SECRET" }}
            scope = "track"
            client_auth = "body"
            headers = {{ "Consumer-Key" = {{ file = "{}" }} }}
            "#,
            file.display()
        ))
        .unwrap();
        let ep = oauth.resolve(&env).unwrap();
        let Auth::OAuth2(o) = &ep.auth else {
            panic!("{ep:?}")
        };
        assert_eq!(o.client_id.expose(), "my-client");
        assert_eq!(o.client_secret.expose(), "s3cr3t-from-env");
        assert_eq!(o.client_auth, ClientAuth::Body);
        assert_eq!(o.scope.as_deref(), Some("track"));
        assert_eq!(o.headers[0].0.as_str(), "consumer-key");
        assert_eq!(o.headers[0].1.expose(), "from-a-file");

        let hdr = parse(
            r#"
            [carriers.HLCU]
            url = "https://api.hlag.example/dcsa"
            auth = { type = "headers", headers = { "X-IBM-Client-Id" = "id", "X-IBM-Client-Secret" = { value = "v" } } }
            "#,
        )
        .unwrap()
        .resolve(&env)
        .unwrap();
        assert!(matches!(&hdr.auth, Auth::Headers(h) if h.len() == 2));

        let q = parse(
            r#"
            [carriers.ONEY]
            url = "https://api.one.example/dcsa"
            [carriers.ONEY.auth]
            type = "query"
            param = "apikey"
            value = { env = "MAEU_SECRET" }
            "#,
        )
        .unwrap()
        .resolve(&env)
        .unwrap();
        assert!(
            matches!(&q.auth, Auth::Query { param, value } if param == "apikey" && value.expose() == "s3cr3t-from-env")
        );
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn the_single_header_form_still_works() {
        let ep = parse(
            r#"
            [carriers.MAEU]
            url = "https://api.carrier.example/tnt"
            auth_header = "Consumer-Key"
            auth_value = "abc"
            "#,
        )
        .unwrap()
        .resolve(&env)
        .unwrap();
        assert_eq!(
            ep.auth,
            Auth::Headers(vec![(
                reqwest::header::HeaderName::from_static("consumer-key"),
                Secret::new("abc")
            )])
        );
        let open = parse("[carriers.X]\nurl = \"http://127.0.0.1:1/x\"")
            .unwrap()
            .resolve(&env)
            .unwrap();
        assert_eq!(open.auth, Auth::None);
    }

    #[test]
    fn bad_tables_name_the_key() {
        let err = |text: &str| {
            parse(text)
                .and_then(|c| c.resolve(&env).map_err(|e| e.to_string()))
                .unwrap_err()
        };
        let base = "[carriers.X]\nurl = \"https://c.example/t\"\n";
        let e = err(&format!(
            "{base}[carriers.X.auth]\ntype = \"query\"\nparam = \"k\"\nvalue = {{ env = \"NOPE\" }}"
        ));
        assert!(e.contains("auth.value") && e.contains("NOPE"), "{e}");
        let e = err(&format!(
            "{base}[carriers.X.auth]\ntype = \"query\"\nparam = \"k\"\nvalue = {{ env = \"EMPTY\" }}"
        ));
        assert!(e.contains("EMPTY is empty"), "{e}");
        let e = err(&format!(
            "{base}[carriers.X.auth]\ntype = \"query\"\nparam = \"k\"\nvalue = {{ file = \"/nonexistent/boxtrack\" }}"
        ));
        assert!(e.contains("/nonexistent/boxtrack"), "{e}");
        let e = err(&format!("{base}[carriers.X.auth]\ntype = \"kerberos\""));
        assert!(e.contains("kerberos"), "{e}");
        let e = err(&format!(
            "{base}[carriers.X.auth]\ntype = \"query\"\nparam = \"k\"\nvalue = {{ vault = \"x\" }}"
        ));
        assert!(e.contains("vault"), "{e}");
        let e = err(&format!(
            "{base}[carriers.X.auth]\ntype = \"query\"\nparam = \"k\"\nvalue = \"v\"\nextra = 1"
        ));
        assert!(e.contains("extra"), "{e}");
        let e = err(&format!("{base}auth_header = \"Key\""));
        assert!(e.contains("auth_value"), "{e}");
        let e = err(&format!(
            "{base}auth_header = \"Key\"\nauth_value = \"v\"\n[carriers.X.auth]\ntype = \"headers\"\nheaders = {{ A = \"b\" }}"
        ));
        assert!(e.contains("not both"), "{e}");
        let e = err(&format!(
            "{base}[carriers.X.auth]\ntype = \"headers\"\nheaders = {{ \"Bad Name\" = \"b\" }}"
        ));
        assert!(e.contains("auth.headers.Bad Name"), "{e}");
        let e = err(&format!(
            "{base}[carriers.X.auth]\ntype = \"headers\"\nheaders = {{ K = \"line\\nbreak\" }}"
        ));
        assert!(e.contains("auth.headers.K") && !e.contains("break"), "{e}");
        let e = err(&format!(
            "{base}[carriers.X.auth]\ntype = \"oauth2_client_credentials\"\ntoken_url = \"ftp://x\"\nclient_id = \"a\"\nclient_secret = \"b\""
        ));
        assert!(e.contains("auth.token_url"), "{e}");
        let e = err(&format!(
            "{base}[carriers.X.auth]\ntype = \"oauth2_client_credentials\"\ntoken_url = \"https://x/t\"\nclient_id = \"a\"\nclient_secret = \"b\"\nheaders = {{ Authorization = \"c\" }}"
        ));
        assert!(e.contains("authorization"), "{e}");
        let e = err(&format!(
            "{base}[carriers.X.auth]\ntype = \"oauth2_client_credentials\"\ntoken_url = \"https://x/t\"\nclient_id = \"a\"\nclient_secret = \"b\"\nclient_auth = \"digest\""
        ));
        assert!(e.contains("digest"), "{e}");
        let e = err("[carriers.X]\nurl = \"c.example\"");
        assert!(e.starts_with("url:"), "{e}");
    }

    #[test]
    fn debug_output_hides_secrets() {
        let cfg = parse(
            r#"
            [carriers.X]
            url = "https://c.example/t"
            auth_header = "Key"
            auth_value = "inline-secret-value"
            "#,
        )
        .unwrap();
        assert!(!format!("{cfg:?}").contains("inline-secret-value"));
        let ep = cfg.resolve(&env).unwrap();
        let shown = format!("{ep:?} {:?}", Secret::new("inline-secret-value"));
        assert!(!shown.contains("inline-secret-value"), "{shown}");
        assert!(shown.contains("redacted"), "{shown}");
    }

    #[test]
    fn tokens_are_refreshed_before_they_expire() {
        let s = Duration::from_secs;
        // an hour: at 80 % (48 min), before the 60-second margin
        assert_eq!(refresh_after(s(3600)), s(2880));
        // five minutes: both rules agree on 4 minutes
        assert_eq!(refresh_after(s(300)), s(240));
        // two minutes: 60 s before the end comes first
        assert_eq!(refresh_after(s(120)), s(60));
        // very short: never before half its life
        assert_eq!(refresh_after(s(2)), s(1));
        assert!(!token_due(s(2879), s(3600)));
        assert!(token_due(s(2880), s(3600)));
        assert!(token_due(s(5000), s(3600)));
        assert!(!token_due(Duration::from_millis(900), s(2)));
        assert!(token_due(s(1), s(2)));
    }

    #[test]
    fn token_answers_are_read() {
        let t = read_token_answer(
            200,
            r#"{"access_token":"abc","token_type":"bearer","expires_in":"120"}"#,
        )
        .unwrap();
        assert_eq!(t.access_token.expose(), "abc");
        assert_eq!(t.lifetime, Duration::from_secs(120));
        let t = read_token_answer(200, r#"{"access_token":"abc"}"#).unwrap();
        assert_eq!(t.lifetime, DEFAULT_TOKEN_LIFETIME);
        assert!(read_token_answer(200, r#"{"token_type":"Bearer"}"#).is_err());
        assert!(
            read_token_answer(200, r#"{"access_token":"a","token_type":"mac"}"#)
                .unwrap_err()
                .contains("mac")
        );
        assert!(read_token_answer(200, "<html>").is_err());
        let e = read_token_answer(
            401,
            r#"{"error":"invalid_client","error_description":"Client authentication failed"}"#,
        )
        .unwrap_err();
        assert_eq!(
            e,
            "token endpoint answered HTTP 401 (invalid_client: Client authentication failed)"
        );
        assert_eq!(
            read_token_answer(503, "busy").unwrap_err(),
            "token endpoint answered HTTP 503"
        );
    }

    #[test]
    fn basic_credentials_are_form_encoded_first() {
        assert_eq!(form_encode("a b+c/é"), "a+b%2Bc%2F%C3%A9");
        assert_eq!(
            basic_credentials(&Secret::new("client"), &Secret::new("secret")),
            "Basic Y2xpZW50OnNlY3JldA=="
        );
    }
}
