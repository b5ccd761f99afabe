//! What the HTTP load benchmarks share: child server processes pinned to CPUs, and a
//! closed- or open-loop load generator over keep-alive HTTP/1.1 connections.

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use axum::body::Bytes;
use axum::http::header;
use http_body_util::{BodyExt, Empty};
use hyper::Request;
use hyper_util::rt::TokioIo;

use crate::Res;

/// CPU time process `pid` has used (user and system), in clock ticks of 10 ms (0 when it
/// cannot be read).
pub fn cpu_ticks_of(pid: u32) -> u64 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    // the fields after the command name, which is in parentheses
    let rest = stat.rsplit_once(')').map_or("", |(_, r)| r);
    let f: Vec<&str> = rest.split_whitespace().collect();
    let tick = |i: usize| f.get(i).and_then(|v| v.parse::<u64>().ok()).unwrap_or(0);
    // utime and stime are fields 14 and 15 of the line, 12 and 13 after the name
    tick(11) + tick(12)
}

/// CPU time the whole machine has been busy (every state but idle and I/O wait, summed over
/// its cpus), in clock ticks of 10 ms (0 when `/proc/stat` cannot be read): with
/// [`cpu_ticks_of`] this process's share, what the rest (the database) used.
pub fn machine_busy_ticks() -> u64 {
    let stat = std::fs::read_to_string("/proc/stat").unwrap_or_default();
    let Some(cpu) = stat.lines().find(|l| l.starts_with("cpu ")) else {
        return 0;
    };
    cpu.split_whitespace()
        .skip(1)
        .enumerate()
        // user nice system idle iowait irq softirq steal (guest time is inside user)
        .filter(|(i, _)| *i != 3 && *i != 4 && *i < 8)
        .filter_map(|(_, v)| v.parse::<u64>().ok())
        .sum()
}

/// The `boxtrack` binary to start: `BOXTRACK_BIN`, else the one next to this benchmark.
pub fn boxtrack_bin() -> Res<std::path::PathBuf> {
    Ok(match std::env::var("BOXTRACK_BIN") {
        Ok(b) => std::path::PathBuf::from(b),
        Err(_) => std::env::current_exe()?.with_file_name("boxtrack"),
    })
}

/// One request the load generator sends: a path and the key to send with it.
#[derive(Clone)]
pub struct Call {
    /// Path and query.
    pub path: String,
    /// The API key sent with it.
    pub key: String,
}

/// A child server process, stopped when dropped.
pub struct Server {
    /// The process.
    pub child: Child,
    /// Its base URL.
    pub base: String,
    /// From spawning the process to its `listening on` line.
    pub listening_after: Duration,
}

impl Server {
    /// Resident memory of the process (`VmRSS`), in KiB.
    pub fn rss_kib(&self) -> Option<u64> {
        self.status_kib("VmRSS:")
    }

    /// Resident memory of the process that is its own (`RssAnon`: not pages of files it
    /// maps, which the operating system shares and reclaims), in KiB.
    pub fn anon_kib(&self) -> Option<u64> {
        self.status_kib("RssAnon:")
    }

    /// CPU time the process has used (user and system), in clock ticks of 10 ms.
    pub fn cpu_ticks(&self) -> u64 {
        cpu_ticks_of(self.child.id())
    }

    fn status_kib(&self, field: &str) -> Option<u64> {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.child.id())).ok()?;
        status
            .lines()
            .find_map(|l| l.strip_prefix(field))
            .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Starts `cmd` and waits for its `listening on http://…` line.
pub fn start(mut cmd: Command) -> Res<Server> {
    let log = std::env::temp_dir().join(format!(
        "bench-read-server-{}-{}.log",
        std::process::id(),
        Instant::now().elapsed().as_nanos()
    ));
    let spawned = Instant::now();
    let mut child = cmd
        .stdout(Stdio::piped())
        .stderr(std::fs::File::create(&log)?)
        .spawn()?;
    let out = child.stdout.take().ok_or("no stdout")?;
    let mut lines = BufReader::new(out).lines();
    let base = loop {
        let Some(line) = lines.next() else {
            let said = std::fs::read_to_string(&log).unwrap_or_default();
            return Err(format!("the server stopped before listening: {said}").into());
        };
        let line = line?;
        if let Some(at) = line.find("listening on ") {
            break line[at + "listening on ".len()..].trim().to_string();
        }
    };
    let listening_after = spawned.elapsed();
    // keep draining stdout so the child never blocks on a full pipe
    std::thread::spawn(move || for _ in lines {});
    Ok(Server {
        child,
        base,
        listening_after,
    })
}

/// `program` under `taskset -c $BENCH_SERVER_CPUS` (default CPU 1).
pub fn pinned(program: &std::path::Path) -> Command {
    let cpus = std::env::var("BENCH_SERVER_CPUS").unwrap_or_else(|_| "1".into());
    pinned_to(program, &cpus)
}

