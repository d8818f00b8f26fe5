-- Every synced table carries id, user_id (null until login), hlc, deleted_at and device_id.
-- Times are milliseconds since 1970; local_date is the day in the entry's own time zone.
CREATE TABLE entry (
    seq INTEGER PRIMARY KEY,
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
);
CREATE INDEX entry_by_occurred ON entry(occurred_at, id);
CREATE INDEX entry_by_local_date ON entry(local_date);
CREATE INDEX entry_by_status ON entry(status, updated_at);

CREATE TABLE media (
    id TEXT PRIMARY KEY,
    entry_id TEXT NOT NULL REFERENCES entry(id) ON DELETE CASCADE,
    position INTEGER NOT NULL DEFAULT 0,
    user_id TEXT,
    device_id TEXT NOT NULL,
    hlc TEXT NOT NULL,
    deleted_at INTEGER,
    kind TEXT NOT NULL CHECK (kind IN ('photo', 'video')),
    sha256 TEXT NOT NULL,
    mime TEXT NOT NULL,
    ext TEXT NOT NULL,
    bytes INTEGER NOT NULL,
    width INTEGER,
    height INTEGER,
    duration REAL,
    taken_at INTEGER
);
CREATE INDEX media_by_entry ON media(entry_id, position);
CREATE INDEX media_by_sha256 ON media(sha256);

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
    created_at INTEGER NOT NULL,
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
);
CREATE INDEX outbox_by_row ON outbox(table_name, row_id);

CREATE TABLE sync_state (
    key TEXT PRIMARY KEY,
    value TEXT NOT NULL
);

CREATE VIRTUAL TABLE entry_fts USING fts5(
    title, summary, note, transcript, tags, person_chat, analysis, companion_chat,
    tokenize = 'unicode61 remove_diacritics 2'
);
