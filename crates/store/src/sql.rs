//! Placeholders for statements built at run time (multi-row inserts and updates, `IN` lists).
//!
//! PostgreSQL numbers its parameters (`$1`, `$2`, …). SQLite accepts those too, but sqlx binds
//! each one by asking SQLite for the parameter's name, which SQLite finds with a linear scan,
//! so binding a statement with n numbered parameters costs O(n²): a 600-parameter statement
//! spent more time there than executing. Anonymous `?` parameters have no name and bind in
//! order at no such cost. [`Marks`] writes `$n` for PostgreSQL and `?` for SQLite; every
//! placeholder of a statement built with it must come from it and appear exactly once, in the
//! order the values are bound.

use crate::Backend;

/// A source of placeholders for one statement, numbered from 1 in textual order.
#[derive(Debug, Clone)]
pub(crate) struct Marks {
    numbered: bool,
    next: usize,
}

impl Marks {
    /// Placeholders for a statement on `backend`.
    pub(crate) fn new(backend: Backend) -> Marks {
        Marks {
            numbered: backend == Backend::Postgres,
            next: 1,
        }
    }

    /// The next placeholder.
    pub(crate) fn one(&mut self) -> String {
        let n = self.next;
        self.next += 1;
        if self.numbered {
            format!("${n}")
        } else {
            "?".to_string()
        }
    }

    /// `n` placeholders separated by commas (`NULL` when `n` is 0, so `IN (NULL)` matches
    /// nothing and the statement stays valid).
    pub(crate) fn list(&mut self, n: usize) -> String {
        if n == 0 {
            return "NULL".to_string();
        }
        (0..n).map(|_| self.one()).collect::<Vec<_>>().join(", ")
    }

    /// `(…), (…)`: `rows` parenthesised groups of `cols` placeholders.
    pub(crate) fn rows(&mut self, rows: usize, cols: usize) -> String {
        (0..rows)
            .map(|_| format!("({})", self.list(cols)))
            .collect::<Vec<_>>()
            .join(", ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbered_on_postgres_anonymous_on_sqlite() {
        let mut pg = Marks::new(Backend::Postgres);
        assert_eq!(pg.one(), "$1");
        assert_eq!(pg.rows(2, 2), "($2, $3), ($4, $5)");
        assert_eq!(pg.list(0), "NULL");
        assert_eq!(pg.list(2), "$6, $7");
        let mut lite = Marks::new(Backend::Sqlite);
        assert_eq!(lite.one(), "?");
        assert_eq!(lite.rows(2, 2), "(?, ?), (?, ?)");
    }
}
