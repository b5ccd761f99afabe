//! Every setting, declared once: its name (the file key, `BOXTRACK_<NAME>` in the environment,
//! `--name-with-dashes` as a flag), its default, which command takes it as a flag, and one line
//! of documentation. The file and environment layers ([`super::layers`]), the flags of each
//! command ([`super::flags`]), their `--help` and the settings table of `docs/operations.md`
//! ([`docs_table`], kept equal by a test) are all made from [`SETTINGS`]; what a value may be
//! is checked by [`super::resolve_with`].

/// Which command line takes a setting as a flag.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Flag {
    /// Every command (`--database-url`, `--log-format`, `--log-level`).
    Global,
    /// `serve`.
    Serve,
    /// `serve` and `demo` (the webhook delivery settings).
    Webhooks,
    /// The file and the environment only.
    None,
}

/// One setting.
#[derive(Debug, Clone, Copy)]
pub struct Spec {
    /// The file key.
    pub name: &'static str,
    /// The value when no layer gives one (`None`: unset, see [`Spec::unset`]).
    pub default: Option<&'static str>,
    /// What an unset value means, for the documentation (when `default` is `None`).
    pub unset: &'static str,
    /// Which command takes it as a flag.
    pub flag: Flag,
    /// The flag's value name in `--help` (empty: a switch that takes no value).
    pub value: &'static str,
    /// One line of documentation (Markdown: `--help` shows it as plain text).
    pub doc: &'static str,
}

const fn setting(
    name: &'static str,
    default: &'static str,
    flag: Flag,
    value: &'static str,
    doc: &'static str,
) -> Spec {
    Spec {
        name,
        default: Some(default),
        unset: "",
        flag,
        value,
        doc,
    }
}

const fn optional(
    name: &'static str,
    unset: &'static str,
    flag: Flag,
    value: &'static str,
    doc: &'static str,
) -> Spec {
    Spec {
        name,
        default: None,
        unset,
        flag,
        value,
        doc,
    }
}

