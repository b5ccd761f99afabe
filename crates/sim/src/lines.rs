//! Carriers that speak their line's profile (`boxtrack sim --carrier-profiles`): the lines
//! whose profile (`boxtrack_sources::profiles`) documents how they behave are served under
//! `/sim/v1/lines/{profile}` the way the profile says — its authentication (Maersk's OAuth 2.0
//! token with the client id in the form and a `Consumer-Key` header, Hapag-Lloyd's
//! `X-IBM-Client-Id` / `X-IBM-Client-Secret`, CMA CGM's `KeyId`, COSCO's COP signature of
//! every request, [`cop`]), at the paths its addresses
//! name (a base URL's path, the token endpoint's), its paging, its error answers (401, 403,
//! 429 with its `Retry-After`) and the quirks the profile records (what it does not send).
//! Each serves the shipments of every SCAC of its profile; those carriers no longer answer at
//! `/sim/v1/carriers/{scac}` and push nothing (none of the three pushes DCSA events).
//!
//! The test credentials are fixed: each credential `KEY` of the profile is `sim-{profile}-KEY`
//! ([`Line::credential`]); an identity (`client_id`, `api_key`) of `sim-{profile}-unsubscribed`
//! is known but not subscribed (403), one of `sim-{profile}-expired` has expired (401).
//!
//! The lines whose profile does not confirm how they authenticate or page (ONE, Evergreen, MSC,
//! ZIM, Yang Ming) are spoken too, so that every DCSA profile runs end to end: DCSA 2.2 (or the
//! version the profile confirms), DCSA's cursor paging, 20 events a page, DCSA's errors, and an
//! API key in `X-Sim-Api-Key` ([`UNCONFIRMED_AUTH_HEADER`]) that the printed table names in its
//! `[carriers.SCAC.auth]` table, as an operator writes the one the line's portal gives. All
//! of that is the simulator's choice, not the lines' behaviour.
//!
//! What a profile does not record is the simulator's choice, said here: the page size of
//! Maersk and CMA CGM (small, so paging is used), Hapag-Lloyd's error answers in the shape of
//! IBM API Connect (whose `X-IBM-Client-Id` headers its gateway uses; not confirmed), the
//! `Retry-After` of Maersk (1 s) and Hapag-Lloyd (60 s; its plans count calls a minute).

use boxtrack_sources::dcsa::{Event, Version};
use boxtrack_sources::profiles::{self, CarrierProfile, ProfileAuth};

pub(crate) mod cop;
pub(crate) mod serve;

/// How a simulated line pages its answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Paging {
    /// DCSA 2.2: `limit`, an opaque `cursor` and a `Next-Page` header naming it (CMA CGM,
    /// per another party's reading).
    Cursor,
    /// Whole-URL page headers `First-Page`, `Previous-Page` (where DCSA says `Prev-Page`),
    /// `Next-Page` and `Last-Page` (Maersk, as another party saw them).
    Links,
    /// `limit` only (default 100), no page headers (Hapag-Lloyd's specification).
    LimitOnly,
}

/// The shape of a simulated line's error answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorShape {
    /// DCSA's error object (`statusCode`, `errors: [{reason, message}]`).
    Dcsa,
    /// IBM API Connect's (`httpCode`, `httpMessage`, `moreInformation`).
    ApiConnect,
    /// COP's envelope (`code`, `message`; [`cop`]).
    Cop,
}

/// A line the simulator speaks as its profile says.
#[derive(Debug, Clone, Copy)]
pub struct Line {
    /// Its profile.
    pub profile: &'static CarrierProfile,
    /// How it pages.
    pub paging: Paging,
    /// The most events one page holds, whatever `limit` asks.
    pub page_max: usize,
    /// Its error answers.
    pub errors: ErrorShape,
    /// The `Retry-After` of its 429s, seconds.
    pub retry_after_secs: u64,
    /// What it sends of the world's events (the profile's gaps).
    keeps: fn(&Event) -> bool,
    /// Whether it leaves `delayReasonCode` out.
    strips_delay_reason: bool,
}

fn keeps_all(_: &Event) -> bool {
    true
}

/// Hapag-Lloyd: shipment events only `ISSU` and `CONF`, of `BKG` and `TRD` documents.
fn hapag_lloyd_keeps(e: &Event) -> bool {
    e.event_type != "SHIPMENT"
        || (matches!(e.shipment_event_type_code.as_deref(), Some("ISSU" | "CONF"))
            && matches!(e.document_type_code.as_deref(), Some("BKG" | "TRD")))
}

/// CMA CGM's key tier: no shipment events, no rail.
fn cma_cgm_keeps(e: &Event) -> bool {
    e.event_type != "SHIPMENT"
        && e.transport_call
            .as_ref()
            .is_none_or(|t| t.mode_of_transport != "RAIL")
}

