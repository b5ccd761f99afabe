//! How the console shows a container at a glance: status badges, the last free day's urgency,
//! times at the place's clock with "in 2 days" / "3 h ago" beside them, and the next step.
//! Pure functions of the container and "now", so the list, the container page and the tests
//! agree.

use boxtrack_core::time;
use boxtrack_core::tracking::rules::{self, ContainerStatus};
use boxtrack_core::tracking::{ContainerState, Fee, Hold, Route, ShipmentState};
use maud::{Markup, html};

use crate::detail;

const MINUTE_US: i64 = 60_000_000;
const HOUR_US: i64 = 60 * MINUTE_US;
const DAY_US: i64 = 24 * HOUR_US;

/// The colour a badge speaks in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Tone {
    /// Nothing to do (done, or moving as planned).
    Neutral,
    /// Moving.
    Info,
    /// Good news: ready for pickup.
    Good,
    /// Soon needs attention.
    Warn,
    /// Needs attention now: held, overdue.
    Bad,
}

impl Tone {
    fn class(self) -> &'static str {
        match self {
            Tone::Neutral => "b-neutral",
            Tone::Info => "b-info",
            Tone::Good => "b-good",
            Tone::Warn => "b-warn",
            Tone::Bad => "b-bad",
        }
    }
}

/// One badge: its words and its tone.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Badge {
    pub(crate) label: String,
    pub(crate) tone: Tone,
}

impl Badge {
    fn new(label: impl Into<String>, tone: Tone) -> Badge {
        Badge {
            label: label.into(),
            tone,
        }
    }

    /// The badge as HTML.
    pub(crate) fn html(&self) -> Markup {
        html! {
            span class={ "badge " (self.tone.class()) } { (self.label) }
        }
    }
}

/// The badges as HTML, one after another.
pub(crate) fn badges_html(badges: &[Badge]) -> Markup {
    html! {
        @for (i, b) in badges.iter().enumerate() {
            @if i > 0 {
                " "
            }
            (b.html())
        }
    }
}

/// The badge of a status.
pub(crate) fn status_badge(status: ContainerStatus) -> Badge {
    let tone = match status {
        ContainerStatus::Available => Tone::Good,
        ContainerStatus::NotAvailable => Tone::Warn,
        ContainerStatus::OnShip
        | ContainerStatus::OnRail
        | ContainerStatus::AwaitingInlandTransfer
        | ContainerStatus::Grounded => Tone::Info,
        ContainerStatus::New
        | ContainerStatus::PickedUp
        | ContainerStatus::Delivered
        | ContainerStatus::EmptyReturned => Tone::Neutral,
    };
    Badge::new(status.label(), tone)
}

/// Whether the box still waits at a terminal for a pickup that the last free day bounds.
fn waiting_for_pickup(status: ContainerStatus) -> bool {
    matches!(
        status,
        ContainerStatus::Grounded
            | ContainerStatus::Available
            | ContainerStatus::NotAvailable
            | ContainerStatus::AwaitingInlandTransfer
            | ContainerStatus::OnRail
    )
}

/// How close the last free day is, while the box waits for its pickup: days from today to
/// it at the place's clock (0 on the day, negative once past).
pub(crate) fn lfd_days(
    status: ContainerStatus,
    lfd_us: Option<i64>,
    zone: Option<&str>,
    now_us: i64,
) -> Option<i64> {
    if !waiting_for_pickup(status) {
        return None;
    }
    rules::days_until(lfd_us?, zone, now_us)
}

/// The badge of a last free day `days` away, when it needs attention (two days or less).
pub(crate) fn lfd_badge(days: Option<i64>) -> Option<Badge> {
    match days? {
        d if d < 0 => Some(Badge::new(
            format!("LFD passed {} ago", plural(-d, "day")),
            Tone::Bad,
        )),
        0 => Some(Badge::new("LFD today", Tone::Bad)),
        d @ 1..=2 => Some(Badge::new(
            format!("LFD in {}", plural(d, "day")),
            Tone::Warn,
        )),
        _ => None,
    }
}

/// The CSS class of a last free day cell `days` away: `lfd-past`, `lfd-soon` or none.
pub(crate) fn lfd_class(days: Option<i64>) -> &'static str {
    match days {
        Some(d) if d <= 0 => "lfd-past",
        Some(1..=2) => "lfd-soon",
        _ => "",
    }
}