/// Every setting, in the order the documentation lists them.
pub const SETTINGS: &[Spec] = &[
    setting(
        "listen",
        "127.0.0.1:8080",
        Flag::Serve,
        "ADDR",
        "address to listen on (plain HTTP)",
    ),
    setting(
        "role",
        "all",
        Flag::Serve,
        "ROLE",
        "`all`, `api` or `worker` (§5); `api` and `worker` need PostgreSQL",
    ),
    setting(
        "database_url",
        "sqlite://./data/boxtrack.db",
        Flag::Global,
        "URL",
        "`sqlite://PATH` (relative to the working directory) or `postgres://…` / `postgresql://…` (§4)",
    ),
    optional(
        "database_pool_size",
        "unset: 8 on SQLite (the writer is one more), 16 on PostgreSQL",
        Flag::Serve,
        "N",
        "1–1,000 database connections a `serve`, `demo` or `mcp` process keeps at most; on PostgreSQL, every process's pool together stays under the server's `max_connections`",
    ),
    setting(
        "database_acquire_timeout_secs",
        "10",
        Flag::Serve,
        "SECONDS",
        "1–600 s a request waits for a free database connection before it is answered 503 `database_unavailable`; once a request has found the database away, the rest are answered 503 at once until it is back",
    ),
    setting(
        "database_replica_urls",
        "",
        Flag::Serve,
        "URLS",
        "comma-separated `postgres://…` URLs of streaming read replicas of a PostgreSQL `database_url`: lists, searches and the console's tables are read there (§4, read replicas)",
    ),
    setting(
        "database_replica_max_lag_ms",
        "5000",
        Flag::Serve,
        "MS",
        "100–3,600,000 ms a read replica may lag behind the primary before it is taken out and its reads go to the primary (§4, read replicas)",
    ),
    optional(
        "public_url",
        "unset: links use `http://` + the request's `Host`",
        Flag::Serve,
        "URL",
        "absolute `http(s)://` base for links in responses; set it behind a proxy",
    ),
    setting(
        "log_format",
        "text",
        Flag::Global,
        "FORMAT",
        "`text` or `json` (§12)",
    ),
    optional(
        "log_level",
        "unset: `RUST_LOG`, else `info` (`serve`) or `warn`",
        Flag::Global,
        "FILTER",
        "a level or filter directives (§12)",
    ),
    setting(
        "shutdown_timeout_secs",
        "30",
        Flag::Serve,
        "SECONDS",
        "0–3600 s for requests and deliveries in flight to finish on stop (§9)",
    ),
    setting(
        "drain_delay_secs",
        "0",
        Flag::Serve,
        "SECONDS",
        "0–600 s of serving with `/readyz` at 503 before stopping (§9)",
    ),
    setting(
        "request_timeout_secs",
        "30",
        Flag::Serve,
        "SECONDS",
        "1–3600 s before a request is abandoned with 503 (reading its body included)",
    ),
    setting(
        "header_timeout_secs",
        "10",
        Flag::Serve,
        "SECONDS",
        "1–3600 s for a request's head to arrive, from connecting or from the previous answer; slow (slow-loris) and idle keep-alive connections are closed after it",
    ),
    setting(
        "max_connections",
        "4096",
        Flag::Serve,
        "N",
        "1–1,000,000 connections served at once; one more is answered a JSON:API 503 `connection_limit` with `Retry-After: 1` and closed unread. Keep it under `ulimit -n` less the database pool",
    ),
    setting(
        "rate_limit_store",
        "auto",
        Flag::Serve,
        "STORE",
        "`auto` (memory on SQLite, the database on PostgreSQL), `memory`, `database` or `redis://[:password@]host:6379[/db]`; `rediss://` is refused",
    ),
    setting(
        "read_cache_mib",
        "128",
        Flag::Serve,
        "MIB",
        "MiB of rendered container and shipment reads kept per process; `0` turns the cache off",
    ),
    setting(
        "sandbox_speed",
        "3600",
        Flag::Serve,
        "FACTOR",
        "simulated seconds per real second for `TEST-SCN-*` journeys",
    ),
    setting(
        "early_report_days",
        "30",
        Flag::Serve,
        "DAYS",
        "days an X12 or EDIFACT report about a container nobody tracks yet is kept, to be applied when a tracking request makes it known (with 0 they are dropped within a minute)",
    ),
    setting(
        "retention_events_days",
        "365",
        Flag::Serve,
        "DAYS",
        "days the event log is kept: how far back `/v2/events` and webhook replays reach (0: forever)",
    ),
    setting(
        "retention_payloads_days",
        "90",
        Flag::Serve,
        "DAYS",
        "days upstream payloads are kept verbatim (0: forever)",
    ),
    setting(
        "retention_notifications_days",
        "30",
        Flag::Serve,
        "DAYS",
        "days a delivered or failed webhook notification is kept with its body and attempts; pending ones stay (0: forever)",
    ),
    setting(
        "early_report_max",
        "100000",
        Flag::Serve,
        "N",
        "such reports kept at most (the oldest go first; 200 per container)",
    ),
    setting(
        "manifest_recheck_secs",
        "14400",
        Flag::Serve,
        "SECONDS",
        "seconds of the carrier's clock between checks of a bill or booking it has not manifested yet (60 – 604800; [polling.md](polling.md))",
    ),
    setting(
        "allow_private_webhook_urls",
        "false",
        Flag::Webhooks,
        "",
        "accept `http://` and loopback/private/link-local webhook URLs; never on a public service",
    ),
    setting(
        "webhook_source_ips",
        "",
        Flag::Webhooks,
        "IPS",
        "comma-separated egress IPs, published at `GET /v2/webhooks/ips`",
    ),
    setting(
        "webhook_timeout_secs",
        "30",
        Flag::Webhooks,
        "SECONDS",
        "1–300 s before a delivery attempt counts as failed",
    ),
    setting(
        "webhook_deactivate_after",
        "100",
        Flag::Webhooks,
        "FAILURES",
        "failed deliveries in a row before a webhook is set inactive",
    ),
    setting(
        "webhook_retry_schedule",
        "5,30,120,300,900,1800,3600,7200,18000,36000,50400,72000",
        Flag::Webhooks,
        "SECONDS,...",
        "seconds before each retry, 1–50 entries",
    ),
    setting(
        "webhook_signature_header",
        "X-Boxtrack-Webhook-Signature",
        Flag::Webhooks,
        "NAME",
        "header carrying the hex HMAC-SHA256 of the body",
    ),
    optional(
        "sim_url",
        "unset",
        Flag::Serve,
        "URL",
        "a running `boxtrack sim`; each of its carriers and terminal feeds becomes an upstream",
    ),
    setting(
        "upstream_requests_per_sec",
        "20",
        Flag::None,
        "",
        "request budget per upstream and process (burst twice that); file or environment only",
    ),
    optional(
        "dcsa_push_secret",
        "unset: push refused",
        Flag::Serve,
        "BASE64",
        "base64 of 32–64 bytes that signs `POST /v2/ingest/dcsa`",
    ),
    optional(
        "ais_feed",
        "unset",
        Flag::Serve,
        "HOST:PORT",
        "`HOST:PORT` of a TCP feed of NMEA 0183 sentences",
    ),
    setting(
        "ais_websocket_url",
        "wss://stream.aisstream.io/v0/stream",
        Flag::None,
        "URL",
        "the WebSocket AIS feed (aisstream.io's protocol) followed when `ais_websocket_key` is set",
    ),
    setting(
        "mcp_allowed_origins",
        "",
        Flag::Serve,
        "ORIGINS",
        "browser origins allowed on `/mcp` besides loopback and `public_url`",
    ),
    optional(
        "mcp_open_account",
        "unset",
        Flag::Serve,
        "ACCOUNT_ID",
        "**test only**: `/mcp` requests without credentials act for this account; needs a loopback `listen`",
    ),
    setting(
        "document_store",
        "database",
        Flag::Serve,
        "STORE",
        "where document bytes live: `database` or `s3://BUCKET[/PREFIX]` (§13)",
    ),
];

