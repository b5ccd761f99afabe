//! AIS over NMEA 0183: `!AIVDM` / `!AIVDO` sentences (any talker), checksums, multi-part
//! messages, and the Class A messages a container ship sends: position reports (types 1, 2, 3)
//! and static and voyage data (type 5: IMO number, name, destination, ETA). Also an encoder,
//! which the simulator uses; decoding what it encodes gives the same values back.

use std::collections::HashMap;

pub mod feed;
pub mod stream;

pub use feed::{Backoff, Filter, Watch, follow};

/// A sentence that cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AisError {
    /// Not an AIS sentence (a GPS sentence, a comment...): skip it quietly.
    #[error("not an AIS sentence")]
    NotAis,
    /// The checksum does not match.
    #[error("checksum mismatch: sentence says {said:02X}, computed {computed:02X}")]
    Checksum {
        /// From the sentence.
        said: u8,
        /// Computed.
        computed: u8,
    },
    /// Malformed.
    #[error("malformed sentence: {0}")]
    Malformed(String),
}

/// A Class A position report.
#[derive(Debug, Clone, PartialEq)]
pub struct Position {
    /// Message type (1, 2 or 3).
    pub msg_type: u8,
    /// Vessel MMSI.
    pub mmsi: u32,
    /// Navigation status (0 under way, 1 at anchor, 5 moored, 15 undefined...).
    pub nav_status: u8,
    /// Speed over ground in knots.
    pub speed_knots: Option<f64>,
    /// Longitude in degrees.
    pub lon: Option<f64>,
    /// Latitude in degrees.
    pub lat: Option<f64>,
    /// Course over ground in degrees.
    pub course: Option<f64>,
    /// True heading in degrees.
    pub heading: Option<u16>,
    /// UTC second of the report.
    pub second: u8,
}

/// Static and voyage data (type 5).
#[derive(Debug, Clone, PartialEq)]
pub struct StaticData {
    /// Vessel MMSI.
    pub mmsi: u32,
    /// IMO number, when sent.
    pub imo: Option<u32>,
    /// Call sign.
    pub callsign: String,
    /// Vessel name.
    pub name: String,
    /// Ship type (70-79 cargo).
    pub ship_type: u8,
    /// ETA as month, day, hour, minute (UTC, no year), when sent.
    pub eta: Option<(u8, u8, u8, u8)>,
    /// Draught in metres.
    pub draught_m: f64,
    /// Destination as typed by the crew.
    pub destination: String,
}

/// A decoded message.
#[derive(Debug, Clone, PartialEq)]
pub enum Message {
    /// Types 1, 2, 3.
    Position(Position),
    /// Type 5.
    Static(StaticData),
    /// Another type, not used by boxtrack.
    Other(u8),
}

fn checksum(body: &str) -> u8 {
    body.bytes().fold(0, |a, b| a ^ b)
}

/// Bits of an armoured payload.
struct Bits {
    bits: Vec<u8>,
}

impl Bits {
    fn from_payload(payload: &str, fill: usize) -> Result<Bits, AisError> {
        let mut bits = Vec::with_capacity(payload.len() * 6);
        for c in payload.bytes() {
            let mut v = c
                .checked_sub(48)
                .ok_or_else(|| AisError::Malformed(format!("payload character {:?}", c as char)))?;
            if v > 40 {
                v -= 8;
            }
            if v > 63 {
                return Err(AisError::Malformed(format!(
                    "payload character {:?}",
                    c as char
                )));
            }
            for i in (0..6).rev() {
                bits.push((v >> i) & 1);
            }
        }
        bits.truncate(bits.len().saturating_sub(fill));
        Ok(Bits { bits })
    }

    fn len(&self) -> usize {
        self.bits.len()
    }

    fn u(&self, start: usize, len: usize) -> u32 {
        (start..start + len).fold(0u32, |a, i| {
            (a << 1) | u32::from(self.bits.get(i).copied().unwrap_or(0))
        })
    }

    fn i(&self, start: usize, len: usize) -> i32 {
        let v = self.u(start, len);
        if len > 0 && v >> (len - 1) & 1 == 1 {
            (v as i64 - (1i64 << len)) as i32
        } else {
            v as i32
        }
    }

