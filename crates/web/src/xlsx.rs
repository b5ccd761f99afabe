//! Reads the first worksheet of an XLSX workbook (Office Open XML, ECMA-376 part 1) into rows
//! of text, for the console's bulk import.
//!
//! A workbook is a zip archive of XML parts: `xl/workbook.xml` lists the sheets in order, each
//! naming a relationship in `xl/_rels/workbook.xml.rels` whose target is the sheet's part;
//! `xl/sharedStrings.xml` holds the text that cells refer to by index (`t="s"`). Cells carry
//! their own text too (`t="inlineStr"`, `t="str"`), numbers, booleans and error codes.
//!
//! Everything here reads outside input, so every size is bounded: the archive, each part once
//! inflated (a small zip can inflate without end), the rows and the columns kept. XML entities
//! other than the five predefined ones and character references are dropped, never expanded.

use std::io::{Cursor, Read};

use quick_xml::events::{BytesStart, Event};

/// The largest XLSX file accepted, in bytes.
pub const MAX_FILE_BYTES: usize = 4 * 1024 * 1024;
/// The most bytes one part (the sheet, the shared strings) may inflate to.
const MAX_PART_BYTES: u64 = 32 * 1024 * 1024;
/// Columns kept per row (an import reads four).
const MAX_COLUMNS: usize = 32;

/// Why a workbook could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum XlsxError {
    /// Larger than [`MAX_FILE_BYTES`].
    #[error("the file is larger than {} MB", MAX_FILE_BYTES / (1024 * 1024))]
    TooLarge,
    /// Not a zip archive.
    #[error("this is not an XLSX workbook (it is not a zip archive: {0})")]
    NotZip(String),
    /// A part it needs is missing.
    #[error("the workbook has no {0}")]
    Missing(&'static str),
    /// A part inflates past [`MAX_PART_BYTES`].
    #[error("{0} of the workbook is larger than {max} MB once unpacked", max = MAX_PART_BYTES / (1024 * 1024))]
    PartTooLarge(String),
    /// A part could not be read.
    #[error("{part} of the workbook could not be read: {reason}")]
    Unreadable {
        /// The part.
        part: String,
        /// Why.
        reason: String,
    },
    /// More rows than asked for.
    #[error("the sheet has more than {0} rows")]
    TooManyRows(usize),
}

/// The rows of the workbook's first sheet, top to bottom, each cell as text (empty for a
/// blank cell; rows without cells are empty rows, so a row's index is its sheet row number
/// minus one). Refused past `max_rows` rows.
pub fn first_sheet_rows(bytes: &[u8], max_rows: usize) -> Result<Vec<Vec<String>>, XlsxError> {
    if bytes.len() > MAX_FILE_BYTES {
        return Err(XlsxError::TooLarge);
    }
    let mut zip =
        zip::ZipArchive::new(Cursor::new(bytes)).map_err(|e| XlsxError::NotZip(e.to_string()))?;
    let sheet_part = match (
        part(&mut zip, "xl/workbook.xml")?,
        part(&mut zip, "xl/_rels/workbook.xml.rels")?,
    ) {
        (Some(workbook), Some(rels)) => first_sheet_part(&workbook, &rels)?,
        _ => None,
    }
    // a workbook without its index still has its first sheet where every writer puts it
    .unwrap_or_else(|| "xl/worksheets/sheet1.xml".to_string());
    let shared = match part(&mut zip, "xl/sharedStrings.xml")? {
        Some(xml) => shared_strings(&xml)?,
        None => Vec::new(),
    };
    let sheet = part(&mut zip, &sheet_part)?.ok_or(XlsxError::Missing("worksheet"))?;
    sheet_rows(&sheet, &shared, max_rows)
}

