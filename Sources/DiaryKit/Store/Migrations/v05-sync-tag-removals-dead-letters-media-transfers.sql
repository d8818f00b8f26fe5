-- Sync merges tags as add/remove sets, so a removal is kept (by name: tag ids differ
-- between devices) until a newer add replaces it. An outbox row the server refused for
-- good is a dead letter: kept and shown, never retried blindly, never dropped. Media
-- bytes travel apart from their rows: what to send and fetch is remembered here, and
-- which contents the server already holds.
CREATE TABLE tag_removal (
    entry_id TEXT NOT NULL REFERENCES entry(id) ON DELETE CASCADE,
    name TEXT NOT NULL,
    device_id TEXT NOT NULL,
    hlc TEXT NOT NULL,
    removed_at INTEGER NOT NULL,
    PRIMARY KEY (entry_id, name)
);
ALTER TABLE outbox ADD COLUMN dead_at INTEGER;
CREATE TABLE media_transfer (
    sha256 TEXT NOT NULL,
    direction TEXT NOT NULL CHECK (direction IN ('up', 'down')),
    entry_id TEXT NOT NULL,
    ext TEXT NOT NULL,
    bytes INTEGER NOT NULL,
    attempts INTEGER NOT NULL DEFAULT 0,
    last_error TEXT,
    PRIMARY KEY (sha256, direction)
);
CREATE TABLE media_on_server (sha256 TEXT PRIMARY KEY);
