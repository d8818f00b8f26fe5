-- The local diary's schema (SQLite), generated from the migrations by scripts/gen-schema.sh.
-- Do not edit: add a migration in Sources/DiaryKit/Store/Migrations/, then run
--   scripts/gen-schema.sh > docs/schema.sql
-- docs/ARCHITECTURE.md says what each table is for. The sync server's schema is the SQL that
-- 'diary-sync server-init --print-sql' prints.
--
-- Migrations: v1-entries-messages-tags-outbox, v2-voice-memos-chat-digest-device-settings, v3-moment-order-bigram-search, v4-conflicts-thumbnails, v5-sync-tag-removals-dead-letters-media-transfers, v6-one-context-shape, v7-star-trash-order-history, v8-pulled-rejects, v9-searchable-place-names, v10-file-attachments, v11-journals-tag-spellings-media-anchors, v12-live-entry-days-by-id, v13-reflections, v14-tag-day-counts, v15-page-vectors, v16-recalled-titles-unindexed, v17-reflections-counted-once

CREATE TABLE entry (
    moment_key INTEGER PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
    user_id TEXT,
    device_id TEXT NOT NULL,
    hlc TEXT NOT NULL,
    deleted_at INTEGER,
    status TEXT NOT NULL CHECK (status IN ('draft', 'chatting', 'saved', 'summary_failed')),
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL,
    occurred_at INTEGER NOT NULL,
    time_zone TEXT NOT NULL,
    local_date TEXT NOT NULL,
    note TEXT,
    transcript TEXT,
    analysis TEXT,
    analysis_provider TEXT,
    context TEXT,
    persona TEXT NOT NULL,
    provider TEXT,
    title TEXT,
    summary TEXT,
    summarized_at INTEGER,
    last_error TEXT
, digest TEXT, digest_through TEXT, starred INTEGER NOT NULL DEFAULT 0, trashed_at INTEGER, order_key TEXT, edited_at INTEGER, field_clocks TEXT, journal TEXT, reflection TEXT);

CREATE INDEX entry_by_status ON entry(status, updated_at);

CREATE TABLE message (
    seq INTEGER PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
    entry_id TEXT NOT NULL REFERENCES entry(id) ON DELETE CASCADE,
    user_id TEXT,
    device_id TEXT NOT NULL,
    hlc TEXT NOT NULL,
    deleted_at INTEGER,
    author TEXT NOT NULL CHECK (author IN ('person', 'companion')),
    persona TEXT NOT NULL,
    provider TEXT,
    text TEXT NOT NULL,
    created_at INTEGER NOT NULL
);

CREATE INDEX message_by_entry ON message(entry_id, seq);

CREATE TABLE tag (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL UNIQUE,
    user_id TEXT,
    device_id TEXT NOT NULL,
    hlc TEXT NOT NULL,
    deleted_at INTEGER,
    created_at INTEGER NOT NULL,
    last_used_at INTEGER,
    entry_count INTEGER NOT NULL DEFAULT 0
);

CREATE INDEX tag_by_use ON tag(last_used_at DESC, entry_count DESC);

CREATE TABLE entry_tag (
    entry_id TEXT NOT NULL REFERENCES entry(id) ON DELETE CASCADE,
    tag_id TEXT NOT NULL REFERENCES tag(id),
    position INTEGER NOT NULL DEFAULT 0,
    user_id TEXT,
    device_id TEXT NOT NULL,
    hlc TEXT NOT NULL,
    deleted_at INTEGER,
    created_at INTEGER NOT NULL, label TEXT,
    PRIMARY KEY (entry_id, tag_id)
);

CREATE INDEX entry_tag_by_tag ON entry_tag(tag_id, entry_id);

CREATE TABLE setting (
    key TEXT PRIMARY KEY,
    value TEXT NOT NULL,
    user_id TEXT,
    device_id TEXT NOT NULL,
    hlc TEXT NOT NULL,
    updated_at INTEGER NOT NULL
);