/// The declaration of setting `name`.
pub fn spec(name: &str) -> Option<&'static Spec> {
    SETTINGS.iter().find(|s| s.name == name)
}

/// Every setting's name.
pub fn names() -> impl Iterator<Item = &'static str> {
    SETTINGS.iter().map(|s| s.name)
}

impl Spec {
    /// The environment variable that gives it.
    pub fn env(&self) -> String {
        format!("BOXTRACK_{}", self.name.to_uppercase())
    }

    /// The flag that gives it (without the dashes in front).
    pub fn long(&self) -> String {
        self.name.replace('_', "-")
    }

    /// What `--help` says of it: the documentation as plain text, the default and the
    /// environment variable.
    pub fn help(&self) -> String {
        let default = match (self.default, self.unset.strip_prefix("unset: ")) {
            (Some(""), _) => "Default: empty.".to_string(),
            (Some(d), _) => format!("Default: {d}."),
            (None, Some(without)) => format!("Unset: {}.", plain(without)),
            (None, None) => "Unset by default.".to_string(),
        };
        let doc = plain(self.doc).replace("(§", "(docs/operations.md §");
        let doc = if self.doc.starts_with('`') {
            doc
        } else {
            capitalized(&doc)
        };
        format!("{doc}. {default} Env: {}.", self.env())
    }

    /// Its row of the settings table.
    #[cfg(test)]
    pub fn row(&self) -> String {
        let default = match self.default {
            Some("") => "empty".to_string(),
            Some(d) => format!("`{d}`"),
            None => self.unset.to_string(),
        };
        format!("| `{}` | {default} | {} |", self.name, self.doc)
    }
}

/// The settings table of `docs/operations.md`.
#[cfg(test)]
pub fn docs_table() -> String {
    let mut out = String::from("| setting | default | meaning |\n|---|---|---|\n");
    for s in SETTINGS {
        out.push_str(&s.row());
        out.push('\n');
    }
    out
}

/// Markdown as plain text: code marks, emphasis and links dropped (the link's text stays).
fn plain(md: &str) -> String {
    let mut out = String::with_capacity(md.len());
    let mut rest = md;
    while let Some(open) = rest.find('[') {
        let (before, after) = rest.split_at(open);
        out.push_str(before);
        match after.find("](").zip(after.find(')')) {
            Some((mid, close)) if mid < close => {
                out.push_str(&after[1..mid]);
                rest = &after[close + 1..];
            }
            _ => {
                out.push('[');
                rest = &after[1..];
            }
        }
    }
    out.push_str(rest);
    out.replace(['`'], "").replace("**", "")
}

fn capitalized(s: &str) -> String {
    let mut c = s.chars();
    c.next()
        .map(|f| f.to_uppercase().chain(c).collect())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_and_flag_values_are_named() {
        let mut seen = std::collections::BTreeSet::new();
        for s in SETTINGS {
            assert!(seen.insert(s.name), "{} declared twice", s.name);
            assert!(
                s.name
                    .bytes()
                    .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_'),
                "{}",
                s.name
            );
            assert!(!s.doc.is_empty(), "{}", s.name);
            assert!(s.default.is_some() || !s.unset.is_empty(), "{}", s.name);
        }
    }

    #[test]
    fn help_is_plain_text_with_the_default_and_the_variable() {
        let s = spec("manifest_recheck_secs").unwrap();
        assert_eq!(
            s.help(),
            "Seconds of the carrier's clock between checks of a bill or booking it has not manifested yet (60 – 604800; polling.md). Default: 14400. Env: BOXTRACK_MANIFEST_RECHECK_SECS."
        );
        let s = spec("mcp_open_account").unwrap();
        assert!(
            s.help().starts_with("Test only: /mcp requests"),
            "{}",
            s.help()
        );
    }

    /// The settings table of `docs/operations.md` is made from the declarations
    /// (`BOXTRACK_BLESS=1 cargo test -p boxtrack --bin boxtrack settings_table` writes it).
    #[test]
    fn settings_table_is_made_from_the_declarations() {
        let path =
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/operations.md");
        let text = std::fs::read_to_string(&path).unwrap_or_default();
        let table = docs_table();
        let head = "| setting | default | meaning |\n";
        let Some(start) = text.find(head) else {
            panic!("{} has no settings table", path.display());
        };
        let end = text[start..]
            .find("\n\n")
            .map_or(text.len(), |n| start + n + 1);
        if text[start..end] != table && std::env::var("BOXTRACK_BLESS").is_ok() {
            let written = format!("{}{table}{}", &text[..start], &text[end..]);
            std::fs::write(&path, written).unwrap_or_default();
            return;
        }
        assert_eq!(
            &text[start..end],
            table,
            "run BOXTRACK_BLESS=1 cargo test -p boxtrack --bin boxtrack settings_table"
        );
    }
}
