-- What a container's resource shows of its merged state, as text, written by the merge
-- beside the state (`store::rendered`): a read shows it without parsing the state again. A
-- table of its own, as on SQLite (where in the containers' rows the text made every merge's
-- update rewrite more pages). No row where no merge has written one, or where the writer
-- had no renderer; a text by another version of the renderer is not used either.
CREATE TABLE container_views (
    container_id UUID PRIMARY KEY NOT NULL REFERENCES containers(id) ON DELETE CASCADE,
    account_id   UUID NOT NULL,
    view         TEXT NOT NULL
);