/// Every badge of a container: its status, on hold, the last free day when it is close or
/// past.
pub(crate) fn container_badges(
    status: ContainerStatus,
    state: &ContainerState,
    lfd_days: Option<i64>,
) -> Vec<Badge> {
    let mut out = vec![status_badge(status)];
    if waiting_for_pickup(status) && rules::active_holds(&state.holds).next().is_some() {
        out.push(Badge::new("On hold", Tone::Bad));
    }
    out.extend(lfd_badge(lfd_days));
    out
}

/// `n` and the unit, in the plural when `n` is not 1.
fn plural(n: i64, unit: &str) -> String {
    if n == 1 {
        format!("1 {unit}")
    } else {
        format!("{n} {unit}s")
    }
}

/// How far `at_us` is from `now_us`, in words: "just now", "in 5 min", "3 h ago",
/// "in 2 days", "5 days ago".
pub(crate) fn relative(at_us: i64, now_us: i64) -> String {
    let delta = at_us - now_us;
    let span = delta.unsigned_abs() as i64;
    let words = if span < MINUTE_US {
        return "just now".to_string();
    } else if span < HOUR_US {
        format!("{} min", span / MINUTE_US)
    } else if span < DAY_US {
        format!("{} h", span / HOUR_US)
    } else {
        plural(span / DAY_US, "day")
    };
    if delta > 0 {
        format!("in {words}")
    } else {
        format!("{words} ago")
    }
}

/// A time at the clock of its place (`zone`; UTC when unknown), with how far it is from now
/// beside it, as HTML: a `<time>` element carrying the instant.
pub(crate) fn when(at_us: i64, zone: Option<&str>, now_us: i64) -> Markup {
    html! {
        time datetime=(time::format_micros(at_us)) { (short_local(at_us, zone)) }
        " "
        span class="rel" { (relative(at_us, now_us)) }
    }
}

/// A time at the clock of its place, short: `Nov 27 12:25 PST`.
pub(crate) fn short_local(at_us: i64, zone: Option<&str>) -> String {
    time::format_local_with(at_us, zone, "%b %-d %H:%M %Z")
}

/// A date at the clock of its place: `Mon Nov 24`.
pub(crate) fn short_day(at_us: i64, zone: Option<&str>) -> String {
    time::format_local_with(at_us, zone, "%a %b %-d")
}

/// Where and when the box arrives, as a dispatcher reads it: the port of discharge's name
/// with its actual or estimated arrival, and the inland destination's when the box goes on by
/// rail (`Los Angeles: ETA Mon Dec 28 · Chicago: ETA Sat Jan 2`); empty when nothing is known.
pub(crate) fn arrival(route: &Route, voyage: &ShipmentState) -> String {
    let leg = |name: Option<&str>, code: Option<&str>, ata: Option<i64>, eta: Option<i64>, zone| {
        let place = name.or(code).unwrap_or("port of discharge");
        match (ata, eta) {
            (Some(t), _) => Some(format!("{place}: arrived {}", short_day(t, zone))),
            (None, Some(t)) => Some(format!("{place}: ETA {}", short_day(t, zone))),
            (None, None) => name.or(code).map(|_| place.to_string()),
        }
    };
    let pod = leg(
        route.pod_name.as_deref(),
        route.pod_locode.as_deref(),
        voyage.pod_ata_us,
        voyage.pod_eta_us,
        route.pod_timezone.as_deref(),
    );
    let inland = if route.inland() {
        leg(
            route.destination_name.as_deref(),
            route.destination_locode.as_deref(),
            voyage.destination_ata_us,
            voyage.destination_eta_us,
            route.destination_timezone.as_deref(),
        )
    } else {
        None
    };
    [pod, inland]
        .into_iter()
        .flatten()
        .collect::<Vec<_>>()
        .join(" · ")
}

/// The vessel bringing the box to the port of discharge, with its voyage (`EVER GIVEN /
/// 0412E`); empty when not known.
pub(crate) fn vessel(voyage: &ShipmentState) -> String {
    match (&voyage.pod_vessel_name, &voyage.pod_voyage_number) {
        (Some(v), Some(n)) => format!("{v} / {n}"),
        (Some(v), None) => v.clone(),
        _ => String::new(),
    }
}

/// The holds in force and the fees owed, short (`customs, USDA · 650.00 USD`); `not reported`
/// while no terminal has said, `none` when it said there are none.
pub(crate) fn holds_and_fees(st: &ContainerState) -> String {
    let holds = rules::reported_holds(st).map(|h| {
        let active: Vec<&str> = rules::active_holds(h).map(|h| h.name.as_str()).collect();
        if active.is_empty() {
            "no holds".to_string()
        } else {
            active.join(", ")
        }
    });
    let fees = rules::reported_fees(st).map(|f| {
        let owed: Vec<String> = rules::fee_sums(f)
            .iter()
            .filter(|(_, minor)| **minor > 0)
            .map(|(cur, minor)| detail::money(*minor, cur))
            .collect();
        if owed.is_empty() {
            "no fees".to_string()
        } else {
            owed.join(", ")
        }
    });
    match (holds, fees) {
        (None, None) => "not reported".to_string(),
        (h, f) => [h, f].into_iter().flatten().collect::<Vec<_>>().join(" · "),
    }
}

