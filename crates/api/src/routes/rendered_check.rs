//! The debug builds' check of resources shown from their prerendered texts (`containers`,
//! `shipments`): [`Check`] is started before the read and finished with a closure that
//! writes the document again from the parsed rows and compares the two whole. In release
//! builds a `Check` holds nothing and runs nothing: the only `cfg(debug_assertions)` of the
//! read paths is here.

use std::collections::HashMap;

use crate::rendered::{self as reads, Db};
use serde_json::Value;

use boxtrack_http::error::{ApiError, ApiResult};

/// The account's change fingerprint ([`reads::fingerprint`]) taken before a rendered read: a
/// check that finds the parsed rows differ can tell a change in between (a merge ran, which
/// is not compared) from a text that is wrong.
pub(super) struct Before(String);

impl Before {
    /// The fingerprint now.
    #[cfg_attr(not(debug_assertions), allow(dead_code))]
    pub(super) async fn take(db: &Db, account_id: uuid::Uuid) -> ApiResult<Before> {
        Ok(Before(reads::fingerprint(db, account_id).await?))
    }
}

/// A rendered read's check, from before the read to after the answer is written.
pub(super) struct Check(#[cfg(debug_assertions)] Before);

impl Check {
    /// Starts the check of a read of `account_id`'s resources (takes its fingerprint, in
    /// debug builds).
    pub(super) async fn start(db: &Db, account_id: uuid::Uuid) -> ApiResult<Check> {
        #[cfg(debug_assertions)]
        return Ok(Check(Before::take(db, account_id).await?));
        #[cfg(not(debug_assertions))]
        {
            let _ = (db, account_id);
            Ok(Check())
        }
    }

    /// Finishes it: `compare` (given what was taken before) writes the answer again from the
    /// parsed rows and compares, in debug builds; in release builds it is not run.
    pub(super) async fn finish<F, Fut>(self, compare: F) -> ApiResult<()>
    where
        F: FnOnce(Before) -> Fut,
        Fut: Future<Output = ApiResult<()>>,
    {
        #[cfg(debug_assertions)]
        return compare(self.0).await;
        #[cfg(not(debug_assertions))]
        {
            let _ = compare;
            Ok(())
        }
    }
}

/// The rows of `found` in the order of `ids`; 404 for one gone since it was shown.
pub(super) fn in_order<T>(
    mut found: HashMap<uuid::Uuid, T>,
    ids: &[uuid::Uuid],
    what: &'static str,
) -> ApiResult<Vec<T>> {
    ids.iter()
        .map(|id| found.remove(id).ok_or_else(|| ApiError::not_found(what)))
        .collect()
}

/// Resources written out, as JSON values to compare.
pub(super) fn values(texts: &[String]) -> Vec<Value> {
    texts
        .iter()
        .map(|t| serde_json::from_str(t).unwrap_or_default())
        .collect()
}

/// Asserts that the `data` and `included` rendered read as those written from the parsed rows,
/// unless the account changed since `before` (the two reads then saw different rows).
pub(super) async fn same(
    db: &Db,
    account_id: uuid::Uuid,
    before: &Before,
    rendered: (&[String], &[String]),
    parsed: (Vec<Value>, Vec<Value>),
    what: &str,
) -> ApiResult<()> {
    let rendered = (values(rendered.0), values(rendered.1));
    if rendered == parsed || reads::fingerprint(db, account_id).await? != before.0 {
        return Ok(());
    }
    assert_eq!(
        rendered.0, parsed.0,
        "{what} shown from their rendered texts"
    );
    assert_eq!(
        rendered.1, parsed.1,
        "what {what} include shown from rendered texts"
    );
    Ok(())
}
