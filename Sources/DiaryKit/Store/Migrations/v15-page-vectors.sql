-- Meaning-based recall: one vector per saved page, made by the embedder the person
-- configured. They stay on this device (no outbox trigger, not in records or archives)
-- and are made again on demand; a page whose words change loses its vector.
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