/// The customer and every reference number of the box and its shipment, once each (`Acme ·
/// PO-16534, SO-2`).
pub(crate) fn customer_and_refs(
    customer: Option<&str>,
    container_refs: &[String],
    shipment_refs: &[String],
) -> String {
    let mut refs: Vec<&str> = Vec::new();
    for r in container_refs.iter().chain(shipment_refs) {
        if !refs.contains(&r.as_str()) {
            refs.push(r);
        }
    }
    [
        customer.map(str::to_string),
        (!refs.is_empty()).then(|| refs.join(", ")),
    ]
    .into_iter()
    .flatten()
    .collect::<Vec<_>>()
    .join(" · ")
}

/// What the people moving the box should do next, in one sentence; `appointment` is the
/// pickup appointment booked, as the page shows it.
pub(crate) fn next_step(
    status: ContainerStatus,
    holds: &[Hold],
    fees: Option<&[Fee]>,
    lfd_days: Option<i64>,
    appointment: Option<&str>,
) -> String {
    let held: Vec<&str> = rules::active_holds(holds)
        .map(|h| h.name.as_str())
        .collect();
    let owed = fees.is_some_and(|f| rules::fee_sums(f).values().any(|v| *v > 0));
    match status {
        ContainerStatus::New => "Wait for the shipping line's first report.".into(),
        ContainerStatus::OnShip => "Nothing to do until the vessel arrives.".into(),
        ContainerStatus::OnRail | ContainerStatus::AwaitingInlandTransfer => {
            "Wait for the rail leg; plan the pickup at the inland ramp.".into()
        }
        ContainerStatus::Grounded | ContainerStatus::NotAvailable if !held.is_empty() => {
            format!("Clear the hold: {}.", held.join(", "))
        }
        ContainerStatus::Grounded | ContainerStatus::NotAvailable => {
            "Wait for the terminal to release the box.".into()
        }
        ContainerStatus::Available => match lfd_days {
            Some(d) if d < 0 => "Pick up now: storage charges are running.".into(),
            _ if let Some(at) = appointment => {
                if owed {
                    format!("Pay the fees before the pickup appointment ({at}).")
                } else {
                    format!("Pick up at the appointment ({at}).")
                }
            }
            _ if owed => "Pay the fees, then book a pickup appointment.".into(),
            Some(d) => format!(
                "Book a pickup before the last free day ({}).",
                if d == 0 {
                    "today".to_string()
                } else {
                    format!("in {}", plural(d, "day"))
                }
            ),
            None => "Book a pickup appointment.".into(),
        },
        ContainerStatus::PickedUp | ContainerStatus::Delivered => {
            "Return the empty to the terminal the line names.".into()
        }
        ContainerStatus::EmptyReturned => "Nothing: the journey is complete.".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const NOW: i64 = 1_764_000_000_000_000;

    #[test]
    fn times_read_as_people_say_them() {
        assert_eq!(relative(NOW, NOW), "just now");
        assert_eq!(relative(NOW + 5 * MINUTE_US, NOW), "in 5 min");
        assert_eq!(relative(NOW - 3 * HOUR_US - 1, NOW), "3 h ago");
        assert_eq!(relative(NOW + 2 * DAY_US + HOUR_US, NOW), "in 2 days");
        assert_eq!(relative(NOW - DAY_US, NOW), "1 day ago");
        // 2025-11-24T16:00:00Z is 08:00 in Los Angeles
        assert_eq!(
            short_local(NOW, Some("America/Los_Angeles")),
            "Nov 24 08:00 PST"
        );
        assert_eq!(short_local(NOW, None), "Nov 24 16:00 UTC");
        assert_eq!(short_day(NOW, Some("America/Los_Angeles")), "Mon Nov 24");
        let html = when(NOW - HOUR_US, Some("Nope/Zone"), NOW).into_string();
        assert!(
            html.contains("Nov 24 15:00 UTC") && html.contains("1 h ago"),
            "{html}"
        );
    }

    #[test]
    fn the_last_free_day_asks_for_attention_when_close_or_past() {
        let la = Some("America/Los_Angeles");
        let waiting = ContainerStatus::Available;
        assert_eq!(lfd_days(waiting, Some(NOW + 3 * DAY_US), la, NOW), Some(3));
        assert_eq!(lfd_badge(Some(3)), None);
        assert_eq!(lfd_class(Some(3)), "");
        let soon = lfd_badge(Some(2)).unwrap();
        assert_eq!(
            (soon.label.as_str(), soon.tone),
            ("LFD in 2 days", Tone::Warn)
        );
        assert_eq!(lfd_class(Some(1)), "lfd-soon");
        assert_eq!(lfd_badge(Some(0)).unwrap().label, "LFD today");
        let past = lfd_badge(Some(-1)).unwrap();
        assert_eq!(
            (past.label.as_str(), past.tone),
            ("LFD passed 1 day ago", Tone::Bad)
        );
        assert_eq!(lfd_class(Some(-4)), "lfd-past");
        // once the box is out, its last free day no longer matters
        assert_eq!(
            lfd_days(ContainerStatus::PickedUp, Some(NOW - DAY_US), la, NOW),
            None
        );
        assert_eq!(lfd_days(waiting, None, la, NOW), None);
    }

    #[test]
    fn badges_say_status_hold_and_deadline() {
        let mut state = ContainerState::default();
        state.holds.push(Hold {
            name: "customs".into(),
            status: "hold".into(),
            description: None,
        });
        let b = container_badges(ContainerStatus::NotAvailable, &state, Some(-2));
        let labels: Vec<&str> = b.iter().map(|b| b.label.as_str()).collect();
        assert_eq!(
            labels,
            [
                "Not available for pickup",
                "On hold",
                "LFD passed 2 days ago"
            ]
        );
        assert!(
            badges_html(&b)
                .into_string()
                .contains(r#"<span class="badge b-bad">On hold</span>"#)
        );
        let ready = container_badges(
            ContainerStatus::Available,
            &ContainerState::default(),
            Some(5),
        );
        assert_eq!(ready, [Badge::new("Available for pickup", Tone::Good)]);
        // a held box that has left is not "on hold" for anyone
        assert_eq!(
            container_badges(ContainerStatus::PickedUp, &state, None).len(),
            1
        );
    }

    #[test]
    fn the_next_step_follows_the_box() {
        let customs = [Hold {
            name: "customs".into(),
            status: "hold".into(),
            description: None,
        }];
        assert_eq!(
            next_step(ContainerStatus::NotAvailable, &customs, None, Some(3), None),
            "Clear the hold: customs."
        );
        assert_eq!(
            next_step(ContainerStatus::Available, &[], None, Some(2), None),
            "Book a pickup before the last free day (in 2 days)."
        );
        assert_eq!(
            next_step(ContainerStatus::Available, &[], None, Some(-1), None),
            "Pick up now: storage charges are running."
        );
        assert_eq!(
            next_step(ContainerStatus::EmptyReturned, &[], None, None, None),
            "Nothing: the journey is complete."
        );
        // a booked appointment is the next step
        assert_eq!(
            next_step(
                ContainerStatus::Available,
                &[],
                None,
                Some(2),
                Some("Dec 2 10:00 PST")
            ),
            "Pick up at the appointment (Dec 2 10:00 PST)."
        );
    }

    #[test]
    fn a_dispatcher_reads_where_when_and_what_holds_a_box() {
        let route = Route {
            pod_locode: Some("USLAX".into()),
            pod_name: Some("Los Angeles".into()),
            pod_timezone: Some("America/Los_Angeles".into()),
            destination_locode: Some("USCHI".into()),
            destination_name: Some("Chicago".into()),
            destination_timezone: Some("America/Chicago".into()),
            ..Route::default()
        };
        let voyage = ShipmentState {
            pod_ata_us: Some(NOW),
            destination_eta_us: Some(NOW + 5 * DAY_US),
            pod_vessel_name: Some("EVER GIVEN".into()),
            pod_voyage_number: Some("0412E".into()),
            ..ShipmentState::default()
        };
        let a = arrival(&route, &voyage);
        assert!(
            a.starts_with("Los Angeles: arrived ") && a.contains(" · Chicago: ETA "),
            "{a}"
        );
        assert_eq!(vessel(&voyage), "EVER GIVEN / 0412E");
        assert_eq!(holds_and_fees(&ContainerState::default()), "not reported");
        assert_eq!(
            customer_and_refs(
                Some("Acme"),
                &["PO-1".into()],
                &["PO-1".into(), "SO-2".into()]
            ),
            "Acme · PO-1, SO-2"
        );
        assert_eq!(customer_and_refs(None, &[], &[]), "");
    }
}
