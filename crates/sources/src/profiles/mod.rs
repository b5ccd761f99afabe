//! Carrier profiles: what each big line's public developer documentation says about its
//! tracking API (base URL, authentication, DCSA version or own format, identifiers, paging,
//! rate limits, gaps, how to get credentials), with the sources it was read from and how sure
//! that reading is. [`PROFILES`] is the table; `docs/carriers.md` shows it and
//! `docs/carriers-research.md` holds the notes behind it.
//!
//! A `[carriers.SCAC]` table may name a profile and give only the credentials
//! ([`CarrierConfig`]): `profile = "hapag-lloyd"`, `client_id = …`, `client_secret = …`.
//! [`CarrierConfig::expand`] turns it into the full [`EndpointConfig`] (url, `dcsa_version`,
//! auth table); a key written in the table (`url`, `dcsa_version`, `auth`, `auth_header` /
//! `auth_value`) beats the profile's. What a profile could not confirm is not guessed: a
//! profile without a confirmed base URL needs `url`, one whose authentication is not
//! confirmed needs an `auth` table, and one whose API is not DCSA Track & Trace (or whose
//! authentication boxtrack cannot compute) is refused with the reason. `host_url` stands for
//! the line's own hosts in every address the profile names (its base URL, its token
//! endpoint), keeping their paths: how a simulated line (`boxtrack sim --carrier-profiles`) or
//! a proxy is reached.
//!
//! Profiles are built from documented behaviour, not tried against the live services.

use std::collections::BTreeMap;
use std::fmt;

use serde::de::{self, MapAccess, Visitor};
use serde::{Deserialize, Serialize};

use crate::auth::{AuthConfig, ClientAuth, ConfigError, EndpointConfig, SecretSource};
use crate::dcsa::Version;

mod table;

pub use table::PROFILES;

/// The date the sources of every profile were read.
pub const READ_ON: &str = "2026-12-07";

/// One line's tracking API as its documentation describes it.
#[derive(Debug, Clone, Serialize)]
pub struct CarrierProfile {
    /// The name a `[carriers.SCAC]` table gives as `profile`, e.g. `maersk`.
    pub name: &'static str,
    /// The line (and the brands it serves).
    pub line: &'static str,
    /// The SCACs this profile serves (checked against the reference carrier data).
    pub scacs: &'static [&'static str],
    /// The developer portal, when one was found.
    pub portal: Option<&'static str>,
    /// The base URL boxtrack calls (the part before `/v2/events` or `/v3/events`), when
    /// confirmed; `None` asks the operator for `url`.
    pub base_url: Option<&'static str>,
    /// What the API speaks.
    pub format: Format,
    /// How it authenticates.
    pub auth: ProfileAuth,
    /// The identifiers the API takes.
    pub identifiers: &'static str,
    /// How answers are paged.
    pub paging: &'static str,
    /// Rate limits and quotas.
    pub rate_limit: &'static str,
    /// What it does not send or do, and its documented quirks.
    pub gaps: &'static [&'static str],
    /// How an operator gets credentials.
    pub credentials_howto: &'static str,
    /// Where each fact came from.
    pub sources: &'static [Source],
    /// How far the facts above are confirmed.
    pub status: Status,
}

/// A page or file a profile was built from.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct Source {
    /// Its address.
    pub url: &'static str,
    /// The day it was read (through the project's search tool, a stored copy).
    pub read: &'static str,
    /// `true` when the line itself published it (its portal, site or repository); `false`
    /// for another party's reading of the line's documentation.
    pub carrier_published: bool,
    /// What was taken from it.
    pub says: &'static str,
}

/// What a line's tracking API speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Format {
    /// DCSA Track & Trace, in this version (boxtrack's carrier client reads it).
    Dcsa {
        /// The version.
        version: Version,
    },
    /// The line's own format, which boxtrack reads with its adapter (`name`, the table's
    /// `format`).
    Adapter {
        /// The adapter (`cosco_cop`).
        name: &'static str,
        /// What the documentation shows of the format.
        what: &'static str,
    },
    /// The line's own format, which boxtrack has no adapter for yet.
    Own {
        /// What the documentation shows of it.
        what: &'static str,
    },
    /// Not confirmed by the sources found.
    NotConfirmed {
        /// What is known and what is missing.
        why: &'static str,
    },
}

