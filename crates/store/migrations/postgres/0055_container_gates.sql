-- The release gates held and released (bits: customs 1, line 2, terminal 4), kept next to
-- `on_hold` so the lists filter on them (`filter[held]`, `filter[released]`) without
-- reading every row's state. Rows written before are filled by the renderer's pass over the
-- stored texts (`crate::rendered::refresh`), which the new text version starts.
ALTER TABLE containers ADD COLUMN gates_held BIGINT NOT NULL DEFAULT 0;
ALTER TABLE containers ADD COLUMN gates_released BIGINT NOT NULL DEFAULT 0;
