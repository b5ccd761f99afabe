//! Bulk tracking from a CSV or XLSX file: `GET /console/imports` (choose a file, or paste CSV
//! text; the page's script reads a chosen workbook and sends it as base64, read by
//! [`crate::xlsx`]),
//! `POST /console/imports/preview` (every row checked as `POST /v2/tracking_requests` would
//! check it, with the reason a row is refused), and `POST /console/imports/run` (tracks the
//! rows; `import.js` sends them 25 at a time and moves a progress bar, and without scripts
//! the form sends them all). A number the account tracks already is reported as such and
//! made again by nobody, so importing the same file twice creates nothing twice.
//!
//! Columns, by header (`number`, `type`, `scac`, `ref_numbers`, with a few other spellings)
//! or, without a header, in that order; only the number is needed: the type is inferred from
//! the number and the carrier detected when it is left empty.

use std::collections::HashMap;

use axum::extract::State;
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use boxtrack_app::model::{Account, Session};
use boxtrack_app::{AppError, Ctx, accounts};
use boxtrack_core::requests::{self, NewRequest};
use boxtrack_http::{Front, doc};
use maud::{Markup, html};
use serde::{Deserialize, Serialize};

use boxtrack_app::tracking::{Refused, track};
use boxtrack_core::carriers;
use boxtrack_http::doc::Doc;
use boxtrack_http::front::Mount;
use boxtrack_http::schema::Schema;

use crate::common::{SignedForm, SignedIn, page_with, see_other, unavailable};
use crate::layout::{Place, User, signed_in};
use crate::pagedoc::{self, Problem};
use crate::xlsx;

/// The most rows one file may have.
pub const MAX_ROWS: usize = 5_000;
/// The largest preview form: a workbook of [`crate::xlsx::MAX_FILE_BYTES`] in base64 (4 bytes
/// for every 3, and a few more where the form encodes `+` and `/`), with room for the rest.
pub const PREVIEW_BODY_MAX: usize = xlsx::MAX_FILE_BYTES * 3 / 2 + 64 * 1024;
/// The most rows one `run` request tracks.
pub const MAX_RUN: usize = MAX_ROWS;
/// The import pages' script: reads a chosen file, sends the rows in batches.
const IMPORT_JS: &str = "/console/assets/import.js";

/// One row to track, as the preview hands it to `run`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Row {
    /// The file's line.
    pub line: usize,
    /// The number.
    pub number: String,
    /// `container`, `bill_of_lading` or `booking_number`.
    #[serde(rename = "type")]
    pub request_type: String,
    /// The carrier, or empty to detect it.
    pub scac: String,
    /// Reference numbers.
    pub ref_numbers: Vec<String>,
}

/// A row as checked: ready to track, or why not.
pub(crate) type Checked = (usize, String, Result<Row, String>);

pub(crate) use boxtrack_core::csv::records;

/// Which column holds what: (number, type, scac, refs), from a header row if the first
/// record is one.
fn columns(first: &[String]) -> Option<[Option<usize>; 4]> {
    let find = |names: &[&str]| {
        first.iter().position(|h| {
            let h = h.trim().to_ascii_lowercase().replace([' ', '-'], "_");
            names.contains(&h.as_str())
        })
    };
    // names only (not words that are also values, such as the type `container`)
    let number = find(&[
        "number",
        "request_number",
        "container_number",
        "bill_of_lading",
        "bill_of_lading_number",
        "booking_number",
    ])?;
    Some([
        Some(number),
        find(&["type", "request_type", "kind"]),
        find(&["scac", "carrier", "shipping_line"]),
        find(&[
            "ref_numbers",
            "refs",
            "ref",
            "reference",
            "references",
            "po",
        ]),
    ])
}

/// Checks every record of a file: the number's type inferred when not given, the request
/// validated as the API validates it, repeats within the file refused. Blank lines are
/// skipped; lines are numbered as in the file.
pub(crate) fn check(text: &str) -> Result<Vec<Checked>, String> {
    check_records(&records(text))
}

