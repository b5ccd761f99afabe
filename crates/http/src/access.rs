//! The access log: a line per request (method, route template, status, latency, account,
//! request id; target `boxtrack::access`).
//!
//! A process may give the state an [`AccessSink`] that formats and queues the line itself:
//! the binary does, so that a line costs one small buffer and a queue send rather than a
//! `tracing` event through the formatter (the event's field visits, the request span's
//! context, the timestamp's formatting), which made logging at `info` cost about a third of
//! a `GET /healthz` (BENCHMARKS.md). Without a sink, and for answers of 500 and above
//! (logged as warnings), the line is a `tracing` event. Either way the log level decides:
//! the sink writes only while `boxtrack::access` is enabled at `info`.

use axum::extract::MatchedPath;
use axum::http::HeaderValue;
use uuid::Uuid;

tokio::task_local! {
    /// The id of the request the current task is handling.
    static REQUEST_ID: HeaderValue;
}

/// Runs `answer` as the handling of the request `id`: a log line written while it runs can
/// name the request ([`request_id`]).
pub fn in_request<F: std::future::Future>(
    id: HeaderValue,
    answer: F,
) -> impl std::future::Future<Output = F::Output> {
    REQUEST_ID.scope(id, answer)
}

/// Calls `f` with the id of the request being handled, if any (outside [`in_request`], or in a
/// task it spawned, there is none). An id that is not visible ASCII is given as `?`.
pub fn request_id<R>(f: impl FnOnce(&str) -> R) -> Option<R> {
    REQUEST_ID.try_with(|id| f(id.to_str().unwrap_or("?"))).ok()
}

/// One request, as its access line says it.
#[derive(Debug, Clone, Copy)]
pub struct AccessLine<'a> {
    /// `GET`, `POST`, ….
    pub method: &'a str,
    /// The matched route template (`/v2/containers/{id}`), or `unmatched`: never the path or
    /// its query, so no token in a query string reaches the log.
    pub route: &'a str,
    /// The answer's status.
    pub status: u16,
    /// Milliseconds from the request to the answer, to a tenth.
    pub latency_ms: f64,
    /// The account that made it, when it was authenticated.
    pub account: Option<Uuid>,
    /// Its `X-Request-Id`.
    pub request_id: &'a str,
}

/// Where access lines go, when not through `tracing`.
pub trait AccessSink: Send + Sync + std::fmt::Debug {
    /// Writes one line (called only while `boxtrack::access` is enabled at `info`).
    fn write(&self, line: &AccessLine<'_>);
}

/// The account of an access line, written as it is formatted (empty for none).
struct Account(Option<Uuid>);

impl std::fmt::Display for Account {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.0 {
            Some(a) => a.fmt(f),
            None => Ok(()),
        }
    }
}

/// Logs `line`: through `sink` when there is one and the answer is not a server error, else
/// as a `tracing` event (a warning for 500 and above).
pub fn log(sink: Option<&dyn AccessSink>, line: &AccessLine<'_>) {
    let AccessLine {
        method,
        route,
        status,
        latency_ms,
        account,
        request_id,
    } = *line;
    let account = Account(account);
    if status >= 500 {
        tracing::warn!(target: "boxtrack::access", %method, %route, status, latency_ms, %account, %request_id, "request");
        return;
    }
    match sink {
        Some(s) => {
            if tracing::enabled!(target: "boxtrack::access", tracing::Level::INFO) {
                s.write(line);
            }
        }
        None => {
            tracing::info!(target: "boxtrack::access", %method, %route, status, latency_ms, %account, %request_id, "request");
        }
    }
}

/// Who a request acted for, filled in by whatever authenticates it (API key, OAuth token,
/// console session), and the route it matched, filled in once the router has matched it; read
/// by the access log once the response is ready. Only code sets request extensions, so a
/// client cannot forge it.
#[derive(Debug, Clone, Default)]
pub struct AccessNote(std::sync::Arc<Noted>);

/// What an [`AccessNote`] holds.
#[derive(Debug, Default)]
struct Noted {
    account: std::sync::Mutex<Option<uuid::Uuid>>,
    route: std::sync::OnceLock<MatchedPath>,
}

impl AccessNote {
    /// Records the account the request acts for.
    pub fn set_account(&self, id: uuid::Uuid) {
        if let Ok(mut slot) = self.0.account.lock() {
            *slot = Some(id);
        }
    }

    /// The account recorded, if any.
    pub fn account(&self) -> Option<uuid::Uuid> {
        self.0.account.lock().ok().and_then(|slot| *slot)
    }

    /// Records the route template the request matched (the first one recorded stays).
    pub fn set_route(&self, route: &MatchedPath) {
        let _ = self.0.route.set(route.clone());
    }

    /// The route template recorded, if any.
    pub fn route(&self) -> Option<&MatchedPath> {
        self.0.route.get()
    }
}

/// Records the route a request matched in its [`AccessNote`] (for its access line and its
/// count), from the router's [`MatchedPath`]: called by what runs once the router has matched
/// the request (the REST service's request shape check on every route, the answer to a method a
/// route does not take).
pub fn note_route(extensions: &axum::http::Extensions) {
    if let (Some(note), Some(route)) = (
        extensions.get::<AccessNote>(),
        extensions.get::<MatchedPath>(),
    ) {
        note.set_route(route);
    }
}

/// Records the account of a request in its [`AccessNote`], when the request carries one.
pub fn note_account(extensions: &axum::http::Extensions, id: uuid::Uuid) {
    if let Some(n) = extensions.get::<AccessNote>() {
        n.set_account(id);
    }
}