CREATE TABLE usage (
    day TEXT NOT NULL,
    kind TEXT NOT NULL,
    count INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (day, kind)
);

CREATE TABLE outbox (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    table_name TEXT NOT NULL,
    row_id TEXT NOT NULL,
    op TEXT NOT NULL CHECK (op IN ('upsert', 'delete')),
    hlc TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    attempts INTEGER NOT NULL DEFAULT 0,
    next_attempt_at INTEGER,
    last_error TEXT
, dead_at INTEGER);

CREATE INDEX outbox_by_row ON outbox(table_name, row_id);

CREATE TABLE sync_state (
    key TEXT PRIMARY KEY,
    value TEXT NOT NULL
);

CREATE TABLE device_setting (
    key TEXT PRIMARY KEY,
    value TEXT NOT NULL
);

CREATE INDEX entry_by_created ON entry(created_at);

CREATE INDEX entry_by_updated ON entry(updated_at);

CREATE TABLE entry_total (live INTEGER NOT NULL);

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

CREATE TABLE tag_removal (
    entry_id TEXT NOT NULL REFERENCES entry(id) ON DELETE CASCADE,
    name TEXT NOT NULL,
    device_id TEXT NOT NULL,
    hlc TEXT NOT NULL,
    removed_at INTEGER NOT NULL,
    PRIMARY KEY (entry_id, name)
);

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

CREATE TABLE entry_version (
    id TEXT PRIMARY KEY,
    entry_id TEXT NOT NULL REFERENCES entry(id) ON DELETE CASCADE,
    hlc TEXT NOT NULL,
    replaced_at INTEGER NOT NULL,
    replaced_by TEXT NOT NULL CHECK (replaced_by IN ('person', 'companion', 'sync', 'import')),
    device_id TEXT NOT NULL,
    version TEXT NOT NULL,
    UNIQUE (entry_id, hlc)
);

CREATE INDEX entry_version_by_entry ON entry_version(entry_id, replaced_at);

CREATE INDEX entry_live_by_day ON entry(local_date) WHERE deleted_at IS NULL AND trashed_at IS NULL;

CREATE INDEX entry_live_by_month_day ON entry(substr(local_date, 6), local_date) WHERE deleted_at IS NULL AND trashed_at IS NULL;

CREATE INDEX entry_in_trash ON entry(trashed_at) WHERE deleted_at IS NULL AND trashed_at IS NOT NULL;

CREATE INDEX entry_starred ON entry(moment_key) WHERE starred = 1 AND deleted_at IS NULL AND trashed_at IS NULL;

CREATE TRIGGER entry_total_insert AFTER INSERT ON entry WHEN NEW.deleted_at IS NULL AND NEW.trashed_at IS NULL
    BEGIN UPDATE entry_total SET live = live + 1; END;

CREATE TRIGGER entry_total_delete AFTER DELETE ON entry WHEN OLD.deleted_at IS NULL AND OLD.trashed_at IS NULL
    BEGIN UPDATE entry_total SET live = live - 1; END;

CREATE TRIGGER entry_total_hidden AFTER UPDATE OF deleted_at, trashed_at ON entry
    WHEN (OLD.deleted_at IS NULL AND OLD.trashed_at IS NULL) != (NEW.deleted_at IS NULL AND NEW.trashed_at IS NULL)
    BEGIN UPDATE entry_total SET live = live + CASE WHEN NEW.deleted_at IS NULL AND NEW.trashed_at IS NULL THEN 1 ELSE -1 END; END;

CREATE TABLE pulled_reject (
    id INTEGER PRIMARY KEY,
    record TEXT NOT NULL,
    problem TEXT NOT NULL,
    received_at INTEGER NOT NULL
);

CREATE VIRTUAL TABLE entry_fts USING fts5(
    title, summary, note, transcript, tags, person_chat, analysis, companion_chat, place,
    tokenize = 'diary_bigram'
);