impl Format {
    /// The DCSA version, when the format is DCSA.
    pub fn dcsa(self) -> Option<Version> {
        match self {
            Format::Dcsa { version } => Some(version),
            _ => None,
        }
    }

    /// A short word for lists: `DCSA 2.2`, `own format`, `not confirmed`.
    pub fn label(self) -> String {
        match self {
            Format::Dcsa { version } => format!("DCSA {version}"),
            Format::Adapter { name, .. } => format!("own format ({name})"),
            Format::Own { .. } => "own format".into(),
            Format::NotConfirmed { .. } => "not confirmed".into(),
        }
    }
}

/// A credential header: its name on the wire and the key of the `[carriers.SCAC]` table
/// that holds its value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct HeaderCredential {
    /// The header, e.g. `X-IBM-Client-Id`.
    pub header: &'static str,
    /// The table key, e.g. `client_id`.
    pub credential: &'static str,
}

/// How a line authenticates, in the schemes `crate::auth` supports, with the names of the
/// credentials the operator supplies.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ProfileAuth {
    /// OAuth 2.0 client credentials (`client_id`, `client_secret`), the token from
    /// `token_url`, with optional fixed headers taken from the credentials.
    #[serde(rename = "oauth2_client_credentials")]
    OAuth2 {
        /// The token endpoint.
        token_url: &'static str,
        /// Where the client id and secret go.
        client_auth: ClientAuth,
        /// Headers sent besides the token.
        headers: &'static [HeaderCredential],
    },
    /// Fixed headers on every request.
    Headers {
        /// The headers.
        headers: &'static [HeaderCredential],
    },
    /// A key in the query string.
    Query {
        /// The parameter.
        param: &'static str,
        /// The table key holding the value.
        credential: &'static str,
    },
    /// COSCO's COP signature of every request (`api_key`, `secret_key`).
    CoscoHmac,
    /// Documented, but not a scheme boxtrack can compute (e.g. a signature per request).
    Unsupported {
        /// What the line asks for.
        what: &'static str,
    },
    /// Not confirmed by the sources found.
    NotConfirmed {
        /// What is known.
        why: &'static str,
    },
}

