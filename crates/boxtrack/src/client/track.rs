//! `boxtrack track`: one number, or every number of a CSV file, as tracking requests.

use anyhow::{Context, anyhow, bail};
use serde_json::{Value, json};

use super::args::TrackArgs;
use super::http::{Api, ApiFailure};
use super::resources::{One, Resource, TrackingRequest, decode};
use super::summaries::text;
use crate::admin::table;

/// What a tracking request asks for, before it is sent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Wanted {
    /// The number as typed (trimmed).
    pub number: String,
    /// The SCAC, when known.
    pub scac: Option<String>,
    /// container, bill_of_lading or booking_number.
    pub request_type: String,
}

/// Fills in what was not given: sandbox numbers take `TEST`; the type is what the number
/// looks like (a valid ISO 6346 number is a container, else a bill of lading).
pub fn wanted(number: &str, scac: Option<&str>, request_type: Option<&str>) -> Wanted {
    let number = number.trim().to_string();
    let upper = number.to_ascii_uppercase();
    let sandbox = upper.starts_with("TEST-");
    let scac = scac
        .map(|s| s.trim().to_ascii_uppercase())
        .filter(|s| !s.is_empty())
        .or_else(|| sandbox.then(|| "TEST".to_string()));
    let request_type = request_type.map(str::to_string).unwrap_or_else(|| {
        if sandbox {
            return "bill_of_lading".to_string();
        }
        match boxtrack_core::carriers::infer(&number) {
            Ok(i) if i.number_type == boxtrack_core::carriers::NumberType::Container => {
                "container".to_string()
            }
            _ => "bill_of_lading".to_string(),
        }
    });
    Wanted {
        number,
        scac,
        request_type,
    }
}

/// The rows of a numbers file: `number[,scac[,type]]`, a header and comments skipped.
pub fn parse_numbers(text: &str) -> Result<Vec<Wanted>, String> {
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.trim().trim_start_matches('\u{feff}');
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let cells: Vec<&str> = line
            .split([',', ';', '\t'])
            .map(|c| c.trim().trim_matches('"'))
            .collect();
        if i == 0 && cells[0].eq_ignore_ascii_case("number") {
            continue;
        }
        out.push(numbers_row(i + 1, &cells)?);
    }
    if out.is_empty() {
        return Err("the file holds no numbers".to_string());
    }
    Ok(out)
}

/// One row of a numbers file (line `n`), its cells checked.
fn numbers_row(n: usize, cells: &[&str]) -> Result<Wanted, String> {
    if cells.len() > 3 {
        return Err(format!(
            "line {n}: {} columns; a row is number[,scac[,type]]",
            cells.len()
        ));
    }
    if cells[0].is_empty() {
        return Err(format!("line {n}: no number"));
    }
    let scac = cells.get(1).copied().filter(|s| !s.is_empty());
    let kind = cells.get(2).copied().filter(|s| !s.is_empty());
    if let Some(k) = kind
        && !["container", "bill_of_lading", "booking_number"].contains(&k)
    {
        return Err(format!(
            "line {n}: type {k:?} is not container, bill_of_lading or booking_number"
        ));
    }
    Ok(wanted(cells[0], scac, kind))
}

/// The body of `POST /v2/tracking_requests` for `w` (the line detected when no SCAC).
fn tracking_body(w: &Wanted) -> Value {
    let mut attrs = json!({"request_number": w.number, "request_type": w.request_type});
    match &w.scac {
        Some(s) => attrs["scac"] = json!(s),
        None => attrs["auto_detect_vocc_scac"] = json!(true),
    }
    json!({"data": {"type": "tracking_request", "attributes": attrs}})
}

/// Sends `w`'s tracking request.
async fn request_tracking(api: &Api, w: &Wanted) -> anyhow::Result<Value> {
    api.send(
        reqwest::Method::POST,
        "/v2/tracking_requests",
        Some(&tracking_body(w)),
    )
    .await
}

/// `boxtrack track`.
pub async fn track(args: &TrackArgs) -> anyhow::Result<()> {
    let api = Api::new(&args.conn)?;
    if let Some(file) = &args.file {
        let text = std::fs::read_to_string(file)
            .with_context(|| format!("cannot read {}", file.display()))?;
        let rows = parse_numbers(&text).map_err(|e| anyhow!("{}: {e}", file.display()))?;
        return track_many(&api, &rows, args.conn.json).await;
    }
    let number = args.number.as_deref().unwrap_or_default();
    let w = wanted(number, args.scac.as_deref(), args.request_type.as_deref());
    let doc = request_tracking(&api, &w).await?;
    if args.conn.json {
        println!("{}", serde_json::to_string_pretty(&doc)?);
        return Ok(());
    }
    let request: One<TrackingRequest> = decode(&doc, "a tracking request")?;
    println!("{}", request_table(&request.data));
    println!(
        "follow it with: boxtrack show {} (or boxtrack watch CONTAINER)",
        w.number
    );
    Ok(())
}

/// The one-row table of a tracking request just made.
fn request_table(r: &TrackingRequest) -> String {
    let a = &r.attributes;
    table(
        &["TRACKING REQUEST", "NUMBER", "TYPE", "SCAC", "STATUS"],
        &[vec![
            r.id.clone(),
            text(&a.request_number),
            text(&a.request_type),
            text(&a.scac),
            text(&a.status),
        ]],
    )
}

/// What became of one row of a numbers file.
struct Outcome {
    /// The row.
    wanted: Wanted,
    /// `created`, `already tracked` or `refused`.
    result: &'static str,
    /// The tracking request's id, when one was created.
    id: String,
    /// Why it was refused.
    detail: String,
}