/// One part of the archive as text, `None` when absent; bounded by [`MAX_PART_BYTES`].
fn part(zip: &mut zip::ZipArchive<Cursor<&[u8]>>, name: &str) -> Result<Option<String>, XlsxError> {
    let unreadable = |reason: String| XlsxError::Unreadable {
        part: name.to_string(),
        reason,
    };
    let file = match zip.by_name(name) {
        Ok(f) => f,
        Err(zip::result::ZipError::FileNotFound) => return Ok(None),
        Err(e) => return Err(unreadable(e.to_string())),
    };
    let mut bytes = Vec::new();
    file.take(MAX_PART_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| unreadable(e.to_string()))?;
    if bytes.len() as u64 > MAX_PART_BYTES {
        return Err(XlsxError::PartTooLarge(name.to_string()));
    }
    String::from_utf8(bytes)
        .map(Some)
        .map_err(|_| unreadable("not UTF-8".into()))
}

/// The value of the attribute whose local name is `local` (`r:id` and `id` both match `id`).
fn attr(e: &BytesStart<'_>, local: &str) -> Option<String> {
    e.attributes().with_checks(false).flatten().find_map(|a| {
        let key = a.key.into_inner();
        let name = key.rsplit(':').next().unwrap_or(key);
        (name == local).then(|| {
            a.normalized_value(quick_xml::XmlVersion::Implicit1_0)
                .map(|v| v.into_owned())
                .unwrap_or_else(|_| a.value.clone().into_owned())
        })
    })
}

fn xml_error(part: &str, e: quick_xml::Error) -> XlsxError {
    XlsxError::Unreadable {
        part: part.to_string(),
        reason: e.to_string(),
    }
}

/// The part of the workbook's first sheet: the relationship the first `<sheet>` names,
/// resolved against `xl/`.
fn first_sheet_part(workbook: &str, rels: &str) -> Result<Option<String>, XlsxError> {
    let mut reader = quick_xml::Reader::from_str(workbook);
    let mut rel_id = None;
    loop {
        match reader
            .read_event()
            .map_err(|e| xml_error("xl/workbook.xml", e))?
        {
            Event::Start(e) | Event::Empty(e) if e.local_name().into_inner() == "sheet" => {
                rel_id = attr(&e, "id");
                break;
            }
            Event::Eof => break,
            _ => {}
        }
    }
    let Some(rel_id) = rel_id else {
        return Ok(None);
    };
    let mut reader = quick_xml::Reader::from_str(rels);
    loop {
        match reader
            .read_event()
            .map_err(|e| xml_error("xl/_rels/workbook.xml.rels", e))?
        {
            Event::Start(e) | Event::Empty(e)
                if e.local_name().into_inner() == "Relationship"
                    && attr(&e, "Id").as_deref() == Some(rel_id.as_str()) =>
            {
                return Ok(attr(&e, "Target").map(|t| match t.strip_prefix('/') {
                    Some(absolute) => absolute.to_string(),
                    None => format!("xl/{t}"),
                }));
            }
            Event::Eof => return Ok(None),
            _ => {}
        }
    }
}

/// Text of a general reference: the five predefined entities and character references;
/// anything else is dropped.
fn reference_text(r: &quick_xml::events::BytesRef<'_>) -> String {
    if let Ok(Some(c)) = r.resolve_char_ref() {
        return c.to_string();
    }
    quick_xml::escape::resolve_predefined_entity(r.xml10_content().as_ref())
        .unwrap_or("")
        .to_string()
}