impl ProfileAuth {
    /// The keys of the `[carriers.SCAC]` table the operator fills in, in order, once each.
    pub fn credentials(&self) -> Vec<&'static str> {
        let mut out: Vec<&'static str> = Vec::new();
        let mut add = |k: &'static str| {
            if !out.contains(&k) {
                out.push(k);
            }
        };
        match self {
            ProfileAuth::OAuth2 { headers, .. } => {
                add("client_id");
                add("client_secret");
                headers.iter().for_each(|h| add(h.credential));
            }
            ProfileAuth::Headers { headers } => headers.iter().for_each(|h| add(h.credential)),
            ProfileAuth::Query { credential, .. } => add(credential),
            ProfileAuth::CoscoHmac => {
                add("api_key");
                add("secret_key");
            }
            ProfileAuth::Unsupported { .. } | ProfileAuth::NotConfirmed { .. } => {}
        }
        out
    }

    /// The scheme's name as in `[carriers.SCAC.auth]`, or `unsupported` / `not confirmed`.
    pub fn scheme(&self) -> &'static str {
        match self {
            ProfileAuth::OAuth2 { .. } => "oauth2_client_credentials",
            ProfileAuth::Headers { .. } => "headers",
            ProfileAuth::Query { .. } => "query",
            ProfileAuth::CoscoHmac => "cosco_hmac",
            ProfileAuth::Unsupported { .. } => "unsupported",
            ProfileAuth::NotConfirmed { .. } => "not confirmed",
        }
    }

    /// The `[carriers.SCAC.auth]` table this scheme makes with the operator's credentials;
    /// a missing credential is an error naming its key.
    fn config(
        &self,
        profile: &str,
        given: &BTreeMap<String, SecretSource>,
        host_url: Option<&str>,
    ) -> Result<AuthConfig, ConfigError> {
        let take = |key: &'static str| {
            given.get(key).cloned().ok_or_else(|| ConfigError {
                field: key.to_string(),
                reason: format!(
                    "is missing: profile {profile} authenticates with {} and needs {}",
                    self.scheme(),
                    self.credentials().join(", ")
                ),
            })
        };
        let headers = |list: &[HeaderCredential]| -> Result<_, ConfigError> {
            list.iter()
                .map(|h| Ok((h.header.to_string(), take(h.credential)?)))
                .collect::<Result<BTreeMap<_, _>, ConfigError>>()
        };
        match self {
            ProfileAuth::OAuth2 {
                token_url,
                client_auth,
                headers: extra,
            } => Ok(AuthConfig::OAuth2ClientCredentials {
                token_url: host_url.map_or_else(|| token_url.to_string(), |h| rebase(token_url, h)),
                client_id: take("client_id")?,
                client_secret: take("client_secret")?,
                scope: None,
                client_auth: *client_auth,
                headers: headers(extra)?,
            }),
            ProfileAuth::Headers { headers: list } => Ok(AuthConfig::Headers {
                headers: headers(list)?,
            }),
            ProfileAuth::Query { param, credential } => Ok(AuthConfig::Query {
                param: param.to_string(),
                value: take(credential)?,
            }),
            ProfileAuth::CoscoHmac => Ok(AuthConfig::CoscoHmac {
                api_key: take("api_key")?,
                secret_key: take("secret_key")?,
            }),
            ProfileAuth::Unsupported { what } => Err(ConfigError {
                field: "auth".into(),
                reason: format!(
                    "profile {profile} authenticates with {what}, which boxtrack cannot do yet"
                ),
            }),
            ProfileAuth::NotConfirmed { why } => Err(ConfigError {
                field: "auth".into(),
                reason: format!(
                    "is missing: profile {profile} has no confirmed authentication ({why}); \
                     write a [carriers.SCAC.auth] table from the carrier's documentation"
                ),
            }),
        }
    }

    /// One line for lists: the scheme, where the token comes from, the headers.
    pub fn describe(&self) -> String {
        let headers = |list: &[HeaderCredential]| {
            list.iter()
                .map(|h| format!("{} = {}", h.header, h.credential))
                .collect::<Vec<_>>()
                .join(", ")
        };
        match self {
            ProfileAuth::OAuth2 {
                token_url,
                headers: [],
                ..
            } => format!("OAuth2 client credentials, token from {token_url}"),
            ProfileAuth::OAuth2 {
                token_url,
                headers: h,
                ..
            } => format!(
                "OAuth2 client credentials, token from {token_url}; headers {}",
                headers(h)
            ),
            ProfileAuth::Headers { headers: h } => format!("headers {}", headers(h)),
            ProfileAuth::Query { param, credential } => {
                format!("query parameter {param} = {credential}")
            }
            ProfileAuth::CoscoHmac => {
                "COP's HMAC-SHA1 signature of every request from api_key and secret_key".into()
            }
            ProfileAuth::Unsupported { what } => format!("unsupported: {what}"),
            ProfileAuth::NotConfirmed { why } => format!("not confirmed: {why}"),
        }
    }
}

/// How far a profile's facts are confirmed (serialized as its words, e.g. `partly confirmed`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    /// What an operator needs to connect (base URL, authentication, format) comes from the
    /// line's own publication.
    Documented,
    /// Some facts come from the line's own publication, others only from another party's
    /// reading of it (said in the sources).
    PartlyConfirmed,
    /// The essentials could not be confirmed.
    NotConfirmed {
        /// What is missing.
        why: &'static str,
    },
}

impl Serialize for Status {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl fmt::Display for Status {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Status::Documented => f.write_str("documented"),
            Status::PartlyConfirmed => f.write_str("partly confirmed"),
            Status::NotConfirmed { why } => write!(f, "not confirmed: {why}"),
        }
    }
}

impl CarrierProfile {
    /// What an operator must add to the profile to connect: nothing but the credentials,
    /// also a `url`, also an `auth` table, or it cannot be connected yet.
    pub fn connect(&self) -> &'static str {
        if matches!(self.format, Format::Own { .. })
            || matches!(self.auth, ProfileAuth::Unsupported { .. })
        {
            "not yet: needs an adapter boxtrack does not have"
        } else if self.base_url.is_none() && matches!(self.auth, ProfileAuth::NotConfirmed { .. }) {
            "credentials, url and an auth table from the carrier"
        } else if self.base_url.is_none() {
            "credentials and the url from the carrier's portal"
        } else if matches!(self.auth, ProfileAuth::NotConfirmed { .. }) {
            "an auth table from the carrier"
        } else {
            "credentials only"
        }
    }
}

