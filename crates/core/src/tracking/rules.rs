//! Business rules on container data, each a pure function.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::times::TimeKey;
use super::versions::VersionKey;
use super::{ContainerState, Fee, Hold, LfdKind};

/// Keys of [`ContainerState::times`].
pub mod t {
    use crate::tracking::times::{TimeAttr, TimeKey};

    /// Empty picked up at origin.
    pub const EMPTY_OUT: TimeKey = TimeKey::At(TimeAttr::EmptyOut);
    /// Full in at the port of lading.
    pub const POL_FULL_IN: TimeKey = TimeKey::At(TimeAttr::PolFullIn);
    /// Loaded at the port of lading.
    pub const POL_VESSEL_LOADED: TimeKey = TimeKey::At(TimeAttr::PolVesselLoaded);
    /// Departed the port of lading.
    pub const POL_VESSEL_DEPARTED: TimeKey = TimeKey::At(TimeAttr::PolVesselDeparted);
    /// Arrived at the port of discharge.
    pub const POD_ARRIVED: TimeKey = TimeKey::At(TimeAttr::PodArrived);
    /// Discharged at the port of discharge.
    pub const POD_DISCHARGED: TimeKey = TimeKey::At(TimeAttr::PodDischarged);
    /// Full out at the port of discharge.
    pub const POD_FULL_OUT: TimeKey = TimeKey::At(TimeAttr::PodFullOut);
    /// Rail loaded at the POD.
    pub const POD_RAIL_LOADED: TimeKey = TimeKey::At(TimeAttr::PodRailLoaded);
    /// Rail departed from the POD.
    pub const POD_RAIL_DEPARTED: TimeKey = TimeKey::At(TimeAttr::PodRailDeparted);
    /// Rail ETA at the inland destination.
    pub const IND_ETA: TimeKey = TimeKey::At(TimeAttr::IndEta);
    /// Rail ATA at the inland destination.
    pub const IND_ATA: TimeKey = TimeKey::At(TimeAttr::IndAta);
    /// Unloaded from rail inland.
    pub const IND_RAIL_UNLOADED: TimeKey = TimeKey::At(TimeAttr::IndRailUnloaded);
    /// Full out at the inland destination.
    pub const FINAL_FULL_OUT: TimeKey = TimeKey::At(TimeAttr::FinalFullOut);
    /// Empty returned.
    pub const EMPTY_TERMINATED: TimeKey = TimeKey::At(TimeAttr::EmptyTerminated);
    /// Marked delivered.
    pub const DELIVERED: TimeKey = TimeKey::At(TimeAttr::Delivered);
}

/// The container status shown as `current_status`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ContainerStatus {
    /// Nothing known yet.
    New,
    /// Loaded or sailing.
    OnShip,
    /// At a terminal, availability not (yet) known.
    Grounded,
    /// Released and no active hold.
    Available,
    /// At the terminal but not released or held.
    NotAvailable,
    /// Discharged, waiting for the rail leg inland.
    AwaitingInlandTransfer,
    /// On rail after discharge.
    OnRail,
    /// Gated out full.
    PickedUp,
    /// Marked delivered.
    Delivered,
    /// Empty returned.
    EmptyReturned,
}

impl ContainerStatus {
    /// Every status.
    pub const ALL: [ContainerStatus; 10] = [
        ContainerStatus::New,
        ContainerStatus::OnShip,
        ContainerStatus::Grounded,
        ContainerStatus::Available,
        ContainerStatus::NotAvailable,
        ContainerStatus::AwaitingInlandTransfer,
        ContainerStatus::OnRail,
        ContainerStatus::PickedUp,
        ContainerStatus::Delivered,
        ContainerStatus::EmptyReturned,
    ];

