//! What a person or an agent asks of a container and its shipment, answered by pure
//! functions: where it is in its life when no status is known, whether its last free day is
//! near (in the terminal's own calendar), what its fees add up to, and times on the clock of
//! the place. The MCP tools build their answers from these; the REST resources carry the
//! facts they start from.

use jiff::Timestamp;
use jiff::tz::TimeZone;

use super::Fee;
use super::rules::days_until;

/// A container's lifecycle as its milestones tell it, for when no `current_status` is known.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lifecycle {
    /// Not yet at the port of discharge.
    InTransit,
    /// At the port of discharge, not discharged.
    Arrived,
    /// Discharged and not available for pickup.
    Discharged,
    /// Discharged and available for pickup.
    AvailableForPickup,
    /// Discharged; availability not reported.
    AtTerminal,
    /// Loaded on rail at the port, not yet out at the inland destination.
    OnRail,
    /// Delivered.
    Delivered,
}

impl Lifecycle {
    /// The wire spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            Lifecycle::InTransit => "in_transit",
            Lifecycle::Arrived => "arrived",
            Lifecycle::Discharged => "discharged",
            Lifecycle::AvailableForPickup => "available_for_pickup",
            Lifecycle::AtTerminal => "at_terminal",
            Lifecycle::OnRail => "on_rail",
            Lifecycle::Delivered => "delivered",
        }
    }
}

/// The milestones a lifecycle is read from.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Milestones {
    /// Arrived at the port of discharge.
    pub pod_arrived: bool,
    /// Discharged there.
    pub pod_discharged: bool,
    /// Delivered.
    pub delivered: bool,
    /// Loaded on rail at the port.
    pub pod_rail_loaded: bool,
    /// Out full at the inland destination.
    pub final_destination_full_out: bool,
    /// Released for pickup, when the terminal said (`None`: not reported).
    pub available_for_pickup: Option<bool>,
}

/// The lifecycle the milestones tell, asked in order: not arrived is in transit; arrived and
/// not discharged is arrived; only a delivery makes it delivered; on rail until out at the
/// inland destination; then the terminal's availability.
pub fn lifecycle(m: &Milestones) -> Lifecycle {
    if !m.pod_arrived {
        Lifecycle::InTransit
    } else if !m.pod_discharged {
        Lifecycle::Arrived
    } else if m.delivered {
        Lifecycle::Delivered
    } else if m.pod_rail_loaded && !m.final_destination_full_out {
        Lifecycle::OnRail
    } else {
        match m.available_for_pickup {
            Some(true) => Lifecycle::AvailableForPickup,
            Some(false) => Lifecycle::Discharged,
            None => Lifecycle::AtTerminal,
        }
    }
}

/// The status to show and where it came from: the container's `current_status` when there
/// is one, else the lifecycle its milestones tell (`derived`).
pub fn status(current_status: Option<&str>, derived: Lifecycle) -> (String, &'static str) {
    match current_status.map(str::trim).filter(|s| !s.is_empty()) {
        Some(s) => (s.to_string(), "current_status"),
        None => (derived.as_str().to_string(), "derived"),
    }
}

/// How near the last free day is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Urgency {
    /// The last free day has passed.
    Overdue,
    /// Today or within [`IMMINENT_DAYS`] days.
    Imminent,
    /// Further away.
    None,
    /// Not known, or not to be trusted (see the reason).
    Unknown,
}

impl Urgency {
    /// The wire spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            Urgency::Overdue => "overdue",
            Urgency::Imminent => "imminent",
            Urgency::None => "none",
            Urgency::Unknown => "unknown",
        }
    }
}

/// Days before the last free day that count as imminent (0 is the day itself).
pub const IMMINENT_DAYS: i64 = 3;
/// Terminal data older than this is not trusted for urgency.
pub const STALE_AFTER_US: i64 = 7 * 86_400_000_000;

/// Why an urgency is withheld.
pub const STOPPED: &str = "tracking is stopped/closed for this container";
/// Why an urgency is withheld.
pub const NEVER_CHECKED: &str = "terminal availability has never been checked";
/// Why an urgency is withheld.
pub const STALE: &str = "terminal data is stale (last checked over 7 days ago)";

/// The verdict on a last free day.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Verdict {
    /// How near it is.
    pub urgency: Urgency,
    /// Whether the urgency is withheld although a date may be known.
    pub suppressed: bool,
    /// Why it is withheld.
    pub reason: Option<&'static str>,
    /// Calendar days from today to the last free day in the terminal's zone (0 on the day,
    /// negative after it).
    pub days_until_lfd: Option<i64>,
}

