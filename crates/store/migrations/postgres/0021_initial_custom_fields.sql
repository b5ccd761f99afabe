-- Custom field values given with a tracking request (initial_custom_fields), set on the
-- shipment and its containers in the transaction that creates them.
ALTER TABLE tracking_requests ADD COLUMN initial_custom_fields JSONB;
