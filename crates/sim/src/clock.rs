//! The virtual clock, and how the simulator's answers carry it.

use std::sync::atomic::{AtomicI64, Ordering};
use std::time::Instant;

use axum::Json;
use axum::extract::State;
use axum::http::{HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use boxtrack_core::time::format_micros;
use serde_json::{Value, json};

use crate::Sim;

/// The virtual clock.
#[derive(Debug)]
pub struct Clock {
    origin_us: i64,
    started: Instant,
    speed: f64,
    offset_us: AtomicI64,
}

impl Clock {
    /// A clock at `origin_us` now, running `speed` virtual seconds per real second.
    pub(crate) fn start(origin_us: i64, speed: f64) -> Clock {
        Clock {
            origin_us,
            started: Instant::now(),
            speed,
            offset_us: AtomicI64::new(0),
        }
    }

    /// Virtual now.
    pub fn now_us(&self) -> i64 {
        let real = self.started.elapsed().as_secs_f64();
        self.origin_us + (real * self.speed * 1e6) as i64 + self.offset_us.load(Ordering::Relaxed)
    }

    /// Virtual seconds per real second.
    pub fn speed(&self) -> f64 {
        self.speed
    }

    /// Moves the clock forward.
    pub fn advance(&self, secs: i64) {
        self.offset_us
            .fetch_add(secs.saturating_mul(1_000_000), Ordering::Relaxed);
    }
}

/// The header that tells how fast the simulator's clock runs (virtual seconds per real
/// second); its answers' `Date` is the virtual time, as a real upstream's `Date` is its own.
pub const SPEED_HEADER: &str = "Sim-Clock-Speed";

/// Every answer carries the simulator's clock: `Date` in virtual time and its speed.
pub(crate) async fn stamp_clock(State(sim): State<Sim>, mut res: Response) -> Response {
    clock_headers(&sim, res.headers_mut());
    res
}

pub(crate) fn clock_headers(sim: &Sim, headers: &mut HeaderMap) {
    let clock = sim.clock();
    if let Ok(v) = HeaderValue::from_str(&boxtrack_core::time::format_http_date(clock.now_us())) {
        headers.insert(axum::http::header::DATE, v);
    }
    if let Ok(v) = HeaderValue::from_str(&clock.speed().to_string()) {
        headers.insert(SPEED_HEADER, v);
    }
}

pub(crate) async fn clock_get(State(sim): State<Sim>) -> Json<Value> {
    let now = sim.clock().now_us();
    Json(json!({"now": format_micros(now), "now_us": now, "speed": sim.clock().speed()}))
}

pub(crate) async fn clock_post(State(sim): State<Sim>, Json(body): Json<Value>) -> Response {
    match body.get("advance_secs").and_then(Value::as_i64) {
        Some(s) if s >= 0 => {
            sim.clock().advance(s);
            clock_get(State(sim)).await.into_response()
        }
        _ => (
            StatusCode::BAD_REQUEST,
            Json(json!({"error": "send {\"advance_secs\": N} with N >= 0"})),
        )
            .into_response(),
    }
}
