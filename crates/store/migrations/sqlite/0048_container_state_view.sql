-- What a container's resource shows of its merged state, as text, written by the merge
-- beside the state (`store::rendered`): a read shows it without parsing the state again. A
-- table of its own, small rows clustered on the container: in the containers' rows (some
-- 5 KB, spilling onto overflow pages) the text made every merge's update rewrite more pages
-- (BENCHMARKS.md, "Containers shown from their rendered state"). No row where no merge has
-- written one, or where the writer had no renderer; a text by another version of the
-- renderer is not used either.
CREATE TABLE container_views (
    container_id BLOB PRIMARY KEY NOT NULL REFERENCES containers(id) ON DELETE CASCADE,
    account_id   BLOB NOT NULL,
    view         TEXT NOT NULL
) WITHOUT ROWID;
