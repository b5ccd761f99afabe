-- When the shipment arrived at its port of discharge (for the 56-day automatic stop).
ALTER TABLE shipments ADD COLUMN arrived_us INTEGER;
CREATE INDEX shipments_live_arrived ON shipments (arrived_us) WHERE tracking_stopped_us IS NULL;