    /// The wire spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            ContainerStatus::New => "new",
            ContainerStatus::OnShip => "on_ship",
            ContainerStatus::Grounded => "grounded",
            ContainerStatus::Available => "available",
            ContainerStatus::NotAvailable => "not_available",
            ContainerStatus::AwaitingInlandTransfer => "awaiting_inland_transfer",
            ContainerStatus::OnRail => "on_rail",
            ContainerStatus::PickedUp => "picked_up",
            ContainerStatus::Delivered => "delivered",
            ContainerStatus::EmptyReturned => "empty_returned",
        }
    }

    /// The status in words, for people (the console and the tracking widget).
    pub fn label(self) -> &'static str {
        match self {
            ContainerStatus::New => "Tracking started",
            ContainerStatus::OnShip => "On the vessel",
            ContainerStatus::Grounded => "Discharged at the terminal",
            ContainerStatus::Available => "Available for pickup",
            ContainerStatus::NotAvailable => "Not available for pickup",
            ContainerStatus::AwaitingInlandTransfer => "Awaiting inland transfer",
            ContainerStatus::OnRail => "On rail",
            ContainerStatus::PickedUp => "Picked up",
            ContainerStatus::Delivered => "Delivered",
            ContainerStatus::EmptyReturned => "Empty returned",
        }
    }

    /// Parses the wire spelling.
    pub fn parse(s: &str) -> Option<ContainerStatus> {
        ContainerStatus::ALL.into_iter().find(|c| c.as_str() == s)
    }
}

/// Holds whose status is `hold` (active); `pending` holds do not block pickup.
pub fn active_holds(holds: &[Hold]) -> impl Iterator<Item = &Hold> {
    holds.iter().filter(|h| h.status == "hold")
}

/// The current holds, or `None` while no source has reported holds for this box: unknown is
/// not "no holds" (an empty list is the terminal saying there are none).
pub fn reported_holds(c: &ContainerState) -> Option<&[Hold]> {
    c.versions
        .contains_key(&VersionKey::Holds)
        .then_some(c.holds.as_slice())
}

/// The current fees, or `None` while no source has reported fees for this box: unknown is not
/// zero.
pub fn reported_fees(c: &ContainerState) -> Option<&[Fee]> {
    c.versions
        .contains_key(&VersionKey::Fees)
        .then_some(c.fees.as_slice())
}

/// Whether the container has left the terminal where it is picked up, for good: gated out
/// full there (the POD, or the inland ramp when the shipment moves on by rail), delivered, or
/// returned empty. `inland` says whether the shipment continues past the POD.
pub fn left_pickup_terminal(c: &ContainerState, inland: bool) -> bool {
    let has = |k: TimeKey| c.times.contains_key(&k);
    has(t::EMPTY_TERMINATED)
        || has(t::DELIVERED)
        || has(t::FINAL_FULL_OUT)
        || (!inland && has(t::POD_FULL_OUT))
}

/// Whether an inland container is between its two terminals: out of the POD (gated out, or
/// on a railcar) and not yet unloaded or arrived at the inland destination.
fn between_terminals(c: &ContainerState, inland: bool) -> bool {
    let has = |k: TimeKey| c.times.contains_key(&k);
    inland
        && (has(t::POD_FULL_OUT) || has(t::POD_RAIL_LOADED) || has(t::POD_RAIL_DEPARTED))
        && !(has(t::IND_RAIL_UNLOADED) || has(t::IND_ATA))
}

/// The time an inland container reached the place where it is picked up (the inland ramp:
/// unloaded from the railcar, or arrived at the inland destination), if it has.
fn at_inland_pickup(c: &ContainerState) -> Option<i64> {
    [t::IND_RAIL_UNLOADED, t::IND_ATA]
        .iter()
        .filter_map(|k| c.times.get(k))
        .min()
        .copied()
}