/// The profile of this name.
pub fn profile(name: &str) -> Option<&'static CarrierProfile> {
    PROFILES.iter().find(|p| p.name == name.trim())
}

/// The profile that serves this SCAC.
pub fn for_scac(scac: &str) -> Option<&'static CarrierProfile> {
    let scac = scac.trim().to_ascii_uppercase();
    PROFILES.iter().find(|p| p.scacs.contains(&scac.as_str()))
}

fn names() -> String {
    PROFILES
        .iter()
        .map(|p| p.name)
        .collect::<Vec<_>>()
        .join(", ")
}

/// One `[carriers.SCAC]` table as written: the keys of an [`EndpointConfig`], an optional
/// `profile`, and (with a profile) the credentials it names, e.g. `client_id`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CarrierConfig {
    /// The profile, e.g. `maersk`.
    pub profile: Option<String>,
    /// Base URL (required without a profile, or when the profile has none).
    pub url: Option<String>,
    /// The older one-header form's header.
    pub auth_header: Option<String>,
    /// Its value.
    pub auth_value: Option<SecretSource>,
    /// An explicit auth table (replaces the profile's).
    pub auth: Option<AuthConfig>,
    /// An explicit DCSA version (beats the profile's).
    pub dcsa_version: Option<String>,
    /// What the API speaks (`dcsa`, `cosco_cop`; a profile with an adapter sets it).
    pub format: Option<String>,
    /// With a profile: the address that stands for the line's hosts in every address the
    /// profile names (base URL, token endpoint), keeping their paths.
    pub host_url: Option<String>,
    /// The profile's credentials by key (`client_id`, `client_secret`, `api_key`, …).
    pub credentials: BTreeMap<String, SecretSource>,
}

const KEYS: &str = "profile, url, dcsa_version, format, auth, auth_header, auth_value and, with a \
                    profile, host_url and its credentials";

/// `url` with its scheme, host and port replaced by `host_url` (its path kept, after
/// `host_url`'s own path): `https://api.maersk.com/oauth2/access_token` on
/// `http://127.0.0.1:8090/sim/v1/lines/maersk` is
/// `http://127.0.0.1:8090/sim/v1/lines/maersk/oauth2/access_token`.
pub fn rebase(url: &str, host_url: &str) -> String {
    let path = reqwest::Url::parse(url)
        .map(|u| {
            let mut p = u.path().trim_end_matches('/').to_string();
            if let Some(q) = u.query() {
                p.push('?');
                p.push_str(q);
            }
            p
        })
        .unwrap_or_default();
    format!("{}{path}", host_url.trim().trim_end_matches('/'))
}

impl<'de> Deserialize<'de> for CarrierConfig {
    fn deserialize<D: de::Deserializer<'de>>(d: D) -> Result<CarrierConfig, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = CarrierConfig;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, "a carrier table ({KEYS})")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<CarrierConfig, A::Error> {
                let mut c = CarrierConfig::default();
                while let Some(key) = map.next_key::<String>()? {
                    match key.as_str() {
                        "profile" => c.profile = Some(map.next_value()?),
                        "url" => c.url = Some(map.next_value()?),
                        "auth_header" => c.auth_header = Some(map.next_value()?),
                        "auth_value" => c.auth_value = Some(map.next_value()?),
                        "auth" => c.auth = Some(map.next_value()?),
                        "dcsa_version" => c.dcsa_version = Some(map.next_value()?),
                        "format" => c.format = Some(map.next_value()?),
                        "host_url" => c.host_url = Some(map.next_value()?),
                        _ => {
                            let value: SecretSource = map.next_value()?;
                            c.credentials.insert(key, value);
                        }
                    }
                }
                if c.profile.is_none()
                    && let Some(key) = c.credentials.keys().next()
                {
                    return Err(de::Error::custom(format!(
                        "unknown key {key:?}; a carrier table takes {KEYS}"
                    )));
                }
                Ok(c)
            }
        }
        d.deserialize_map(V)
    }
}

fn bad(field: &str, reason: String) -> ConfigError {
    ConfigError {
        field: field.to_string(),
        reason,
    }
}