/// The profiles the simulator speaks.
pub const SPOKEN: &[&str] = &[
    "maersk",
    "hapag-lloyd",
    "cma-cgm",
    "cosco",
    "one",
    "evergreen",
    "msc",
    "zim",
    "yang-ming",
];

/// The header the simulator asks of a line whose profile does not confirm how it
/// authenticates (its choice, written in the `[carriers.SCAC.auth]` table it prints).
pub const UNCONFIRMED_AUTH_HEADER: &str = "X-Sim-Api-Key";

/// The line of this profile, when the simulator speaks it.
pub fn line(name: &str) -> Option<Line> {
    let profile = profiles::profile(name)?;
    let line = |paging, page_max, errors, retry_after_secs| Line {
        profile,
        paging,
        page_max,
        errors,
        retry_after_secs,
        keeps: keeps_all,
        strips_delay_reason: false,
    };
    Some(match profile.name {
        "maersk" => line(Paging::Links, 10, ErrorShape::Dcsa, 1),
        "hapag-lloyd" => Line {
            keeps: hapag_lloyd_keeps,
            strips_delay_reason: true,
            ..line(Paging::LimitOnly, 1000, ErrorShape::ApiConnect, 60)
        },
        "cma-cgm" => Line {
            keeps: cma_cgm_keeps,
            ..line(Paging::Cursor, 10, ErrorShape::Dcsa, 3600)
        },
        // COP answers at once, unpaged; its quota is a day's: the simulator's Retry-After is
        // an hour
        "cosco" => line(Paging::LimitOnly, usize::MAX, ErrorShape::Cop, 3600),
        // the profiles that do not confirm authentication or paging: DCSA 2.2 (or the
        // version the profile confirms) with DCSA's cursor, an API key in
        // [`UNCONFIRMED_AUTH_HEADER`], DCSA's errors; all the simulator's choices
        "one" | "evergreen" | "msc" | "zim" | "yang-ming" => {
            line(Paging::Cursor, 20, ErrorShape::Dcsa, 60)
        }
        _ => return None,
    })
}

/// Reads `--carrier-profiles`: `all` (every line the simulator speaks) or names separated by
/// commas.
pub fn parse(list: &str) -> Result<Vec<String>, String> {
    let names: Vec<&str> = list
        .split(',')
        .map(str::trim)
        .filter(|n| !n.is_empty())
        .collect();
    if names == ["all"] {
        return Ok(SPOKEN.iter().map(|s| s.to_string()).collect());
    }
    names
        .into_iter()
        .map(|n| match line(n) {
            Some(_) => Ok(n.to_string()),
            None if profiles::profile(n).is_some() => Err(format!(
                "the profile {n} speaks its own format, which boxtrack has no adapter for, so the simulator does not speak it; it speaks {} (or all)",
                SPOKEN.join(", ")
            )),
            None => Err(format!(
                "{n:?} is not a profile the simulator speaks ({}, or all)",
                SPOKEN.join(", ")
            )),
        })
        .collect()
}

fn path_of(url: &str) -> String {
    reqwest::Url::parse(url)
        .map(|u| u.path().trim_end_matches('/').to_string())
        .unwrap_or_default()
}

