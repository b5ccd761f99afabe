//! The flags of the client commands: how to reach the server, and what each command asks.

use std::path::PathBuf;

use clap::Args;

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
    pub(super) number: Option<String>,
    /// The shipping line's SCAC (e.g. MAEU). Without it the server detects the line from the
    /// number; TEST for the sandbox (TEST-SCN-* numbers take it by themselves).
    #[arg(long, value_name = "SCAC")]
    pub(super) scac: Option<String>,
    /// What the number is: container, bill_of_lading or booking_number. Without it: a valid
    /// ISO 6346 number is a container, anything else a bill of lading.
    #[arg(long = "type", value_name = "TYPE")]
    pub(super) request_type: Option<String>,
    /// Track every number of a CSV file instead: one per line, columns number[,scac[,type]]
    /// (a header line naming them is skipped; blank lines and lines starting with # too).
    #[arg(long, value_name = "FILE", conflicts_with = "number")]
    pub(super) file: Option<PathBuf>,
    #[command(flatten)]
    pub(super) conn: Conn,
}

/// The filters and paging `containers` and `shipments` share.
#[derive(Args, Debug)]
pub struct ListFlags {
    /// A container, bill of lading, booking or reference number to look for (the API's `q`).
    #[arg(long, value_name = "TEXT")]
    pub(super) q: Option<String>,
    /// The shipping line's SCAC.
    #[arg(long, value_name = "SCAC")]
    pub(super) carrier: Option<String>,
    /// The port of discharge (UN/LOCODE, e.g. USLAX).
    #[arg(long, value_name = "LOCODE")]
    pub(super) port: Option<String>,
    /// Only rows changed since this time (ISO 8601).
    #[arg(long, value_name = "TIME")]
    pub(super) updated_since: Option<String>,
    /// At most this many rows (pages are followed until then).
    #[arg(long, default_value_t = 100, value_name = "N")]
    pub(super) limit: usize,
    #[command(flatten)]
    pub(super) conn: Conn,
}

impl ListFlags {
    /// The shared query parameters, `extra` before the page size.
    pub(super) fn query(&self, extra: &[(&str, Option<String>)]) -> String {
        let mut pairs = vec![
            ("q", self.q.clone()),
            ("filter[carrier]", self.carrier.clone()),
            ("filter[port]", self.port.clone()),
            ("filter[updated_at][start]", self.updated_since.clone()),
        ];
        pairs.extend(extra.iter().cloned());
        pairs.push(("page[size]", Some(self.limit.clamp(1, 100).to_string())));
        super::query(&pairs)
    }
}

/// Flags of `containers`.
#[derive(Args, Debug)]
pub struct ContainersArgs {
    /// Where the container is: on_ship, available, not_available, picked_up, empty_returned, ...
    #[arg(long, value_name = "STATUS")]
    pub(super) status: Option<String>,
    /// Only containers ready (true) or not ready (false) for pickup.
    #[arg(long, value_name = "BOOL")]
    pub(super) ready: Option<bool>,
    /// Only containers whose last free day is on or before this day (YYYY-MM-DD or ISO 8601).
    #[arg(long, value_name = "DATE")]
    pub(super) lfd_before: Option<String>,
    /// Only containers whose last free day is on or after this day.
    #[arg(long, value_name = "DATE")]
    pub(super) lfd_after: Option<String>,
    /// Only containers whose tracking stopped (true) or goes on (false).
    #[arg(long, value_name = "BOOL")]
    pub(super) tracking_stopped: Option<bool>,
    #[command(flatten)]
    pub(super) list: ListFlags,
}

/// Flags of `shipments`.
#[derive(Args, Debug)]
pub struct ShipmentsArgs {
    /// tracking or tracking_stopped.
    #[arg(long, value_name = "STATUS")]
    pub(super) status: Option<String>,
    #[command(flatten)]
    pub(super) list: ListFlags,
}

/// Flags of `show`.
#[derive(Args, Debug)]
pub struct ShowArgs {
    /// A container number or a bill of lading / booking number.
    #[arg(value_name = "NUMBER")]
    pub(super) number: String,
    #[command(flatten)]
    pub(super) conn: Conn,
}

/// Flags of `watch`.
#[derive(Args, Debug)]
pub struct WatchArgs {
    /// The container number to follow.
    #[arg(value_name = "NUMBER")]
    pub(super) number: String,
    /// Stop when the container reaches one of these statuses (comma-separated, e.g.
    /// available,picked_up). Without it, follow until interrupted.
    #[arg(long, value_name = "STATUS,...")]
    pub(super) until: Option<String>,
    /// Seconds between two looks (at least 1).
    #[arg(long, default_value_t = 30, value_name = "SECONDS")]
    pub(super) interval: u64,
    /// Give up after this many seconds (exit 1).
    #[arg(long, value_name = "SECONDS")]
    pub(super) timeout: Option<u64>,
    #[command(flatten)]
    pub(super) conn: Conn,
}
