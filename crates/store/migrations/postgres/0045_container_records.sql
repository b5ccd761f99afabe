-- The merge's working records of a container (its milestone and estimate records, the
-- provenance of each attribute, withdrawn report ids, legacy event keys: `MergeRecords`) in a
-- column of their own. They are four fifths of the state by size and no resource shows them:
-- reading a container to show it no longer decodes them, nor turns them into text
-- (BENCHMARKS.md). The merge reads both.
ALTER TABLE containers ADD COLUMN records JSONB NOT NULL DEFAULT '{}';
UPDATE containers SET
    records = (SELECT jsonb_object_agg(key, value) FROM jsonb_each(containers.state)
               WHERE key IN ('seen_events', 'milestones', 'estimates', 'provenance', 'withdrawn')),
    state = state - ARRAY['seen_events', 'milestones', 'estimates', 'provenance', 'withdrawn']
WHERE state ?| ARRAY['seen_events', 'milestones', 'estimates', 'provenance', 'withdrawn'];

-- The same for a shipment: its voyage's milestone and estimate records (`VoyageRecords`).
ALTER TABLE shipments ADD COLUMN records JSONB NOT NULL DEFAULT '{}';
UPDATE shipments SET
    records = (SELECT jsonb_object_agg(key, value) FROM jsonb_each(shipments.state)
               WHERE key IN ('milestones', 'estimates')),
    state = state - ARRAY['milestones', 'estimates']
WHERE state ?| ARRAY['milestones', 'estimates'];
