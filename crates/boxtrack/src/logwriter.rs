//! Log lines written off the request path.
//!
//! Every finished line — from `tracing_subscriber`'s formatter through [`LogWriter`], or an
//! access line formatted by [`AccessLines`] — is appended to one shared buffer under a mutex
//! held for the copy. A thread swaps the buffer out and writes it to standard error in one
//! write every few milliseconds while lines flow. A request therefore never waits on the
//! terminal, the pipe or the journal behind standard error, never wakes the writer (a wake-up
//! per line costs a context switch per request on a busy core), and pays neither an
//! allocation nor a channel message per line (a line's `Vec`, sent to the writer and freed on
//! its thread, was a third of what an access line cost, BENCHMARKS.md).
//!
//! When the buffer holds [`CAPACITY`] bytes (the reader of standard error stopped reading),
//! lines are dropped and counted rather than stalling requests; the writer says how many were
//! dropped when it next writes. [`finish`] (called when the command ends) waits until every
//! line appended before it is written.

use std::io::Write;
use std::sync::{Arc, Condvar, Mutex, MutexGuard, OnceLock};
use std::time::{Duration, Instant};

/// Bytes of lines that may wait to be written; lines past it are dropped and counted.
pub const CAPACITY: usize = 4 << 20;

/// What waits to be written, and how far writing has come.
#[derive(Default)]
struct Pending {
    /// Finished lines, in the order they were appended.
    bytes: Vec<u8>,
    /// Lines dropped since the last write because `bytes` was full.
    dropped: u64,
    /// Lines appended so far (dropped ones not counted).
    appended: u64,
    /// Of those, how many are written and flushed.
    written: u64,
    /// The writer sleeps until told: the next line must wake it.
    idle: bool,
    /// A flush is waiting: the writer should not wait out its poll.
    urgent: bool,
}

/// The buffer and the writer's two signals.
struct Shared {
    pending: Mutex<Pending>,
    /// Wakes the writer (a line while it is idle, or a flush).
    wake: Condvar,
    /// Tells flushers that `written` moved.
    written: Condvar,
    /// The writer thread could not start: nothing will be written.
    no_writer: std::sync::atomic::AtomicBool,
    /// Bytes that may wait to be written.
    capacity: usize,
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, Pending> {
        // a panic while appending leaves at worst a partial line: keep logging
        self.pending
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

/// The `MakeWriter` given to the formatter, and the handle [`AccessLines`] appends through.
#[derive(Clone)]
pub struct LogWriter {
    shared: Arc<Shared>,
}

/// One line being formatted; appended when the formatter is done with it.
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
        self.writer.append(|out| out.extend_from_slice(&self.buf));
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
        .get_or_init(|| start(CAPACITY, std::io::stderr))
        .clone()
}

/// A writer whose thread writes to what `out` opens, holding at most `capacity` bytes of
/// lines not yet written.
pub fn start<W, F>(capacity: usize, out: F) -> LogWriter
where
    W: Write,
    F: Fn() -> W + Send + 'static,
{
    let shared = Arc::new(Shared {
        pending: Mutex::new(Pending::default()),
        wake: Condvar::new(),
        written: Condvar::new(),
        no_writer: std::sync::atomic::AtomicBool::new(false),
        capacity: capacity.max(1),
    });
    let theirs = shared.clone();
    let spawned = std::thread::Builder::new()
        .name("log-writer".into())
        .spawn(move || drain(&theirs, &out));
    if let Err(e) = spawned {
        // no thread: lines gather until the buffer is full and are then counted as dropped
        eprintln!("warning: cannot start the log writer thread: {e}");
        shared
            .no_writer
            .store(true, std::sync::atomic::Ordering::Relaxed);
    }
    LogWriter { shared }
}

/// How long the writer waits between rounds while lines flow: a line waits at most this long
/// to be written. Appending never wakes the writer while it polls.
const POLL: Duration = Duration::from_millis(20);

/// Empty polls in a row after which the writer sleeps until the next line (an idle process
/// does not wake 50 times a second).
const IDLE_POLLS: u32 = 50;

/// The writer thread: every round, takes what has gathered and writes it in one write.
fn drain<W: Write>(shared: &Shared, out: &dyn Fn() -> W) {
    let mut batch = Vec::new();
    let mut empty = 0;
    loop {
        let (lost, upto) = {
            let mut p = shared.lock();
            while p.bytes.is_empty() && p.dropped == 0 && p.written == p.appended {
                if empty < IDLE_POLLS || p.urgent {
                    empty += 1;
                    p = wait(&shared.wake, p, Some(POLL));
                } else {
                    p.idle = true;
                    p = wait(&shared.wake, p, None);
                }
            }
            empty = 0;
            p.idle = false;
            p.urgent = false;
            std::mem::swap(&mut p.bytes, &mut batch);
            // a buffer grown by a burst is not kept at that size
            if p.bytes.capacity() > shared.capacity {
                p.bytes = Vec::new();
            }
            (std::mem::take(&mut p.dropped), p.appended)
        };
        write_round(&batch, lost, out);
        batch.clear();
        let mut p = shared.lock();
        p.written = upto;
        shared.written.notify_all();
        // lines gather for a poll before the next write, unless a flush asks sooner
        if !p.urgent {
            drop(wait(&shared.wake, p, Some(POLL)));
        }
    }
}

/// Waits on `signal`, at most `limit` when given.
fn wait<'a>(
    signal: &Condvar,
    guard: MutexGuard<'a, Pending>,
    limit: Option<Duration>,
) -> MutexGuard<'a, Pending> {
    match limit {
        Some(limit) => match signal.wait_timeout(guard, limit) {
            Ok((g, _)) => g,
            Err(poisoned) => poisoned.into_inner().0,
        },
        None => signal
            .wait(guard)
            .unwrap_or_else(std::sync::PoisonError::into_inner),
    }
}

