//! Log lines written off the request path.
//!
//! `tracing_subscriber`'s formatter hands each finished line to [`LogWriter`], which queues
//! it (one bounded channel send) for a thread that writes what has queued to standard error in
//! one buffered write every few milliseconds while lines flow. A request therefore never
//! waits on the terminal, the pipe or the journal behind standard error, and never wakes the
//! writer (a wake-up per line costs a context switch per request on a busy core).
//!
//! When the queue is full (the reader of standard error stopped reading), lines are dropped
//! and counted rather than stalling requests; the writer says how many were dropped when it
//! next writes. [`finish`] (called when the command ends) waits until every line queued
//! before it is written.

use std::io::Write;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{Receiver, SyncSender, TryRecvError, TrySendError, sync_channel};
use std::sync::{Arc, OnceLock};
use std::time::Duration;

/// Lines that may wait to be written.
pub const QUEUE: usize = 16_384;

enum Msg {
    Line(Vec<u8>),
    /// Everything before this is written and flushed; then the sender is told.
    Flush(SyncSender<()>),
}

/// The `MakeWriter` given to the formatter: each line becomes one queued message.
#[derive(Clone)]
pub struct LogWriter {
    tx: SyncSender<Msg>,
    dropped: Arc<AtomicU64>,
}

/// One line being formatted; queued when the formatter is done with it.
pub struct Line<'a> {
    writer: &'a LogWriter,
    buf: Vec<u8>,
}

impl Write for Line<'_> {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.buf.extend_from_slice(bytes);
        Ok(bytes.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl Drop for Line<'_> {
    fn drop(&mut self) {
        if self.buf.is_empty() {
            return;
        }
        self.writer.queue(std::mem::take(&mut self.buf));
    }
}

impl<'a> tracing_subscriber::fmt::MakeWriter<'a> for LogWriter {
    type Writer = Line<'a>;

    fn make_writer(&'a self) -> Line<'a> {
        Line {
            writer: self,
            buf: Vec::new(),
        }
    }
}

static STARTED: OnceLock<LogWriter> = OnceLock::new();

/// The process's writer to standard error, its thread started on first use.
pub fn stderr() -> LogWriter {
    STARTED
        .get_or_init(|| start(QUEUE, std::io::stderr))
        .clone()
}

/// A writer whose thread writes to what `out` opens, with room for `queue` lines.
pub fn start<W, F>(queue: usize, out: F) -> LogWriter
where
    W: Write,
    F: Fn() -> W + Send + 'static,
{
    let (tx, rx) = sync_channel(queue.max(1));
    let dropped = Arc::new(AtomicU64::new(0));
    let counted = dropped.clone();
    let spawned = std::thread::Builder::new()
        .name("log-writer".into())
        .spawn(move || drain(&rx, &counted, &out));
    if let Err(e) = spawned {
        // no thread: lines queue until full and are then counted as dropped
        eprintln!("warning: cannot start the log writer thread: {e}");
    }
    LogWriter { tx, dropped }
}

/// How long the writer sleeps when it finds the queue empty while lines are flowing: a
/// line waits at most this long to be written. Senders never wake the writer while it polls
/// (a wake-up per line was a context switch per request on a busy core).
const POLL: Duration = Duration::from_millis(20);

/// Empty polls in a row after which the writer blocks until the next line (an idle process
/// does not wake 50 times a second).
const IDLE_POLLS: u32 = 50;

/// The writer thread: writes what has queued in one buffered write per round.
fn drain<W: Write>(rx: &Receiver<Msg>, dropped: &AtomicU64, out: &dyn Fn() -> W) {
    let mut idle = 0;
    loop {
        let first = match rx.try_recv() {
            Ok(m) => m,
            Err(TryRecvError::Disconnected) => return,
            Err(TryRecvError::Empty) if idle < IDLE_POLLS => {
                idle += 1;
                std::thread::sleep(POLL);
                continue;
            }
            Err(TryRecvError::Empty) => match rx.recv() {
                Ok(m) => m,
                Err(_) => return,
            },
        };
        idle = 0;
        write_round(rx, first, dropped, out);
    }
}

/// Writes `first` and every line queued behind it, flushes, then answers the flush requests
/// that were among them.
fn write_round<W: Write>(rx: &Receiver<Msg>, first: Msg, dropped: &AtomicU64, out: &dyn Fn() -> W) {
    let mut w = std::io::BufWriter::with_capacity(64 * 1024, out());
    let mut acks = Vec::new();
    let mut next = Some(first);
    while let Some(msg) = next {
        match msg {
            Msg::Line(line) => {
                let _ = w.write_all(&line);
            }
            Msg::Flush(ack) => acks.push(ack),
        }
        next = rx.try_recv().ok();
    }
    let lost = dropped.swap(0, Ordering::Relaxed);
    if lost > 0 {
        let _ = writeln!(
            w,
            "WARN boxtrack: {lost} log lines were dropped: standard error was not read fast enough"
        );
    }
    let _ = w.flush();
    drop(w);
    for ack in acks {
        let _ = ack.send(());
    }
}

impl LogWriter {
    /// Waits (up to `wait`) until every line queued before this call is written.
    pub fn flush(&self, wait: Duration) {
        let (ack, done) = sync_channel(1);
        if self.tx.send(Msg::Flush(ack)).is_ok() {
            let _ = done.recv_timeout(wait);
        }
    }
}

impl LogWriter {
    /// Queues one finished line (dropped and counted when the queue is full).
    fn queue(&self, line: Vec<u8>) {
        if let Err(TrySendError::Full(_)) = self.tx.try_send(Msg::Line(line)) {
            self.dropped.fetch_add(1, Ordering::Relaxed);
        }
    }
}

/// The access log's lines, formatted here as the `tracing` formatter writes an event of
/// target `boxtrack::access` (text, or JSON with `--log-format json`), minus the request
/// span's prefix (the line carries the request id and route itself), and queued like every
/// other line: a request pays for one small buffer, not for a pass through the formatter.
#[derive(Debug, Clone)]
pub struct AccessLines {
    writer: LogWriter,
    json: bool,
}

impl std::fmt::Debug for LogWriter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("LogWriter")
    }
}