impl Line {
    /// The profile's name.
    pub fn name(&self) -> &'static str {
        self.profile.name
    }

    /// Where the line is served: `/sim/v1/lines/{profile}`, standing for its hosts.
    pub fn prefix(&self) -> String {
        format!("/sim/v1/lines/{}", self.name())
    }

    /// The DCSA version it speaks (the profile's, else 2.2).
    pub fn version(&self) -> Version {
        self.profile.format.dcsa().unwrap_or(Version::V2_2)
    }

    /// Its base path after the prefix (the path of the profile's base URL, else none).
    pub fn base_path(&self) -> String {
        self.profile.base_url.map(path_of).unwrap_or_default()
    }

    /// Whether it speaks COSCO's COP rather than DCSA.
    pub fn speaks_cop(&self) -> bool {
        matches!(
            self.profile.format,
            profiles::Format::Adapter {
                name: "cosco_cop",
                ..
            }
        )
    }

    /// Its events path after the prefix (COP: its tracking path, before the number).
    pub fn events_path(&self) -> String {
        if self.speaks_cop() {
            return format!(
                "{}{}",
                self.base_path(),
                boxtrack_sources::cosco::TRACKING_PATH
            );
        }
        format!("{}{}", self.base_path(), self.version().events_path())
    }

    /// Its token endpoint's path after the prefix, for OAuth 2.0.
    pub fn token_path(&self) -> Option<String> {
        match self.profile.auth {
            ProfileAuth::OAuth2 { token_url, .. } => Some(path_of(token_url)),
            _ => None,
        }
    }

    /// The test value of one of its credentials.
    pub fn credential(&self, key: &str) -> String {
        format!("sim-{}-{key}", self.name())
    }

    /// Whether its profile does not confirm how it authenticates (the simulator then asks an
    /// API key in [`UNCONFIRMED_AUTH_HEADER`]).
    pub fn auth_unconfirmed(&self) -> bool {
        matches!(self.profile.auth, ProfileAuth::NotConfirmed { .. })
    }

    /// The identity credential (`client_id`, `api_key`): the one an unsubscribed or expired
    /// application is told apart by.
    pub fn identity(&self) -> &'static str {
        if self.auth_unconfirmed() {
            return "api_key";
        }
        self.profile
            .auth
            .credentials()
            .first()
            .copied()
            .unwrap_or("")
    }

    /// The identity of an application known to the line but not subscribed to Track &
    /// Trace.
    pub fn unsubscribed(&self) -> String {
        self.credential("unsubscribed")
    }

    /// The identity of an application whose credentials expired.
    pub fn expired(&self) -> String {
        self.credential("expired")
    }

    /// Whether it serves this carrier.
    pub fn serves(&self, scac: &str) -> bool {
        self.profile.scacs.contains(&scac)
    }

    /// What it sends of one of the world's events (`None`: left out).
    pub(crate) fn shown(&self, e: &Event) -> Option<Event> {
        (self.keeps)(e).then(|| {
            let mut e = e.clone();
            if self.strips_delay_reason {
                e.delay_reason_code = None;
            }
            e
        })
    }

    /// The `[carriers.SCAC]` table that makes boxtrack read `scac` from this line of the
    /// simulator at `base`, with its test credentials.
    pub fn table(&self, scac: &str, base: &str) -> String {
        let host = format!("{}{}", base.trim_end_matches('/'), self.prefix());
        let mut t = format!(
            "[carriers.{scac}]\nprofile = \"{}\"\nhost_url = \"{host}\"\n",
            self.name()
        );
        if self.profile.base_url.is_none() {
            t.push_str(&format!("url = \"{host}\"\n"));
        }
        for key in self.profile.auth.credentials() {
            t.push_str(&format!("{key} = \"{}\"\n", self.credential(key)));
        }
        if self.auth_unconfirmed() {
            t.push_str(&format!(
                "[carriers.{scac}.auth]\ntype = \"headers\"\nheaders = {{ \"{UNCONFIRMED_AUTH_HEADER}\" = \"{}\" }}\n",
                self.credential("api_key")
            ));
        }
        t
    }
}

#[cfg(test)]
mod serve_tests;

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;

    #[test]
    fn each_spoken_line_reads_its_profile() {
        for name in SPOKEN {
            let l = line(name).unwrap();
            assert_eq!(l.version(), Version::V2_2);
            // every table it prints is one boxtrack expands without a word more
            let table = l.table(l.profile.scacs[0], "http://127.0.0.1:9");
            let parsed: toml::Table = toml::from_str(&table).unwrap();
            let carrier: profiles::CarrierConfig = parsed["carriers"][l.profile.scacs[0]]
                .clone()
                .try_into()
                .unwrap();
            let ep = carrier.expand().unwrap().resolve(&|_| None).unwrap();
            assert!(
                ep.url
                    .starts_with(&format!("http://127.0.0.1:9{}", l.prefix()))
            );
            let asked = if l.speaks_cop() {
                assert_eq!(ep.format, boxtrack_sources::auth::ApiFormat::CoscoCop);
                boxtrack_sources::cosco::TRACKING_PATH
            } else {
                l.version().events_path()
            };
            assert!(
                format!("{}{asked}", ep.url).ends_with(&l.events_path()),
                "{name}: {}",
                ep.url
            );
        }
        let cosco = line("cosco").unwrap();
        assert_eq!(cosco.events_path(), "/service/info/tracking");
        assert_eq!(cosco.identity(), "api_key");
        let hl = line("hapag-lloyd").unwrap();
        assert_eq!(hl.events_path(), "/hlag/external/v2/events");
        assert_eq!(hl.identity(), "client_id");
        let maersk = line("maersk").unwrap();
        assert_eq!(maersk.token_path().as_deref(), Some("/oauth2/access_token"));
        assert_eq!(line("cma-cgm").unwrap().identity(), "api_key");
        assert!(line("hmm").is_none());
        let msc = line("msc").unwrap();
        assert!(msc.auth_unconfirmed());
        assert_eq!(msc.identity(), "api_key");
        assert_eq!(parse("all").unwrap().len(), SPOKEN.len());
        assert_eq!(parse("maersk, cma-cgm").unwrap(), ["maersk", "cma-cgm"]);
        assert!(parse("hmm").unwrap_err().contains("no adapter"));
        assert!(parse("maersk,nope").unwrap_err().contains("\"nope\""));
    }
}