/// Checks the records of a file, read from CSV or from a workbook's first sheet (record `i`
/// is line or row `i + 1`).
pub(crate) fn check_records(recs: &[Vec<String>]) -> Result<Vec<Checked>, String> {
    let (cols, start) = match recs.first().and_then(|r| columns(r)) {
        Some(c) => (c, 1),
        None => ([Some(0), Some(1), Some(2), Some(3)], 0),
    };
    let body: Vec<(usize, &Vec<String>)> = recs
        .iter()
        .enumerate()
        .skip(start)
        .filter(|(_, r)| r.iter().any(|f| !f.trim().is_empty()))
        .map(|(i, r)| (i + 1, r))
        .collect();
    if body.is_empty() {
        return Err("The file has no rows to track.".into());
    }
    if body.len() > MAX_ROWS {
        return Err(format!(
            "The file has {} rows; at most {MAX_ROWS} can be imported at once.",
            body.len()
        ));
    }
    let cell = |r: &Vec<String>, c: Option<usize>| {
        c.and_then(|i| r.get(i))
            .map(|v| v.trim().to_string())
            .unwrap_or_default()
    };
    let mut seen: HashMap<(String, String), usize> = HashMap::new();
    let mut out = Vec::new();
    for (line, r) in body {
        let number = cell(r, cols[0]).to_ascii_uppercase();
        let given_type = cell(r, cols[1]).to_ascii_lowercase().replace(' ', "_");
        let scac = cell(r, cols[2]).to_ascii_uppercase();
        let refs: Vec<String> = cell(r, cols[3])
            .split([';', '|'])
            .map(|s| s.trim().to_string())
            .filter(|s| !s.is_empty())
            .collect();
        let request_type = if given_type.is_empty() {
            match carriers::infer(&number) {
                Ok(i) => i.number_type.request_type().to_string(),
                Err(e) => {
                    out.push((line, number, Err(e.to_string())));
                    continue;
                }
            }
        } else {
            given_type
        };
        let input = NewRequest {
            request_number: Some(number.clone()),
            request_type: Some(request_type.clone()),
            scac: (!scac.is_empty()).then(|| scac.clone()),
            auto_detect: scac.is_empty(),
            ref_numbers: refs.clone(),
            ..Default::default()
        };
        let checked = match requests::validate(&input) {
            Err(errors) => Err(errors
                .iter()
                .map(|e| e.detail.clone())
                .collect::<Vec<_>>()
                .join(" ")),
            Ok(v) => match seen.get(&(v.number.clone(), request_type.clone())) {
                Some(first) => Err(format!("Repeats line {first} of this file.")),
                None => {
                    seen.insert((v.number.clone(), request_type.clone()), line);
                    Ok(Row {
                        line,
                        number: v.number.clone(),
                        request_type: request_type.clone(),
                        scac: scac.clone(),
                        ref_numbers: refs,
                    })
                }
            },
        };
        out.push((line, number, checked));
    }
    Ok(out)
}

/// The form that takes a file or its text, with `text` in it and what was wrong, if anything.
fn upload_form(csrf: &str, text: &str, error: Option<&str>) -> Markup {
    html! {
        form method="post" action="/console/imports/preview" id="import-form" {
            input type="hidden" name="csrf" value=(csrf);
            @if let Some(e) = error {
                p class="error" role="alert" id="import-error" { (e) }
            }
            label for="import-file" { "CSV or XLSX file" }
            input id="import-file" type="file" accept=".csv,.xlsx,text/csv,text/plain,application/vnd.openxmlformats-officedocument.spreadsheetml.sheet";
            input type="hidden" name="xlsx" id="import-xlsx" value="";
            p id="import-file-note" role="status" hidden {}
            label for="import-csv" { "Or its text" }
            textarea id="import-csv" name="csv" rows="8" cols="60" spellcheck="false" placeholder="number,type,scac,ref_numbers\nMSCU1234566,container,,PO-1" { (text) }
            " "
            button type="submit" { "Check the rows" }
        }
        p {
            "Columns: " code { "number" } " (needed), " code { "type" } " (" code { "container" } ", " code { "bill_of_lading" } " or " code { "booking_number" } "; inferred from the number when empty), "
            code { "scac" } " (detected when empty), " code { "ref_numbers" } " (separated by " code { ";" } "). A header row names them; without one they are read in this order. At most "
            (MAX_ROWS) " rows. From an XLSX workbook the first sheet is read (up to " (xlsx::MAX_FILE_BYTES / (1024 * 1024)) " MB)."
        }
    }
}

/// The page that asks for a file, with `text` in its form and what was wrong, if anything.
fn upload_page(user: User<'_>, status: StatusCode, text: &str, error: Option<&str>) -> Response {
    let main = html! {
        h1 { "Track many numbers" }
        (upload_form(user.csrf, text, error))
    };
    page_with(
        status,
        "Import",
        signed_in(Place::Import, user, main),
        &[],
        &[IMPORT_JS],
    )
}

/// `GET /console/imports`.
pub async fn page(SignedIn(s): SignedIn) -> Response {
    upload_page(User::from(&s), StatusCode::OK, "", None)
}