/// The shared strings, in order: the text of every `<t>` of each `<si>` (rich text runs
/// joined), leaving out phonetic guides (`<rPh>`).
fn shared_strings(xml: &str) -> Result<Vec<String>, XlsxError> {
    let mut reader = quick_xml::Reader::from_str(xml);
    let mut out = Vec::new();
    let mut current: Option<String> = None;
    let (mut in_t, mut in_phonetic) = (false, false);
    loop {
        match reader
            .read_event()
            .map_err(|e| xml_error("xl/sharedStrings.xml", e))?
        {
            Event::Start(e) => match e.local_name().into_inner() {
                "si" => current = Some(String::new()),
                "t" => in_t = true,
                "rPh" => in_phonetic = true,
                _ => {}
            },
            Event::Empty(e) if e.local_name().into_inner() == "si" => out.push(String::new()),
            Event::End(e) => match e.local_name().into_inner() {
                "si" => out.push(current.take().unwrap_or_default()),
                "t" => in_t = false,
                "rPh" => in_phonetic = false,
                _ => {}
            },
            Event::Text(t) if in_t && !in_phonetic => {
                if let Some(s) = current.as_mut() {
                    s.push_str(&t.xml10_content());
                }
            }
            Event::CData(t) if in_t && !in_phonetic => {
                if let Some(s) = current.as_mut() {
                    s.push_str(&t.xml10_content());
                }
            }
            Event::GeneralRef(r) if in_t && !in_phonetic => {
                if let Some(s) = current.as_mut() {
                    s.push_str(&reference_text(&r));
                }
            }
            Event::Eof => return Ok(out),
            _ => {}
        }
    }
}

/// The zero-based column of a cell reference such as `B7` or `AA12`; `None` when it has no
/// letters or is past any sheet's width.
fn column_of(reference: &str) -> Option<usize> {
    let letters: Vec<u8> = reference
        .bytes()
        .take_while(u8::is_ascii_alphabetic)
        .collect();
    if letters.is_empty() || letters.len() > 3 {
        return None;
    }
    let n = letters.iter().fold(0usize, |n, c| {
        n * 26 + usize::from(c.to_ascii_uppercase() - b'A') + 1
    });
    Some(n - 1)
}

/// A number as a person typed it: integral values without a decimal point or exponent
/// (`1.23456789E8` is `123456789`), anything else as written.
fn number_text(raw: &str) -> String {
    match raw.trim().parse::<f64>() {
        Ok(f) if f.fract() == 0.0 && f.abs() < 1e15 => format!("{}", f as i64),
        _ => raw.trim().to_string(),
    }
}

/// One cell as it is read: its type, its column, and its text so far.
struct Cell {
    kind: String,
    column: Option<usize>,
    text: String,
}

