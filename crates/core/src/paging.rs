//! List paging: `page[number]`, `page[size]` and the keyset cursors carried in links.
//!
//! Lists are ordered newest first by `(sort_us, id)`. Links that move one page carry a cursor
//! (`page[after]` for the next page, `page[before]` for the previous one) so that following
//! `links.next` seeks on an index instead of skipping rows: page 10 000 costs what page 2 costs.
//! A bare `page[number]` without a cursor is still honoured (with an offset).

use std::fmt;

/// The default page size.
pub const DEFAULT_SIZE: u32 = 30;
/// The largest page size a client may ask for.
pub const MAX_SIZE: u32 = 100;

/// A validated page request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Page {
    /// 1-based page number.
    pub number: u32,
    /// Rows per page, 1..=[`MAX_SIZE`].
    pub size: u32,
    /// Seek position, if the client followed a cursor link.
    pub cursor: Option<Cursor>,
}

/// Where a page starts, relative to a row seen on the neighbouring page.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cursor {
    /// Rows strictly older than this key (the next page).
    After(Key),
    /// Rows strictly newer than this key (the previous page).
    Before(Key),
}

/// The sort key of a row: its ordering time and its id (as 16 bytes).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct Key {
    /// Ordering time in Unix microseconds.
    pub sort_us: i64,
    /// Row id bytes (UUID), the tie breaker.
    pub id: [u8; 16],
}

impl fmt::Display for Key {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}", self.sort_us, hex::encode(self.id))
    }
}

impl Key {
    /// Parses the `sort_us.hexid` form written by [`Display`](fmt::Display).
    pub fn parse(s: &str) -> Option<Key> {
        let (us, id) = s.split_once('.')?;
        // exactly the form written: digits with an optional minus (no plus, no spaces)
        let digits = us.strip_prefix('-').unwrap_or(us);
        if digits.is_empty() || digits.len() > 18 || !digits.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        let sort_us = us.parse().ok()?;
        let bytes = hex::decode(id).ok()?;
        Some(Key {
            sort_us,
            id: bytes.try_into().ok()?,
        })
    }
}

/// A page parameter that could not be accepted; names the parameter.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PageError {
    /// Not a positive integer.
    #[error("{param} must be a positive integer")]
    NotPositive {
        /// The query parameter.
        param: &'static str,
    },
    /// Larger than [`MAX_SIZE`].
    #[error("page[size] must be at most {MAX_SIZE}")]
    TooLarge {
        /// The query parameter.
        param: &'static str,
    },
    /// A cursor that this service did not write.
    #[error("{param} is not a cursor from a links entry")]
    BadCursor {
        /// The query parameter.
        param: &'static str,
    },
}

impl PageError {
    /// The query parameter at fault, for `source.parameter`.
    pub fn param(&self) -> &'static str {
        match self {
            PageError::NotPositive { param }
            | PageError::TooLarge { param }
            | PageError::BadCursor { param } => param,
        }
    }
}

/// Raw page parameters as they came in the query string.
#[derive(Debug, Clone, Copy, Default)]
pub struct RawPage<'a> {
    /// `page[number]`
    pub number: Option<&'a str>,
    /// `page[size]`
    pub size: Option<&'a str>,
    /// `page[after]`
    pub after: Option<&'a str>,
    /// `page[before]`
    pub before: Option<&'a str>,
}

fn positive(param: &'static str, v: Option<&str>, default: u32) -> Result<u32, PageError> {
    match v {
        None => Ok(default),
        // digits only, as written (no sign, no spaces)
        Some(s) if !s.bytes().all(|b| b.is_ascii_digit()) => Err(PageError::NotPositive { param }),
        Some(s) => match s.parse::<u32>() {
            Ok(n) if n >= 1 => Ok(n),
            _ => Err(PageError::NotPositive { param }),
        },
    }
}

