-- A merge (import, restore, later sync) never drops the version that lost: it is kept
-- here, whole, once per row and clock. Thumbnails are content-addressed like media.
CREATE TABLE conflict (
    id TEXT PRIMARY KEY,
    table_name TEXT NOT NULL,
    row_id TEXT NOT NULL,
    hlc TEXT NOT NULL,
    winner_hlc TEXT NOT NULL,
    source TEXT NOT NULL,
    kept_at INTEGER NOT NULL,
    version TEXT NOT NULL,
    UNIQUE (table_name, row_id, hlc)
);
ALTER TABLE media ADD COLUMN thumbnail TEXT;
