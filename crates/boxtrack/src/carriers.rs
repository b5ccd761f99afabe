//! `boxtrack carriers`: what boxtrack knows of the lines' own tracking APIs. `profiles` lists
//! every carrier profile (`boxtrack_sources::profiles`) with what connecting it takes; `check`
//! makes one request to a configured carrier and says what is wrong
//! (`boxtrack_sources::diagnosis`, as `GET /v2/sources` does).

use std::time::Duration;

use boxtrack_core::requests::RequestType;
use boxtrack_sources::profiles::{CarrierProfile, PROFILES, READ_ON};
use boxtrack_sources::upstream::{Check, UpstreamConfig, Upstreams};
use clap::{Args, Subcommand};

/// `carriers` subcommands.
#[derive(Subcommand, Debug)]
pub enum CarriersCommand {
    /// List every carrier profile and what connecting it takes.
    ///
    /// Each line's SCACs, what its API speaks (a DCSA Track & Trace version or its own
    /// format), how it authenticates and which credentials a `[carriers.SCAC]` table with
    /// `profile = "NAME"` must add, what else connecting takes (a `url` or an `auth` table
    /// where the documentation did not confirm them), and how far the profile is confirmed.
    /// Profiles are built from the lines' public documentation (each names its sources and
    /// the day they were read), not tried against the live services; docs/carriers.md has
    /// the details.
    Profiles {
        /// Print JSON (every field of every profile, with its sources) instead of a table.
        #[arg(long)]
        json: bool,
    },
    /// Make one request to a carrier with its configured credentials and say what is wrong.
    ///
    /// Reads the [carriers.SCAC] table of the configuration file as `serve` does (a profile
    /// expanded, credentials read from their variables and files; a carrier without a table
    /// is the simulator's with --sim-url), asks the carrier's DCSA events endpoint once, for
    /// --number or for a bill of lading no line knows, and says in plain words what
    /// happened, with a short code: ok (connected), number_unknown (404 or no events for
    /// the number), unreachable (DNS, connection, TLS or timeout), credentials_refused
    /// (401), credentials_expired, forbidden (403: a subscription missing), token_refused /
    /// token_unreachable / token_unusable (the token endpoint), token_rejected (the API
    /// refused a fresh token), rate_limited (429, with when to retry), unexpected_format
    /// (not JSON, not DCSA), wrong_address (a 404 not in DCSA's shape), request_refused
    /// (400), server_error (5xx). Exits 0 when connected, 1 otherwise. GET /v2/sources and
    /// the console's sources page say the same of each carrier `serve` calls;
    /// docs/carriers.md explains each code.
    Check(CheckArgs),
}

/// Flags of `carriers check`.
#[derive(Args, Debug)]
pub struct CheckArgs {
    /// The carrier's SCAC, as in its [carriers.SCAC] table.
    pub scac: String,
    /// A number to ask for (bill of lading, booking or container): its events are counted,
    /// and a number the line does not know is said.
    #[arg(long, value_name = "N")]
    pub number: Option<String>,
    /// What --number is; default container when it has a container number's shape, else
    /// bill_of_lading.
    #[arg(long = "type", value_name = "TYPE", requires = "number",
          value_parser = ["bill_of_lading", "booking_number", "container"])]
    pub kind: Option<String>,
    /// Seconds before the request counts as unanswered.
    #[arg(long, default_value_t = 20, value_name = "SECONDS",
          value_parser = clap::value_parser!(u64).range(1..=600))]
    pub timeout_secs: u64,
    /// Print JSON (the carrier, what was asked, the diagnosis) instead of words.
    #[arg(long)]
    pub json: bool,
}

/// Prints the profiles (no database, no settings).
pub fn profiles(json: bool) -> anyhow::Result<()> {
    if json {
        println!("{}", serde_json::to_string_pretty(PROFILES)?);
    } else {
        print!("{}", table(PROFILES));
    }
    Ok(())
}

