-- The merge's working records of a container (its milestone and estimate records, the
-- provenance of each attribute, withdrawn report ids, legacy event keys: `MergeRecords`) in a
-- column of their own. They are four fifths of the state by size and no resource shows them:
-- reading a container to show it no longer decodes them (BENCHMARKS.md). The merge reads both.
ALTER TABLE containers ADD COLUMN records TEXT NOT NULL DEFAULT '{}';
UPDATE containers SET
    records = (SELECT json_group_object(key, json(value)) FROM json_each(containers.state)
               WHERE key IN ('seen_events', 'milestones', 'estimates', 'provenance', 'withdrawn')),
    state = json_remove(state, '$.seen_events', '$.milestones', '$.estimates', '$.provenance', '$.withdrawn')
WHERE EXISTS (SELECT 1 FROM json_each(containers.state)
              WHERE key IN ('seen_events', 'milestones', 'estimates', 'provenance', 'withdrawn'));

-- The same for a shipment: its voyage's milestone and estimate records (`VoyageRecords`).
ALTER TABLE shipments ADD COLUMN records TEXT NOT NULL DEFAULT '{}';
UPDATE shipments SET
    records = (SELECT json_group_object(key, json(value)) FROM json_each(shipments.state)
               WHERE key IN ('milestones', 'estimates')),
    state = json_remove(state, '$.milestones', '$.estimates')
WHERE EXISTS (SELECT 1 FROM json_each(shipments.state) WHERE key IN ('milestones', 'estimates'));
