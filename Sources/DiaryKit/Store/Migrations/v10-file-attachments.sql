-- Attachments other than photos, videos and memos (a Day One export's PDFs) are kept
-- as files of their own kind: the media table's check allows it (SQLite rebuilds the
-- table to change a check).
CREATE TABLE media_v10 (
    id TEXT PRIMARY KEY,
    entry_id TEXT NOT NULL REFERENCES entry(id) ON DELETE CASCADE,
    position INTEGER NOT NULL DEFAULT 0,
    user_id TEXT,
    device_id TEXT NOT NULL,
    hlc TEXT NOT NULL,
    deleted_at INTEGER,
    kind TEXT NOT NULL CHECK (kind IN ('photo', 'video', 'audio', 'file')),
    sha256 TEXT NOT NULL,
    mime TEXT NOT NULL,
    ext TEXT NOT NULL,
    bytes INTEGER NOT NULL,
    width INTEGER,
    height INTEGER,
    duration REAL,
    taken_at INTEGER,
    thumbnail TEXT
);
INSERT INTO media_v10 SELECT id, entry_id, position, user_id, device_id, hlc, deleted_at, kind, sha256, mime, ext,
                             bytes, width, height, duration, taken_at, thumbnail FROM media;
DROP TABLE media;
ALTER TABLE media_v10 RENAME TO media;
CREATE INDEX media_by_entry ON media(entry_id, position);
CREATE INDEX media_by_sha256 ON media(sha256);
