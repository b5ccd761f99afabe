//! Terminal availability feeds. Terminals share no standard, so boxtrack defines one JSON
//! shape (documented in `docs/terminal-feed.md`) and polls it per terminal:
//! `GET {base}/containers/{number}` answers a [`TerminalStatus`], or 404 while the container
//! is not at the terminal.

use boxtrack_core::time::parse_micros;
use boxtrack_core::tracking::{
    DataSource, EventFact, Fact, Fee, Hold, LfdKind, Milestone, Observation, Place, Precision,
};
use serde::Serialize;

/// What a terminal's availability feed says about one container (the documented shape; see
/// `docs/terminal-feed.md`).
#[derive(Debug, Clone, Serialize, serde::Deserialize, PartialEq, Eq)]
pub struct TerminalStatus {
    /// Container number.
    pub container_number: String,
    /// Terminal (FIRMS or SMDG code).
    pub terminal: String,
    /// When it was discharged.
    pub discharged_at: Option<String>,
    /// Released for pickup.
    pub available_for_pickup: bool,
    /// When it became available for pickup (or stopped being), if the terminal says:
    /// the `available` event is stamped with it, not with the time of the answer.
    #[serde(default)]
    pub available_at: Option<String>,
    /// Active holds.
    pub holds: Vec<FeedHold>,
    /// Fees due.
    pub fees: Vec<FeedFee>,
    /// Last free day (end of the free time), RFC 3339.
    pub last_free_day: Option<String>,
    /// Pickup appointment, RFC 3339.
    pub pickup_appointment_at: Option<String>,
    /// Yard location.
    pub yard_location: Option<String>,
    /// When it left full, RFC 3339.
    pub full_out_at: Option<String>,
    /// Chassis it left on.
    pub full_out_chassis_number: Option<String>,
    /// When the terminal produced this answer.
    pub as_of: String,
}

/// A hold in the feed.
#[derive(Debug, Clone, Serialize, serde::Deserialize, PartialEq, Eq)]
pub struct FeedHold {
    /// `customs`, `freight`, `USDA`, `TMF`, `other`.
    pub name: String,
    /// `hold` or `pending`.
    pub status: String,
    /// Terminal text.
    pub description: Option<String>,
}

/// A fee in the feed.
#[derive(Debug, Clone, Serialize, serde::Deserialize, PartialEq, Eq)]
pub struct FeedFee {
    /// `demurrage`, `extended_dwell_time`, `exam`, `other`.
    #[serde(rename = "type")]
    pub kind: String,
    /// Amount in minor units (cents).
    pub amount_minor: i64,
    /// ISO 4217.
    pub currency_code: String,
}

/// What of a feed answer cannot be used, as `(key, reason code, reason)` for the source's
/// refusal counts: fees whose currency is no ISO 4217 code (their amount means nothing; the
/// merge drops them). Fee types and hold names outside the contract are mapped, not refused.
pub fn refusals(s: &TerminalStatus) -> Vec<(String, &'static str, String)> {
    s.fees
        .iter()
        .filter(|f| boxtrack_core::tracking::rules::currency_code(&f.currency_code).is_none())
        .map(|f| {
            (
                format!("{}:fee:{}:{}", s.as_of, f.kind, f.currency_code),
                "bad_currency",
                format!(
                    "fee {:?} of {} in {:?}: not an ISO 4217 currency code",
                    f.kind, f.amount_minor, f.currency_code
                ),
            )
        })
        .collect()
}

/// Maps a feed answer to observations (`observed_us`: the answer's `as_of`).
pub fn map(s: &TerminalStatus, pod_locode: Option<&str>) -> Vec<Observation> {
    let observed_us = parse_micros(&s.as_of).unwrap_or(0);
    let fact = |fact: Fact| Observation {
        observed_us,
        source: DataSource::Terminal,
        fact,
        precision: Default::default(),
        upstream_id: None,
    };
    let mut out = vec![
        fact(Fact::PodTerminal {
            code: Some(s.terminal.clone()),
        }),
        fact(Fact::Availability {
            available: s.available_for_pickup,
            at_us: s.available_at.as_deref().and_then(parse_micros),
        }),
        fact(Fact::Holds {
            holds: s
                .holds
                .iter()
                .map(|h| Hold {
                    name: h.name.clone(),
                    status: h.status.clone(),
                    description: h.description.clone(),
                })
                .collect(),
        }),
        fact(Fact::Fees {
            fees: s
                .fees
                .iter()
                .map(|f| Fee {
                    kind: f.kind.clone(),
                    amount_minor: f.amount_minor,
                    currency_code: f.currency_code.clone(),
                })
                .collect(),
        }),
        // a last free day is a date
        Observation {
            precision: Precision::Day,
            ..fact(Fact::Lfd {
                which: LfdKind::Terminal,
                at_us: s.last_free_day.as_deref().and_then(parse_micros),
            })
        },
        fact(Fact::Appointment {
            at_us: s.pickup_appointment_at.as_deref().and_then(parse_micros),
        }),
        fact(Fact::YardLocation {
            location: s.yard_location.clone(),
        }),
    ];
    let zone = pod_locode.and_then(crate::x12::map::zone_of_locode);
    let event = |m: Milestone, at: i64| {
        fact(Fact::Event(EventFact {
            milestone: m,
            estimated: false,
            at_us: Some(at),
            place: Place::Pod,
            locode: pod_locode.map(str::to_string),
            timezone: zone.clone(),
            terminal: Some(s.terminal.clone()),
            vessel_name: None,
            vessel_imo: None,
            voyage: None,
        }))
    };
    if let Some(at) = s.full_out_at.as_deref().and_then(parse_micros) {
        out.push(event(Milestone::FullOut, at));
        out.push(fact(Fact::Chassis {
            number: s.full_out_chassis_number.clone(),
        }));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_feed_answer_maps_to_terminal_facts() {
        let s: TerminalStatus = serde_json::from_str(
            r#"{
            "container_number": "MSCU1234566", "terminal": "Y258",
            "discharged_at": "2026-11-20T08:00:00Z", "available_for_pickup": false,
            "holds": [{"name": "customs", "status": "hold", "description": "CBP hold"}],
            "fees": [{"type": "demurrage", "amount_minor": 15000, "currency_code": "USD"}],
            "last_free_day": "2026-11-24T08:00:00Z", "pickup_appointment_at": null,
            "yard_location": "B-07-1", "full_out_at": null, "full_out_chassis_number": null,
            "as_of": "2026-11-21T00:00:00Z"}"#,
        )
        .unwrap();
        let obs = map(&s, Some("USLAX"));
        assert!(obs.iter().all(|o| o.source == DataSource::Terminal));
        assert!(
            obs.iter()
                .any(|o| matches!(&o.fact, Fact::Holds { holds } if holds[0].name == "customs"))
        );
        assert!(obs.iter().any(|o| matches!(
            &o.fact,
            Fact::Lfd {
                which: LfdKind::Terminal,
                at_us: Some(_)
            }
        )));
        assert!(!obs.iter().any(|o| matches!(o.fact, Fact::Event(_))));
    }
}
