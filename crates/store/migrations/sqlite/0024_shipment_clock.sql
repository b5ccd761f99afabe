-- The clock of a shipment's data (issue 22, "one clock per source"): a reading of its
-- source's time (clock_source_us at real time clock_wall_us, running clock_speed source
-- seconds per real second). A simulator's carrier runs ahead of and faster than the wall
-- clock; rules that compare the data's times with "now" (the 56-day stop after arrival) use it.
-- NULL: the wall clock.
ALTER TABLE shipments ADD COLUMN clock_wall_us INTEGER;
ALTER TABLE shipments ADD COLUMN clock_source_us INTEGER;
ALTER TABLE shipments ADD COLUMN clock_speed REAL;
