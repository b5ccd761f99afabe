-- PostgreSQL's 0058 teaches its month-partition function Citus; SQLite has no partitions.
SELECT 1;
