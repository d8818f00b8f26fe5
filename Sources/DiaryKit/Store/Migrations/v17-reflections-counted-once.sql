-- A reflection looks back on pages and is tagged with the feelings they hold; counting its
-- tags too counted each feeling twice in feelings over time. The per-tag, per-day counts
-- now hold the written moments only: live pages that are no reflection.
DROP TRIGGER tag_day_link_added;
DROP TRIGGER tag_day_link_removed;
DROP TRIGGER tag_day_entry_moved;
DROP TRIGGER tag_day_entry_removed;
DELETE FROM tag_day;
INSERT INTO tag_day (tag_id, local_date, n)
    SELECT et.tag_id, e.local_date, count(*) FROM entry_tag et JOIN entry e ON e.id = et.entry_id
    WHERE e.deleted_at IS NULL AND e.trashed_at IS NULL AND e.reflection IS NULL GROUP BY et.tag_id, e.local_date;
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