/// The rows of a sheet part.
fn sheet_rows(
    xml: &str,
    shared: &[String],
    max_rows: usize,
) -> Result<Vec<Vec<String>>, XlsxError> {
    let mut reader = quick_xml::Reader::from_str(xml);
    let mut rows: Vec<Vec<String>> = Vec::new();
    let mut row: Option<Vec<String>> = None;
    let mut cell: Option<Cell> = None;
    // inside the element whose text is the value: <v>, or <t> of an inline string
    let mut in_value = false;
    let finish_cell = |row: &mut Vec<String>, c: Cell| {
        let value = match c.kind.as_str() {
            "s" => c
                .text
                .trim()
                .parse::<usize>()
                .ok()
                .and_then(|i| shared.get(i).cloned())
                .unwrap_or_default(),
            "b" => if c.text.trim() == "1" {
                "TRUE"
            } else {
                "FALSE"
            }
            .to_string(),
            "inlineStr" | "str" | "e" => c.text,
            _ => number_text(&c.text),
        };
        let column = c.column.unwrap_or(row.len());
        if column < MAX_COLUMNS {
            if row.len() <= column {
                row.resize(column + 1, String::new());
            }
            row[column] = value;
        }
    };
    loop {
        let event = reader
            .read_event()
            .map_err(|e| xml_error("the worksheet", e))?;
        match event {
            // an empty <row/>, <c/> or <v/> holds nothing to keep
            Event::Start(e) => {
                match e.local_name().into_inner() {
                    "row" => {
                        // rows are numbered from 1; a missing number follows the last row,
                        // and one out of order goes after it
                        let number = attr(&e, "r")
                            .and_then(|r| r.trim().parse::<usize>().ok())
                            .filter(|n| *n > rows.len())
                            .unwrap_or(rows.len() + 1);
                        if number > max_rows {
                            return Err(XlsxError::TooManyRows(max_rows));
                        }
                        rows.resize(number - 1, Vec::new());
                        row = Some(Vec::new());
                    }
                    "c" => {
                        cell = Some(Cell {
                            kind: attr(&e, "t").unwrap_or_default(),
                            column: attr(&e, "r").and_then(|r| column_of(&r)),
                            text: String::new(),
                        });
                    }
                    "v" => in_value = cell.is_some(),
                    "t" => in_value = cell.as_ref().is_some_and(|c| c.kind == "inlineStr"),
                    _ => {}
                }
            }
            Event::End(e) => match e.local_name().into_inner() {
                "v" | "t" => in_value = false,
                "c" => {
                    if let (Some(r), Some(c)) = (row.as_mut(), cell.take()) {
                        finish_cell(r, c);
                    }
                }
                "row" => {
                    if let Some(r) = row.take() {
                        rows.push(r);
                    }
                }
                _ => {}
            },
            Event::Text(t) if in_value => {
                if let Some(c) = cell.as_mut() {
                    c.text.push_str(&t.xml10_content());
                }
            }
            Event::CData(t) if in_value => {
                if let Some(c) = cell.as_mut() {
                    c.text.push_str(&t.xml10_content());
                }
            }
            Event::GeneralRef(r) if in_value => {
                if let Some(c) = cell.as_mut() {
                    c.text.push_str(&reference_text(&r));
                }
            }
            Event::Eof => return Ok(rows),
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use std::io::Write;

    use super::*;

    /// A workbook of these parts, deflated as spreadsheet programs write them.
    fn workbook(parts: &[(&str, &str)]) -> Vec<u8> {
        let mut w = zip::ZipWriter::new(Cursor::new(Vec::new()));
        let options = zip::write::SimpleFileOptions::default()
            .compression_method(zip::CompressionMethod::Deflated);
        for (name, body) in parts {
            w.start_file(*name, options).unwrap();
            w.write_all(body.as_bytes()).unwrap();
        }
        w.finish().unwrap().into_inner()
    }

    const WORKBOOK: &str = r#"<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><sheets><sheet name="Numbers" sheetId="7" r:id="rId3"/><sheet name="Other" sheetId="1" r:id="rId1"/></sheets></workbook>"#;
    const RELS: &str = r#"<?xml version="1.0" encoding="UTF-8"?>
<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="worksheets/sheet1.xml"/><Relationship Id="rId3" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="/xl/worksheets/numbers.xml"/></Relationships>"#;
    const SHARED: &str = r#"<sst xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" count="4" uniqueCount="4"><si><t>number</t></si><si><r><rPr><b/></rPr><t>MSCU</t></r><r><t xml:space="preserve">1234566</t></r></si><si><t>PO-1 &amp; PO-2&#x21;</t><rPh sb="0" eb="1"><t>ignored</t></rPh></si><si/></sst>"#;
    const SHEET: &str = r#"<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData>
<row r="1"><c r="A1" t="s"><v>0</v></c><c r="B1" t="inlineStr"><is><t>ref_numbers</t></is></c></row>
<row r="3"><c r="A3" t="s"><v>1</v></c><c r="B3" t="s"><v>2</v></c><c r="D3" t="b"><v>1</v></c></row>
<row r="4"><c r="A4"><v>1.23456789E8</v></c><c r="B4" t="str"><v>formula &lt;text&gt;</v></c><c r="C4"><v>0.5</v></c><c r="AH4" t="inlineStr"><is><t>too far</t></is></c></row>
<row><c t="inlineStr"><is><t>no reference</t></is></c><c/></row>
</sheetData></worksheet>"#;

    #[test]
    fn the_first_sheet_is_read_by_its_relationship_with_every_kind_of_cell() {
        let bytes = workbook(&[
            ("xl/workbook.xml", WORKBOOK),
            ("xl/_rels/workbook.xml.rels", RELS),
            ("xl/sharedStrings.xml", SHARED),
            (
                "xl/worksheets/sheet1.xml",
                "<worksheet><sheetData><row r=\"1\"><c t=\"inlineStr\"><is><t>wrong sheet</t></is></c></row></sheetData></worksheet>",
            ),
            ("xl/worksheets/numbers.xml", SHEET),
        ]);
        let rows = first_sheet_rows(&bytes, 100).unwrap();
        assert_eq!(
            rows,
            vec![
                vec!["number".to_string(), "ref_numbers".into()],
                vec![],
                vec![
                    "MSCU1234566".into(),
                    "PO-1 & PO-2!".into(),
                    String::new(),
                    "TRUE".into()
                ],
                vec!["123456789".into(), "formula <text>".into(), "0.5".into()],
                vec!["no reference".into()],
            ]
        );
    }

    #[test]
    fn without_its_index_the_first_sheet_is_where_writers_put_it() {
        let bytes = workbook(&[(
            "xl/worksheets/sheet1.xml",
            "<worksheet><sheetData><row><c t=\"inlineStr\"><is><t>MSCU1234566</t></is></c></row></sheetData></worksheet>",
        )]);
        assert_eq!(
            first_sheet_rows(&bytes, 10).unwrap(),
            vec![vec!["MSCU1234566".to_string()]]
        );
        let none = workbook(&[("xl/workbook.xml", WORKBOOK)]);
        assert_eq!(
            first_sheet_rows(&none, 10),
            Err(XlsxError::Missing("worksheet"))
        );
    }

    #[test]
    fn what_is_not_a_workbook_or_too_big_is_refused() {
        assert!(matches!(
            first_sheet_rows(b"number\nMSCU1234566\n", 10),
            Err(XlsxError::NotZip(_))
        ));
        assert_eq!(
            first_sheet_rows(&vec![0u8; MAX_FILE_BYTES + 1], 10),
            Err(XlsxError::TooLarge)
        );
        // a part that inflates past the bound (a few kilobytes of zip)
        let bomb = "0".repeat(MAX_PART_BYTES as usize + 1);
        let bytes = workbook(&[("xl/worksheets/sheet1.xml", &bomb)]);
        assert!(bytes.len() < 200_000, "{}", bytes.len());
        assert_eq!(
            first_sheet_rows(&bytes, 10),
            Err(XlsxError::PartTooLarge("xl/worksheets/sheet1.xml".into()))
        );
        // rows past the limit, even far down the sheet
        let far = workbook(&[(
            "xl/worksheets/sheet1.xml",
            "<worksheet><sheetData><row r=\"1000000\"><c t=\"inlineStr\"><is><t>x</t></is></c></row></sheetData></worksheet>",
        )]);
        assert_eq!(first_sheet_rows(&far, 10), Err(XlsxError::TooManyRows(10)));
        // broken XML is an error, not a panic
        let broken = workbook(&[(
            "xl/worksheets/sheet1.xml",
            "<worksheet><sheetData><row></c>",
        )]);
        assert!(matches!(
            first_sheet_rows(&broken, 10),
            Err(XlsxError::Unreadable { .. })
        ));
    }

    #[test]
    fn columns_and_numbers_read_as_people_write_them() {
        assert_eq!(column_of("A1"), Some(0));
        assert_eq!(column_of("Z9"), Some(25));
        assert_eq!(column_of("AA10"), Some(26));
        assert_eq!(column_of("XFD1048576"), Some(16_383));
        assert_eq!(column_of("12"), None);
        assert_eq!(column_of("ABCD1"), None);
        assert_eq!(number_text("1.23456789E8"), "123456789");
        assert_eq!(number_text("42"), "42");
        assert_eq!(number_text("0.5"), "0.5");
        assert_eq!(number_text("1E20"), "1E20");
        assert_eq!(number_text("abc"), "abc");
    }
}