    fn text(&self, start: usize, chars: usize) -> String {
        let s: String = (0..chars)
            .map(|k| {
                let v = self.u(start + 6 * k, 6) as u8;
                if v < 32 { (v + 64) as char } else { v as char }
            })
            .collect();
        s.trim_end_matches(['@', ' ']).to_string()
    }
}

fn decode(bits: &Bits) -> Result<Message, AisError> {
    let t = bits.u(0, 6) as u8;
    match t {
        1..=3 => {
            if bits.len() < 149 {
                return Err(AisError::Malformed(format!(
                    "type {t} needs 168 bits, got {}",
                    bits.len()
                )));
            }
            let sog = bits.u(50, 10);
            let lon = bits.i(61, 28);
            let lat = bits.i(89, 27);
            let cog = bits.u(116, 12);
            let heading = bits.u(128, 9);
            Ok(Message::Position(Position {
                msg_type: t,
                mmsi: bits.u(8, 30),
                nav_status: bits.u(38, 4) as u8,
                speed_knots: (sog != 1023).then(|| f64::from(sog) / 10.0),
                lon: (lon != 108_600_000).then(|| f64::from(lon) / 600_000.0),
                lat: (lat != 54_600_000).then(|| f64::from(lat) / 600_000.0),
                course: (cog != 3600).then(|| f64::from(cog) / 10.0),
                heading: (heading != 511).then_some(heading as u16),
                second: bits.u(137, 6) as u8,
            }))
        }
        5 => {
            if bits.len() < 420 {
                return Err(AisError::Malformed(format!(
                    "type 5 needs 424 bits, got {}",
                    bits.len()
                )));
            }
            let imo = bits.u(40, 30);
            let (month, day, hour, minute) = (
                bits.u(274, 4) as u8,
                bits.u(278, 5) as u8,
                bits.u(283, 5) as u8,
                bits.u(288, 6) as u8,
            );
            Ok(Message::Static(StaticData {
                mmsi: bits.u(8, 30),
                imo: (imo != 0).then_some(imo),
                callsign: bits.text(70, 7),
                name: bits.text(112, 20),
                ship_type: bits.u(232, 8) as u8,
                eta: (month != 0 && day != 0 && hour < 24 && minute < 60)
                    .then_some((month, day, hour, minute)),
                draught_m: f64::from(bits.u(294, 8)) / 10.0,
                destination: bits.text(302, 20),
            }))
        }
        other => Ok(Message::Other(other)),
    }
}

/// Reassembles multi-part messages and decodes sentences one line at a time.
#[derive(Debug, Default)]
pub struct Decoder {
    pending: HashMap<(String, String), (usize, Vec<String>)>,
}

impl Decoder {
    /// A decoder with nothing pending.
    pub fn new() -> Decoder {
        Decoder::default()
    }

    /// Feeds one line. `Ok(None)` while a multi-part message is incomplete.
    pub fn feed(&mut self, line: &str) -> Result<Option<Message>, AisError> {
        let mut line = line.trim();
        // NMEA 4.0 tag block
        if let Some(rest) = line.strip_prefix('\\') {
            line = rest.split_once('\\').map_or("", |(_, s)| s);
        }
        let Some(start) = line.find(['!', '$']) else {
            return Err(AisError::NotAis);
        };
        let line = &line[start..];
        let (body, tail) = line[1..]
            .split_once('*')
            .ok_or_else(|| AisError::Malformed("no checksum".into()))?;
        let talker = body.get(..5).unwrap_or("");
        if !talker.ends_with("VDM") && !talker.ends_with("VDO") {
            return Err(AisError::NotAis);
        }
        let said = tail
            .get(..2)
            .and_then(|h| u8::from_str_radix(h, 16).ok())
            .ok_or_else(|| AisError::Malformed("checksum is not two hex digits".into()))?;
        let computed = checksum(body);
        if said != computed {
            return Err(AisError::Checksum { said, computed });
        }
        let f: Vec<&str> = body.split(',').collect();
        if f.len() < 7 {
            return Err(AisError::Malformed(format!(
                "{} fields, 7 expected",
                f.len()
            )));
        }
        let count: usize = f[1]
            .parse()
            .map_err(|_| AisError::Malformed("fragment count".into()))?;
        let number: usize = f[2]
            .parse()
            .map_err(|_| AisError::Malformed("fragment number".into()))?;
        let fill: usize = f[6].parse().unwrap_or(0);
        if count == 0 || number == 0 || number > count || count > 9 {
            return Err(AisError::Malformed(format!("fragment {number} of {count}")));
        }
        if count == 1 {
            return decode(&Bits::from_payload(f[5], fill)?).map(Some);
        }
        let key = (f[3].to_string(), f[4].to_string());
        if number == 1 {
            self.pending
                .insert(key.clone(), (count, vec![f[5].to_string()]));
        } else {
            match self.pending.get_mut(&key) {
                Some((c, parts)) if *c == count && parts.len() + 1 == number => {
                    parts.push(f[5].to_string())
                }
                _ => {
                    self.pending.remove(&key);
                    return Err(AisError::Malformed(format!(
                        "fragment {number} of {count} without the ones before it"
                    )));
                }
            }
        }
        if number == count {
            let (_, parts) = self.pending.remove(&key).unwrap_or_default();
            return decode(&Bits::from_payload(&parts.concat(), fill)?).map(Some);
        }
        Ok(None)
    }
}