/// Whether the terminal's availability report can speak for the place where the container is
/// picked up. Availability belongs to that place (`pickup_facility`): a box bound inland is
/// picked up at the inland ramp, so while it waits at the POD for the railroad it is not
/// available, whatever the POD terminal says, and a report from before it reached the ramp
/// was about the POD.
fn availability_current(c: &ContainerState, inland: bool) -> bool {
    if !inland {
        return true;
    }
    match (
        at_inland_pickup(c),
        c.versions.get(&VersionKey::Availability),
    ) {
        (Some(arrived), Some(&reported)) => reported >= arrived,
        (Some(_), None) => true,
        (None, _) => false,
    }
}

/// `available_for_pickup` as the API shows it: what the terminal last reported, unless the
/// container has left the pickup terminal (then never available, whatever a late or stale
/// report says), is bound inland and not yet at the inland ramp (waiting at the POD for the
/// railroad, or on the way), or the report predates its arrival at the ramp. Unknown is
/// `false`. [`current_status`] is `available` exactly when this holds and no hold is active.
pub fn available_for_pickup(c: &ContainerState, inland: bool) -> bool {
    !left_pickup_terminal(c, inland)
        && !between_terminals(c, inland)
        && availability_current(c, inland)
        && c.available_for_pickup == Some(true)
}

/// Ready for pickup: available (see [`available_for_pickup`]) and no hold is active.
pub fn ready_for_pickup(c: &ContainerState, inland: bool) -> bool {
    available_for_pickup(c, inland) && active_holds(&c.holds).next().is_none()
}

/// Fee totals per currency in minor units, excluding `total` lines (which overlap the items).
pub fn fee_sums(fees: &[Fee]) -> BTreeMap<String, i64> {
    let mut out = BTreeMap::new();
    for f in fees.iter().filter(|f| f.kind != "total") {
        *out.entry(f.currency_code.clone()).or_insert(0) += f.amount_minor;
    }
    out
}

/// The coalesced `pickup_lfd`: the one a person entered, else the line's LFD, else the
/// terminal's, else the rail carrier's (a fixed preference, not the earliest date). `rail_visible` is false for accounts without
/// the rail LFD entitlement.
pub fn coalesced_lfd(lfd: &BTreeMap<LfdKind, i64>, rail_visible: bool) -> Option<i64> {
    lfd.get(&LfdKind::User)
        .or_else(|| lfd.get(&LfdKind::Line))
        .or_else(|| lfd.get(&LfdKind::Terminal))
        .or_else(|| lfd.get(&LfdKind::Rail).filter(|_| rail_visible))
        .copied()
}

/// The pickup appointment shown: the one a person entered, else the sources'.
pub fn appointment(c: &ContainerState) -> Option<i64> {
    c.entered_appointment_us.or(c.pickup_appointment_us)
}

/// The canonical hold name: `freight`, `customs`, `other` lower case; `USDA`, `VACIS`, `TMF`
/// upper case; anything unknown is `other`.
pub fn canonical_hold_name(raw: &str) -> &'static str {
    match raw.trim().to_ascii_lowercase().as_str() {
        "freight" | "line" | "carrier" => "freight",
        "customs" | "cbp" => "customs",
        "usda" => "USDA",
        "vacis" => "VACIS",
        "tmf" => "TMF",
        _ => "other",
    }
}

/// Calendar days from `now_us` to the deadline `lfd_us`, both read as dates in the IANA zone
/// `zone` (UTC when unknown): 0 on the last free day itself, negative once it has passed. The
/// dates are the zone's, so a deadline at 23:00 local time is "today" there even when UTC has
/// moved on, and a day of a DST change counts as one day. `now_us` is the clock of the data
/// (a sandbox or simulator runs its own), not necessarily the wall clock.
pub fn days_until(lfd_us: i64, zone: Option<&str>, now_us: i64) -> Option<i64> {
    let tz = zone
        .and_then(|z| jiff::tz::TimeZone::get(z).ok())
        .unwrap_or(jiff::tz::TimeZone::UTC);
    let day = jiff::Timestamp::from_microsecond(lfd_us)
        .ok()?
        .to_zoned(tz.clone())
        .date();
    let today = jiff::Timestamp::from_microsecond(now_us)
        .ok()?
        .to_zoned(tz)
        .date();
    Some(i64::from((day - today).get_days()))
}

