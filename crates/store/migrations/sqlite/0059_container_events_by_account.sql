-- PostgreSQL only (its container indexes lead with the account since 0059); SQLite's keys are unchanged.
SELECT 1;