/// `POST /console/imports/preview`.
pub async fn preview(SignedForm(s, f): SignedForm) -> Response {
    let text = f.get("csv").map_or("", String::as_str);
    let workbook = f.get("xlsx").map(|b| b.trim()).filter(|b| !b.is_empty());
    let checked = match workbook {
        Some(encoded) => read_workbook(encoded).and_then(|recs| check_records(&recs)),
        None => check(text),
    };
    let checked = match checked {
        Ok(c) => c,
        Err(e) => return upload_page(User::from(&s), StatusCode::BAD_REQUEST, text, Some(&e)),
    };
    let good: Vec<Row> = checked
        .iter()
        .filter_map(|(_, _, r)| r.as_ref().ok().cloned())
        .collect();
    let refused = checked.len() - good.len();
    let rows_json = serde_json::to_string(&good).unwrap_or_else(|_| "[]".into());
    let main = html! {
        h1 { "Check the rows" }
        p role="status" id="import-summary" {
            (good.len()) " of " (checked.len()) " rows can be tracked; " (refused) " refused."
        }
        (checked_table(&checked))
        @if good.is_empty() {
            p { "No row can be tracked: correct the file and check it again." }
        } @else {
            (run_form(&s.csrf, &rows_json, good.len()))
        }
        p { a href="/console/imports" { "Choose another file" } }
    };
    page_with(
        StatusCode::OK,
        "Check the rows",
        signed_in(Place::Import, &s, main),
        &[],
        &[IMPORT_JS],
    )
}

/// Each row as checked: what will be tracked, or why it is refused.
fn checked_table(checked: &[Checked]) -> Markup {
    html! {
        table {
            thead {
                tr {
                    th scope="col" { "Line" }
                    th scope="col" { "Number" }
                    th scope="col" { "Type" }
                    th scope="col" { "Carrier" }
                    th scope="col" { "References" }
                    th scope="col" { "Check" }
                }
            }
            tbody {
                @for (line, number, r) in checked {
                    @match r {
                        Ok(row) => {
                            tr {
                                td { (line) }
                                td { code { (number) } }
                                td { (row.request_type.replace('_', " ")) }
                                td { (if row.scac.is_empty() { "detect" } else { &row.scac }) }
                                td { (row.ref_numbers.join(" ")) }
                                td { "ready" }
                            }
                        }
                        Err(why) => {
                            tr class="refused" {
                                td { (line) }
                                td { code { (number) } }
                                td {}
                                td {}
                                td {}
                                td class="error" { (why) }
                            }
                        }
                    }
                }
            }
        }
    }
}

/// The form that tracks the `n` rows that can be, with the progress its script shows.
fn run_form(csrf: &str, rows_json: &str, n: usize) -> Markup {
    html! {
        form method="post" action="/console/imports/run" id="run-form" {
            input type="hidden" name="csrf" value=(csrf);
            input type="hidden" name="rows" value=(rows_json);
            " "
            button type="submit" { "Track " (n) " row" (if n == 1 { "" } else { "s" }) }
        }
        p {
            label for="import-progress" { "Progress" }
            progress id="import-progress" max=(n) value="0" { "0 of " (n) }
            " "
            span id="import-progress-text" role="status" aria-live="polite" {}
        }
        table id="import-results" hidden {
            thead {
                tr {
                    th scope="col" { "Line" }
                    th scope="col" { "Number" }
                    th scope="col" { "Result" }
                }
            }
            tbody {}
        }
    }
}

/// The first sheet of an XLSX workbook sent as base64 (the page's script reads the chosen
/// file so), as records.
fn read_workbook(encoded: &str) -> Result<Vec<Vec<String>>, String> {
    use base64::Engine as _;
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(encoded)
        .map_err(|_| "The workbook did not arrive whole; choose the file again.".to_string())?;
    // blank rows do not count against the limit, so allow some past it; `check` counts
    xlsx::first_sheet_rows(&bytes, MAX_ROWS * 2)
        .map_err(|e| format!("The workbook could not be read: {e}."))
}