/// Validates page parameters.
pub fn parse(raw: RawPage<'_>) -> Result<Page, PageError> {
    let number = positive("page[number]", raw.number, 1)?;
    let size = positive("page[size]", raw.size, DEFAULT_SIZE)?;
    if size > MAX_SIZE {
        return Err(PageError::TooLarge {
            param: "page[size]",
        });
    }
    let key = |param: &'static str, v: Option<&str>| {
        v.map(|v| Key::parse(v).ok_or(PageError::BadCursor { param }))
            .transpose()
    };
    let after = key("page[after]", raw.after)?;
    let before = key("page[before]", raw.before)?;
    // both (each a cursor): the way forward wins (links never carry both)
    let cursor = after.map(Cursor::After).or(before.map(Cursor::Before));
    Ok(Page {
        number,
        size,
        cursor,
    })
}

/// The number of the last page for `total` rows (1 for an empty list).
pub fn last_page(total: u64, size: u32) -> u32 {
    u32::try_from(total.div_ceil(u64::from(size.max(1))))
        .unwrap_or(u32::MAX)
        .max(1)
}

impl Page {
    /// The first page of `size` rows.
    pub fn first(size: u32) -> Page {
        Page {
            number: 1,
            size,
            cursor: None,
        }
    }

    /// Rows to skip when no cursor is given (page 0 reads as page 1).
    pub fn offset(&self) -> u64 {
        u64::from(self.number.saturating_sub(1)) * u64::from(self.size)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_page_numbered_zero_reads_as_the_first() {
        let p = |number| Page {
            number,
            size: 50,
            cursor: None,
        };
        assert_eq!(p(0).offset(), 0);
        assert_eq!(p(1).offset(), 0);
        assert_eq!(p(3).offset(), 100);
    }

    #[test]
    fn with_both_cursors_the_way_forward_wins() {
        let after = "1790000000000000.0193a2b4c5d6e7f8091a2b3c4d5e6f70";
        let before = "1700000000000000.0193a2b4c5d6e7f8091a2b3c4d5e6f71";
        let p = parse(RawPage {
            after: Some(after),
            before: Some(before),
            ..Default::default()
        })
        .unwrap();
        assert!(matches!(p.cursor, Some(Cursor::After(k)) if k.sort_us == 1_790_000_000_000_000));
        // but each must be a cursor
        let bad = parse(RawPage {
            after: Some(after),
            before: Some("k"),
            ..Default::default()
        });
        assert_eq!(bad.unwrap_err().param(), "page[before]");
    }

    #[test]
    fn defaults_and_limits() {
        let p = parse(RawPage::default()).unwrap();
        assert_eq!((p.number, p.size, p.cursor), (1, 30, None));
        let big = parse(RawPage {
            size: Some("101"),
            ..Default::default()
        });
        assert_eq!(big.unwrap_err().param(), "page[size]");
        let zero = parse(RawPage {
            number: Some("0"),
            ..Default::default()
        });
        assert_eq!(zero.unwrap_err().param(), "page[number]");
        assert!(
            parse(RawPage {
                number: Some("x"),
                ..Default::default()
            })
            .is_err()
        );
    }

    #[test]
    fn cursors_round_trip() {
        let k = Key {
            sort_us: 1_700_000_000_000_000,
            id: [7; 16],
        };
        assert_eq!(Key::parse(&k.to_string()), Some(k));
        let s = k.to_string();
        let p = parse(RawPage {
            after: Some(&s),
            ..Default::default()
        })
        .unwrap();
        assert_eq!(p.cursor, Some(Cursor::After(k)));
        assert_eq!(
            parse(RawPage {
                before: Some("zz"),
                ..Default::default()
            })
            .unwrap_err()
            .param(),
            "page[before]"
        );
    }

    #[test]
    fn last_page_counts() {
        assert_eq!(last_page(0, 30), 1);
        assert_eq!(last_page(30, 30), 1);
        assert_eq!(last_page(31, 30), 2);
    }
}