CREATE VIRTUAL TABLE entry_vocabulary USING fts5vocab(entry_fts, row);

CREATE TABLE "media" (
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
, anchor INTEGER);

CREATE INDEX media_by_entry ON media(entry_id, position);

CREATE INDEX media_by_sha256 ON media(sha256);

CREATE INDEX entry_live_day_by_id ON entry(id, local_date) WHERE deleted_at IS NULL AND trashed_at IS NULL;

CREATE TABLE tag_day (
    tag_id TEXT NOT NULL,
    local_date TEXT NOT NULL,
    n INTEGER NOT NULL,
    PRIMARY KEY (tag_id, local_date)
) WITHOUT ROWID;

CREATE TABLE page_vector (
    entry_id TEXT PRIMARY KEY REFERENCES entry(id) ON DELETE CASCADE,
    model TEXT NOT NULL,
    vector BLOB NOT NULL,
    made_at INTEGER NOT NULL
) WITHOUT ROWID;

CREATE TRIGGER page_vector_stale AFTER UPDATE OF title, summary, note, deleted_at ON entry
WHEN OLD.title IS NOT NEW.title OR OLD.summary IS NOT NEW.summary OR OLD.note IS NOT NEW.note
  OR OLD.deleted_at IS NOT NEW.deleted_at
BEGIN
    DELETE FROM page_vector WHERE entry_id = NEW.id;
END;

CREATE TRIGGER tag_day_link_added AFTER INSERT ON entry_tag
    WHEN (SELECT deleted_at IS NULL AND trashed_at IS NULL AND reflection IS NULL FROM entry WHERE id = NEW.entry_id)
BEGIN
    INSERT INTO tag_day (tag_id, local_date, n) SELECT NEW.tag_id, local_date, 1 FROM entry WHERE id = NEW.entry_id
        ON CONFLICT (tag_id, local_date) DO UPDATE SET n = n + 1;
END;

CREATE TRIGGER tag_day_link_removed AFTER DELETE ON entry_tag
    WHEN (SELECT deleted_at IS NULL AND trashed_at IS NULL AND reflection IS NULL FROM entry WHERE id = OLD.entry_id)
BEGIN
    UPDATE tag_day SET n = n - 1
    WHERE tag_id = OLD.tag_id AND local_date = (SELECT local_date FROM entry WHERE id = OLD.entry_id);
END;

CREATE TRIGGER tag_day_entry_moved AFTER UPDATE OF local_date, deleted_at, trashed_at, reflection ON entry
    WHEN OLD.local_date IS NOT NEW.local_date
      OR (OLD.deleted_at IS NULL AND OLD.trashed_at IS NULL AND OLD.reflection IS NULL)
         != (NEW.deleted_at IS NULL AND NEW.trashed_at IS NULL AND NEW.reflection IS NULL)
BEGIN
    UPDATE tag_day SET n = n - 1
    WHERE OLD.deleted_at IS NULL AND OLD.trashed_at IS NULL AND OLD.reflection IS NULL AND local_date = OLD.local_date
      AND tag_id IN (SELECT tag_id FROM entry_tag WHERE entry_id = OLD.id);
    INSERT INTO tag_day (tag_id, local_date, n) SELECT tag_id, NEW.local_date, 1 FROM entry_tag
        WHERE entry_id = NEW.id AND NEW.deleted_at IS NULL AND NEW.trashed_at IS NULL AND NEW.reflection IS NULL
        ON CONFLICT (tag_id, local_date) DO UPDATE SET n = n + 1;
END;

CREATE TRIGGER tag_day_entry_removed BEFORE DELETE ON entry
    WHEN OLD.deleted_at IS NULL AND OLD.trashed_at IS NULL AND OLD.reflection IS NULL
BEGIN
    UPDATE tag_day SET n = n - 1
    WHERE local_date = OLD.local_date AND tag_id IN (SELECT tag_id FROM entry_tag WHERE entry_id = OLD.id);
END;