/// `program` under `taskset -c CPUS`.
pub fn pinned_to(program: &std::path::Path, cpus: &str) -> Command {
    let mut c = Command::new("taskset");
    c.arg("-c").arg(cpus).arg(program);
    c
}

/// What one connection measured.
#[derive(Default)]
pub struct Tally {
    /// Requests answered in the measured part.
    pub done: u64,
    /// Of which not 2xx.
    pub failed: u64,
    /// Their latencies.
    pub latencies_us: Vec<u32>,
}

/// Drives one keep-alive HTTP/1.1 connection: closed loop (`interval` None) or one request
/// per `interval`, the connections' schedules staggered over it.
pub async fn connection(
    addr: String,
    calls: Arc<Vec<Call>>,
    offset: usize,
    phase: f64,
    until: Instant,
    measure_from: Instant,
    interval: Option<Duration>,
) -> Res<Tally> {
    let stream = tokio::net::TcpStream::connect(&addr).await?;
    stream.set_nodelay(true)?;
    let (mut send, conn) = hyper::client::conn::http1::handshake(TokioIo::new(stream)).await?;
    tokio::spawn(conn);
    let mut tally = Tally::default();
    let mut i = offset;
    // connections spread their requests evenly over the interval instead of sending together
    let mut due = Instant::now() + interval.map_or(Duration::ZERO, |step| step.mul_f64(phase));
    while Instant::now() < until {
        if interval.is_some() {
            tokio::time::sleep_until(due.into()).await;
        }
        let call = &calls[i % calls.len()];
        i += 1;
        let req = Request::get(&call.path)
            .header(header::HOST, "127.0.0.1")
            .header(header::AUTHORIZATION, format!("Token {}", call.key))
            .body(Empty::<Bytes>::new())?;
        // from when it is sent: the timer that paces requests is only good to a millisecond
        let started = Instant::now();
        let res = send.send_request(req).await?;
        let ok = res.status().is_success();
        let _ = res.into_body().collect().await?;
        let now = Instant::now();
        if now >= measure_from {
            tally.done += 1;
            if !ok {
                tally.failed += 1;
            }
            let us = now.saturating_duration_since(started).as_micros();
            tally
                .latencies_us
                .push(u32::try_from(us).unwrap_or(u32::MAX));
        }
        if let Some(step) = interval {
            due += step;
        }
    }
    Ok(tally)
}

/// Requests per second, p50 and p99 (µs), and failures, of one run.
pub struct Outcome {
    /// Requests per second.
    pub rate: f64,
    /// Median latency.
    pub p50_us: u32,
    /// 99th percentile.
    pub p99_us: u32,
    /// Answers that were not 2xx.
    pub failed: u64,
}

/// Drives `connections` connections for `seconds` after a 2-second warm-up, connection `c`
/// to `bases[c % bases.len()]`: closed loop, or `rate` requests a second in all.
pub async fn run(
    bases: &[&str],
    calls: &Arc<Vec<Call>>,
    connections: usize,
    seconds: u64,
    rate: Option<f64>,
) -> Res<Outcome> {
    if bases.is_empty() {
        return Err("no server to send requests to".into());
    }
    let warm = Duration::from_secs(2);
    let start = Instant::now();
    let measure_from = start + warm;
    let until = measure_from + Duration::from_secs(seconds);
    let interval = rate.map(|r| Duration::from_secs_f64(connections as f64 / r));
    let mut tasks = Vec::new();
    for c in 0..connections {
        let calls = calls.clone();
        let addr = bases[c % bases.len()]
            .trim_start_matches("http://")
            .to_string();
        let offset = c * calls.len() / connections.max(1);
        tasks.push(tokio::spawn(async move {
            let phase = c as f64 / connections as f64;
            connection(addr, calls, offset, phase, until, measure_from, interval)
                .await
                .map_err(|e| e.to_string())
        }));
    }
    let mut all = Tally::default();
    for t in tasks {
        let one = t.await??;
        all.done += one.done;
        all.failed += one.failed;
        all.latencies_us.extend(one.latencies_us);
    }
    all.latencies_us.sort_unstable();
    let pct = |p: f64| {
        let n = all.latencies_us.len();
        if n == 0 {
            return 0;
        }
        all.latencies_us[((n as f64 * p) as usize).min(n - 1)]
    };
    Ok(Outcome {
        rate: all.done as f64 / seconds as f64,
        p50_us: pct(0.50),
        p99_us: pct(0.99),
        failed: all.failed,
    })
}

/// Median, min and max.
pub fn median_min_max(mut v: Vec<f64>) -> (f64, f64, f64) {
    v.sort_by(f64::total_cmp);
    (v[v.len() / 2], v[0], v[v.len() - 1])
}