/// Judges the last free day `lfd_us` at `now_us`: days counted in the calendar of `zone` (the
/// terminal's; UTC when unknown); withheld when tracking stopped, or when the terminal was
/// never checked or not for over 7 days (its data may be out of date).
pub fn urgency(
    lfd_us: Option<i64>,
    zone: Option<&str>,
    terminal_checked_us: Option<i64>,
    tracking_stopped: bool,
    now_us: i64,
) -> Verdict {
    let days_until_lfd = lfd_us.and_then(|l| days_until(l, zone, now_us));
    let withheld = if tracking_stopped {
        Some(STOPPED)
    } else {
        match terminal_checked_us {
            None => Some(NEVER_CHECKED),
            Some(t) if now_us - t > STALE_AFTER_US => Some(STALE),
            Some(_) => None,
        }
    };
    if let Some(reason) = withheld {
        return Verdict {
            urgency: Urgency::Unknown,
            suppressed: true,
            reason: Some(reason),
            days_until_lfd,
        };
    }
    let urgency = match days_until_lfd {
        None => Urgency::Unknown,
        Some(d) if d < 0 => Urgency::Overdue,
        Some(d) if d <= IMMINENT_DAYS => Urgency::Imminent,
        Some(_) => Urgency::None,
    };
    Verdict {
        urgency,
        suppressed: false,
        reason: None,
        days_until_lfd,
    }
}

/// What a container's fees add up to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FeeTotal {
    /// The sum in minor units of the fee lines (the terminal's `total` lines left out: they
    /// repeat the items), when they are in one currency; 0 for no fees; `None` when the
    /// lines are in several currencies (they do not add up).
    pub total_minor: Option<i64>,
    /// That currency.
    pub currency: Option<String>,
}

/// Adds up fees as the business rules say: `total` lines are left out, and only amounts in
/// one currency are added.
pub fn fee_total(fees: &[Fee]) -> FeeTotal {
    let items: Vec<&Fee> = fees.iter().filter(|f| f.kind != "total").collect();
    let mut currencies: Vec<&str> = items.iter().map(|f| f.currency_code.as_str()).collect();
    currencies.sort_unstable();
    currencies.dedup();
    match currencies.as_slice() {
        [] => FeeTotal {
            total_minor: Some(0),
            currency: None,
        },
        [one] => FeeTotal {
            total_minor: Some(items.iter().map(|f| f.amount_minor).sum()),
            currency: Some((*one).to_string()),
        },
        _ => FeeTotal {
            total_minor: None,
            currency: None,
        },
    }
}

fn zone_or_utc(zone: Option<&str>) -> TimeZone {
    zone.and_then(|z| TimeZone::get(z).ok())
        .unwrap_or(TimeZone::UTC)
}

/// An instant on the clock of `zone` (UTC when unknown), as people in the United States
/// write it: `09/20/2026, 05:00 PM PDT`.
pub fn format_in_zone(us: i64, zone: Option<&str>) -> String {
    match Timestamp::from_microsecond(us) {
        Ok(ts) => ts
            .to_zoned(zone_or_utc(zone))
            .strftime("%m/%d/%Y, %I:%M %p %Z")
            .to_string(),
        Err(_) => "N/A".to_string(),
    }
}

/// The calendar date of an instant in `zone` (UTC when unknown), `YYYY-MM-DD`.
pub fn local_date(us: i64, zone: Option<&str>) -> Option<String> {
    let ts = Timestamp::from_microsecond(us).ok()?;
    Some(ts.to_zoned(zone_or_utc(zone)).date().to_string())
}

