//! CSV for the console's exports (RFC 4180): fields quoted when they must be, and cells that
//! a spreadsheet would run as a formula (`=`, `+`, `-`, `@`, tab, carriage return first)
//! prefixed with `'`, so an exported reference number cannot become a formula in Excel.

use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use boxtrack_app::model::{Keyed, ListSort};
use boxtrack_core::paging::{Cursor, MAX_SIZE, Page};

/// One field, ready to put between commas.
pub(crate) fn field(s: &str) -> String {
    let guarded = if s.starts_with(['=', '+', '-', '@', '\t', '\r']) {
        format!("'{s}")
    } else {
        s.to_string()
    };
    if guarded.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", guarded.replace('"', "\"\""))
    } else {
        guarded
    }
}

/// One record: the fields joined by commas, ended by CRLF.
pub(crate) fn record<S: AsRef<str>>(fields: &[S]) -> String {
    let mut line = fields
        .iter()
        .map(|f| field(f.as_ref()))
        .collect::<Vec<_>>()
        .join(",");
    line.push_str("\r\n");
    line
}

/// The most rows one export holds.
pub const EXPORT_MAX_ROWS: usize = 50_000;

/// Walks a filtered list page after page for an export: by cursor in the default order (an
/// index seek per page), by page number in the others (their rows carry no cursor key).
pub(crate) struct Walk {
    by_cursor: bool,
    number: u32,
    cursor: Option<Cursor>,
    written: usize,
}

impl Walk {
    /// A walk of a list in `sort`.
    pub(crate) fn new(sort: ListSort) -> Walk {
        Walk {
            by_cursor: sort == ListSort::UpdatedDesc,
            number: 1,
            cursor: None,
            written: 0,
        }
    }

    /// A walk by cursor, for a list in its own order.
    pub(crate) fn by_cursor() -> Walk {
        Walk::new(ListSort::UpdatedDesc)
    }

    /// The page to read next.
    pub(crate) fn page(&self) -> Page {
        Page {
            number: self.number,
            size: MAX_SIZE,
            cursor: self.cursor,
        }
    }

    /// Moves past a page of `rows`; false when the export is complete (no page follows, or
    /// [`EXPORT_MAX_ROWS`] are written).
    pub(crate) fn advance<K: Keyed>(&mut self, rows: &[K], has_next: bool) -> bool {
        self.written += rows.len();
        let Some(last) = rows.last() else {
            return false;
        };
        if !has_next || self.written >= EXPORT_MAX_ROWS {
            return false;
        }
        if self.by_cursor {
            self.cursor = Some(Cursor::After(last.key()));
        } else {
            self.number += 1;
        }
        true
    }
}

/// A CSV download named `filename`, never cached.
pub(crate) fn download(body: String, filename: &'static str) -> Response {
    let mut r = (StatusCode::OK, body).into_response();
    let h = r.headers_mut();
    h.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/csv; charset=utf-8"),
    );
    if let Ok(v) = HeaderValue::from_str(&format!("attachment; filename=\"{filename}\"")) {
        h.insert(header::CONTENT_DISPOSITION, v);
    }
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    r
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_are_quoted_and_formulas_defused() {
        assert_eq!(field("MSCU1234566"), "MSCU1234566");
        assert_eq!(field("a,b"), "\"a,b\"");
        assert_eq!(field("say \"hi\""), "\"say \"\"hi\"\"\"");
        assert_eq!(field("two\nlines"), "\"two\nlines\"");
        assert_eq!(field("=HYPERLINK(\"x\")"), "\"'=HYPERLINK(\"\"x\"\")\"");
        assert_eq!(field("-1"), "'-1");
        assert_eq!(field("@SUM(A1)"), "'@SUM(A1)");
        assert_eq!(field(""), "");
        assert_eq!(record(&["a", "b,c", ""]), "a,\"b,c\",\r\n");
    }
}
