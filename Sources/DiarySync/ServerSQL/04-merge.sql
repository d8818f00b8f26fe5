-- The name a media row's bytes are stored under: the file's SHA-256, or in a sealed diary
-- the keyed name of it (the server never sees the file's own hash).
CREATE OR REPLACE FUNCTION diary.media_key(media jsonb) RETURNS text
    LANGUAGE sql IMMUTABLE
    AS $fn$ SELECT coalesce(media->>'sha256', media->>'object') $fn$;

-- Keeps a losing version; the same loser arriving again is kept once.
CREATE OR REPLACE FUNCTION diary.keep_conflict(uid uuid, table_name text, row_id text, loser_hlc text,
                                               winner_hlc text, version jsonb) RETURNS void
    LANGUAGE sql
    SET search_path = pg_catalog, diary, pg_temp
AS $fn$
    INSERT INTO diary.conflict (user_id, table_name, row_id, hlc, winner_hlc, version)
    VALUES (uid, table_name, row_id, loser_hlc, winner_hlc, version)
    ON CONFLICT (user_id, table_name, row_id, hlc) DO NOTHING;
$fn$;

-- The clock of one part of an entry (content, star, trash, order): its own, else for the
-- content the entry's clock, else none (''). A sealed entry keeps each part's clock beside it.
CREATE OR REPLACE FUNCTION diary.part_clock(doc jsonb, part text) RETURNS text
    LANGUAGE sql IMMUTABLE
    SET search_path = pg_catalog, diary, pg_temp
AS $fn$
    SELECT coalesce(CASE WHEN doc ? 'parts' THEN doc->'parts'->part->>'hlc'
                         ELSE coalesce(doc->'field_clocks'->>part, CASE WHEN part = 'content' THEN doc->>'hlc' END) END,
                    '') COLLATE "C";
$fn$;

-- Merges two live versions of an entry part by part, each part to the side that changed
-- it last (the device's rule too, in RecordExchange.swift): a star or a move made on one
-- device never undoes an edit of the words made on another. Which fields each part holds
-- is made from the fields' declarations (RecordFields.swift); only clocks are compared.
CREATE OR REPLACE FUNCTION diary.merge_parts(stored jsonb, incoming jsonb) RETURNS jsonb
    LANGUAGE plpgsql IMMUTABLE
    SET search_path = pg_catalog, diary, pg_temp
AS $fn$
DECLARE
    merged jsonb := stored;
    clocks jsonb := '{}';
    content text COLLATE "C" := greatest(diary.part_clock(stored, 'content'), diary.part_clock(incoming, 'content'));
    part text;
    field text;
BEGIN
    IF stored ? 'parts' OR incoming ? 'parts' THEN
        RETURN diary.merge_sealed_parts(stored, incoming);
    END IF;
    IF diary.part_clock(incoming, 'content') > diary.part_clock(stored, 'content') THEN
        merged := (incoming - ARRAY[{{fields_apart}}, 'field_clocks', 'hlc', 'device_id'])
                  || jsonb_build_object({{stored_fields_apart}}, 'hlc', stored->'hlc', 'device_id', stored->'device_id');
    END IF;
    FOREACH part IN ARRAY ARRAY[{{parts_apart}}] LOOP
        IF diary.part_clock(incoming, part) > diary.part_clock(stored, part) THEN
            FOREACH field IN ARRAY {{part_fields}} LOOP
                merged := merged || jsonb_build_object(field, incoming->field);
            END LOOP;
            clocks := clocks || jsonb_build_object(part, incoming->'field_clocks'->>part);
        ELSE
            clocks := clocks || jsonb_build_object(part, nullif(diary.part_clock(stored, part), ''));
        END IF;
    END LOOP;
    IF incoming->>'hlc' COLLATE "C" > stored->>'hlc' COLLATE "C" THEN
        merged := merged || jsonb_build_object('hlc', incoming->'hlc', 'device_id', incoming->'device_id');
    END IF;
    -- The content's clock is written down only when it is not the entry's own: one form
    -- for one state, as the clients write it.
    RETURN merged || jsonb_build_object('field_clocks', clocks || jsonb_build_object(
        'content', CASE WHEN content = merged->>'hlc' THEN NULL ELSE content END));
END
$fn$;

-- True when two versions of an entry's fields say the same (a missing field_clocks is
-- the same as one with no clock set).
CREATE OR REPLACE FUNCTION diary.same_fields(a jsonb, b jsonb) RETURNS boolean
    LANGUAGE sql IMMUTABLE
    SET search_path = pg_catalog, diary, pg_temp
AS $fn$
    SELECT a - 'field_clocks' = b - 'field_clocks'
       AND coalesce(jsonb_strip_nulls(CASE WHEN jsonb_typeof(a->'field_clocks') = 'object' THEN a->'field_clocks' END), '{}')
         = coalesce(jsonb_strip_nulls(CASE WHEN jsonb_typeof(b->'field_clocks') = 'object' THEN b->'field_clocks' END), '{}');
$fn$;

-- Merges one entry record (the same rules as the client's merge in RecordExchange.swift);
-- true when anything changed, and then the entry row carries next_seq.
-- Returns 'unchanged', 'changed', or 'new' when the entry and everything in it were new
-- here, so that what the server holds is exactly the record (no need to compare it again).
-- (Version 6 returned a boolean; a function's result type is only changed by dropping it.)
DROP FUNCTION IF EXISTS diary.apply_entry(uuid, jsonb, bigint);
CREATE FUNCTION diary.apply_entry(uid uuid, rec jsonb, next_seq bigint) RETURNS text
    LANGUAGE plpgsql
    SET search_path = pg_catalog, diary, pg_temp
AS $fn$
DECLARE
    eid text := rec->>'id';
    new_hlc text COLLATE "C" := rec->>'hlc';
    new_deleted boolean := (rec->>'deleted_at') IS NOT NULL;
    -- The entry's own fields; children live in their own tables, "tags" is derived.
    new_doc jsonb := rec - '{media,messages,tag_links,tags}'::text[];
    stored record;
    child jsonb;
    child_hlc text COLLATE "C";
    incoming_wins boolean;
    merged jsonb;
    changed boolean := false;
    all_new boolean;
    attachments jsonb := CASE WHEN jsonb_typeof(rec->'media') = 'array' THEN rec->'media' ELSE '[]' END;
    messages jsonb := CASE WHEN jsonb_typeof(rec->'messages') = 'array' THEN rec->'messages' ELSE '[]' END;
    links jsonb := CASE WHEN jsonb_typeof(rec->'tag_links') = 'array' THEN rec->'tag_links' ELSE '[]' END;
    added bigint;
    new_names text[];
BEGIN
    -- The entry's own fields.
    SELECT e.hlc, e.deleted, e.doc INTO stored FROM diary.entry e WHERE e.user_id = uid AND e.id = eid FOR UPDATE;
    all_new := NOT FOUND;
    IF NOT FOUND THEN
        INSERT INTO diary.entry (user_id, id, hlc, device_id, deleted, created_at, occurred_at, doc, server_seq)
        VALUES (uid, eid, new_hlc, rec->>'device_id', new_deleted, (rec->>'created_at')::timestamptz,
                (rec->>'occurred_at')::timestamptz, new_doc, next_seq);
        changed := true;
    ELSIF NOT stored.deleted AND NOT new_deleted THEN
        -- Two live versions merge part by part; the words that lost are kept.
        IF diary.part_clock(stored.doc, 'content') <> diary.part_clock(new_doc, 'content') THEN
            IF diary.part_clock(new_doc, 'content') > diary.part_clock(stored.doc, 'content') THEN
                PERFORM diary.keep_conflict(uid, 'entry', eid, diary.part_clock(stored.doc, 'content'),
                                            diary.part_clock(new_doc, 'content'), stored.doc);
            ELSE
                PERFORM diary.keep_conflict(uid, 'entry', eid, diary.part_clock(new_doc, 'content'),
                                            diary.part_clock(stored.doc, 'content'), new_doc);
            END IF;
        END IF;
        merged := diary.merge_parts(stored.doc, new_doc);
        IF NOT diary.same_fields(merged, stored.doc) THEN
            UPDATE diary.entry e
               SET hlc = merged->>'hlc', device_id = merged->>'device_id',
                   created_at = (merged->>'created_at')::timestamptz, occurred_at = (merged->>'occurred_at')::timestamptz,
                   doc = merged, server_seq = next_seq
             WHERE e.user_id = uid AND e.id = eid;
            changed := true;
        END IF;
    ELSIF stored.hlc COLLATE "C" <> new_hlc THEN
        -- A tombstone beats a live version whatever the clocks say (a delete is never undone
        -- by an older or concurrent edit); between two tombstones the greater clock wins.
        incoming_wins := CASE WHEN stored.deleted <> new_deleted THEN new_deleted
                              ELSE new_hlc > stored.hlc COLLATE "C" END;
        IF incoming_wins THEN
            PERFORM diary.keep_conflict(uid, 'entry', eid, stored.hlc, new_hlc, stored.doc);
            UPDATE diary.entry e
               SET hlc = new_hlc, device_id = rec->>'device_id', deleted = new_deleted,
                   created_at = (rec->>'created_at')::timestamptz, occurred_at = (rec->>'occurred_at')::timestamptz,
                   doc = new_doc, server_seq = next_seq
             WHERE e.user_id = uid AND e.id = eid;
            changed := true;
        ELSE
            PERFORM diary.keep_conflict(uid, 'entry', eid, new_hlc, stored.hlc, new_doc);
        END IF;
    END IF;

    -- Media, by id: a newer version replaces a live one; a deleted one stays deleted.
    FOR child IN SELECT value FROM jsonb_array_elements(attachments) LOOP
        child_hlc := child->>'hlc';
        SELECT m.entry_id, m.hlc, m.deleted, m.doc INTO stored
          FROM diary.media m WHERE m.user_id = uid AND m.id = child->>'id' FOR UPDATE;
        IF NOT FOUND THEN
            INSERT INTO diary.media (user_id, id, entry_id, sha256, hlc, device_id, deleted, doc)
            VALUES (uid, child->>'id', eid, diary.media_key(child), child_hlc, child->>'device_id',
                    (child->>'deleted_at') IS NOT NULL, child);
            changed := true;
            CONTINUE;
        END IF;
        all_new := false;
        IF stored.entry_id <> eid THEN
            -- A media id belongs to one entry; a record that moves it is not ours to follow.
            RAISE EXCEPTION 'media % belongs to another entry', child->>'id' USING ERRCODE = '22023';
        ELSIF child_hlc > stored.hlc COLLATE "C" AND NOT stored.deleted THEN
            PERFORM diary.keep_conflict(uid, 'media', child->>'id', stored.hlc, child_hlc, stored.doc);
            UPDATE diary.media m
               SET sha256 = diary.media_key(child), hlc = child_hlc, device_id = child->>'device_id',
                   deleted = (child->>'deleted_at') IS NOT NULL, doc = child
             WHERE m.user_id = uid AND m.id = child->>'id';
            changed := true;
        ELSIF child_hlc <> stored.hlc COLLATE "C" THEN
            PERFORM diary.keep_conflict(uid, 'media', child->>'id', child_hlc, stored.hlc, child);
        END IF;
    END LOOP;

    -- Messages are append-only: the only later change a copy can carry is its deletion.
    -- The new ones go in with one statement (the person's pushes are already serialised by
    -- the account lock); only copies of messages already here are looked at one by one.
    WITH incoming AS (SELECT x.value AS doc, x.n FROM jsonb_array_elements(messages) WITH ORDINALITY x(value, n)),
         inserted AS (
             INSERT INTO diary.message (user_id, id, entry_id, hlc, device_id, deleted, doc)
             SELECT uid, i.doc->>'id', eid, i.doc->>'hlc', i.doc->>'device_id', (i.doc->>'deleted_at') IS NOT NULL, i.doc
               FROM incoming i ORDER BY i.n
             ON CONFLICT (user_id, id) DO NOTHING
             RETURNING 1)
    SELECT count(*) INTO added FROM inserted;
    IF added > 0 THEN
        changed := true;
    END IF;
    IF added < jsonb_array_length(messages) THEN
        all_new := false;
        IF EXISTS (SELECT 1 FROM jsonb_array_elements(messages) x
                     JOIN diary.message m ON m.user_id = uid AND m.id = x->>'id' WHERE m.entry_id <> eid) THEN
            RAISE EXCEPTION 'a message belongs to another entry' USING ERRCODE = '22023';
        END IF;
        UPDATE diary.message m SET hlc = x->>'hlc', device_id = x->>'device_id', deleted = true, doc = x
          FROM jsonb_array_elements(messages) x
         WHERE m.user_id = uid AND m.id = x->>'id' AND NOT m.deleted AND (x->>'deleted_at') IS NOT NULL;
        IF FOUND THEN
            changed := true;
        END IF;
    END IF;

    -- Tag links, by name: last writer wins, removals included. New names go in with one
    -- statement; a name already here (or met again in the same record) is merged below.
    WITH incoming AS (SELECT x.value AS doc, x.n FROM jsonb_array_elements(links) WITH ORDINALITY x(value, n)),
         inserted AS (
             INSERT INTO diary.entry_tag (user_id, entry_id, name, hlc, device_id, deleted, doc)
             SELECT uid, eid, i.doc->>'name', i.doc->>'hlc', i.doc->>'device_id', (i.doc->>'deleted_at') IS NOT NULL, i.doc
               FROM incoming i ORDER BY i.n
             ON CONFLICT (user_id, entry_id, name) DO NOTHING
             RETURNING name)
    SELECT coalesce(array_agg(inserted.name), '{}') INTO new_names FROM inserted;
    IF cardinality(new_names) > 0 THEN
        changed := true;
    END IF;
    IF cardinality(new_names) < jsonb_array_length(links) THEN
        all_new := false;
    END IF;
    FOR child IN SELECT x.value FROM jsonb_array_elements(links) WITH ORDINALITY x(value, n)
                  WHERE NOT (x.value->>'name' = ANY (new_names))
                     OR x.n > (SELECT min(y.n) FROM jsonb_array_elements(links) WITH ORDINALITY y(value, n)
                                WHERE y.value->>'name' = x.value->>'name')
                  ORDER BY x.n LOOP
        child_hlc := child->>'hlc';
        SELECT t.hlc, t.doc INTO stored
          FROM diary.entry_tag t WHERE t.user_id = uid AND t.entry_id = eid AND t.name = child->>'name' FOR UPDATE;
        IF NOT FOUND THEN
            INSERT INTO diary.entry_tag (user_id, entry_id, name, hlc, device_id, deleted, doc)
            VALUES (uid, eid, child->>'name', child_hlc, child->>'device_id', (child->>'deleted_at') IS NOT NULL, child);
            changed := true;
        ELSIF child_hlc > stored.hlc COLLATE "C" THEN
            PERFORM diary.keep_conflict(uid, 'entry_tag', eid || '/' || (child->>'name'), stored.hlc, child_hlc, stored.doc);
            UPDATE diary.entry_tag t
               SET hlc = child_hlc, device_id = child->>'device_id', deleted = (child->>'deleted_at') IS NOT NULL, doc = child
             WHERE t.user_id = uid AND t.entry_id = eid AND t.name = child->>'name';
            changed := true;
        ELSIF child_hlc < stored.hlc COLLATE "C" THEN
            PERFORM diary.keep_conflict(uid, 'entry_tag', eid || '/' || (child->>'name'), child_hlc, stored.hlc, child);
        END IF;
    END LOOP;

    -- A file no live media row of the person shows any more (its page was purged) leaves
    -- the server too.
    IF EXISTS (SELECT 1 FROM jsonb_array_elements(attachments) x WHERE (x->>'deleted_at') IS NOT NULL) THEN
        DELETE FROM diary.media_chunk c
         WHERE c.user_id = uid
           AND c.sha256 IN (SELECT diary.media_key(x) FROM jsonb_array_elements(attachments) x WHERE (x->>'deleted_at') IS NOT NULL)
           AND NOT EXISTS (SELECT 1 FROM diary.media m WHERE m.user_id = uid AND m.sha256 = c.sha256 AND NOT m.deleted);
        DELETE FROM diary.media_object o
         WHERE o.user_id = uid
           AND o.sha256 IN (SELECT diary.media_key(x) FROM jsonb_array_elements(attachments) x WHERE (x->>'deleted_at') IS NOT NULL)
           AND NOT EXISTS (SELECT 1 FROM diary.media m WHERE m.user_id = uid AND m.sha256 = o.sha256 AND NOT m.deleted);
    END IF;

    -- Any change, even to a child only, sends the whole entry to the other devices again.
    IF changed AND NOT all_new THEN
        UPDATE diary.entry e SET server_seq = next_seq
         WHERE e.user_id = uid AND e.id = eid AND e.server_seq <> next_seq;
    END IF;
    RETURN CASE WHEN all_new THEN 'new' WHEN changed THEN 'changed' ELSE 'unchanged' END;
END
$fn$;

-- True when the server's copy of the entry is exactly the record sent: fields and every
-- media row, message and tag link (compared as sets, by id or name).
CREATE OR REPLACE FUNCTION diary.entry_matches(uid uuid, rec jsonb) RETURNS boolean
    LANGUAGE sql STABLE
    SET search_path = pg_catalog, diary, pg_temp
AS $fn$
    SELECT coalesce((SELECT diary.same_fields(e.doc, rec - '{media,messages,tag_links,tags}'::text[])
                       FROM diary.entry e WHERE e.user_id = uid AND e.id = rec->>'id'), false)
       AND (SELECT coalesce(jsonb_agg(m.doc ORDER BY m.id), '[]') FROM diary.media m
             WHERE m.user_id = uid AND m.entry_id = rec->>'id')
         = (SELECT coalesce(jsonb_agg(x ORDER BY x->>'id'), '[]') FROM jsonb_array_elements(rec->'media') x)
       AND (SELECT coalesce(jsonb_agg(m.doc ORDER BY m.id), '[]') FROM diary.message m
             WHERE m.user_id = uid AND m.entry_id = rec->>'id')
         = (SELECT coalesce(jsonb_agg(x ORDER BY x->>'id'), '[]') FROM jsonb_array_elements(rec->'messages') x)
       AND (SELECT coalesce(jsonb_agg(t.doc ORDER BY t.name), '[]') FROM diary.entry_tag t
             WHERE t.user_id = uid AND t.entry_id = rec->>'id')
         = (SELECT coalesce(jsonb_agg(x ORDER BY x->>'name'), '[]') FROM jsonb_array_elements(rec->'tag_links') x)
$fn$;

-- Merges one setting record: the greater clock wins. A sealed one keeps its seal as the value.
CREATE OR REPLACE FUNCTION diary.apply_setting(uid uuid, rec jsonb, next_seq bigint) RETURNS boolean
    LANGUAGE plpgsql
    SET search_path = pg_catalog, diary, pg_temp
AS $fn$
DECLARE
    new_hlc text COLLATE "C" := rec->>'hlc';
    is_sealed boolean := rec ? 'box';
    new_value text := CASE WHEN rec ? 'box' THEN rec->>'box' ELSE rec->>'value' END;
    stored record;
BEGIN
    SELECT s.value, s.hlc INTO stored FROM diary.setting s WHERE s.user_id = uid AND s.key = rec->>'key' FOR UPDATE;
    IF FOUND THEN
        IF stored.hlc COLLATE "C" = new_hlc THEN
            RETURN false;
        ELSIF new_hlc < stored.hlc COLLATE "C" THEN
            PERFORM diary.keep_conflict(uid, 'setting', rec->>'key', new_hlc, stored.hlc,
                                        jsonb_build_object('key', rec->>'key', 'value', new_value, 'hlc', new_hlc));
            RETURN false;
        END IF;
        PERFORM diary.keep_conflict(uid, 'setting', rec->>'key', stored.hlc, new_hlc,
                                    jsonb_build_object('key', rec->>'key', 'value', stored.value, 'hlc', stored.hlc));
    END IF;
    INSERT INTO diary.setting (user_id, key, value, hlc, device_id, updated_at, server_seq, sealed)
    VALUES (uid, rec->>'key', new_value, new_hlc, rec->>'device_id', (rec->>'updated_at')::timestamptz, next_seq, is_sealed)
    ON CONFLICT (user_id, key) DO UPDATE
        SET value = excluded.value, hlc = excluded.hlc, device_id = excluded.device_id,
            updated_at = excluded.updated_at, server_seq = excluded.server_seq, sealed = excluded.sealed;
    RETURN true;
END
$fn$;

