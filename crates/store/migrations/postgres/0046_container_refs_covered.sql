-- What a shipment's resource shows of its containers (ids and POD terminals, oldest first)
-- read from the index alone: the containers' rows hold their whole state (about 5 KB of
-- JSON each, spilling onto overflow pages), and reading `pod_terminal` beside it walked
-- them (BENCHMARKS.md, "Rendered reads in one snapshot"). The index replaces the one on
-- `shipment_id` alone, whose statements it serves as well.
DROP INDEX containers_shipment;
CREATE INDEX containers_shipment ON containers (shipment_id, account_id, created_us, id) INCLUDE (pod_terminal);
