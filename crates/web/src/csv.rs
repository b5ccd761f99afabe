//! CSV for the console's exports (RFC 4180): fields quoted when they must be, and cells that
//! a spreadsheet would run as a formula (`=`, `+`, `-`, `@`, tab, carriage return first)
//! prefixed with `'`, so an exported reference number cannot become a formula in Excel.

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
