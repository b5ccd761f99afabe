-- Whether a container has an active terminal hold (a hold whose status is `hold`; pending
-- holds do not block pickup), kept next to `ready_for_pickup` so the console's containers
-- table filters on it without reading every row's state.
ALTER TABLE containers ADD COLUMN on_hold INTEGER NOT NULL DEFAULT 0;
UPDATE containers SET on_hold = EXISTS (
    SELECT 1 FROM json_each(containers.state, '$.holds') AS h
    WHERE json_extract(h.value, '$.status') = 'hold'
);
