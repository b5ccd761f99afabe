//! `boxtrack carriers`: what boxtrack knows of the lines' own tracking APIs. `profiles` lists
//! every carrier profile (`boxtrack_sources::profiles`) with what connecting it takes.

use boxtrack_sources::profiles::{CarrierProfile, PROFILES, READ_ON};
use clap::Subcommand;

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
}

/// Runs a `carriers` subcommand (no database, no settings).
pub fn run(cmd: &CarriersCommand) -> anyhow::Result<()> {
    match cmd {
        CarriersCommand::Profiles { json: true } => {
            println!("{}", serde_json::to_string_pretty(PROFILES)?);
        }
        CarriersCommand::Profiles { json: false } => print!("{}", table(PROFILES)),
    }
    Ok(())
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
}
