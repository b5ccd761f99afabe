//! How the console shows a container at a glance: status badges, the last free day's urgency,
//! times at the place's clock with "in 2 days" / "3 h ago" beside them, and the next step.
//! Pure functions of the container and "now", so the list, the container page and the tests
//! agree.

use boxtrack_api::html::esc;
use boxtrack_core::tracking::rules::{self, ContainerStatus};
use boxtrack_core::tracking::{ContainerState, Fee, Hold};

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
    pub(crate) fn html(&self) -> String {
        format!(
            r#"<span class="badge {}">{}</span>"#,
            self.tone.class(),
            esc(&self.label)
        )
    }
}

/// The badges as HTML, one after another.
pub(crate) fn badges_html(badges: &[Badge]) -> String {
    badges.iter().map(Badge::html).collect::<Vec<_>>().join(" ")
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
pub(crate) fn when(at_us: i64, zone: Option<&str>, now_us: i64) -> String {
    format!(
        r#"<time datetime="{iso}">{local}</time> <span class="rel">{rel}</span>"#,
        iso = esc(&boxtrack_core::time::format_micros(at_us)),
        local = esc(&short_local(at_us, zone)),
        rel = esc(&relative(at_us, now_us)),
    )
}

/// A time at the clock of its place, short: `Nov 27 12:25 PST`.
pub(crate) fn short_local(at_us: i64, zone: Option<&str>) -> String {
    boxtrack_core::time::format_local_with(at_us, zone, "%b %-d %H:%M %Z")
}

/// A date at the clock of its place: `Mon Nov 24`.
pub(crate) fn short_day(at_us: i64, zone: Option<&str>) -> String {
    boxtrack_core::time::format_local_with(at_us, zone, "%a %b %-d")
}

/// What the people moving the box should do next, in one sentence.
pub(crate) fn next_step(
    status: ContainerStatus,
    holds: &[Hold],
    fees: Option<&[Fee]>,
    lfd_days: Option<i64>,
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
        let html = when(NOW - HOUR_US, Some("Nope/Zone"), NOW);
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
        assert!(badges_html(&b).contains(r#"<span class="badge b-bad">On hold</span>"#));
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
            next_step(ContainerStatus::NotAvailable, &customs, None, Some(3)),
            "Clear the hold: customs."
        );
        assert_eq!(
            next_step(ContainerStatus::Available, &[], None, Some(2)),
            "Book a pickup before the last free day (in 2 days)."
        );
        assert_eq!(
            next_step(ContainerStatus::Available, &[], None, Some(-1)),
            "Pick up now: storage charges are running."
        );
        assert_eq!(
            next_step(ContainerStatus::EmptyReturned, &[], None, None),
            "Nothing: the journey is complete."
        );
    }
}