/// The zone a container's coalesced LFD is kept in: the inland destination's when the LFD is
/// the rail carrier's (no line or terminal LFD, and `rail_visible`), else the POD's.
pub fn lfd_zone<'a>(
    lfd: &BTreeMap<LfdKind, i64>,
    rail_visible: bool,
    pod_zone: Option<&'a str>,
    destination_zone: Option<&'a str>,
) -> Option<&'a str> {
    let rail = rail_visible
        && !lfd.contains_key(&LfdKind::Line)
        && !lfd.contains_key(&LfdKind::Terminal)
        && lfd.contains_key(&LfdKind::Rail);
    if rail {
        destination_zone.or(pod_zone)
    } else {
        pod_zone
    }
}

/// The contract's fee type for a terminal's word: `demurrage` (terminal storage is
/// demurrage), `extended_dwell_time`, `exam`, `total`, anything else `other`.
pub fn canonical_fee_type(raw: &str) -> &'static str {
    let word = raw.trim().to_ascii_lowercase().replace([' ', '-'], "_");
    match word.as_str() {
        "demurrage" | "storage" | "terminal_storage" | "port_storage" => "demurrage",
        "extended_dwell_time" | "extended_dwell" | "dwell" | "dwell_time" | "edt" => {
            "extended_dwell_time"
        }
        "exam" | "exam_fee" | "examination" | "inspection" | "cet" | "vacis" => "exam",
        "total" | "total_due" => "total",
        _ => "other",
    }
}

/// An ISO 4217 currency code as the contract shows it (three letters, upper case), or `None`
/// for anything that is not one (such a fee is refused: its amount means nothing).
pub fn currency_code(raw: &str) -> Option<String> {
    let code = raw.trim();
    (code.len() == 3 && code.bytes().all(|b| b.is_ascii_alphabetic()))
        .then(|| code.to_ascii_uppercase())
}

/// `current_status` from the container's state; `inland` says whether the shipment moves on
/// to an inland destination after the POD.
pub fn current_status(c: &ContainerState, inland: bool) -> ContainerStatus {
    let has = |k: TimeKey| c.times.contains_key(&k);
    if has(t::EMPTY_TERMINATED) {
        return ContainerStatus::EmptyReturned;
    }
    if has(t::DELIVERED) {
        return ContainerStatus::Delivered;
    }
    if has(t::FINAL_FULL_OUT) || (!inland && has(t::POD_FULL_OUT)) {
        return ContainerStatus::PickedUp;
    }
    let at_final_terminal = if inland {
        has(t::IND_RAIL_UNLOADED) || has(t::IND_ATA)
    } else {
        has(t::POD_DISCHARGED) || has(t::POD_ARRIVED) || c.availability_known
    };
    if at_final_terminal && c.availability_known {
        return if ready_for_pickup(c, inland) {
            ContainerStatus::Available
        } else {
            ContainerStatus::NotAvailable
        };
    }
    if inland {
        if has(t::IND_RAIL_UNLOADED) {
            return ContainerStatus::Grounded;
        }
        if has(t::POD_RAIL_LOADED) || has(t::POD_RAIL_DEPARTED) || has(t::POD_FULL_OUT) {
            return ContainerStatus::OnRail;
        }
        if has(t::POD_DISCHARGED) {
            return ContainerStatus::AwaitingInlandTransfer;
        }
    } else if has(t::POD_DISCHARGED) {
        return ContainerStatus::Grounded;
    }
    // a box on any vessel is on a ship: the mainline's, a feeder's, or one between
    // transshipment ports (docs/precedence.md)
    if has(t::POL_VESSEL_LOADED)
        || has(t::POL_VESSEL_DEPARTED)
        || has(t::POD_ARRIVED)
        || c.milestones.0.iter().any(|r| {
            r.reports
                .first()
                .is_some_and(|x| x.fact.milestone.is_vessel_move())
        })
    {
        return ContainerStatus::OnShip;
    }
    ContainerStatus::New
}

