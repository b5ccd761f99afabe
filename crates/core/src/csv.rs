//! CSV text as people and published lists write it (RFC 4180).

/// Splits CSV text into records (RFC 4180: quoted fields with doubled quotes and line
/// breaks; commas or semicolons between fields, whichever the first line uses).
pub fn records(text: &str) -> Vec<Vec<String>> {
    let text = text.trim_start_matches('\u{feff}');
    let first = text.lines().next().unwrap_or("");
    let sep = if first.matches(';').count() > first.matches(',').count() {
        ';'
    } else {
        ','
    };
    let mut out = Vec::new();
    let mut record = Vec::new();
    let mut field = String::new();
    let mut quoted = false;
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match (quoted, c) {
            (true, '"') if chars.peek() == Some(&'"') => {
                field.push('"');
                chars.next();
            }
            (true, '"') => quoted = false,
            (true, c) => field.push(c),
            (false, '"') if field.is_empty() => quoted = true,
            (false, c) if c == sep => record.push(std::mem::take(&mut field)),
            (false, '\r') => {}
            (false, '\n') => {
                record.push(std::mem::take(&mut field));
                out.push(std::mem::take(&mut record));
            }
            (false, c) => field.push(c),
        }
    }
    if !field.is_empty() || !record.is_empty() {
        record.push(field);
        out.push(record);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quoted_fields_keep_commas_quotes_and_line_breaks() {
        let r = records("a,\"b, c\",\"d \"\"e\"\"\"\n\"x\ny\",2\r\n");
        assert_eq!(r, vec![vec!["a", "b, c", "d \"e\""], vec!["x\ny", "2"]]);
        // semicolons when the first line uses them, and a byte-order mark is skipped
        assert_eq!(records("\u{feff}a;b\n"), vec![vec!["a", "b"]]);
        assert!(records("").is_empty());
    }
}
