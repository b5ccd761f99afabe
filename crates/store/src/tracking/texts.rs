//! The rendered texts (`crate::rendered`) the merge writes beside the states it writes.

use uuid::Uuid;

use super::apply::{CHUNK, ContainerUpdate};
use crate::sql::Marks;
use crate::{Result, Tx, on_tx};

/// What a merge does to a row's rendered text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum TextChange {
    /// Writes this text.
    Write(String),
    /// Leaves the stored text: what it shows did not change (where it is current it is the
    /// text of the state before; where it is missing or another version's, reads parse the
    /// state, as before the merge).
    Same,
    /// Removes the stored text (this process has no renderer).
    Remove,
}

impl TextChange {
    /// From the text of the merged state and, made only if needed, of the state before.
    pub(crate) fn of(after: Option<String>, before: impl FnOnce() -> Option<String>) -> Self {
        match after {
            None => TextChange::Remove,
            Some(text) if before().as_ref() == Some(&text) => TextChange::Same,
            Some(text) => TextChange::Write(text),
        }
    }

    /// What [`write_texts`] writes of it: the text, or none to remove; `None` to leave it.
    pub(crate) fn written(&self) -> Option<Option<&str>> {
        match self {
            TextChange::Write(text) => Some(Some(text)),
            TextChange::Same => None,
            TextChange::Remove => Some(None),
        }
    }
}

/// Writes each container's rendered state (`crate::rendered`) beside it, or removes the one
/// there when this process has no renderer: a text never outlives the state it shows.
pub(super) async fn write_views(
    tx: &mut Tx,
    account_id: Uuid,
    updates: &[ContainerUpdate],
) -> Result<()> {
    if let Tx::Postgres(t) = tx {
        return super::columns::views(t, account_id, updates).await;
    }
    let rows: Vec<_> = updates.iter().map(|u| (u.id, u.view.as_deref())).collect();
    write_texts(tx, account_id, Texts::CONTAINERS, &rows).await
}

/// A table of rendered texts (`crate::rendered`), its key column and the kind of row it shows.
#[derive(Clone, Copy)]
pub(crate) struct Texts {
    table: &'static str,
    key: &'static str,
    kind: crate::rendered::RenderedKind,
}

impl Texts {
    pub(crate) const CONTAINERS: Texts = Texts {
        table: "container_views",
        key: "container_id",
        kind: crate::rendered::RenderedKind::Containers,
    };
    pub(crate) const SHIPMENTS: Texts = Texts {
        table: "shipment_views",
        key: "shipment_id",
        kind: crate::rendered::RenderedKind::Shipments,
    };
}

/// Writes what a merge did to each row's rendered text ([`TextChange`]): the texts it wrote,
/// the texts it removed, and where it left a text because its own rendering of the state did
/// not change ([`TextChange::Same`]), removes one another build wrote: in a rolling upgrade
/// that text may show what this build's does not of the state before. Without a text, reads
/// show the state until a merge or the worker's next pass writes one.
pub(crate) async fn write_changes(
    tx: &mut Tx,
    account_id: Uuid,
    texts: Texts,
    changes: &[(Uuid, &TextChange)],
) -> Result<()> {
    let written: Vec<_> = changes
        .iter()
        .filter_map(|(id, change)| change.written().map(|text| (*id, text)))
        .collect();
    write_texts(tx, account_id, texts, &written).await?;
    let left: Vec<_> = changes
        .iter()
        .filter(|(_, change)| **change == TextChange::Same)
        .map(|(id, _)| *id)
        .collect();
    match crate::rendered::tag_of(texts.kind) {
        Some(tag) => remove_texts(tx, account_id, texts, &left, Some(tag)).await,
        None => Ok(()),
    }
}

/// Writes each row's rendered text into `texts`, or removes the one there where it has none.
pub(crate) async fn write_texts(
    tx: &mut Tx,
    account_id: Uuid,
    texts: Texts,
    rows: &[(Uuid, Option<&str>)],
) -> Result<()> {
    let Texts { table, key, .. } = texts;
    let (made, none): (Vec<_>, Vec<_>) = rows.iter().partition(|r| r.1.is_some());
    for chunk in made.chunks(CHUNK) {
        let mut marks = Marks::new(tx.backend());
        // PostgreSQL keys the rendered texts by account (what Citus needs); SQLite by id
        let arbiter = match tx.backend() {
            crate::Backend::Postgres => format!("account_id, {key}"),
            crate::Backend::Sqlite => key.to_string(),
        };
        let sql = format!(
            "INSERT INTO {table} ({key}, account_id, view) VALUES {} \
             ON CONFLICT ({arbiter}) DO UPDATE SET view = excluded.view",
            marks.rows(chunk.len(), 3)
        );
        on_tx!(tx, x => {
            let mut q = sqlx::query(sqlx::AssertSqlSafe(sql));
            for (id, view) in chunk {
                q = q.bind(*id).bind(account_id).bind(*view);
            }
            q.execute(x).await.map(|_| ())?
        });
    }
    let none: Vec<_> = none.into_iter().map(|(id, _)| id).collect();
    remove_texts(tx, account_id, texts, &none, None).await
}

/// Removes the account's stored texts of `ids` in `texts`; with `unless_tagged`, only those
/// that do not begin with it.
async fn remove_texts(
    tx: &mut Tx,
    account_id: Uuid,
    texts: Texts,
    ids: &[Uuid],
    unless_tagged: Option<&str>,
) -> Result<()> {
    let Texts { table, key, .. } = texts;
    for chunk in ids.chunks(CHUNK) {
        // the tag's mark first: SQLite numbers its marks by their place in the text
        let mut marks = Marks::new(tx.backend());
        let account = marks.one();
        let other = unless_tagged.map_or(String::new(), |tag| {
            format!(
                "substr(view, 1, {}) <> {} AND ",
                tag.chars().count(),
                marks.one()
            )
        });
        let ids = marks.rows(chunk.len(), 1);
        let sql = format!(
            "DELETE FROM {table} WHERE account_id = {account} AND {other}{key} IN (SELECT column1 FROM (VALUES {ids}) AS t)"
        );
        on_tx!(tx, x => {
            let mut q = sqlx::query(sqlx::AssertSqlSafe(sql)).bind(account_id);
            if let Some(tag) = unless_tagged {
                q = q.bind(tag);
            }
            for id in chunk {
                q = q.bind(*id);
            }
            q.execute(x).await.map(|_| ())?
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::TextChange;

    #[test]
    fn a_text_is_written_only_when_what_it_shows_changed() {
        let text = || Some("s1|[1]".to_string());
        assert_eq!(TextChange::of(text(), text), TextChange::Same);
        assert_eq!(
            TextChange::of(text(), || Some("s1|[0]".into())),
            TextChange::Write("s1|[1]".into())
        );
        // no text before (or no renderer then): written
        assert_eq!(
            TextChange::of(text(), || None),
            TextChange::Write("s1|[1]".into())
        );
        // no renderer now: removed, whatever was before
        assert_eq!(TextChange::of(None, text), TextChange::Remove);
        assert_eq!(TextChange::Same.written(), None);
        assert_eq!(TextChange::Remove.written(), Some(None));
    }
}
