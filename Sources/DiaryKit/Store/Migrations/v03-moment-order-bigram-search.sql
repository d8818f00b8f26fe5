-- Entries are keyed by their moment so that time order is the table's own order and the
-- full-text rowid. The index is rebuilt with the bigram tokenizer over the original text
-- (it used to hold pre-cut words), so snippets quote what the person wrote. Entry rows
-- are large (note, analysis, page); the partial indexes over live entries let counts,
-- the calendar and this-day-in-history read a few small pages instead of every row, and
-- triggers keep the number of live entries in one row, whoever writes (sync included).
-- Before this runs, DiaryStore renames seq to moment_key and gives each entry its key;
-- after it, it fills the new index.
DROP TABLE entry_fts;
CREATE VIRTUAL TABLE entry_fts USING fts5(
    title, summary, note, transcript, tags, person_chat, analysis, companion_chat,
    tokenize = 'diary_bigram'
);
DROP INDEX entry_by_occurred;
DROP INDEX entry_by_local_date;
CREATE INDEX entry_by_created ON entry(created_at);
CREATE INDEX entry_by_updated ON entry(updated_at);
CREATE INDEX entry_live_by_day ON entry(local_date) WHERE deleted_at IS NULL;
CREATE INDEX entry_live_by_month_day ON entry(substr(local_date, 6), local_date) WHERE deleted_at IS NULL;
CREATE VIRTUAL TABLE entry_vocabulary USING fts5vocab(entry_fts, row);
CREATE TABLE entry_total (live INTEGER NOT NULL);
INSERT INTO entry_total SELECT count(*) FROM entry WHERE deleted_at IS NULL;
CREATE TRIGGER entry_total_insert AFTER INSERT ON entry WHEN NEW.deleted_at IS NULL
    BEGIN UPDATE entry_total SET live = live + 1; END;
CREATE TRIGGER entry_total_delete AFTER DELETE ON entry WHEN OLD.deleted_at IS NULL
    BEGIN UPDATE entry_total SET live = live - 1; END;
CREATE TRIGGER entry_total_tombstone AFTER UPDATE OF deleted_at ON entry
    WHEN (OLD.deleted_at IS NULL) != (NEW.deleted_at IS NULL)
    BEGIN UPDATE entry_total SET live = live + CASE WHEN NEW.deleted_at IS NULL THEN 1 ELSE -1 END; END;
