-- Where a file's bytes are when not in `data`: the key of an object in the S3-compatible
-- document store (crates/store/src/files.rs); NULL keeps them in the row.
ALTER TABLE blobs ADD COLUMN object_key TEXT;