impl CarrierConfig {
    /// The table as boxtrack's carrier client takes it: without a profile, as written; with
    /// one, the profile's base URL, DCSA version and auth table made from the credentials,
    /// each beaten by a key written in the table. An unknown profile, a profile that cannot
    /// be connected, a missing `url` or credential, or a credential the profile does not take
    /// is an error naming the key.
    pub fn expand(&self) -> Result<EndpointConfig, ConfigError> {
        let Some(name) = self.profile.as_deref() else {
            return self.as_written();
        };
        let p = profile(name).ok_or_else(|| {
            bad(
                "profile",
                format!("{name:?} is not a profile; the profiles are {}", names()),
            )
        })?;
        if let Format::Own { what } = p.format {
            return Err(bad(
                "profile",
                format!(
                    "{} speaks its own format, not DCSA Track & Trace ({what}); boxtrack has no adapter for it yet",
                    p.line
                ),
            ));
        }
        let format = match p.format {
            Format::Adapter { name, .. } => Some(name.to_string()),
            _ => self.format.clone(),
        };
        Ok(EndpointConfig {
            url: self.url_of(p)?,
            auth_header: self.auth_header.clone(),
            auth_value: self.auth_value.clone(),
            auth: self.auth_of(p)?,
            dcsa_version: self
                .dcsa_version
                .clone()
                .or_else(|| p.format.dcsa().map(|v| v.to_string())),
            format,
        })
    }

    /// A table without a profile: as written, once it names no profile's keys and a url.
    fn as_written(&self) -> Result<EndpointConfig, ConfigError> {
        if self.host_url.is_some() {
            return Err(bad(
                "host_url",
                "stands for a profile's hosts and needs a profile (or write url and auth as they are)".into(),
            ));
        }
        if let Some(key) = self.credentials.keys().next() {
            return Err(bad(
                key,
                format!("is not a key of a carrier table ({KEYS})"),
            ));
        }
        let url = self.url.clone().ok_or_else(|| {
            bad(
                "url",
                "is missing: give the carrier's base URL, or a profile (boxtrack carriers profiles)"
                    .into(),
            )
        })?;
        Ok(EndpointConfig {
            url,
            auth_header: self.auth_header.clone(),
            auth_value: self.auth_value.clone(),
            auth: self.auth.clone(),
            dcsa_version: self.dcsa_version.clone(),
            format: self.format.clone(),
        })
    }

    /// The base URL: written, else the profile's (at `host_url` when given).
    fn url_of(&self, p: &CarrierProfile) -> Result<String, ConfigError> {
        match (&self.url, p.base_url) {
            (Some(u), _) => Ok(u.clone()),
            (None, Some(u)) => Ok(self
                .host_url
                .as_deref()
                .map_or_else(|| u.to_string(), |h| rebase(u, h))),
            (None, None) => Err(bad(
                "url",
                format!(
                    "is missing: profile {} has no confirmed base URL; give the one the carrier's portal shows your application{}",
                    p.name,
                    p.portal.map(|u| format!(" ({u})")).unwrap_or_default()
                ),
            )),
        }
    }

    /// The auth table: written (then no profile credential may be), else the profile's made
    /// from the credentials (then only its credentials may be).
    fn auth_of(&self, p: &CarrierProfile) -> Result<Option<AuthConfig>, ConfigError> {
        let name = p.name;
        let explicit =
            self.auth.is_some() || self.auth_header.is_some() || self.auth_value.is_some();
        if explicit {
            if let Some(key) = self.credentials.keys().next() {
                return Err(bad(
                    key,
                    format!(
                        "is a credential of profile {name}'s authentication, which the auth written here replaces; keep one of them"
                    ),
                ));
            }
            return Ok(self.auth.clone());
        }
        let wanted = p.auth.credentials();
        if let Some(key) = self
            .credentials
            .keys()
            .find(|k| !wanted.contains(&k.as_str()))
        {
            let takes = if wanted.is_empty() {
                "no credentials".to_string()
            } else {
                wanted.join(", ")
            };
            return Err(bad(
                key,
                format!("is not a key of profile {name} (it takes {takes}, and {KEYS})"),
            ));
        }
        p.auth
            .config(name, &self.credentials, self.host_url.as_deref())
            .map(Some)
    }
}

#[cfg(test)]
mod tests;