/// Fees in the contract's types and ISO 4217 codes, sorted, once each; a fee in no currency
/// is dropped.
pub fn normalize_fees(fees: &[Fee]) -> Vec<Fee> {
    let mut f: Vec<Fee> = fees
        .iter()
        .filter_map(|f| {
            Some(Fee {
                kind: canonical_fee_type(&f.kind).to_string(),
                amount_minor: f.amount_minor,
                currency_code: currency_code(&f.currency_code)?,
            })
        })
        .collect();
    f.sort();
    f.dedup();
    f
}

/// Holds under their canonical names, `pending` or `hold`, sorted, once each.
pub fn normalize_holds(holds: &[Hold]) -> Vec<Hold> {
    let mut v: Vec<Hold> = holds
        .iter()
        .map(|h| Hold {
            name: canonical_hold_name(&h.name).to_string(),
            status: if h.status == "pending" {
                "pending".into()
            } else {
                "hold".into()
            },
            description: h.description.clone(),
        })
        .collect();
    v.sort();
    v.dedup();
    v
}

/// Notes that a source said the box was available for pickup at `at_us`: the earliest such
/// time is kept.
pub fn note_available(c: &mut ContainerState, at_us: i64) {
    c.first_available_us = Some(c.first_available_us.map_or(at_us, |t| t.min(at_us)));
}

