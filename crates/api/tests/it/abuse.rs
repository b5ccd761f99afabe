//! Clients that hold the server's resources: slow heads, slow bodies, floods of idle sockets.
//! Each must cost the server a bounded amount and leave it serving everyone else.

use std::time::Duration;

use boxtrack_api::listen::Connections;
use boxtrack_api::{ApiConfig, Limiter};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use crate::helpers::{TestApp, fresh_db};

/// Longest any step here may take before the test fails (the limits under test are seconds).
const PATIENCE: Duration = Duration::from_secs(60);

async fn app(conns: Connections, request_timeout: Duration) -> TestApp {
    let (db, database) = fresh_db().await;
    let config = ApiConfig {
        request_timeout,
        ..ApiConfig::default()
    };
    let mut app = TestApp::spawn_listening(db, Limiter::memory(), config, conns).await;
    app.keep(database);
    app
}

fn addr(app: &TestApp) -> String {
    app.base.trim_start_matches("http://").to_string()
}

/// Everything the server sends on `stream` until it closes it.
async fn read_to_close(stream: &mut TcpStream) -> String {
    let mut got = Vec::new();
    tokio::time::timeout(PATIENCE, stream.read_to_end(&mut got))
        .await
        .expect("the server closes the connection")
        .ok();
    String::from_utf8_lossy(&got).into_owned()
}

#[tokio::test]
async fn a_slow_head_and_an_idle_connection_are_closed_after_the_header_timeout() {
    let app = app(
        Connections {
            header_timeout: Duration::from_secs(1),
            ..Connections::default()
        },
        Duration::from_secs(30),
    )
    .await;
    // half a request head, then nothing
    let mut slow = TcpStream::connect(addr(&app)).await.unwrap();
    slow.write_all(b"GET /v2/health HTTP/1.1\r\nhost: x\r\n")
        .await
        .unwrap();
    // nothing at all
    let mut idle = TcpStream::connect(addr(&app)).await.unwrap();
    // a request answered, then the connection left open
    let mut kept = TcpStream::connect(addr(&app)).await.unwrap();
    kept.write_all(b"GET /healthz HTTP/1.1\r\nhost: x\r\n\r\n")
        .await
        .unwrap();

    assert!(
        !read_to_close(&mut slow).await.contains("200 OK"),
        "an unfinished head is never answered"
    );
    assert_eq!(read_to_close(&mut idle).await, "");
    let answered = read_to_close(&mut kept).await;
    assert!(answered.starts_with("HTTP/1.1 200"), "{answered}");
    assert!(app.metrics.header_timeouts() >= 2);
    // every connection was let go, and the server still answers
    let r = app.send(app.client.get(app.url("/healthz"))).await;
    assert_eq!(r.status, 200);
}

#[tokio::test]
async fn a_slow_body_is_answered_503_within_the_request_timeout() {
    let app = app(Connections::default(), Duration::from_secs(1)).await;
    let (_, key) = app.account().await;
    let mut s = TcpStream::connect(addr(&app)).await.unwrap();
    let head = format!(
        "POST /v2/tracking_requests HTTP/1.1\r\nhost: x\r\nauthorization: Token {key}\r\n\
         content-type: application/vnd.api+json\r\ncontent-length: 400\r\n\r\n{{\"data\":"
    );
    s.write_all(head.as_bytes()).await.unwrap();
    // answered while the body is still owed, and the connection closed
    let answer = read_to_close(&mut s).await;
    assert!(answer.starts_with("HTTP/1.1 503"), "{answer}");
    assert!(answer.contains("\"code\":\"request_timeout\""), "{answer}");
    assert!(answer.contains("application/vnd.api+json"), "{answer}");
    let listed = app
        .send(
            app.client
                .get(app.url("/v2/tracking_requests"))
                .header("authorization", format!("Token {key}")),
        )
        .await;
    assert_eq!(listed.status, 200);
    assert_eq!(
        listed.json()["data"],
        serde_json::json!([]),
        "nothing was accepted"
    );
}

#[tokio::test]
async fn a_flood_of_idle_sockets_is_capped_and_refused_with_a_503() {
    const CAP: usize = 16;
    const SOCKETS: usize = 200;
    let app = app(
        Connections {
            header_timeout: Duration::from_secs(2),
            max_connections: CAP,
            ..Connections::default()
        },
        Duration::from_secs(30),
    )
    .await;
    let mut sockets = Vec::new();
    for _ in 0..SOCKETS {
        sockets.push(TcpStream::connect(addr(&app)).await.unwrap());
    }
    let reads = sockets.into_iter().map(|mut s| {
        let metrics = app.metrics.clone();
        tokio::spawn(async move {
            let got = read_to_close(&mut s).await;
            assert!(metrics.connections_open() <= CAP as u64);
            got
        })
    });
    let mut refused = 0;
    let mut held = 0;
    for r in reads {
        let got = r.await.unwrap();
        if got.is_empty() {
            held += 1;
        } else {
            assert!(got.starts_with("HTTP/1.1 503"), "{got}");
            assert!(got.contains("retry-after: 1"), "{got}");
            assert!(got.contains("\"code\":\"connection_limit\""), "{got}");
            refused += 1;
        }
    }
    assert_eq!(held + refused, SOCKETS);
    assert!(held >= CAP, "{held} held");
    assert!(refused >= SOCKETS / 2, "{refused} refused");
    assert_eq!(app.metrics.connections_refused(), refused as u64);
    // the idle ones timed out and gave their places back
    let r = app.send(app.client.get(app.url("/healthz"))).await;
    assert_eq!(r.status, 200);
    let text = app.send(app.client.get(app.url("/metrics"))).await.text;
    assert!(
        text.contains(&format!(
            "boxtrack_http_connections_refused_total {refused}"
        )),
        "{text}"
    );
}
