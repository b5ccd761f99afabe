//! `boxtrack sim`: the upstream world as its own server.

use std::time::Duration;

use anyhow::Context;
use clap::Args;

/// Flags of `sim`.
#[derive(Args, Debug, Clone)]
pub struct SimArgs {
    /// Address to listen on (port 0 picks a free port; the address is printed).
    #[arg(long, default_value = "127.0.0.1:8090", value_name = "ADDR")]
    pub listen: String,
    /// World seed: the same seed always gives the same vessels, shipments and numbers.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Virtual seconds per real second (3600 = an hour per second). POST /sim/v1/clock
    /// {"advance_secs": N} also moves the clock.
    #[arg(long, default_value_t = 60.0, value_name = "FACTOR")]
    pub speed: f64,
    /// Number of shipments (bills of lading) in the world.
    #[arg(long, default_value_t = 200, value_name = "N")]
    pub shipments: usize,
    /// Virtual time at start, RFC 3339 (default: now).
    #[arg(long, value_name = "TIME")]
    pub start: Option<String>,
    /// Start the clock this many virtual days before --start: the world is the same, but its
    /// latest bills are not manifested yet (a carrier knows a bill ten days before it sails and
    /// its boxes six),
    /// as when a customer registers a bill before its carrier does.
    #[arg(long, default_value_t = 0, value_name = "DAYS")]
    pub early_days: u32,
    /// Misbehaviour, e.g. "5xx=0.1,429=0.05,slow=0.1:800,malformed=0.02,silent-bookings=2"
    /// (shares of answers; slow takes SHARE:MILLISECONDS; silent-bookings answers nothing for
    /// booking numbers during the first N virtual days; redeliver=SHARE sends that share of
    /// DCSA pushes and X12 files once more a round later, after newer ones).
    #[arg(long, default_value = "", value_name = "FAULTS")]
    pub faults: String,
    /// Where rail carriers send their X12 322 files, e.g.
    /// http://127.0.0.1:8080/v2/ingest/x12 (needs --x12-api-key, an operator account's key).
    #[arg(long, value_name = "URL", requires = "x12_api_key")]
    pub x12_ingest_url: Option<String>,
    /// API key used for --x12-ingest-url (and --edifact-ingest-url).
    #[arg(long, value_name = "KEY")]
    pub x12_api_key: Option<String>,
    /// Where the carriers that speak UN/EDIFACT (about half, fixed by SCAC) send their status
    /// reports as IFTSTA instead of X12 315, e.g. http://127.0.0.1:8080/v2/ingest/edifact
    /// (needs --x12-ingest-url and its key). Without it every carrier sends X12.
    #[arg(long, value_name = "URL", requires = "x12_ingest_url")]
    pub edifact_ingest_url: Option<String>,
    /// Where carriers push their DCSA events as they happen (as for an event subscription),
    /// e.g. http://127.0.0.1:8080/v2/ingest/dcsa (needs --dcsa-push-secret).
    #[arg(long, value_name = "URL", requires = "dcsa_push_secret")]
    pub dcsa_push_url: Option<String>,
    /// Base64 secret the pushes are signed with (the same as boxtrack's dcsa_push_secret).
    #[arg(long, value_name = "BASE64")]
    pub dcsa_push_secret: Option<String>,
    /// Also stream AIS (NMEA !AIVDM sentences over TCP) on this address: every vessel's
    /// position each second, static data every tenth second (boxtrack serve --ais-feed).
    #[arg(long, value_name = "ADDR")]
    pub ais_listen: Option<String>,
    /// What the carriers' DCSA endpoints demand: none; oauth2 (a bearer token from
    /// POST /sim/v1/oauth/token, client boxtrack-sim / sim-client-secret); headers
    /// (X-Client-Id: boxtrack-sim, X-Client-Secret: sim-header-secret); query
    /// (?apikey=sim-api-key). Without it a carrier answers 401.
    #[arg(long, default_value = "none", value_name = "SCHEME",
          value_parser = ["none", "oauth2", "headers", "query"])]
    pub carrier_auth: String,
    /// Carriers that speak their line's profile instead of the simulator's plain DCSA: all,
    /// or profiles separated by commas (maersk, hapag-lloyd, cma-cgm and cosco, which
    /// document authentication and paging, cosco in its own API, COP; one, evergreen, msc,
    /// zim and yang-ming, with the simulator's choice of an API key in X-Sim-Api-Key). Each line is served under
    /// /sim/v1/lines/PROFILE with its authentication (test credentials sim-PROFILE-KEY), paths,
    /// paging, error answers and documented gaps, for every SCAC of its profile; those
    /// carriers answer nowhere else and push nothing. The tables that make boxtrack read them
    /// are printed at start (and in the catalog).
    #[arg(long, default_value = "", value_name = "PROFILES")]
    pub carrier_profiles: String,
    /// Lifetime of the access tokens of --carrier-auth oauth2 (and of the lines' token
    /// endpoints), in seconds.
    #[arg(long, default_value_t = 3600, value_name = "SECONDS",
          value_parser = clap::value_parser!(u64).range(1..=86_400))]
    pub token_ttl_secs: u64,
}