/// The instant of an AIS ETA (month, day, hour, minute; no year): the first occurrence not
/// more than a day before `now_us`.
pub fn eta_us(eta: (u8, u8, u8, u8), now_us: i64) -> Option<i64> {
    let now = jiff::Timestamp::from_microsecond(now_us).ok()?;
    let year = now.to_zoned(jiff::tz::TimeZone::UTC).year();
    for y in [year, year + 1] {
        let dt =
            jiff::civil::DateTime::new(y, eta.0 as i8, eta.1 as i8, eta.2 as i8, eta.3 as i8, 0, 0)
                .ok()?;
        let us = dt
            .to_zoned(jiff::tz::TimeZone::UTC)
            .ok()?
            .timestamp()
            .as_microsecond();
        if us >= now_us - 86_400_000_000 {
            return Some(us);
        }
    }
    None
}

struct BitWriter {
    bits: Vec<u8>,
}

impl BitWriter {
    fn put(&mut self, v: u64, len: usize) {
        for i in (0..len).rev() {
            self.bits.push(((v >> i) & 1) as u8);
        }
    }

    fn put_i(&mut self, v: i64, len: usize) {
        self.put((v as u64) & ((1u64 << len) - 1), len);
    }

    fn text(&mut self, s: &str, chars: usize) {
        let mut it = s.chars();
        for _ in 0..chars {
            let c = it.next().unwrap_or('@').to_ascii_uppercase();
            let v = match c as u32 {
                64..=95 => c as u32 - 64,
                32..=63 => c as u32,
                _ => 32,
            };
            self.put(u64::from(v), 6);
        }
    }

    fn armour(&self) -> (String, usize) {
        let fill = (6 - self.bits.len() % 6) % 6;
        let mut bits = self.bits.clone();
        bits.extend(std::iter::repeat_n(0, fill));
        let s = bits
            .chunks(6)
            .map(|c| {
                let v = c.iter().fold(0u8, |a, b| (a << 1) | b);
                let v = if v > 39 { v + 8 } else { v };
                (v + 48) as char
            })
            .collect();
        (s, fill)
    }
}

fn sentences(payload: &str, fill: usize, seq: u8) -> Vec<String> {
    let parts: Vec<&str> = payload
        .as_bytes()
        .chunks(60)
        .map(|c| std::str::from_utf8(c).unwrap_or(""))
        .collect();
    let n = parts.len();
    parts
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let seq = if n > 1 {
                seq.to_string()
            } else {
                String::new()
            };
            let f = if i + 1 == n { fill } else { 0 };
            let body = format!("AIVDM,{n},{},{seq},A,{p},{f}", i + 1);
            format!("!{body}*{:02X}", checksum(&body))
        })
        .collect()
}