/// A shipment's stage from its voyage times: delivered to the destination, arrived at the
/// port of discharge, in transit, awaiting departure, or pending.
pub fn shipment_status(
    pol_etd: bool,
    pol_atd: bool,
    pod_ata: bool,
    destination_ata: bool,
) -> &'static str {
    if destination_ata {
        "delivered_to_destination"
    } else if pod_ata {
        "arrived_at_pod"
    } else if pol_atd {
        "in_transit"
    } else if pol_etd {
        "awaiting_departure"
    } else {
        "pending"
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    fn at(s: &str) -> i64 {
        s.parse::<Timestamp>().unwrap().as_microsecond()
    }

    const LA: Option<&str> = Some("America/Los_Angeles");

    #[test]
    fn the_lifecycle_follows_the_milestones_in_order() {
        let m = |pod_arrived, pod_discharged, delivered, rail, full_out, available| Milestones {
            pod_arrived,
            pod_discharged,
            delivered,
            pod_rail_loaded: rail,
            final_destination_full_out: full_out,
            available_for_pickup: available,
        };
        let cases = [
            (
                m(false, false, false, false, false, None),
                Lifecycle::InTransit,
            ),
            // a delivery before the arrival is reported still reads in transit
            (
                m(false, false, true, false, false, None),
                Lifecycle::InTransit,
            ),
            (
                m(true, false, false, false, false, Some(true)),
                Lifecycle::Arrived,
            ),
            (
                m(true, true, true, true, false, Some(true)),
                Lifecycle::Delivered,
            ),
            (
                m(true, true, false, true, false, Some(true)),
                Lifecycle::OnRail,
            ),
            (
                m(true, true, false, true, true, Some(true)),
                Lifecycle::AvailableForPickup,
            ),
            (
                m(true, true, false, false, false, Some(false)),
                Lifecycle::Discharged,
            ),
            (
                m(true, true, false, false, false, None),
                Lifecycle::AtTerminal,
            ),
        ];
        for (input, want) in cases {
            assert_eq!(lifecycle(&input), want, "{input:?}");
        }
        assert_eq!(
            status(Some("available"), Lifecycle::Discharged),
            ("available".to_string(), "current_status")
        );
        assert_eq!(
            status(Some("  "), Lifecycle::Discharged),
            ("discharged".to_string(), "derived")
        );
        assert_eq!(status(None, Lifecycle::OnRail).0, "on_rail");
    }

    #[test]
    fn days_to_the_lfd_are_counted_in_the_terminal_s_calendar() {
        let checked = Some(at("2026-09-23T11:00:00Z"));
        // midnight UTC on the 21st is the evening of the 20th in Los Angeles: 3 days ago
        let v = urgency(
            Some(at("2026-09-21T00:00:00Z")),
            LA,
            checked,
            false,
            at("2026-09-23T12:00:00Z"),
        );
        assert_eq!(
            (v.urgency, v.days_until_lfd, v.suppressed),
            (Urgency::Overdue, Some(-3), false)
        );
        assert_eq!(
            local_date(at("2026-09-21T00:00:00Z"), LA).as_deref(),
            Some("2026-09-20")
        );
        // 01:00 UTC on the 23rd is still the 22nd in Los Angeles: an LFD on the 23rd (local
        // noon) is tomorrow there, although it is today in UTC
        let v = urgency(
            Some(at("2026-09-23T19:00:00Z")),
            LA,
            Some(at("2026-09-23T00:00:00Z")),
            false,
            at("2026-09-23T01:00:00Z"),
        );
        assert_eq!((v.urgency, v.days_until_lfd), (Urgency::Imminent, Some(1)));
        // no zone: UTC
        let v = urgency(
            Some(at("2026-09-21T00:00:00Z")),
            None,
            checked,
            false,
            at("2026-09-23T12:00:00Z"),
        );
        assert_eq!(v.days_until_lfd, Some(-2));
    }

    #[test]
    fn a_dst_change_day_is_one_day() {
        // 1 November 2026: clocks go back in Los Angeles; the LFD is that day, now is the next
        let v = urgency(
            Some(at("2026-11-01T07:30:00Z")),
            LA,
            Some(at("2026-11-02T08:00:00Z")),
            false,
            at("2026-11-02T08:30:00Z"),
        );
        assert_eq!((v.urgency, v.days_until_lfd), (Urgency::Overdue, Some(-1)));
        // and across the spring change, four local days are four
        let v = urgency(
            Some(at("2026-03-10T19:00:00Z")),
            LA,
            Some(at("2026-03-06T19:00:00Z")),
            false,
            at("2026-03-06T20:00:00Z"),
        );
        assert_eq!((v.urgency, v.days_until_lfd), (Urgency::None, Some(4)));
    }

    #[test]
    fn the_urgency_thresholds_and_what_withholds_it() {
        let now = at("2026-05-10T18:00:00Z");
        let fresh = Some(now - 3_600_000_000);
        let day = 86_400_000_000;
        let u = |lfd: Option<i64>| urgency(lfd, None, fresh, false, now).urgency;
        assert_eq!(u(Some(now)), Urgency::Imminent);
        assert_eq!(u(Some(now + 3 * day)), Urgency::Imminent);
        assert_eq!(u(Some(now + 4 * day)), Urgency::None);
        assert_eq!(u(Some(now - day)), Urgency::Overdue);
        assert_eq!(u(None), Urgency::Unknown);
        // tracking stopped: withheld, the days still said
        let v = urgency(Some(now - day), None, fresh, true, now);
        assert_eq!(
            (v.urgency, v.suppressed, v.reason, v.days_until_lfd),
            (Urgency::Unknown, true, Some(STOPPED), Some(-1))
        );
        // never checked, and checked over 7 days ago
        assert_eq!(
            urgency(Some(now), None, None, false, now).reason,
            Some(NEVER_CHECKED)
        );
        let stale = urgency(Some(now), None, Some(now - STALE_AFTER_US - 1), false, now);
        assert_eq!(
            (stale.urgency, stale.reason),
            (Urgency::Unknown, Some(STALE))
        );
        // exactly 7 days is not yet stale
        let edge = urgency(Some(now), None, Some(now - STALE_AFTER_US), false, now);
        assert_eq!(edge.urgency, Urgency::Imminent);
    }

    #[test]
    fn fees_add_up_without_the_total_lines_and_only_in_one_currency() {
        let fee = |kind: &str, minor: i64, cur: &str| Fee {
            kind: kind.into(),
            amount_minor: minor,
            currency_code: cur.into(),
        };
        assert_eq!(
            fee_total(&[
                fee("demurrage", 32_000, "USD"),
                fee("exam", 7_500, "USD"),
                fee("total", 39_500, "USD"),
            ]),
            FeeTotal {
                total_minor: Some(39_500),
                currency: Some("USD".into())
            }
        );
        assert_eq!(
            fee_total(&[]),
            FeeTotal {
                total_minor: Some(0),
                currency: None
            }
        );
        assert_eq!(
            fee_total(&[fee("demurrage", 100, "USD"), fee("exam", 100, "CAD")]).total_minor,
            None
        );
    }

    #[test]
    fn times_read_on_the_clock_of_the_place() {
        assert_eq!(
            format_in_zone(at("2026-09-21T00:00:00Z"), LA),
            "09/20/2026, 05:00 PM PDT"
        );
        assert_eq!(
            format_in_zone(at("2026-01-05T14:30:00Z"), Some("America/New_York")),
            "01/05/2026, 09:30 AM EST"
        );
        assert_eq!(
            format_in_zone(at("2026-01-05T14:30:00Z"), Some("Not/AZone")),
            "01/05/2026, 02:30 PM UTC"
        );
        assert_eq!(
            local_date(at("2026-01-05T04:30:00Z"), Some("America/New_York")).as_deref(),
            Some("2026-01-04")
        );
        assert_eq!(
            shipment_status(true, true, true, true),
            "delivered_to_destination"
        );
        assert_eq!(shipment_status(true, true, true, false), "arrived_at_pod");
        assert_eq!(shipment_status(true, true, false, false), "in_transit");
        assert_eq!(
            shipment_status(true, false, false, false),
            "awaiting_departure"
        );
        assert_eq!(shipment_status(false, false, false, false), "pending");
    }

    proptest! {
        /// Whatever the zone and the instants, the days counted are those between the two
        /// local dates, and the urgency agrees with them.
        #[test]
        fn the_verdict_agrees_with_the_local_dates(
            lfd in 1_600_000_000_000_000i64..1_900_000_000_000_000,
            now in 1_600_000_000_000_000i64..1_900_000_000_000_000,
            zone in prop::sample::select(vec!["America/Los_Angeles", "Europe/Berlin", "Asia/Kolkata", "Pacific/Chatham", "UTC"]),
        ) {
            let v = urgency(Some(lfd), Some(zone), Some(now), false, now);
            let d = |us: i64| local_date(us, Some(zone)).unwrap().parse::<jiff::civil::Date>().unwrap();
            let days = i64::from((d(lfd) - d(now)).get_days());
            prop_assert_eq!(v.days_until_lfd, Some(days));
            let want = if days < 0 { Urgency::Overdue } else if days <= IMMINENT_DAYS { Urgency::Imminent } else { Urgency::None };
            prop_assert_eq!(v.urgency, want);
        }
    }
}
