//! The public calendars boxtrack ships (`crates/app/shipped/calendars/`, each naming its
//! source; `crates/app/shipped/SOURCES.md` says what each source said, and why no carrier
//! tariff ships): US federal holidays and each port's own published no-work days.

use boxtrack_core::charges::CalendarDoc;

use super::{Stored, add_calendar, calendar_problems};
use crate::AppError;
use crate::ctx::Ctx;

/// Each shipped calendar: its file's name and text.
pub const CALENDARS: [(&str, &str); 10] = [
    (
        "uschs.json",
        include_str!("../../shipped/calendars/uschs.json"),
    ),
    (
        "ushou.json",
        include_str!("../../shipped/calendars/ushou.json"),
    ),
    (
        "uslax.json",
        include_str!("../../shipped/calendars/uslax.json"),
    ),
    (
        "uslgb.json",
        include_str!("../../shipped/calendars/uslgb.json"),
    ),
    (
        "usnyc.json",
        include_str!("../../shipped/calendars/usnyc.json"),
    ),
    (
        "usoak.json",
        include_str!("../../shipped/calendars/usoak.json"),
    ),
    (
        "usorf.json",
        include_str!("../../shipped/calendars/usorf.json"),
    ),
    (
        "ussav.json",
        include_str!("../../shipped/calendars/ussav.json"),
    ),
    (
        "ussea.json",
        include_str!("../../shipped/calendars/ussea.json"),
    ),
    (
        "ustiw.json",
        include_str!("../../shipped/calendars/ustiw.json"),
    ),
];

/// The shipped calendars, read and checked (a file that does not read is named).
pub fn calendars() -> Result<Vec<(&'static str, CalendarDoc)>, AppError> {
    CALENDARS
        .iter()
        .map(|(name, text)| {
            let doc: CalendarDoc = serde_json::from_str(text).map_err(|e| AppError::Refused {
                code: "invalid",
                detail: format!("the shipped calendar {name} does not read: {e}"),
            })?;
            if let Some((field, detail)) = calendar_problems(&doc).into_iter().next() {
                return Err(AppError::Refused {
                    code: "invalid",
                    detail: format!("the shipped calendar {name}{field}: {detail}"),
                });
            }
            Ok((*name, doc))
        })
        .collect()
}

/// Loads the shipped calendars as public ones (each replaces the public calendar of its
/// port); what was loaded.
pub async fn load(ctx: &Ctx) -> Result<Vec<Stored<CalendarDoc>>, AppError> {
    let mut loaded = Vec::new();
    for (_, doc) in calendars()? {
        loaded.push(add_calendar(ctx, None, doc).await?);
    }
    Ok(loaded)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_shipped_calendar_reads_checks_and_names_its_source() {
        let all = calendars().unwrap();
        assert_eq!(all.len(), CALENDARS.len());
        for (name, doc) in all {
            assert_eq!(format!("{}.json", doc.port.to_ascii_lowercase()), name);
            let source = doc.source.expect("a source");
            assert!(source.url.starts_with("https://"), "{name}");
            assert!(doc.holidays_rule.is_some(), "{name}: the federal holidays");
        }
    }
}
