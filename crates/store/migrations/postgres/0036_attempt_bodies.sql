-- What a receiver answered: the first KiB of the response body of each attempt (UTF-8, bytes
-- that are not replaced), kept with the status code so the console and the API can show why
-- a delivery was refused. The latest attempt's is in its notification's row, as the rest.
ALTER TABLE webhook_attempts ADD COLUMN response_body TEXT;
ALTER TABLE webhook_notifications ADD COLUMN last_response_body TEXT;