/// Tracks every row, with a progress bar; stops at the first error that every other row
/// would meet as well (the server or the key), and fails when any row was refused.
async fn track_many(api: &Api, rows: &[Wanted], json_out: bool) -> anyhow::Result<()> {
    let bar = indicatif::ProgressBar::new(rows.len() as u64);
    bar.set_style(
        indicatif::ProgressStyle::with_template("{bar:40} {pos}/{len} {msg}")
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
    );
    let mut out = Vec::new();
    for w in rows {
        bar.set_message(w.number.clone());
        match track_one(api, w).await {
            Ok(outcome) => out.push(outcome),
            Err(e) => {
                bar.finish_and_clear();
                return Err(e);
            }
        }
        bar.inc(1);
    }
    bar.finish_and_clear();
    if json_out {
        print_outcome_lines(&out);
    } else {
        print_outcome_table(&out);
    }
    let failed = count(&out, "refused");
    if failed > 0 {
        bail!("{failed} of {} numbers were refused", rows.len());
    }
    Ok(())
}

/// Tracks one row: created, already tracked or refused; an error when the server or the key
/// is the trouble.
async fn track_one(api: &Api, w: &Wanted) -> anyhow::Result<Outcome> {
    let outcome = |result, id, detail| Outcome {
        wanted: w.clone(),
        result,
        id,
        detail,
    };
    let e = match request_tracking(api, w).await {
        Ok(doc) => {
            // the request exists; an answer without its id leaves the column empty
            let id = decode::<One<Resource<serde::de::IgnoredAny>>>(&doc, "a tracking request")
                .map(|r| r.data.id)
                .unwrap_or_default();
            return Ok(outcome("created", id, String::new()));
        }
        Err(e) => e,
    };
    match e.downcast_ref::<ApiFailure>() {
        Some(f) if f.status == 422 && f.message.contains("already exists") => {
            Ok(outcome("already tracked", String::new(), String::new()))
        }
        Some(f) if f.status < 500 && f.status != 401 && f.status != 403 => {
            Ok(outcome("refused", String::new(), f.message.clone()))
        }
        // the server or the key is the trouble: every other row would fail alike
        _ => Err(e),
    }
}

/// How many rows came to `result`.
fn count(out: &[Outcome], result: &str) -> usize {
    out.iter().filter(|o| o.result == result).count()
}

/// One JSON line per row (`--json`).
fn print_outcome_lines(out: &[Outcome]) {
    for o in out {
        let (w, id, detail) = (&o.wanted, &o.id, &o.detail);
        println!(
            "{}",
            json!({"number": w.number, "scac": w.scac, "request_type": w.request_type,
                   "result": o.result, "tracking_request_id": (!id.is_empty()).then_some(id),
                   "error": (!detail.is_empty()).then_some(detail)})
        );
    }
}

/// A table of the rows and a line of the counts.
fn print_outcome_table(out: &[Outcome]) {
    let body: Vec<Vec<String>> = out
        .iter()
        .map(|o| {
            vec![
                o.wanted.number.clone(),
                o.wanted.scac.clone().unwrap_or_else(|| "auto".into()),
                o.wanted.request_type.clone(),
                o.result.to_string(),
                if o.detail.is_empty() {
                    o.id.clone()
                } else {
                    o.detail.clone()
                },
            ]
        })
        .collect();
    println!(
        "{}",
        table(
            &["NUMBER", "SCAC", "TYPE", "RESULT", "TRACKING REQUEST / WHY"],
            &body
        )
    );
    println!(
        "{} created, {} already tracked, {} refused",
        count(out, "created"),
        count(out, "already tracked"),
        count(out, "refused")
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_take_their_type_and_the_sandbox_its_scac() {
        assert_eq!(
            wanted("msku1234565", None, None),
            Wanted {
                number: "msku1234565".into(),
                scac: None,
                request_type: "container".into()
            }
        );
        assert_eq!(
            wanted("MAEU123456789", Some("maeu"), None).request_type,
            "bill_of_lading"
        );
        assert_eq!(
            wanted("MAEU123456789", Some("maeu"), None).scac.as_deref(),
            Some("MAEU")
        );
        let sandbox = wanted("TEST-SCN-HOLDS", None, None);
        assert_eq!(sandbox.scac.as_deref(), Some("TEST"));
        assert_eq!(sandbox.request_type, "bill_of_lading");
        assert_eq!(
            wanted("X1", None, Some("booking_number")).request_type,
            "booking_number"
        );
    }

    #[test]
    fn number_files_skip_headers_and_comments_and_name_bad_lines() {
        let rows = parse_numbers(
            "number,scac,type\n# a comment\n\nMAEU1,MAEU\nTEST-SCN-RAIL\nX2,,booking_number\n",
        )
        .unwrap();
        assert_eq!(rows.len(), 3);
        assert_eq!(rows[0].scac.as_deref(), Some("MAEU"));
        assert_eq!(rows[1].scac.as_deref(), Some("TEST"));
        assert_eq!(rows[2].request_type, "booking_number");
        assert_eq!(rows[2].scac, None);
        assert!(parse_numbers("A,B,C,D\n").unwrap_err().contains("line 1"));
        assert!(parse_numbers("A,B,ship\n").unwrap_err().contains("ship"));
        assert!(
            parse_numbers("number\n")
                .unwrap_err()
                .contains("no numbers")
        );
    }
}