/// Writes one round's lines (and how many were dropped before it), then flushes.
fn write_round<W: Write>(batch: &[u8], lost: u64, out: &dyn Fn() -> W) {
    let mut w = out();
    let _ = w.write_all(batch);
    if lost > 0 {
        let _ = writeln!(
            w,
            "WARN boxtrack: {lost} log lines were dropped: standard error was not read fast enough"
        );
    }
    let _ = w.flush();
}

impl LogWriter {
    /// Waits (up to `limit`) until every line appended before this call is written.
    pub fn flush(&self, limit: Duration) {
        if self
            .shared
            .no_writer
            .load(std::sync::atomic::Ordering::Relaxed)
        {
            return;
        }
        let deadline = Instant::now() + limit;
        let mut p = self.shared.lock();
        let target = p.appended;
        while p.written < target {
            p.urgent = true;
            self.shared.wake.notify_one();
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return;
            }
            p = wait(&self.shared.written, p, Some(left));
        }
    }

    /// Appends one line that `write` puts at the end of the buffer it is given (dropped and
    /// counted when the buffer is full). The lock is held while `write` runs: give it a line
    /// formatted already, or one cheap to format.
    fn append(&self, write: impl FnOnce(&mut Vec<u8>)) {
        let mut p = self.shared.lock();
        if p.bytes.len() >= self.shared.capacity {
            p.dropped += 1;
            return;
        }
        write(&mut p.bytes);
        p.appended += 1;
        if p.idle {
            p.idle = false;
            self.shared.wake.notify_one();
        }
    }
}
/// The access log's lines, formatted here as the `tracing` formatter writes an event of
/// target `boxtrack::access` (text, or JSON with `--log-format json`), minus the request
/// span's prefix (the line carries the request id and route itself), and appended like every
/// other line: a request pays for a few copies into the shared buffer, not for a pass
/// through the formatter.
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

/// `YYYY-MM-DDTHH:MM:SS` of one second, kept per thread: a line's stamp is formatted once a
/// second, not once a line.
struct Second {
    at: i64,
    text: [u8; 19],
}

thread_local! {
    static SECOND: std::cell::Cell<Option<Second>> = const { std::cell::Cell::new(None) };
}

/// Appends `now` in RFC 3339, UTC, to the microsecond, as the formatter stamps its lines.
fn stamp(out: &mut Vec<u8>, now: jiff::Timestamp) {
    let at = now.as_second();
    let cached = SECOND.take().filter(|s| s.at == at);
    let second = cached.unwrap_or_else(|| {
        let whole = jiff::Timestamp::from_second(at).unwrap_or(now);
        let mut text = [b'0'; 19];
        let formatted = whole.strftime("%Y-%m-%dT%H:%M:%S").to_string();
        if formatted.len() == text.len() {
            text.copy_from_slice(formatted.as_bytes());
        }
        Second { at, text }
    });
    out.extend_from_slice(&second.text);
    SECOND.set(Some(second));
    let micros = now.subsec_microsecond().clamp(0, 999_999);
    let mut digits = [b'.', b'0', b'0', b'0', b'0', b'0', b'0', b'Z'];
    let mut n = micros;
    for d in digits[1..7].iter_mut().rev() {
        // `n % 10` is 0..=9
        *d = b'0' + (n % 10) as u8;
        n /= 10;
    }
    out.extend_from_slice(&digits);
}

