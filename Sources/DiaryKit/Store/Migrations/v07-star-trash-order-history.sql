-- A page the person stars, puts in the trash or moves in their own order is one small
-- write that must not undo a concurrent edit of its words on another device, so each of
-- those has its own clock (field_clocks: content, star, trash, order) and merges apart.
-- A page in the trash is hidden like a tombstone (counts, calendar, search) but can come
-- back; the versions an edit, a new page or a merge replaced are kept in entry_version.
ALTER TABLE entry ADD COLUMN starred INTEGER NOT NULL DEFAULT 0;
ALTER TABLE entry ADD COLUMN trashed_at INTEGER;
ALTER TABLE entry ADD COLUMN order_key TEXT;
ALTER TABLE entry ADD COLUMN edited_at INTEGER;
ALTER TABLE entry ADD COLUMN field_clocks TEXT;
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
DROP INDEX entry_live_by_day;
DROP INDEX entry_live_by_month_day;
CREATE INDEX entry_live_by_day ON entry(local_date) WHERE deleted_at IS NULL AND trashed_at IS NULL;
CREATE INDEX entry_live_by_month_day ON entry(substr(local_date, 6), local_date) WHERE deleted_at IS NULL AND trashed_at IS NULL;
CREATE INDEX entry_in_trash ON entry(trashed_at) WHERE deleted_at IS NULL AND trashed_at IS NOT NULL;
CREATE INDEX entry_starred ON entry(moment_key) WHERE starred = 1 AND deleted_at IS NULL AND trashed_at IS NULL;
DROP TRIGGER entry_total_insert;
DROP TRIGGER entry_total_delete;
DROP TRIGGER entry_total_tombstone;
CREATE TRIGGER entry_total_insert AFTER INSERT ON entry WHEN NEW.deleted_at IS NULL AND NEW.trashed_at IS NULL
    BEGIN UPDATE entry_total SET live = live + 1; END;
CREATE TRIGGER entry_total_delete AFTER DELETE ON entry WHEN OLD.deleted_at IS NULL AND OLD.trashed_at IS NULL
    BEGIN UPDATE entry_total SET live = live - 1; END;
CREATE TRIGGER entry_total_hidden AFTER UPDATE OF deleted_at, trashed_at ON entry
    WHEN (OLD.deleted_at IS NULL AND OLD.trashed_at IS NULL) != (NEW.deleted_at IS NULL AND NEW.trashed_at IS NULL)
    BEGIN UPDATE entry_total SET live = live + CASE WHEN NEW.deleted_at IS NULL AND NEW.trashed_at IS NULL THEN 1 ELSE -1 END; END;
