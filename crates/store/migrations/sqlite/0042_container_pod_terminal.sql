-- The container's terminal at its port of discharge (its state's `pod_terminal`), kept as a
-- column next to the state it comes from: a shipment's resource names each of its
-- containers' terminals, and reading them out of every sibling's state (about 5 KB of JSON
-- each) cost more than the rest of a container's read (BENCHMARKS.md).
ALTER TABLE containers ADD COLUMN pod_terminal TEXT;
UPDATE containers SET pod_terminal = json_extract(state, '$.pod_terminal');
