-- What a container's resource shows of its merged state, as text, written by the merge
-- beside the state (`store::rendered`): a read shows it without parsing the state again.
-- NULL where no merge has written one yet, or where a read must render from the state
-- anyway (a text by another version of the renderer is not used either).
ALTER TABLE containers ADD COLUMN state_view TEXT;