/// Appends a latency in milliseconds rounded to a tenth, as `f64`'s `Display` writes it
/// (`12`, `0.3`, `100.5`), without going through `core::fmt`.
fn tenths(out: &mut Vec<u8>, ms: f64) {
    let t = (ms * 10.0).round();
    if !(0.0..1e15).contains(&t) {
        let _ = write!(out, "{ms}");
        return;
    }
    // in range: a whole number of tenths below 10^15
    let t = t as u64;
    let mut b = itoa::Buffer::new();
    out.extend_from_slice(b.format(t / 10).as_bytes());
    if !t.is_multiple_of(10) {
        out.push(b'.');
        out.push(b'0' + (t % 10) as u8);
    }
}

/// Appends `line` as a text log line (`ts  INFO boxtrack::access: request method=… …`), or as
/// the JSON object the `tracing` formatter writes, stamped `now`.
pub fn access_line(
    out: &mut Vec<u8>,
    line: &boxtrack_http::access::AccessLine<'_>,
    now: jiff::Timestamp,
    json: bool,
) {
    // the account's id, or nothing: written in place, no string made for it
    let mut id = uuid::Uuid::encode_buffer();
    let account: &str = match line.account {
        Some(a) => a.hyphenated().encode_lower(&mut id),
        None => "",
    };
    let mut status = itoa::Buffer::new();
    let status = status.format(line.status).as_bytes();
    if json {
        // the strings a client or a route can carry are written by serde_json, escaped
        out.extend_from_slice(b"{\"timestamp\":\"");
        stamp(out, now);
        out.extend_from_slice(
            b"\",\"level\":\"INFO\",\"fields\":{\"message\":\"request\",\"method\":",
        );
        let _ = serde_json::to_writer(&mut *out, line.method);
        out.extend_from_slice(b",\"route\":");
        let _ = serde_json::to_writer(&mut *out, line.route);
        out.extend_from_slice(b",\"status\":");
        out.extend_from_slice(status);
        out.extend_from_slice(b",\"latency_ms\":");
        tenths(out, line.latency_ms);
        out.extend_from_slice(b",\"account\":\"");
        out.extend_from_slice(account.as_bytes());
        out.extend_from_slice(b"\",\"request_id\":");
        let _ = serde_json::to_writer(&mut *out, line.request_id);
        out.extend_from_slice(b"},\"target\":\"boxtrack::access\"}\n");
    } else {
        stamp(out, now);
        out.extend_from_slice(b"  INFO boxtrack::access: request method=");
        out.extend_from_slice(line.method.as_bytes());
        out.extend_from_slice(b" route=");
        out.extend_from_slice(line.route.as_bytes());
        out.extend_from_slice(b" status=");
        out.extend_from_slice(status);
        out.extend_from_slice(b" latency_ms=");
        tenths(out, line.latency_ms);
        out.extend_from_slice(b" account=");
        out.extend_from_slice(account.as_bytes());
        out.extend_from_slice(b" request_id=");
        // a client's request id as it came, but for what would break the line
        let id = line.request_id;
        if id.bytes().all(|b| (0x20..0x7f).contains(&b)) {
            out.extend_from_slice(id.as_bytes());
        } else {
            for c in id.chars() {
                let c = if c.is_control() { '?' } else { c };
                let mut b = [0; 4];
                out.extend_from_slice(c.encode_utf8(&mut b).as_bytes());
            }
        }
        out.push(b'\n');
    }
}

impl boxtrack_http::access::AccessSink for AccessLines {
    fn write(&self, line: &boxtrack_http::access::AccessLine<'_>) {
        let now = jiff::Timestamp::now();
        self.writer
            .append(|out| access_line(out, line, now, self.json));
    }
}

