-- A replay names the notification it repeats (`replay_of`): the original of one event for one
-- webhook, looked up by event for every event replayed (`notifications::ORIGINAL`). Without
-- an index each lookup read every notification of the install.
CREATE INDEX webhook_notifications_event ON webhook_notifications (event_id);
