-- The last pass over the stored shown texts (`store::rendered`, run by the worker at its
-- start) that went to the end, one row per kind of row ('containers', 'shipments'): the
-- renderer's tag it wrote and when it began. A later start whose renderer has the same tag
-- passes over only the rows changed since then (rows an older build merged meanwhile); a
-- build with another tag passes over every row. `tag` is NULL once a pass of another tag
-- has begun (it may rewrite rows without changing them); `generation` counts the row's
-- writes, so that a pass records itself only where no other pass wrote the row meanwhile.
CREATE TABLE shown_passes (
    shown      TEXT PRIMARY KEY NOT NULL,
    tag        TEXT,
    started_us BIGINT,
    generation BIGINT NOT NULL
);