/// Follows the spans of the holds in force to a newer report of the holds (`holds`, as
/// [`normalize_holds`] leaves them) observed at `at_us`: a hold now active and not open opens a
/// span at `at_us`; an open span whose hold is no longer active closes there. A `pending` hold
/// is not in force.
pub fn follow_hold_spans(spans: &mut Vec<crate::charges::HoldSpan>, holds: &[Hold], at_us: i64) {
    let active = |name: &str| holds.iter().any(|h| h.status == "hold" && h.name == name);
    for span in spans.iter_mut().filter(|s| s.to_us.is_none()) {
        if !active(&span.name) {
            span.to_us = Some(at_us.max(span.from_us));
        }
    }
    for h in holds.iter().filter(|h| h.status == "hold") {
        let open = spans.iter().any(|s| s.name == h.name && s.to_us.is_none());
        if !open {
            spans.push(crate::charges::HoldSpan {
                name: h.name.clone(),
                from_us: at_us,
                to_us: None,
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hold(name: &str, status: &str) -> Hold {
        Hold {
            name: name.into(),
            status: status.into(),
            description: None,
        }
    }

    fn fee(kind: &str, minor: i64) -> Fee {
        Fee {
            kind: kind.into(),
            amount_minor: minor,
            currency_code: "USD".into(),
        }
    }

    #[test]
    fn hold_spans_open_on_the_first_active_report_and_close_on_the_first_without() {
        let mut spans = Vec::new();
        follow_hold_spans(&mut spans, &[hold("customs", "pending")], 10);
        assert!(spans.is_empty(), "a pending hold is not in force");
        follow_hold_spans(&mut spans, &[hold("customs", "hold")], 20);
        follow_hold_spans(
            &mut spans,
            &[hold("USDA", "hold"), hold("customs", "hold")],
            30,
        );
        follow_hold_spans(&mut spans, &[hold("USDA", "hold")], 40);
        follow_hold_spans(&mut spans, &[], 50);
        follow_hold_spans(&mut spans, &[hold("customs", "hold")], 60);
        let seen: Vec<(&str, i64, Option<i64>)> = spans
            .iter()
            .map(|s| (s.name.as_str(), s.from_us, s.to_us))
            .collect();
        assert_eq!(
            seen,
            [
                ("customs", 20, Some(40)),
                ("USDA", 30, Some(50)),
                ("customs", 60, None)
            ]
        );
    }

    #[test]
    fn ready_needs_release_and_no_active_hold() {
        let mut c = ContainerState {
            available_for_pickup: Some(true),
            availability_known: true,
            ..Default::default()
        };
        assert!(ready_for_pickup(&c, false));
        c.holds = vec![hold("customs", "pending")];
        assert!(ready_for_pickup(&c, false), "pending holds do not block");
        c.holds.push(hold("freight", "hold"));
        assert!(!ready_for_pickup(&c, false));
        c.holds.clear();
        c.available_for_pickup = Some(false);
        assert!(!ready_for_pickup(&c, false));
    }

    #[test]
    fn a_container_that_left_is_never_available() {
        let mut c = ContainerState {
            available_for_pickup: Some(true),
            availability_known: true,
            ..Default::default()
        };
        c.times.insert(t::POD_DISCHARGED, 10);
        assert!(available_for_pickup(&c, false));
        for gone in [t::POD_FULL_OUT, t::DELIVERED, t::EMPTY_TERMINATED] {
            let mut g = c.clone();
            g.times.insert(gone, 20);
            assert!(!available_for_pickup(&g, false), "{gone}");
            assert!(!ready_for_pickup(&g, false), "{gone}");
        }
        // inland: out of the POD by rail is not available, the ramp's later report is
        let mut r = c.clone();
        r.versions.insert(VersionKey::Availability, 15);
        r.times.insert(t::POD_RAIL_LOADED, 20);
        assert!(!available_for_pickup(&r, true), "on rail");
        r.times.insert(t::IND_RAIL_UNLOADED, 30);
        assert!(
            !available_for_pickup(&r, true),
            "the POD's report says nothing about the ramp"
        );
        r.versions.insert(VersionKey::Availability, 31);
        assert!(available_for_pickup(&r, true));
        r.times.insert(t::FINAL_FULL_OUT, 40);
        assert!(!available_for_pickup(&r, true));
        // unknown is false
        assert!(!available_for_pickup(&ContainerState::default(), false));
    }

    #[test]
    fn fee_sums_skip_total_lines() {
        let sums = fee_sums(&[
            fee("demurrage", 30000),
            fee("exam", 12550),
            fee("total", 42550),
        ]);
        assert_eq!(sums["USD"], 42550);
        assert!(fee_sums(&[]).is_empty());
    }

    #[test]
    fn lfd_prefers_line_then_terminal_then_rail() {
        let mut lfd = BTreeMap::new();
        lfd.insert(LfdKind::Rail, 1);
        assert_eq!(coalesced_lfd(&lfd, true), Some(1));
        assert_eq!(coalesced_lfd(&lfd, false), None);
        lfd.insert(LfdKind::Terminal, 5);
        assert_eq!(coalesced_lfd(&lfd, true), Some(5));
        lfd.insert(LfdKind::Line, 9);
        assert_eq!(
            coalesced_lfd(&lfd, true),
            Some(9),
            "the line wins even when later"
        );
    }

    fn at(s: &str) -> i64 {
        crate::time::parse_micros(s).unwrap()
    }

    #[test]
    fn days_until_counts_dates_in_the_zone() {
        let la = Some("America/Los_Angeles");
        // LFD at 23:00 PDT on the 10th is 06:00 UTC on the 11th: the 10th in Los Angeles
        let lfd = at("2026-03-11T06:00:00Z");
        let afternoon = at("2026-03-10T23:30:00Z"); // 16:30 PDT on the 10th
        assert_eq!(days_until(lfd, la, afternoon), Some(0), "the last free day");
        assert_eq!(
            days_until(lfd, None, afternoon),
            Some(1),
            "UTC dates differ"
        );
        assert_eq!(days_until(lfd, la, at("2026-03-09T20:00:00Z")), Some(1));
        // overdue
        assert_eq!(days_until(lfd, la, at("2026-03-13T20:00:00Z")), Some(-3));
        // across the DST change (8 March 2026 in the US): calendar days, not 24 h blocks
        let lfd = at("2026-03-09T06:59:00Z"); // 23:59 PDT on the 8th
        assert_eq!(days_until(lfd, la, at("2026-03-07T08:30:00Z")), Some(1));
        assert_eq!(days_until(lfd, la, at("2026-03-08T08:30:00Z")), Some(0));
        // a zone nobody knows counts in UTC
        assert_eq!(
            days_until(lfd, Some("Mars/Olympus"), at("2026-03-09T06:00:00Z")),
            Some(0)
        );
    }

    #[test]
    fn a_rail_lfd_counts_in_the_destination_zone() {
        let mut lfd = BTreeMap::new();
        lfd.insert(LfdKind::Rail, 1);
        let (pod, dest) = (Some("America/Los_Angeles"), Some("America/Chicago"));
        assert_eq!(lfd_zone(&lfd, true, pod, dest), dest);
        assert_eq!(lfd_zone(&lfd, false, pod, dest), pod);
        lfd.insert(LfdKind::Terminal, 2);
        assert_eq!(lfd_zone(&lfd, true, pod, dest), pod);
    }

    #[test]
    fn fee_types_and_currencies_follow_the_contract() {
        assert_eq!(canonical_fee_type("storage"), "demurrage");
        assert_eq!(canonical_fee_type("Extended Dwell"), "extended_dwell_time");
        assert_eq!(canonical_fee_type("EXAM"), "exam");
        assert_eq!(canonical_fee_type("chassis split"), "other");
        assert_eq!(currency_code("usd").as_deref(), Some("USD"));
        assert_eq!(currency_code(" EUR ").as_deref(), Some("EUR"));
        assert_eq!(currency_code("US$"), None);
        assert_eq!(currency_code("dollars"), None);
    }

    #[test]
    fn hold_names_are_canonical() {
        assert_eq!(canonical_hold_name("usda"), "USDA");
        assert_eq!(canonical_hold_name("Customs"), "customs");
        assert_eq!(canonical_hold_name("mystery"), "other");
    }

    fn with(times: &[TimeKey]) -> ContainerState {
        ContainerState {
            times: times.iter().map(|k| (*k, 1)).collect(),
            ..Default::default()
        }
    }

    #[test]
    fn status_follows_the_journey() {
        use ContainerStatus::*;
        assert_eq!(current_status(&with(&[]), false), New);
        assert_eq!(
            current_status(&with(&[t::POL_VESSEL_LOADED]), false),
            OnShip
        );
        assert_eq!(
            current_status(&with(&[t::POL_VESSEL_LOADED, t::POD_DISCHARGED]), false),
            Grounded
        );
        let mut c = with(&[t::POD_DISCHARGED]);
        c.availability_known = true;
        c.available_for_pickup = Some(true);
        assert_eq!(current_status(&c, false), Available);
        c.holds = vec![hold("customs", "hold")];
        assert_eq!(current_status(&c, false), NotAvailable);
        assert_eq!(
            current_status(&with(&[t::POD_DISCHARGED, t::POD_FULL_OUT]), false),
            PickedUp
        );
        assert_eq!(
            current_status(&with(&[t::POD_FULL_OUT, t::EMPTY_TERMINATED]), false),
            EmptyReturned
        );
        // inland moves
        assert_eq!(
            current_status(&with(&[t::POD_DISCHARGED]), true),
            AwaitingInlandTransfer
        );
        assert_eq!(
            current_status(&with(&[t::POD_DISCHARGED, t::POD_RAIL_LOADED]), true),
            OnRail
        );
        assert_eq!(
            current_status(&with(&[t::POD_RAIL_DEPARTED, t::IND_RAIL_UNLOADED]), true),
            Grounded
        );
        assert_eq!(
            current_status(&with(&[t::IND_RAIL_UNLOADED, t::FINAL_FULL_OUT]), true),
            PickedUp
        );
        for s in ContainerStatus::ALL {
            assert_eq!(ContainerStatus::parse(s.as_str()), Some(s));
        }
    }
}
