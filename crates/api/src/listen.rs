//! The accept loop: HTTP/1.1 connections served by hyper with a header read timeout and a cap
//! on open connections, so slow or idle clients cannot hold the process's descriptors.
//!
//! - A client has [`Connections::header_timeout`] to send a request's head, from the moment
//!   the connection opens or the previous response was written (so an idle keep-alive
//!   connection is closed after that long too). The body is read inside the request, under
//!   the request timeout ([`crate::ApiConfig::request_timeout`]).
//! - At most [`Connections::max_connections`] connections are served at once; one more is
//!   answered a JSON:API 503 (`connection_limit`, `Retry-After: 1`) and closed, without its
//!   request being read, so a flood of sockets costs a descriptor for a moment each.
//! - Each request carries its peer's address as [`axum::extract::ConnectInfo`].
//! - When `shutdown` fires, the listener closes, idle connections close at once and busy ones
//!   after their response.

use std::sync::Arc;
use std::time::Duration;

use axum::body::Body;
use axum::extract::ConnectInfo;
use hyper::body::Incoming;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::server::graceful::GracefulShutdown;
use hyper_util::service::TowerToHyperService;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::Semaphore;
use tokio_util::sync::CancellationToken;
use tower::ServiceExt;

use boxtrack_http::error::ApiError;
use boxtrack_http::metrics::Metrics;
use boxtrack_views::jsonapi;

/// Default seconds a client has to send a request's head (and an idle connection stays open).
pub const DEFAULT_HEADER_TIMEOUT: Duration = Duration::from_secs(10);
/// Default cap on connections served at once.
pub const DEFAULT_MAX_CONNECTIONS: usize = 4096;
/// Connections over the cap being answered at once; past this they are closed unanswered.
const REFUSING_AT_ONCE: usize = 256;
/// How long a refused connection may take to take its answer.
const REFUSE_LINGER: Duration = Duration::from_secs(1);

/// Descriptors a process keeps for everything but client connections: its database pool,
/// upstream and webhook requests, answers to refused connections, files.
pub const RESERVED_DESCRIPTORS: u64 = 512;

/// The connection cap to serve with when `wanted` are asked for and the process may open
/// `open_files` descriptors (`None`: no limit): low enough that the cap, answered with a 503,
/// is reached before the process runs out of descriptors (at which point it could neither
/// accept nor answer). Never below one.
pub fn connection_cap(wanted: usize, open_files: Option<u64>) -> usize {
    let Some(limit) = open_files else {
        return wanted.max(1);
    };
    let room = if limit > 2 * RESERVED_DESCRIPTORS {
        limit - RESERVED_DESCRIPTORS
    } else {
        limit / 2
    };
    wanted
        .min(usize::try_from(room).unwrap_or(usize::MAX))
        .max(1)
}

/// How the listener treats connections.
#[derive(Clone)]
pub struct Connections {
    /// Longest time to receive a request's head, and to wait on an idle connection.
    pub header_timeout: Duration,
    /// Most connections served at once.
    pub max_connections: usize,
    /// Where open connections and refusals are counted (`/metrics`).
    pub metrics: Option<Arc<Metrics>>,
}

impl Default for Connections {
    fn default() -> Self {
        Connections {
            header_timeout: DEFAULT_HEADER_TIMEOUT,
            max_connections: DEFAULT_MAX_CONNECTIONS,
            metrics: None,
        }
    }
}

/// The answer to a connection over the cap: a JSON:API 503 that closes the connection.
fn refusal() -> Vec<u8> {
    let error = ApiError::new(
        axum::http::StatusCode::SERVICE_UNAVAILABLE,
        "The server has as many connections open as it serves at once; retry in a second.",
    )
    .with_code("connection_limit");
    let body = String::from_utf8_lossy(&error.body()).into_owned();
    format!(
        "HTTP/1.1 503 Service Unavailable\r\ncontent-type: {}\r\ncontent-length: {}\r\nretry-after: 1\r\nconnection: close\r\n\r\n{body}",
        jsonapi::MEDIA_TYPE,
        body.len()
    )
    .into_bytes()
}

