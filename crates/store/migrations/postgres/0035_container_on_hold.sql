-- Whether a container has an active terminal hold (a hold whose status is `hold`; pending
-- holds do not block pickup), kept next to `ready_for_pickup` so the console's containers
-- table filters on it without reading every row's state.
ALTER TABLE containers ADD COLUMN on_hold BOOLEAN NOT NULL DEFAULT FALSE;
UPDATE containers SET on_hold = EXISTS (
    SELECT 1 FROM jsonb_array_elements(COALESCE(containers.state -> 'holds', '[]'::jsonb)) AS h
    WHERE h ->> 'status' = 'hold'
);
