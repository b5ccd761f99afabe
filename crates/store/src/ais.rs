//! Vessel positions and static data received over AIS (latest per MMSI).

use crate::{Db, Result, on_tx};

/// A position report to store.
#[derive(Debug, Clone, PartialEq)]
pub struct PositionUpdate {
    /// MMSI.
    pub mmsi: i64,
    /// Latitude.
    pub latitude: Option<f64>,
    /// Longitude.
    pub longitude: Option<f64>,
    /// Speed over ground, knots.
    pub speed_knots: Option<f64>,
    /// Course over ground.
    pub course: Option<f64>,
    /// Heading.
    pub heading: Option<i32>,
    /// Navigation status.
    pub nav_status: i32,
    /// When received.
    pub at_us: i64,
}

/// Static data to store.
#[derive(Debug, Clone, PartialEq)]
pub struct StaticUpdate {
    /// MMSI.
    pub mmsi: i64,
    /// IMO number.
    pub imo: Option<String>,
    /// Name.
    pub name: String,
    /// Call sign.
    pub callsign: String,
    /// Ship type.
    pub ship_type: i32,
    /// Destination.
    pub destination: String,
    /// ETA.
    pub eta_us: Option<i64>,
    /// Draught, metres.
    pub draught_m: f64,
    /// When received.
    pub at_us: i64,
}

/// A stored vessel.
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct AisVessel {
    /// MMSI.
    pub mmsi: i64,
    /// IMO.
    pub imo: Option<String>,
    /// Name.
    pub name: Option<String>,
    /// Destination.
    pub destination: Option<String>,
    /// ETA.
    pub eta_us: Option<i64>,
    /// Latitude.
    pub latitude: Option<f64>,
    /// Longitude.
    pub longitude: Option<f64>,
    /// Speed.
    pub speed_knots: Option<f64>,
    /// Course.
    pub course: Option<f64>,
    /// Heading.
    pub heading: Option<i32>,
    /// Navigation status.
    pub nav_status: Option<i32>,
    /// Position time.
    pub position_us: Option<i64>,
}

/// Stores positions and static data in one transaction; older reports never overwrite newer.
pub async fn store(db: &Db, positions: &[PositionUpdate], statics: &[StaticUpdate]) -> Result<()> {
    let mut tx = db.begin().await?;
    for p in positions {
        on_tx!(&mut tx, c => sqlx::query(
            "INSERT INTO ais_vessels (mmsi, latitude, longitude, speed_knots, course, heading, nav_status, position_us) VALUES ($1, $2, $3, $4, $5, $6, $7, $8) \
             ON CONFLICT (mmsi) DO UPDATE SET latitude = $2, longitude = $3, speed_knots = $4, course = $5, heading = $6, nav_status = $7, position_us = $8 \
             WHERE ais_vessels.position_us IS NULL OR ais_vessels.position_us <= $8")
            .bind(p.mmsi).bind(p.latitude).bind(p.longitude).bind(p.speed_knots).bind(p.course).bind(p.heading).bind(p.nav_status).bind(p.at_us)
            .execute(c).await.map(|_| ())?);
        if let (Some(lat), Some(lon)) = (p.latitude, p.longitude) {
            // the track keeps a point unless another lies within TRACK_SPACING_US of it
            on_tx!(&mut tx, c => sqlx::query(
                "INSERT INTO ais_track (mmsi, position_us, latitude, longitude) SELECT $1, $2, $3, $4 \
                 WHERE NOT EXISTS (SELECT 1 FROM ais_track WHERE mmsi = $1 AND position_us > $5 AND position_us < $6) \
                 ON CONFLICT (mmsi, position_us) DO NOTHING")
                .bind(p.mmsi).bind(p.at_us).bind(lat).bind(lon)
                .bind(p.at_us - TRACK_SPACING_US).bind(p.at_us + TRACK_SPACING_US)
                .execute(c).await.map(|_| ())?);
        }
    }
    for s in statics {
        on_tx!(&mut tx, c => sqlx::query(
            "INSERT INTO ais_vessels (mmsi, imo, name, callsign, ship_type, destination, eta_us, draught_m, static_us) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) \
             ON CONFLICT (mmsi) DO UPDATE SET imo = $2, name = $3, callsign = $4, ship_type = $5, destination = $6, eta_us = $7, draught_m = $8, static_us = $9 \
             WHERE ais_vessels.static_us IS NULL OR ais_vessels.static_us <= $9")
            .bind(s.mmsi).bind(&s.imo).bind(&s.name).bind(&s.callsign).bind(s.ship_type).bind(&s.destination).bind(s.eta_us).bind(s.draught_m).bind(s.at_us)
            .execute(c).await.map(|_| ())?);
    }
    tx.commit().await?;
    Ok(())
}