impl AccessLines {
    /// Lines to `writer`, as JSON objects or as text.
    pub fn new(writer: LogWriter, json: bool) -> AccessLines {
        AccessLines { writer, json }
    }
}

/// `line` as a text log line (`ts  INFO boxtrack::access: request method=… …`), or as the JSON
/// object the `tracing` formatter writes, stamped `now`.
pub fn access_line(
    line: &boxtrack_api::access::AccessLine<'_>,
    now: jiff::Timestamp,
    json: bool,
) -> Vec<u8> {
    let mut out = Vec::with_capacity(256);
    // RFC 3339 in UTC to the microsecond, as the formatter stamps its lines
    let whole = jiff::Timestamp::from_second(now.as_second()).unwrap_or(now);
    let stamp = |out: &mut Vec<u8>| {
        let _ = write!(
            out,
            "{}.{:06}Z",
            whole.strftime("%Y-%m-%dT%H:%M:%S"),
            now.subsec_microsecond().max(0)
        );
    };
    // the account's id, or nothing: written in place, no string made for it
    let mut id = uuid::Uuid::encode_buffer();
    let account: &str = match line.account {
        Some(a) => a.hyphenated().encode_lower(&mut id),
        None => "",
    };
    if json {
        // the strings a client or a route can carry are written by serde_json, escaped
        out.extend_from_slice(b"{\"timestamp\":\"");
        stamp(&mut out);
        out.extend_from_slice(
            b"\",\"level\":\"INFO\",\"fields\":{\"message\":\"request\",\"method\":",
        );
        let _ = serde_json::to_writer(&mut out, line.method);
        out.extend_from_slice(b",\"route\":");
        let _ = serde_json::to_writer(&mut out, line.route);
        let _ = write!(
            out,
            ",\"status\":{},\"latency_ms\":{},\"account\":\"{account}\",\"request_id\":",
            line.status, line.latency_ms
        );
        let _ = serde_json::to_writer(&mut out, line.request_id);
        out.extend_from_slice(b"},\"target\":\"boxtrack::access\"}\n");
    } else {
        stamp(&mut out);
        let _ = write!(
            out,
            "  INFO boxtrack::access: request method={} route={} status={} latency_ms={} account={account} request_id=",
            line.method, line.route, line.status, line.latency_ms
        );
        // a client's request id as it came, but for what would break the line
        for c in line.request_id.chars() {
            let c = if c.is_control() { '?' } else { c };
            let mut b = [0; 4];
            out.extend_from_slice(c.encode_utf8(&mut b).as_bytes());
        }
        out.push(b'\n');
    }
    out
}

impl boxtrack_api::access::AccessSink for AccessLines {
    fn write(&self, line: &boxtrack_api::access::AccessLine<'_>) {
        self.writer
            .queue(access_line(line, jiff::Timestamp::now(), self.json));
    }
}

