-- Voice memos are media too (kind 'audio'); SQLite cannot change a CHECK constraint, so
-- the media table is rebuilt. A long talk keeps a running digest of its early turns.
-- Consent and one-time notices belong to this device and never sync.
CREATE TABLE media_v2 (
    id TEXT PRIMARY KEY,
    entry_id TEXT NOT NULL REFERENCES entry(id) ON DELETE CASCADE,
    position INTEGER NOT NULL DEFAULT 0,
    user_id TEXT,
    device_id TEXT NOT NULL,
    hlc TEXT NOT NULL,
    deleted_at INTEGER,
    kind TEXT NOT NULL CHECK (kind IN ('photo', 'video', 'audio')),
    sha256 TEXT NOT NULL,
    mime TEXT NOT NULL,
    ext TEXT NOT NULL,
    bytes INTEGER NOT NULL,
    width INTEGER,
    height INTEGER,
    duration REAL,
    taken_at INTEGER
);
INSERT INTO media_v2 SELECT id, entry_id, position, user_id, device_id, hlc, deleted_at, kind, sha256, mime, ext,
                            bytes, width, height, duration, taken_at FROM media;
DROP TABLE media;
ALTER TABLE media_v2 RENAME TO media;
CREATE INDEX media_by_entry ON media(entry_id, position);
CREATE INDEX media_by_sha256 ON media(sha256);

ALTER TABLE entry ADD COLUMN digest TEXT;
ALTER TABLE entry ADD COLUMN digest_through TEXT;

CREATE TABLE device_setting (
    key TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
