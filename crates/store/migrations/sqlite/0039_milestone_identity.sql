-- One milestone, one transport event (core/tracking/milestones.rs): `milestone_key` names the
-- record an event shows, so a later, finer or more authoritative report of the same milestone
-- updates the event instead of adding one. NULL for events recorded before.
ALTER TABLE transport_events ADD COLUMN milestone_key TEXT;
-- When a newer estimate of the milestone, or the milestone itself, superseded this estimate
-- (TransportEvent::supersedes): it leaves the container's timeline; the event log keeps it.
ALTER TABLE transport_events ADD COLUMN superseded_us INTEGER;