/// When a command ends: writes out what its logs queued (at most a couple of seconds' wait).
pub fn finish() {
    if let Some(w) = STARTED.get() {
        w.flush(Duration::from_secs(2));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Mutex;
    use tracing_subscriber::fmt::MakeWriter;

    /// A `Write` into a shared buffer the test reads.
    #[derive(Clone, Default)]
    struct Shared(Arc<Mutex<Vec<u8>>>);

    impl Write for Shared {
        fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
            self.0
                .lock()
                .map_err(|_| std::io::ErrorKind::Other)?
                .extend_from_slice(b);
            Ok(b.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    fn text(s: &Shared) -> String {
        String::from_utf8(s.0.lock().unwrap().clone()).unwrap()
    }

    #[test]
    fn lines_arrive_whole_and_in_order() {
        let out = Shared::default();
        let o = out.clone();
        let w = start(64, move || o.clone());
        for i in 0..1000 {
            let mut line = w.make_writer();
            // the formatter may write a line in pieces
            write!(line, "line ").unwrap();
            writeln!(line, "{i}").unwrap();
        }
        w.flush(Duration::from_secs(10));
        let got = text(&out);
        let lines: Vec<&str> = got.lines().collect();
        let dropped = w.dropped.load(Ordering::Relaxed);
        // a full queue drops lines rather than waiting; those that arrive are whole and in order
        let numbers: Vec<usize> = lines
            .iter()
            .filter_map(|l| l.strip_prefix("line "))
            .map(|n| n.parse().unwrap())
            .collect();
        assert!(numbers.windows(2).all(|p| p[0] < p[1]), "{got}");
        assert_eq!(numbers.first(), Some(&0));
        if numbers.len() < 1000 {
            assert!(
                got.contains("log lines were dropped") || dropped > 0,
                "{got}"
            );
        }
    }

    #[test]
    fn a_full_queue_drops_and_counts_instead_of_waiting() {
        // a writer whose output blocks until the test lets it go
        let gate = Arc::new(Mutex::new(()));
        let held = gate.lock().unwrap();
        let out = Shared::default();
        let (o, g) = (out.clone(), gate.clone());
        let w = start(2, move || {
            drop(g.lock().unwrap());
            o.clone()
        });
        for i in 0..50 {
            writeln!(w.make_writer(), "line {i}").unwrap();
        }
        // the thread holds at most one line and the queue two: the rest were dropped at once
        assert!(w.dropped.load(Ordering::Relaxed) >= 47);
        drop(held);
        w.flush(Duration::from_secs(10));
        w.flush(Duration::from_secs(10));
        let got = text(&out);
        assert!(got.contains("line 0"), "{got}");
        assert!(got.contains("log lines were dropped"), "{got}");
    }

    #[test]
    fn access_lines_read_like_the_formatters_and_escape_what_a_client_sent() {
        let account = uuid::Uuid::from_u128(7);
        let line = boxtrack_api::access::AccessLine {
            method: "GET",
            route: "/v2/containers/{id}",
            status: 404,
            latency_ms: 0.3,
            account: Some(account),
            request_id: "a\"b\\c\nd",
        };
        let now = jiff::Timestamp::from_second(1_764_633_600).unwrap();
        let json = String::from_utf8(access_line(&line, now, true)).unwrap();
        assert!(json.ends_with('\n'));
        let v: serde_json::Value = serde_json::from_str(&json).unwrap();
        assert_eq!(v["timestamp"], "2025-12-02T00:00:00.000000Z");
        assert_eq!(v["level"], "INFO");
        assert_eq!(v["target"], "boxtrack::access");
        assert_eq!(v["fields"]["message"], "request");
        assert_eq!(v["fields"]["route"], "/v2/containers/{id}");
        assert_eq!(v["fields"]["status"], 404);
        assert_eq!(v["fields"]["latency_ms"], 0.3);
        assert_eq!(v["fields"]["account"], account.to_string());
        assert_eq!(v["fields"]["request_id"], "a\"b\\c\nd");

        let anonymous = boxtrack_api::access::AccessLine {
            account: None,
            ..line
        };
        let text = String::from_utf8(access_line(&anonymous, now, false)).unwrap();
        assert_eq!(
            text,
            "2025-12-02T00:00:00.000000Z  INFO boxtrack::access: request method=GET route=/v2/containers/{id} status=404 latency_ms=0.3 account= request_id=a\"b\\c?d\n"
        );
    }
}
