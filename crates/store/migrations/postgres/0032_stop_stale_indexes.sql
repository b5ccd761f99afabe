-- The automatic stop (tracking::stop_stale) reads two kinds of tracked shipments, each
-- through an index of its own instead of every tracked shipment: those that arrived (stopped
-- 56 days after arrival) and those that have not and went quiet (56 days without an update);
-- and a shipment's sandbox run, whose clock the arrival is compared with.
CREATE INDEX shipments_tracked_arrived ON shipments (arrived_us)
    WHERE tracking_stopped_us IS NULL AND arrived_us IS NOT NULL;
CREATE INDEX shipments_tracked_quiet ON shipments (updated_us)
    WHERE tracking_stopped_us IS NULL AND arrived_us IS NULL;
CREATE INDEX sandbox_runs_shipment ON sandbox_runs (shipment_id);
