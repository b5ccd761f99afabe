-- When a worker last completed a pass over everything due (tracking requests, sandbox
-- journeys, polls), for /metrics: an alert on its age says "nothing is being collected". One
-- row: the newest pass of any worker.
CREATE TABLE worker_passes (
    worker    TEXT PRIMARY KEY NOT NULL,
    passed_us INTEGER NOT NULL
);