/// Answers `stream` the refusal, then reads what the client sent for a moment (closing a socket
/// with unread input would reset it before the client reads the answer).
async fn refuse(mut stream: TcpStream) {
    let answer = async {
        stream.write_all(&refusal()).await?;
        stream.shutdown().await?;
        let mut sink = [0u8; 4096];
        while stream.read(&mut sink).await? > 0 {}
        Ok::<_, std::io::Error>(())
    };
    let _ = tokio::time::timeout(REFUSE_LINGER, answer).await;
}

/// Accept errors that concern one connection (the loop goes on at once) rather than the
/// listener (descriptors exhausted: the loop pauses).
fn is_connection_error(e: &std::io::Error) -> bool {
    use std::io::ErrorKind::*;
    matches!(
        e.kind(),
        ConnectionRefused | ConnectionAborted | ConnectionReset
    )
}

/// What the listener serves: the whole service ([`crate::App`]) or a plain `Router` (a worker
/// process's health routes).
pub trait Served:
    tower::Service<
        axum::extract::Request,
        Response = axum::response::Response,
        Error = std::convert::Infallible,
        Future: Send,
    > + Clone
    + Send
    + Sync
    + 'static
{
}

impl<S> Served for S where
    S: tower::Service<
            axum::extract::Request,
            Response = axum::response::Response,
            Error = std::convert::Infallible,
            Future: Send,
        > + Clone
        + Send
        + Sync
        + 'static
{
}

/// Serves `app` on `listener` with the limits of `conns` until `shutdown` is cancelled, then
/// finishes the requests in flight.
pub async fn serve_with<S: Served>(
    listener: TcpListener,
    app: S,
    shutdown: CancellationToken,
    conns: Connections,
) -> std::io::Result<()> {
    let open = Arc::new(Semaphore::new(conns.max_connections.max(1)));
    let refusing = Arc::new(Semaphore::new(REFUSING_AT_ONCE));
    let graceful = GracefulShutdown::new();
    let timer = TokioTimer::new();
    loop {
        let (stream, peer) = tokio::select! {
            _ = shutdown.cancelled() => break,
            accepted = listener.accept() => match accepted {
                Ok(a) => a,
                Err(e) if is_connection_error(&e) => continue,
                Err(e) => {
                    tracing::error!(error = %e, "accepting connections failed; pausing a second");
                    tokio::time::sleep(Duration::from_secs(1)).await;
                    continue;
                }
            },
        };
        let Ok(permit) = open.clone().try_acquire_owned() else {
            if let Some(m) = &conns.metrics {
                m.record_connection_refused();
            }
            if let Ok(p) = refusing.clone().try_acquire_owned() {
                tokio::spawn(async move {
                    refuse(stream).await;
                    drop(p);
                });
            }
            continue;
        };
        let _ = stream.set_nodelay(true);
        let service = app
            .clone()
            .map_request(move |mut req: axum::http::Request<Incoming>| {
                req.extensions_mut().insert(ConnectInfo(peer));
                req.map(Body::new)
            });
        let conn = hyper::server::conn::http1::Builder::new()
            .timer(timer.clone())
            .header_read_timeout(conns.header_timeout)
            .serve_connection(TokioIo::new(stream), TowerToHyperService::new(service));
        let conn = graceful.watch(conn);
        let metrics = conns.metrics.clone();
        if let Some(m) = &metrics {
            m.connection_opened();
        }
        tokio::spawn(async move {
            if let Err(e) = conn.await {
                if e.is_timeout()
                    && let Some(m) = &metrics
                {
                    m.record_header_timeout();
                }
                tracing::debug!(error = %e, %peer, "connection ended with an error");
            }
            if let Some(m) = &metrics {
                m.connection_closed();
            }
            drop(permit);
        });
    }
    drop(listener);
    graceful.shutdown().await;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cap_leaves_descriptors_for_the_rest_of_the_process() {
        assert_eq!(connection_cap(4096, None), 4096);
        assert_eq!(connection_cap(4096, Some(1_048_576)), 4096);
        assert_eq!(connection_cap(4096, Some(1024)), 512);
        assert_eq!(connection_cap(4096, Some(20_000)), 4096);
        assert_eq!(connection_cap(20_000, Some(20_000)), 19_488);
        assert_eq!(connection_cap(100, Some(256)), 100);
        assert_eq!(connection_cap(1000, Some(256)), 128);
        assert_eq!(connection_cap(0, Some(0)), 1);
    }
}