/// The least time between two kept points of a vessel's track (10 minutes).
pub const TRACK_SPACING_US: i64 = 600_000_000;

/// A kept position of a vessel's track.
#[derive(Debug, Clone, PartialEq, sqlx::FromRow)]
pub struct TrackPoint {
    /// When.
    pub position_us: i64,
    /// Latitude.
    pub latitude: f64,
    /// Longitude.
    pub longitude: f64,
}

/// The kept positions of vessel `mmsi` from `from_us` to `to_us` (either open), oldest
/// first, at most `limit` (the newest of them when there are more).
pub async fn track(
    db: &Db,
    mmsi: i64,
    from_us: Option<i64>,
    to_us: Option<i64>,
    limit: i64,
) -> Result<Vec<TrackPoint>> {
    let mut rows: Vec<TrackPoint> = crate::on_db!(db, p => sqlx::query_as(
        "SELECT position_us, latitude, longitude FROM ais_track WHERE mmsi = $1 AND position_us >= $2 AND position_us <= $3 ORDER BY position_us DESC LIMIT $4")
        .bind(mmsi).bind(from_us.unwrap_or(i64::MIN)).bind(to_us.unwrap_or(i64::MAX)).bind(limit)
        .fetch_all(p).await?);
    rows.reverse();
    Ok(rows)
}

/// The vessel with this IMO number, when AIS has named it.
pub async fn by_imo(db: &Db, imo: &str) -> Result<Option<AisVessel>> {
    Ok(crate::on_db!(db, p => sqlx::query_as(
        "SELECT mmsi, imo, name, destination, eta_us, latitude, longitude, speed_knots, course, heading, nav_status, position_us FROM ais_vessels WHERE imo = $1 ORDER BY static_us DESC LIMIT 1")
        .bind(imo).fetch_optional(p).await?))
}

/// The vessels of tracked shipments: the IMO numbers of the vessels the shipments tracked
/// sail on (their `pod_vessel_imo`), and the MMSIs AIS static data has tied to them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TrackedVessels {
    /// IMO numbers (seven digits, as the shipments carry them).
    pub imos: Vec<String>,
    /// MMSIs whose static data named one of `imos`.
    pub mmsis: Vec<i64>,
}

/// The vessels of the shipments tracked at `now_us`, in every account: still tracked, or
/// stopped less than `milestones::REFINE_AFTER_END_US` ago (an ended journey still takes
/// refinements for that long, and the map still draws its vessel's last track).
pub async fn tracked_vessels(db: &Db, now_us: i64) -> Result<TrackedVessels> {
    const IMOS: &str = "SELECT DISTINCT state->>'pod_vessel_imo' FROM shipments WHERE (tracking_stopped_us IS NULL OR tracking_stopped_us > $1) AND state->>'pod_vessel_imo' IS NOT NULL";
    const MMSIS: &str = "SELECT v.mmsi FROM ais_vessels v WHERE v.imo IN (SELECT s.state->>'pod_vessel_imo' FROM shipments s WHERE (s.tracking_stopped_us IS NULL OR s.tracking_stopped_us > $1) AND s.state->>'pod_vessel_imo' IS NOT NULL)";
    let since = now_us.saturating_sub(boxtrack_core::tracking::milestones::REFINE_AFTER_END_US);
    let imos: Vec<String> =
        crate::on_db!(db, p => sqlx::query_scalar(IMOS).bind(since).fetch_all(p).await?);
    let mmsis: Vec<i64> =
        crate::on_db!(db, p => sqlx::query_scalar(MMSIS).bind(since).fetch_all(p).await?);
    Ok(TrackedVessels { imos, mmsis })
}