/// `POST /console/imports/run`: tracks `rows` (the preview's JSON); answers JSON when asked
/// for it (the progress bar's batches), else a page with the results.
pub async fn run(
    State(state): State<Front>,
    headers: HeaderMap,
    SignedForm(s, f): SignedForm,
) -> Response {
    let wants_json = headers
        .get(header::ACCEPT)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.contains("application/json"));
    let rows = match rows_sent(f.get("rows").map_or("", String::as_str)) {
        Ok(rows) => rows,
        Err(why) => return (StatusCode::BAD_REQUEST, Problem::says(why)).into_response(),
    };
    let account = match accounts::get(&state.ctx, s.account_id).await {
        Ok(Some(a)) => a,
        Ok(None) => return see_other("/console/sign-in"),
        Err(e) => return unavailable(&e),
    };
    let results = match track_rows(&state.ctx, &account, &rows).await {
        Ok(results) => results,
        Err(e) => return unavailable(&e),
    };
    if !rows.is_empty() {
        state.ctx.changes.touch(account.id);
    }
    if wants_json {
        return axum::Json(RunResults { results }).into_response();
    }
    results_page(&s, &results)
}

/// The preview's rows as the browser sent them back, or why they are refused.
fn rows_sent(json: &str) -> Result<Vec<Row>, String> {
    let Ok(rows) = serde_json::from_str::<Vec<Row>>(json) else {
        return Err("rows is not the preview's list of rows".to_string());
    };
    if rows.len() > MAX_RUN {
        return Err(format!("at most {MAX_RUN} rows at once"));
    }
    Ok(rows)
}

/// Tracks each row (checked again: the rows came back from the browser), saying what each
/// came to; stops at the first error of the database.
async fn track_rows(
    ctx: &Ctx,
    account: &Account,
    rows: &[Row],
) -> Result<Vec<RunResult>, AppError> {
    let mut results = Vec::with_capacity(rows.len());
    for row in rows {
        let input = NewRequest {
            request_number: Some(row.number.clone()),
            request_type: Some(row.request_type.clone()),
            scac: (!row.scac.is_empty()).then(|| row.scac.clone()),
            auto_detect: row.scac.is_empty(),
            ref_numbers: row.ref_numbers.clone(),
            ..Default::default()
        };
        let (outcome, detail) = match track(ctx, account, &input, Default::default()).await {
            Ok(_) => ("tracked", String::new()),
            Err(Refused::Invalid(errors)) => (
                "refused",
                errors
                    .iter()
                    .map(|e| e.detail.clone())
                    .collect::<Vec<_>>()
                    .join(" "),
            ),
            Err(Refused::Duplicate(_)) => (
                "already tracked",
                "A request for this number is pending or created already.".into(),
            ),
            Err(Refused::PlanLimit(limit)) => (
                "refused",
                format!("The plan tracks at most {limit} active containers."),
            ),
            Err(Refused::Store(e)) => return Err(e.into()),
        };
        results.push(RunResult {
            line: row.line,
            number: row.number.clone(),
            outcome,
            detail,
        });
    }
    Ok(results)
}

/// The page that shows what an import came to, row by row.
fn results_page(s: &Session, results: &[RunResult]) -> Response {
    let count = |o: &str| results.iter().filter(|r| r.outcome == o).count();
    let main = html! {
        h1 { "Imported" }
        p role="status" {
            (count("tracked")) " tracked, " (count("already tracked")) " already tracked, " (count("refused")) " refused."
        }
        table {
            thead {
                tr {
                    th scope="col" { "Line" }
                    th scope="col" { "Number" }
                    th scope="col" { "Result" }
                }
            }
            tbody {
                @for r in results {
                    tr {
                        td { (r.line) }
                        td { code { (r.number) } }
                        td { (r.outcome) " " (r.detail) }
                    }
                }
            }
        }
        p { a href="/console/tracking_requests" { "See the tracking requests" } }
    };
    page_with(
        StatusCode::OK,
        "Imported",
        signed_in(Place::Import, s, main),
        &[],
        &[],
    )
}

/// What tracking an import's rows came to (JSON when asked for).
#[derive(Debug, serde::Serialize, schemars::JsonSchema)]
pub(crate) struct RunResults {
    /// One per row, in order.
    results: Vec<RunResult>,
}

/// What tracking one row came to.
#[derive(Debug, serde::Serialize, schemars::JsonSchema)]
pub(crate) struct RunResult {
    /// The file's line.
    line: usize,
    /// The number.
    number: String,
    /// `tracked`, `already tracked` or `refused`.
    outcome: &'static str,
    /// Why, when refused.
    detail: String,
}