/// `carriers check`: one request with the configured credentials, and what is wrong; an
/// error (exit 1) unless connected.
pub async fn check(mut cfg: UpstreamConfig, args: &CheckArgs) -> anyhow::Result<()> {
    let scac = args.scac.trim().to_ascii_uppercase();
    if !cfg.carriers.contains_key(&scac) && cfg.sim_url.is_none() {
        let hint = boxtrack_sources::profiles::for_scac(&scac)
            .map(|p| {
                format!(
                    "; profile = \"{}\" serves it (boxtrack carriers profiles says what it needs)",
                    p.name
                )
            })
            .unwrap_or_default();
        anyhow::bail!(
            "no [carriers.{scac}] table in the configuration file (and no sim_url){hint}"
        );
    }
    cfg.timeout = Duration::from_secs(args.timeout_secs);
    let number = args.number.as_deref().map(str::trim).map(|n| {
        let kind = args.kind.as_deref().and_then(RequestType::parse).unwrap_or(
            if boxtrack_core::ident::looks_like_container(n) {
                RequestType::Container
            } else {
                RequestType::BillOfLading
            },
        );
        (kind, n)
    });
    let c = Upstreams::new(cfg).check(&scac, number).await;
    if args.json {
        println!("{}", serde_json::to_string_pretty(&as_json(&scac, &c))?);
    } else {
        print!("{}", report(&scac, &c, boxtrack_core::time::now_us()));
    }
    if c.diagnosis.is_ok() {
        Ok(())
    } else {
        anyhow::bail!("{scac}: {}", c.diagnosis.code.as_str())
    }
}

fn as_json(scac: &str, c: &Check) -> serde_json::Value {
    serde_json::json!({
        "scac": scac,
        "url": c.url,
        "auth": c.scheme,
        "dcsa_version": c.dcsa_version,
        "asked": {"type": c.kind.as_str(), "number": c.number},
        "events": c.events,
        "diagnosis": c.diagnosis,
    })
}

/// What `carriers check` prints: the verdict, what was asked of which address, and the
/// sentence.
fn report(scac: &str, c: &Check, now_us: i64) -> String {
    let d = &c.diagnosis;
    let mut out = format!("{scac}: {}\n", d.code.as_str().replace('_', " "));
    out.push_str(&format!(
        "  asked {}{} (DCSA {}, auth {}) for {} {}\n",
        c.url.as_deref().unwrap_or("(no url)").trim_end_matches('/'),
        c.dcsa_version.events_path(),
        c.dcsa_version,
        c.scheme,
        c.kind.as_str().replace('_', " "),
        c.number
    ));
    out.push_str(&format!("  {}\n", d.says));
    if let Some(secs) = d.retry_after_secs {
        let at = now_us.saturating_add(i64::try_from(secs).unwrap_or(i64::MAX / 2) * 1_000_000);
        out.push_str(&format!(
            "  retry after {}\n",
            boxtrack_core::time::format_micros(at)
        ));
    }
    out
}

/// The profiles as a text table, one block per profile.
fn table(profiles: &[CarrierProfile]) -> String {
    let mut out = format!(
        "{:<12} {:<20} {:<14} {:<27} STATUS\n",
        "PROFILE", "SCACS", "FORMAT", "CREDENTIALS"
    );
    for p in profiles {
        let creds = p.auth.credentials().join(", ");
        out.push_str(&format!(
            "{:<12} {:<20} {:<14} {:<27} {}\n",
            p.name,
            p.scacs.join(" "),
            p.format.label(),
            if creds.is_empty() { "-" } else { &creds },
            p.status
        ));
        out.push_str(&format!("    {}; auth: {}\n", p.line, p.auth.describe()));
        out.push_str(&format!("    connect with: {}\n", p.connect()));
    }
    out.push_str(&format!(
        "\nSources read {READ_ON}, not tried against the live services: `boxtrack carriers profiles --json` lists them; docs/carriers.md explains each profile.\n"
    ));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_names_every_profile_and_its_credentials() {
        let text = table(PROFILES);
        for p in PROFILES {
            assert!(text.contains(p.name), "{}", p.name);
        }
        assert!(text.contains("client_id, client_secret"), "{text}");
        assert!(text.starts_with("PROFILE"), "{text}");
    }

    #[test]
    fn a_report_says_what_was_asked_and_when_to_retry() {
        use boxtrack_sources::diagnosis::{Code, Diagnosis};
        let c = Check {
            url: Some("https://api.example/tnt/".into()),
            scheme: "headers",
            dcsa_version: Default::default(),
            kind: RequestType::BillOfLading,
            number: "BL1".into(),
            events: 0,
            diagnosis: Diagnosis {
                code: Code::RateLimited,
                says: "Rate limited.".into(),
                retry_after_secs: Some(60),
            },
        };
        let text = report("HLCU", &c, 1_800_000_000_000_000);
        assert!(text.starts_with("HLCU: rate limited\n"), "{text}");
        assert!(
            text.contains("asked https://api.example/tnt/v2/events (DCSA 2.2, auth headers) for bill of lading BL1"),
            "{text}"
        );
        assert!(text.contains("retry after 2027-01-15T08:01:00Z"), "{text}");
        assert_eq!(as_json("HLCU", &c)["diagnosis"]["code"], "rate_limited");
    }
}
