-- A container that has left the pickup terminal (picked up, delivered, returned empty, or on
-- rail between the POD and the inland ramp) is never ready for pickup; rows written before the
-- rule (core::tracking::rules::ready_for_pickup) could still say so.
UPDATE containers SET ready_for_pickup = FALSE
WHERE ready_for_pickup = TRUE
  AND current_status IN ('picked_up', 'delivered', 'empty_returned', 'on_rail');