/// Builds the simulator from flags.
pub fn build(args: &SimArgs) -> anyhow::Result<boxtrack_sim::Sim> {
    let faults =
        boxtrack_sim::Faults::parse(&args.faults).map_err(|e| anyhow::anyhow!("--faults: {e}"))?;
    if !(args.speed.is_finite() && args.speed > 0.0) {
        anyhow::bail!("--speed must be a positive number of virtual seconds per real second");
    }
    let origin_us = match &args.start {
        Some(s) => boxtrack_core::time::parse_micros(s)
            .with_context(|| format!("--start {s:?} is not an RFC 3339 time"))?,
        None => boxtrack_core::time::now_us(),
    };
    Ok(boxtrack_sim::Sim::new(&boxtrack_sim::SimConfig {
        seed: args.seed,
        shipments: args.shipments.clamp(1, 100_000),
        speed: args.speed,
        origin_us,
        clock_start_us: (args.early_days > 0)
            .then(|| origin_us - i64::from(args.early_days.min(3_650)) * 86_400_000_000),
        faults,
        x12_ingest: None,
        carrier_auth: boxtrack_sim::CarrierAuth::parse(&args.carrier_auth)
            .map_err(|e| anyhow::anyhow!("--carrier-auth: {e}"))?,
        token_ttl: Duration::from_secs(args.token_ttl_secs),
        carrier_profiles: boxtrack_sim::lines::parse(&args.carrier_profiles)
            .map_err(|e| anyhow::anyhow!("--carrier-profiles: {e}"))?,
    }))
}

/// Says which carriers speak their line's profile and the tables that read them.
fn print_lines(sim: &boxtrack_sim::Sim, base: &str) {
    for line in sim.lines() {
        let mut scacs: Vec<&str> = sim
            .world()
            .shipments
            .iter()
            .map(|s| s.scac.as_str())
            .filter(|s| line.serves(s))
            .collect();
        scacs.sort_unstable();
        scacs.dedup();
        eprintln!(
            "line {} at {base}{}: {}",
            line.name(),
            line.prefix(),
            if scacs.is_empty() {
                "no carrier of this world".to_string()
            } else {
                "boxtrack reads it with this in boxtrack.toml:".to_string()
            }
        );
        for scac in scacs {
            eprint!("{}", line.table(scac, base));
        }
    }
}

/// Runs the simulator until Ctrl-C or SIGTERM.
pub async fn run(args: &SimArgs) -> anyhow::Result<()> {
    let sim = build(args)?;
    let listener = tokio::net::TcpListener::bind(&args.listen)
        .await
        .with_context(|| format!("cannot listen on {}", args.listen))?;
    let addr = listener.local_addr()?;
    eprintln!("catalog: http://{addr}/sim/v1/catalog");
    let auth = boxtrack_sim::CarrierAuth::parse(&args.carrier_auth).unwrap_or_default();
    eprintln!("{}", auth.describe(&format!("http://{addr}")));
    if auth == boxtrack_sim::CarrierAuth::None {
        eprintln!("point boxtrack at it: boxtrack serve --sim-url http://{addr}");
    } else {
        eprintln!(
            "point boxtrack at it with a [carriers.SCAC] table per carrier, url = \"http://{addr}/sim/v1/carriers/SCAC\", dcsa_version as the catalog names it, and these credentials (see boxtrack.example.toml)"
        );
    }
    print_lines(&sim, &format!("http://{addr}"));
    println!("listening on http://{addr}");
    let shutdown = tokio_util::sync::CancellationToken::new();
    if let (Some(url), Some(key)) = (&args.x12_ingest_url, &args.x12_api_key) {
        tokio::spawn(boxtrack_sim::send_rail_x12(
            sim.clone(),
            url.clone(),
            key.clone(),
            args.edifact_ingest_url.clone(),
            Duration::from_secs(1),
            shutdown.clone(),
        ));
    }
    if let (Some(url), Some(secret)) = (&args.dcsa_push_url, &args.dcsa_push_secret) {
        tokio::spawn(boxtrack_sim::send_dcsa_push(
            sim.clone(),
            url.clone(),
            secret.clone(),
            Duration::from_secs(1),
            shutdown.clone(),
        ));
    }
    if let Some(a) = &args.ais_listen {
        let l = tokio::net::TcpListener::bind(a)
            .await
            .with_context(|| format!("cannot listen on {a} for AIS"))?;
        eprintln!("AIS stream: {}", l.local_addr()?);
        tokio::spawn(boxtrack_sim::serve_ais(
            sim.clone(),
            l,
            Duration::from_secs(1),
            shutdown.clone(),
        ));
    }
    let token = shutdown.clone();
    axum::serve(listener, sim.router())
        .with_graceful_shutdown(async move {
            let _ = tokio::signal::ctrl_c().await;
            token.cancel();
        })
        .await
        .context("simulator server failed")?;
    Ok(())
}
