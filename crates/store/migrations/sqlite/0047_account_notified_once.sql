-- PostgreSQL only (its change feed's row triggers learn to skip rows of an account the
-- transaction has already announced); SQLite's change feed is in process. Numbered alike.
SELECT 1;