/// Encodes a type 1 position report as one sentence.
pub fn encode_position(p: &Position) -> String {
    let mut w = BitWriter { bits: vec![] };
    w.put(u64::from(p.msg_type), 6);
    w.put(0, 2);
    w.put(u64::from(p.mmsi), 30);
    w.put(u64::from(p.nav_status), 4);
    w.put_i(-128, 8);
    w.put(
        p.speed_knots.map_or(1023, |s| (s * 10.0).round() as u64),
        10,
    );
    w.put(0, 1);
    w.put_i(
        p.lon
            .map_or(108_600_000, |v| (v * 600_000.0).round() as i64),
        28,
    );
    w.put_i(
        p.lat.map_or(54_600_000, |v| (v * 600_000.0).round() as i64),
        27,
    );
    w.put(p.course.map_or(3600, |c| (c * 10.0).round() as u64), 12);
    w.put(p.heading.map_or(511, u64::from), 9);
    w.put(u64::from(p.second), 6);
    w.put(0, 2 + 3 + 1 + 19);
    let (payload, fill) = w.armour();
    sentences(&payload, fill, 0).remove(0)
}

/// Encodes type 5 static data as two sentences with sequence id `seq` (0-9).
pub fn encode_static(s: &StaticData, seq: u8) -> Vec<String> {
    let mut w = BitWriter { bits: vec![] };
    w.put(5, 6);
    w.put(0, 2);
    w.put(u64::from(s.mmsi), 30);
    w.put(0, 2);
    w.put(u64::from(s.imo.unwrap_or(0)), 30);
    w.text(&s.callsign, 7);
    w.text(&s.name, 20);
    w.put(u64::from(s.ship_type), 8);
    w.put(0, 9 + 9 + 6 + 6);
    w.put(1, 4);
    let (mo, d, h, mi) = s.eta.unwrap_or((0, 0, 24, 60));
    w.put(u64::from(mo), 4);
    w.put(u64::from(d), 5);
    w.put(u64::from(h), 5);
    w.put(u64::from(mi), 6);
    w.put((s.draught_m * 10.0).round() as u64, 8);
    w.text(&s.destination, 20);
    w.put(0, 2);
    let (payload, fill) = w.armour();
    sentences(&payload, fill, seq % 10)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decode_file(text: &str) -> (Vec<Message>, usize) {
        let mut d = Decoder::new();
        let mut out = vec![];
        let mut errors = 0;
        for line in text.lines() {
            if line.starts_with('#') || line.trim().is_empty() {
                continue;
            }
            match d.feed(line) {
                Ok(Some(m)) => out.push(m),
                Ok(None) | Err(AisError::NotAis) => {}
                Err(_) => errors += 1,
            }
        }
        (out, errors)
    }

    #[test]
    fn decodes_the_gpsd_sample_like_gpsd() {
        let (msgs, errors) = decode_file(include_str!("../../../fixtures/ais/sample.aivdm"));
        assert_eq!(errors, 0);
        let expected: Vec<serde_json::Value> =
            include_str!("../../../fixtures/ais/sample.aivdm.js.chk")
                .lines()
                .filter_map(|l| serde_json::from_str(l).ok())
                .collect();
        let want: Vec<&serde_json::Value> = expected
            .iter()
            .filter(|v| matches!(v["type"].as_u64(), Some(1 | 2 | 3 | 5)))
            .collect();
        let got: Vec<&Message> = msgs
            .iter()
            .filter(|m| !matches!(m, Message::Other(_)))
            .collect();
        assert_eq!(got.len(), want.len());
        let close = |a: Option<f64>, b: &serde_json::Value| match (a, b.as_f64()) {
            (Some(a), Some(b)) => (a - b).abs() < 1e-6,
            (None, _) => true,
            _ => false,
        };
        for (g, w) in got.iter().zip(want) {
            match g {
                Message::Position(p) => {
                    assert_eq!(u64::from(p.mmsi), w["mmsi"].as_u64().unwrap());
                    assert_eq!(u64::from(p.nav_status), w["status"].as_u64().unwrap());
                    assert!(
                        close(p.lat, &w["lat"]) && close(p.lon, &w["lon"]),
                        "{p:?} {w}"
                    );
                    assert!(
                        close(p.speed_knots, &w["speed"]) && close(p.course, &w["course"]),
                        "{p:?} {w}"
                    );
                    assert_eq!(
                        p.heading.map_or(511, u64::from),
                        w["heading"].as_u64().unwrap()
                    );
                }
                Message::Static(s) => {
                    assert_eq!(u64::from(s.mmsi), w["mmsi"].as_u64().unwrap());
                    assert_eq!(u64::from(s.imo.unwrap_or(0)), w["imo"].as_u64().unwrap());
                    assert_eq!(s.name, w["shipname"].as_str().unwrap());
                    assert_eq!(s.callsign, w["callsign"].as_str().unwrap());
                    assert_eq!(s.destination, w["destination"].as_str().unwrap());
                    assert!((s.draught_m - w["draught"].as_f64().unwrap()).abs() < 1e-9);
                    let eta = s
                        .eta
                        .map(|(m, d, h, mi)| format!("{m:02}-{d:02}T{h:02}:{mi:02}Z"));
                    if let Some(eta) = eta {
                        assert_eq!(eta, w["eta"].as_str().unwrap());
                    }
                }
                Message::Other(_) => {}
            }
        }
        let ever = msgs.iter().find_map(|m| match m {
            Message::Static(s) if s.imo == Some(9_134_270) => Some(s.clone()),
            _ => None,
        });
        let ever = ever.unwrap();
        assert_eq!(
            (ever.name.as_str(), ever.destination.as_str()),
            ("EVER DIADEM", "NEW YORK")
        );
    }

    #[test]
    fn bad_checksums_and_other_sentences() {
        let mut d = Decoder::new();
        assert!(matches!(
            d.feed("!AIVDM,1,1,,A,15RTgt0PAso;90TKcjM8h6g208CQ,0*4B"),
            Err(AisError::Checksum { .. })
        ));
        assert_eq!(
            d.feed("$GPGGA,123519,4807.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,*47"),
            Err(AisError::NotAis)
        );
        assert!(matches!(
            d.feed("!AIVDM,2,2,3,A,88888888880,2*26"),
            Err(AisError::Malformed(_)) | Err(AisError::Checksum { .. })
        ));
    }

    #[test]
    fn encode_then_decode() {
        let p = Position {
            msg_type: 1,
            mmsi: 477_123_456,
            nav_status: 0,
            speed_knots: Some(18.4),
            lon: Some(-118.25),
            lat: Some(33.7333),
            course: Some(271.5),
            heading: Some(270),
            second: 12,
        };
        let mut d = Decoder::new();
        match d.feed(&encode_position(&p)).unwrap() {
            Some(Message::Position(q)) => {
                assert_eq!(
                    (q.mmsi, q.heading, q.speed_knots, q.course),
                    (p.mmsi, p.heading, p.speed_knots, p.course)
                );
                assert!(
                    (q.lat.unwrap() - 33.7333).abs() < 1e-5
                        && (q.lon.unwrap() + 118.25).abs() < 1e-5
                );
            }
            other => panic!("{other:?}"),
        }
        let s = StaticData {
            mmsi: 477_123_456,
            imo: Some(9_352_004),
            callsign: "VRAB3".into(),
            name: "BOXTRACK EXPRESS".into(),
            ship_type: 70,
            eta: Some((3, 14, 6, 30)),
            draught_m: 13.2,
            destination: "USLAX".into(),
        };
        let lines = encode_static(&s, 4);
        assert_eq!(lines.len(), 2);
        assert_eq!(d.feed(&lines[0]).unwrap(), None);
        assert_eq!(d.feed(&lines[1]).unwrap(), Some(Message::Static(s)));
    }

    #[test]
    fn eta_is_the_next_occurrence() {
        let now = boxtrack_core::time::parse_micros("2026-12-20T00:00:00Z").unwrap();
        let f = |e| boxtrack_core::time::format_micros(eta_us(e, now).unwrap());
        assert_eq!(f((1, 5, 10, 0)), "2027-01-05T10:00:00Z");
        assert_eq!(f((12, 24, 0, 0)), "2026-12-24T00:00:00Z");
        assert_eq!(eta_us((2, 30, 0, 0), now), None);
    }
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

/// A position report as stored, received at `at_us`.
pub fn position_update(p: &Position, at_us: i64) -> boxtrack_store::ais::PositionUpdate {
    boxtrack_store::ais::PositionUpdate {
        mmsi: i64::from(p.mmsi),
        latitude: p.lat,
        longitude: p.lon,
        speed_knots: p.speed_knots,
        course: p.course,
        heading: p.heading.map(i32::from),
        nav_status: i32::from(p.nav_status),
        at_us,
    }
}

/// Static data as stored, received at `at_us` (the ETA's year the next occurrence).
pub fn static_update(s: StaticData, at_us: i64) -> boxtrack_store::ais::StaticUpdate {
    boxtrack_store::ais::StaticUpdate {
        mmsi: i64::from(s.mmsi),
        imo: s.imo.map(|i| format!("{i:07}")),
        name: s.name,
        callsign: s.callsign,
        ship_type: i32::from(s.ship_type),
        destination: s.destination,
        eta_us: s.eta.and_then(|e| eta_us(e, at_us)),
        draught_m: s.draught_m,
        at_us,
    }
}

/// What feeding AIS sentences did.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
pub struct AisReport {
    /// AIS sentences read.
    pub sentences: usize,
    /// Position reports stored.
    pub positions: usize,
    /// Static data messages stored.
    pub statics: usize,
    /// Sentences refused (checksum, malformed).
    pub errors: usize,
    /// Lines that were not AIS (GPS sentences, comments).
    pub skipped: usize,
    /// Position reports of vessels no tracked shipment sails on, not stored.
    #[serde(skip_serializing_if = "is_zero")]
    pub ignored: usize,
    /// The refused sentences as refusals to count (`Upstreams::refused`): the sentence, a
    /// reason code (`ais_checksum`, `ais_malformed`) and the reason.
    #[serde(skip)]
    pub refused: Vec<(String, &'static str, String)>,
}

/// Decodes lines and stores what they say (latest per vessel), received at `at_us`.
pub async fn ingest_lines<'a>(
    db: &boxtrack_store::Db,
    decoder: &mut Decoder,
    lines: impl Iterator<Item = &'a str>,
    at_us: i64,
) -> Result<AisReport, boxtrack_store::StoreError> {
    ingest_lines_watched(db, decoder, lines, at_us, &mut Watch::all()).await
}

/// [`ingest_lines`] keeping the positions of the vessels `watch` keeps (and teaching it the
/// MMSIs of tracked IMO numbers as static data names them).
pub async fn ingest_lines_watched<'a>(
    db: &boxtrack_store::Db,
    decoder: &mut Decoder,
    lines: impl Iterator<Item = &'a str>,
    at_us: i64,
    watch: &mut Watch,
) -> Result<AisReport, boxtrack_store::StoreError> {
    use boxtrack_store::ais::{PositionUpdate, StaticUpdate};
    let mut report = AisReport::default();
    let mut positions: HashMap<u32, PositionUpdate> = HashMap::new();
    let mut statics: HashMap<u32, StaticUpdate> = HashMap::new();
    for line in lines {
        if line.trim().is_empty() || line.starts_with('#') {
            continue;
        }
        match decoder.feed(line) {
            Ok(m) => {
                report.sentences += 1;
                match m {
                    Some(Message::Position(p)) => {
                        if watch.keeps_position(p.mmsi) {
                            positions.insert(p.mmsi, position_update(&p, at_us));
                        } else {
                            report.ignored += 1;
                        }
                    }
                    Some(Message::Static(s)) => {
                        let mmsi = s.mmsi;
                        let update = static_update(s, at_us);
                        watch.learn(mmsi, update.imo.as_deref());
                        statics.insert(mmsi, update);
                    }
                    _ => {}
                }
            }
            Err(AisError::NotAis) => report.skipped += 1,
            Err(e) => {
                report.errors += 1;
                let code = match e {
                    AisError::Checksum { .. } => "ais_checksum",
                    _ => "ais_malformed",
                };
                report.refused.push((line.to_string(), code, e.to_string()));
            }
        }
    }
    report.positions = positions.len();
    report.statics = statics.len();
    let positions: Vec<PositionUpdate> = positions.into_values().collect();
    let statics: Vec<StaticUpdate> = statics.into_values().collect();
    boxtrack_store::ais::store(db, &positions, &statics).await?;
    Ok(report)
}