/// When a command ends: writes out what its logs gathered (at most a couple of seconds' wait).
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
        let w = start(1 << 20, move || o.clone());
        for i in 0..1000 {
            let mut line = w.make_writer();
            // the formatter may write a line in pieces
            write!(line, "line ").unwrap();
            writeln!(line, "{i}").unwrap();
        }
        w.flush(Duration::from_secs(10));
        let got = text(&out);
        let numbers: Vec<usize> = got
            .lines()
            .map(|l| l.strip_prefix("line ").unwrap().parse().unwrap())
            .collect();
        assert_eq!(numbers, (0..1000).collect::<Vec<_>>());
    }

    #[test]
    fn a_full_buffer_drops_and_counts_instead_of_waiting() {
        // a writer whose output blocks until the test lets it go
        let gate = Arc::new(Mutex::new(()));
        let held = gate.lock().unwrap();
        let out = Shared::default();
        let (o, g) = (out.clone(), gate.clone());
        let w = start(20, move || {
            drop(g.lock().unwrap());
            o.clone()
        });
        // the writer takes the first line and blocks writing it; the flush gives up waiting
        writeln!(w.make_writer(), "line 0").unwrap();
        w.flush(Duration::from_millis(100));
        for i in 1..50 {
            writeln!(w.make_writer(), "line {i}").unwrap();
        }
        // the buffer holds three 7- or 8-byte lines; the rest were dropped at once
        assert!(w.shared.lock().dropped >= 45);
        drop(held);
        w.flush(Duration::from_secs(10));
        w.flush(Duration::from_secs(10));
        let got = text(&out);
        assert!(got.starts_with("line 0\n"), "{got}");
        let written = got.lines().filter(|l| l.starts_with("line ")).count() as u64;
        let reported: u64 = got
            .lines()
            .filter_map(|l| l.strip_prefix("WARN boxtrack: "))
            .map(|l| l.split(' ').next().unwrap().parse::<u64>().unwrap())
            .sum();
        // every line is either written or counted in a warning
        assert_eq!(written + reported, 50, "{got}");
    }

    #[test]
    fn an_idle_writer_wakes_for_the_next_line() {
        let out = Shared::default();
        let o = out.clone();
        let w = start(1 << 10, move || o.clone());
        // the writer gives up polling after a second and sleeps until a line comes
        let waited = Instant::now();
        while !w.shared.lock().idle {
            assert!(waited.elapsed() < Duration::from_secs(30), "never idle");
            std::thread::sleep(Duration::from_millis(10));
        }
        // the line alone wakes it: no flush asks
        writeln!(w.make_writer(), "late").unwrap();
        while text(&out).is_empty() {
            assert!(waited.elapsed() < Duration::from_secs(30), "never written");
            std::thread::sleep(Duration::from_millis(10));
        }
        assert_eq!(text(&out), "late\n");
    }

    #[test]
    fn latencies_read_as_f64_writes_them() {
        let mut out = Vec::new();
        for k in (0..200_000u64).chain([999_999_999, 123_456_789_012]) {
            // as `track` rounds a latency to a tenth of a millisecond
            let ms = (k as f64).round() / 10.0;
            out.clear();
            tenths(&mut out, ms);
            assert_eq!(std::str::from_utf8(&out).unwrap(), ms.to_string());
        }
        for odd in [f64::NAN, f64::INFINITY, -1.5, 1e300] {
            out.clear();
            tenths(&mut out, odd);
            assert_eq!(std::str::from_utf8(&out).unwrap(), odd.to_string());
        }
    }

    #[test]
    fn stamps_read_as_jiff_writes_them_across_seconds() {
        let mut out = Vec::new();
        let start_s = 1_764_633_599i64;
        for micros in (0..3_000_000i64).step_by(137_001) {
            let now = jiff::Timestamp::from_microsecond(start_s * 1_000_000 + micros).unwrap();
            out.clear();
            stamp(&mut out, now);
            let want = now.strftime("%Y-%m-%dT%H:%M:%S.%6fZ").to_string();
            assert_eq!(std::str::from_utf8(&out).unwrap(), want);
        }
    }

    #[test]
    fn access_lines_read_like_the_formatters_and_escape_what_a_client_sent() {
        let account = uuid::Uuid::from_u128(7);
        let line = boxtrack_http::access::AccessLine {
            method: "GET",
            route: "/v2/containers/{id}",
            status: 404,
            latency_ms: 0.3,
            account: Some(account),
            request_id: "a\"b\\c\nd",
        };
        let now = jiff::Timestamp::from_second(1_764_633_600).unwrap();
        let mut json = Vec::new();
        access_line(&mut json, &line, now, true);
        let json = String::from_utf8(json).unwrap();
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

        let anonymous = boxtrack_http::access::AccessLine {
            account: None,
            ..line
        };
        let mut text = Vec::new();
        access_line(&mut text, &anonymous, now, false);
        assert_eq!(
            String::from_utf8(text).unwrap(),
            "2025-12-02T00:00:00.000000Z  INFO boxtrack::access: request method=GET route=/v2/containers/{id} status=404 latency_ms=0.3 account= request_id=a\"b\\c?d\n"
        );
        let plain = boxtrack_http::access::AccessLine {
            request_id: "req-1",
            latency_ms: 12.0,
            status: 200,
            ..line
        };
        let mut text = Vec::new();
        access_line(&mut text, &plain, now, false);
        assert_eq!(
            String::from_utf8(text).unwrap(),
            format!(
                "2025-12-02T00:00:00.000000Z  INFO boxtrack::access: request method=GET route=/v2/containers/{{id}} status=200 latency_ms=12 account={account} request_id=req-1\n"
            )
        );
    }
}