/// This page's routes, each declared with its documentation.
pub(crate) fn routes() -> Mount {
    use crate::pagedoc::{expired, form, html, not_form, page, see_other, unavailable};

    Mount::default()
        .public_get("/console/imports", self::page, || Doc::from_value(page(
                "Track many numbers (CSV)",
                "A form for a CSV file (read by the page's script into the text field) or its pasted text: columns `number` (needed), `type`, `scac`, `ref_numbers`, by header or in that order; at most 5,000 rows.",
                ("200", html("The form")),
                vec![("303", see_other("To /console/sign-in: no session"))],
                None,
            )))
        .public_routed("post", "/console/imports/preview", axum::routing::post(self::preview).layer(axum::extract::DefaultBodyLimit::max(
                PREVIEW_BODY_MAX,
            )), || Doc::from_value(page(
                "Check an import's rows",
                "Every row of the CSV text, or of the first sheet of an XLSX workbook sent as base64 in `xlsx` (at most 4 MB; the page's script reads a chosen file so), checked as `POST /v2/tracking_requests` checks it (the type inferred from the number when empty; repeats within the file refused), with the reason a row is refused, and a form that tracks the rows that passed.",
                ("200", html("The rows, checked")),
                vec![
                    ("303", see_other("To /console/sign-in: no session")),
                    (
                        "400",
                        html(
                            "The file has no rows, more than 5,000, or is a workbook that cannot be read",
                        ),
                    ),
                    ("403", expired()),
                    ("413", html("The form is larger than a 4 MB workbook needs")),
                    ("415", not_form()),
                ],
                Some(form(
                    &[
                        ("csv", Schema::string().describe("The CSV text")),
                        (
                            "xlsx",
                            Schema::string().describe(
                                "An XLSX workbook in base64 (read instead of `csv` when not empty)",
                            ),
                        ),
                    ],
                    &[],
                )),
            )))
        .public_post("/console/imports/run", self::run, || Doc::from_value(page(
                "Track an import's rows",
                "Tracks the rows the preview passed (checked again), each as `POST /v2/tracking_requests` would; a number tracked already is reported as such and not tracked twice. Answers JSON (`results`: line, number, outcome `tracked` | `already tracked` | `refused`, detail) when `Accept` asks for it, else a page.",
                (
                    "200",
                    {
                        let mut r = html("The results");
                        r["content"]["application/json"]["schema"] =
                            doc::schema_of::<RunResults>();
                        r
                    },
                ),
                vec![
                    ("303", see_other("To /console/sign-in: no session")),
                    (
                        "400",
                        pagedoc::problem("rows is not a list of rows, or too long"),
                    ),
                    ("403", expired()),
                    ("415", not_form()),
                    ("503", unavailable()),
                ],
                Some(form(
                    &[(
                        "rows",
                        Schema::string().describe("The preview's rows, as JSON"),
                    )],
                    &["rows"],
                )),
            )))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn csv_records_follow_rfc_4180() {
        assert_eq!(
            records("a,\"b,c\",\"say \"\"hi\"\"\"\r\nd,,\"two\nlines\"\n"),
            vec![vec!["a", "b,c", "say \"hi\""], vec!["d", "", "two\nlines"]]
        );
        assert_eq!(records("x;y\n1;2"), vec![vec!["x", "y"], vec!["1", "2"]]);
        assert_eq!(records("\u{feff}n\n"), vec![vec!["n"]]);
        assert!(records("").is_empty());
    }

    #[test]
    fn rows_are_checked_as_the_api_checks_them() {
        let text = "Container Number,Carrier,PO\nmscu1234566,,PO-1;PO-2\nMSCU1234567\n\nMSCU1234566\nMAEU261700001,MAEU\n";
        let checked = check(text).unwrap();
        assert_eq!(checked.len(), 4);
        let (line, number, ok) = &checked[0];
        assert_eq!((*line, number.as_str()), (2, "MSCU1234566"));
        let row = ok.as_ref().unwrap();
        assert_eq!(row.request_type, "container");
        assert_eq!(row.ref_numbers, vec!["PO-1", "PO-2"]);
        // a wrong check digit, a repeat, and a bill of lading with its carrier
        assert!(checked[1].2.is_err(), "{:?}", checked[1]);
        assert_eq!(checked[2].0, 5, "lines are counted as in the file");
        assert_eq!(
            checked[2].2.as_ref().unwrap_err(),
            "Repeats line 2 of this file."
        );
        let bl = checked[3].2.as_ref().unwrap();
        assert_eq!(
            (bl.request_type.as_str(), bl.scac.as_str()),
            ("bill_of_lading", "MAEU")
        );
    }

    #[test]
    fn without_a_header_the_columns_are_in_order() {
        let checked = check("MSCU1234566,container,MSCU\n").unwrap();
        let row = checked[0].2.as_ref().unwrap();
        assert_eq!(row.scac, "MSCU");
        assert!(check("\n\n").is_err());
        let many: String = (0..=MAX_ROWS).map(|_| "MSCU1234566\n").collect();
        assert!(check(&many).unwrap_err().contains("at most"));
    }
}
