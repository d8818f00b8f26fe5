-- ---------------------------------------------------------------------------------------
-- Sealed diaries. A sealed account's devices seal every part of a record before it leaves
-- them (XChaCha20-Poly1305, bound to the account, the record, the part and its clock); what
-- stays in clear is what the server needs: ids, the links between them, clocks, device ids,
-- tombstones, items-key numbers and padded sizes. The server checks only that envelope
-- here; the field checks of 03-record-checks.sql are the devices' job for sealed records,
-- before a push and after a pull. Merging is the same as for clear records (04-merge.sql),
-- part by part on the parts' clocks.

-- A sealed value as the devices write it: 'ib1.<items key>.<base64 of nonce, sealed
-- padded value, tag>', its key one the account has (1 to 9 digits, no leading 0), at least a
-- nonce, the 256-byte smallest padding and a tag long (396 base64 characters), at most 16
-- MiB, no third dot. The base64 itself is not looked at, character by character: a device
-- that cannot open a seal sets its record aside, and the server learns nothing more by
-- reading it. Written for speed (a sealed push checks a seal for every part and item): the
-- head is matched on its first 14 characters only, lengths in bytes (the text is ASCII once
-- the head is), and split_part finds a fourth part without copying the third (5 times
-- faster than the same checks made on the whole text).
CREATE OR REPLACE FUNCTION diary.is_box(v jsonb, keys int) RETURNS boolean
    LANGUAGE sql IMMUTABLE
    AS $fn$ SELECT CASE WHEN jsonb_typeof(v) = 'string' AND octet_length(v #>> '{}') BETWEEN 402 AND 16777216
                             AND substr(v #>> '{}', 1, 14) ~ '^ib1\.[1-9][0-9]{0,8}\.'
                        THEN split_part(v #>> '{}', '.', 2)::int <= keys
                             AND split_part(v #>> '{}', '.', 4) = '' AND right(v #>> '{}', 1) <> '.'
                             AND (octet_length(v #>> '{}') - 5 - octet_length(split_part(v #>> '{}', '.', 2))) % 4 = 0
                        ELSE false END $fn$;

-- A keyed name (a media object's, a tag's, a setting key's): 64 lowercase hex digits.
CREATE OR REPLACE FUNCTION diary.is_keyed_name(v jsonb) RETURNS boolean
    LANGUAGE sql IMMUTABLE
    AS $fn$ SELECT jsonb_typeof(v) = 'string' AND length(v #>> '{}') = 64 AND (v #>> '{}') ~ '^[0-9a-f]+$' $fn$;

-- The clock and tombstone every sealed row has in clear: a clock, a device, and a
-- deletion time or null.
CREATE OR REPLACE FUNCTION diary.is_sealed_clock(v jsonb) RETURNS boolean
    LANGUAGE sql IMMUTABLE
    AS $fn$ SELECT diary.is_hlc(v->'hlc') AND jsonb_typeof(v->'device_id') = 'string'
                   AND length(v->>'device_id') BETWEEN 1 AND 64 AND strpos(v->>'device_id', E'\n') = 0
                   AND (NOT diary.is_given(v->'deleted_at') OR diary.is_time(v->'deleted_at')) $fn$;

-- What a sealed record may carry in clear, by where it stands (the record, its parts, one
-- part, an item of each list, a setting): anything else is a field a device should have
-- sealed. One list for the record-by-record checks and the batch's.
CREATE OR REPLACE FUNCTION diary.sealed_clear_fields(place text) RETURNS text[]
    LANGUAGE sql IMMUTABLE
    AS $fn$ SELECT (CASE place
                        WHEN 'entry' THEN '{kind,id,sealed,hlc,device_id,deleted_at,parts,media,messages,tag_links}'
                        WHEN 'parts' THEN '{content,star,trash,order}'
                        WHEN 'part' THEN '{hlc,box}'
                        WHEN 'media' THEN '{id,object,hlc,device_id,deleted_at,box}'
                        WHEN 'messages' THEN '{id,hlc,device_id,deleted_at,box}'
                        WHEN 'tag_links' THEN '{name,hlc,device_id,deleted_at,box}'
                        WHEN 'setting' THEN '{kind,key,sealed,hlc,device_id,box}' END)::text[] $fn$;

-- The first part of a sealed entry record that is not as the devices write it, or NULL.
-- A field in clear that has no business there (a title, a tag's name) is refused too: a
-- device that would leak it is stopped here.
CREATE OR REPLACE FUNCTION diary.unsealed_entry_field(rec jsonb, keys int) RETURNS text
    LANGUAGE plpgsql IMMUTABLE
    SET search_path = pg_catalog, diary, pg_temp
AS $fn$
DECLARE
    part text;
    list text;
    child jsonb;
    n int;
BEGIN
    IF jsonb_typeof(rec) IS DISTINCT FROM 'object' OR rec->'kind' IS DISTINCT FROM '"entry"' THEN
        RETURN 'kind';
    END IF;
    IF rec - diary.sealed_clear_fields('entry') <> '{}' THEN
        RETURN (SELECT min(k) FROM jsonb_object_keys(rec - diary.sealed_clear_fields('entry')) k);
    END IF;
    IF NOT diary.is_id(rec->'id') THEN RETURN 'id'; END IF;
    IF NOT diary.is_sealed_clock(rec) THEN RETURN 'hlc'; END IF;
    IF jsonb_typeof(rec->'parts') IS DISTINCT FROM 'object'
       OR (rec->'parts') - diary.sealed_clear_fields('parts') <> '{}' THEN
        RETURN 'parts';
    END IF;
    FOREACH part IN ARRAY diary.sealed_clear_fields('parts') LOOP
        -- The content's clock is always there; the others only once that part was changed.
        IF jsonb_typeof(rec->'parts'->part) IS DISTINCT FROM 'object'
           OR (rec->'parts'->part) - diary.sealed_clear_fields('part') <> '{}'
           OR NOT diary.is_box(rec->'parts'->part->'box', keys)
           OR ((part = 'content' OR diary.is_given(rec->'parts'->part->'hlc')) AND NOT diary.is_hlc(rec->'parts'->part->'hlc')) THEN
            RETURN 'parts.' || part;
        END IF;
    END LOOP;
    FOREACH list IN ARRAY ARRAY['media', 'messages', 'tag_links'] LOOP
        IF jsonb_typeof(rec->list) IS DISTINCT FROM 'array' THEN
            RETURN list;
        END IF;
        FOR child, n IN SELECT c.value, c.n - 1 FROM jsonb_array_elements(rec->list) WITH ORDINALITY AS c(value, n) LOOP
            IF jsonb_typeof(child) IS DISTINCT FROM 'object'
               OR child - diary.sealed_clear_fields(list) <> '{}'
               OR NOT (CASE list WHEN 'tag_links' THEN diary.is_keyed_name(child->'name') ELSE diary.is_id(child->'id') END)
               OR (list = 'media' AND NOT diary.is_keyed_name(child->'object'))
               OR NOT diary.is_sealed_clock(child) OR NOT diary.is_box(child->'box', keys) THEN
                RETURN format('%s[%s]', list, n);
            END IF;
        END LOOP;
    END LOOP;
    RETURN NULL;
END
$fn$;

-- The same for a sealed setting: its key a keyed name, its value and time in the seal.
CREATE OR REPLACE FUNCTION diary.unsealed_setting_field(rec jsonb, keys int) RETURNS text
    LANGUAGE sql IMMUTABLE
    AS $fn$ SELECT CASE WHEN jsonb_typeof(rec) IS DISTINCT FROM 'object' OR rec->'kind' IS DISTINCT FROM '"setting"' THEN 'kind'
                        WHEN rec - diary.sealed_clear_fields('setting') <> '{}' THEN 'fields'
                        WHEN NOT diary.is_keyed_name(rec->'key') THEN 'key'
                        WHEN NOT diary.is_sealed_clock(rec) OR diary.is_given(rec->'deleted_at') THEN 'hlc'
                        WHEN NOT diary.is_box(rec->'box', keys) THEN 'box' END $fn$;

-- For a batch of new sealed entries (push's one-statement path): the checks of
-- unsealed_entry_field made once for the whole batch, as batch_readable does for clear
-- ones, and the newest wall-clock time (ms) among their clocks, or NULL when a record is not
-- as devices write it. First each record's shape, then its parts' and items' fields and
-- seals, then every value of one written form (ids, clocks, deletion times, keyed names) in
-- one string matched once: matched value by value, the patterns cost most of a push. NULL
-- sends the batch record by record, where a bad record is refused and named. The clocks
-- sort as text, so only the newest is read as a time.
CREATE OR REPLACE FUNCTION diary.sealed_batch_newest(batch jsonb, keys int) RETURNS bigint
    LANGUAGE plpgsql STABLE
    SET search_path = pg_catalog, diary, pg_temp
AS $fn$
DECLARE
    good boolean;
    newest text;
BEGIN
    -- Records: their fields, their lists.
    IF EXISTS (SELECT 1 FROM diary.batch_items(batch) p
                WHERE jsonb_typeof(p.rec) IS DISTINCT FROM 'object'
                   OR p.rec - diary.sealed_clear_fields('entry') <> '{}'
                   OR jsonb_typeof(p.rec->'parts') IS DISTINCT FROM 'object'
                   OR (p.rec->'parts') - diary.sealed_clear_fields('parts') <> '{}'
                   OR jsonb_typeof(p.rec->'media') IS DISTINCT FROM 'array'
                   OR jsonb_typeof(p.rec->'messages') IS DISTINCT FROM 'array'
                   OR jsonb_typeof(p.rec->'tag_links') IS DISTINCT FROM 'array') THEN
        RETURN NULL;
    END IF;
    -- The records, their four parts and their items, each taken apart once with the values
    -- the checks read (MATERIALIZED: inlined, every mention of a value would walk the record
    -- to it again); then their fields and seals, and every value of a written form, one
    -- string per form, one match each.
    WITH rec AS MATERIALIZED (SELECT p.rec->'id' AS id, p.rec->'hlc' AS hlc, p.rec->'device_id' AS device,
                                     p.rec->'deleted_at' AS deleted, p.rec->'parts' AS parts,
                                     p.rec->'media' AS media, p.rec->'messages' AS messages, p.rec->'tag_links' AS tag_links
                                FROM diary.batch_items(batch) p),
         part AS MATERIALIZED (SELECT k.part, x.v, x.v->'box' AS box, x.v->'hlc' AS hlc
                                 FROM rec r, unnest(diary.sealed_clear_fields('parts')) k(part),
                                      LATERAL (SELECT r.parts->k.part OFFSET 0) x(v)),
         item AS MATERIALIZED (SELECT i.list, i.item, i.item->'box' AS box, i.item->'id' AS id, i.item->'name' AS name,
                                      i.item->'object' AS object, i.item->'hlc' AS hlc, i.item->'device_id' AS device,
                                      i.item->'deleted_at' AS deleted
                                 FROM rec r,
                                      LATERAL (SELECT 'media' AS list, x.value AS item FROM jsonb_array_elements(r.media) x
                                               UNION ALL SELECT 'messages', x.value FROM jsonb_array_elements(r.messages) x
                                               UNION ALL SELECT 'tag_links', x.value FROM jsonb_array_elements(r.tag_links) x) i),
         clear_fields AS (SELECT l.list, diary.sealed_clear_fields(l.list) AS names
                            FROM unnest(ARRAY['part', 'media', 'messages', 'tag_links']) l(list)),
         misshapen AS (SELECT 1 FROM part, clear_fields f
                        WHERE f.list = 'part'
                          AND (jsonb_typeof(part.v) IS DISTINCT FROM 'object' OR part.v - f.names <> '{}'
                               OR NOT diary.is_box(part.box, keys)
                               OR (part.part = 'content' AND jsonb_typeof(part.hlc) IS DISTINCT FROM 'string')
                               OR coalesce(jsonb_typeof(part.hlc), 'null') NOT IN ('string', 'null'))
                       UNION ALL
                       SELECT 1 FROM item JOIN clear_fields f ON f.list = item.list
                        WHERE jsonb_typeof(item.item) IS DISTINCT FROM 'object' OR item.item - f.names <> '{}'
                           OR NOT diary.is_box(item.box, keys)
                       LIMIT 1),
         value AS (SELECT 'id' AS form, r.id AS v FROM rec r
                   UNION ALL SELECT 'id', item.id FROM item WHERE item.list <> 'tag_links'
                   UNION ALL SELECT 'name', item.name FROM item WHERE item.list = 'tag_links'
                   UNION ALL SELECT 'name', item.object FROM item WHERE item.list = 'media'
                   UNION ALL SELECT 'hlc', r.hlc FROM rec r
                   UNION ALL SELECT 'hlc', item.hlc FROM item
                   UNION ALL SELECT 'hlc', part.hlc FROM part WHERE jsonb_typeof(part.hlc) = 'string'
                   UNION ALL SELECT 'time', r.deleted FROM rec r WHERE jsonb_typeof(r.deleted) IS DISTINCT FROM 'null'
                   UNION ALL SELECT 'time', item.deleted FROM item WHERE jsonb_typeof(item.deleted) IS DISTINCT FROM 'null'
                   UNION ALL SELECT 'device', r.device FROM rec r
                   UNION ALL SELECT 'device', item.device FROM item)
    SELECT NOT EXISTS (SELECT 1 FROM misshapen)
           AND coalesce(bool_and(coalesce(jsonb_typeof(v.v), 'missing') = 'string' AND strpos(v.v #>> '{}', E'\n') = 0
                             AND CASE v.form WHEN 'id' THEN length(v.v #>> '{}') <= 64
                                             WHEN 'name' THEN length(v.v #>> '{}') = 64
                                             WHEN 'device' THEN length(v.v #>> '{}') BETWEEN 1 AND 64
                                             ELSE true END), true)
           AND coalesce(string_agg(E'\n' || (v.v #>> '{}'), '') FILTER (WHERE v.form = 'id') ~ '^(?:\n{{id_form}})*$', true)
           AND coalesce(string_agg(E'\n' || (v.v #>> '{}'), '') FILTER (WHERE v.form = 'name') ~ '^(?:\n[0-9a-f]+)*$', true)
           AND coalesce(string_agg(E'\n' || (v.v #>> '{}'), '') FILTER (WHERE v.form = 'hlc') ~ '^(?:\n{{hlc_form}})*$', true)
           AND coalesce(string_agg(E'\n' || (v.v #>> '{}'), '') FILTER (WHERE v.form = 'time') ~ '^(?:\n{{time_form}})*$', true),
           max((v.v #>> '{}') COLLATE "C") FILTER (WHERE v.form = 'hlc')
      INTO good, newest
      FROM value v;
    RETURN CASE WHEN good THEN diary.hlc_ms(newest) END;
END
$fn$;

-- Version 10's clock and batch checks, now sealed_batch_newest.
DROP FUNCTION IF EXISTS diary.sealed_clock_ms(jsonb);
DROP FUNCTION IF EXISTS diary.sealed_batch_readable(jsonb, int);

-- Merges two live versions of a sealed entry: each part (its clock beside it) to the side
-- that changed it last, as merge_parts does for a clear one; the entry's clock is the
-- newer one's. A clear version meeting a sealed one (an account being sealed) gives way.
CREATE OR REPLACE FUNCTION diary.merge_sealed_parts(stored jsonb, incoming jsonb) RETURNS jsonb
    LANGUAGE plpgsql IMMUTABLE
    SET search_path = pg_catalog, diary, pg_temp
AS $fn$
DECLARE
    merged jsonb := stored;
    part text;
BEGIN
    IF NOT (stored ? 'parts') THEN
        RETURN incoming;
    ELSIF NOT (incoming ? 'parts') THEN
        RETURN stored;
    END IF;
    FOREACH part IN ARRAY ARRAY['content', 'star', 'trash', 'order'] LOOP
        IF diary.part_clock(incoming, part) > diary.part_clock(stored, part) THEN
            merged := jsonb_set(merged, ARRAY['parts', part], incoming->'parts'->part);
        END IF;
    END LOOP;
    IF incoming->>'hlc' COLLATE "C" > stored->>'hlc' COLLATE "C" THEN
        merged := merged || jsonb_build_object('hlc', incoming->'hlc', 'device_id', incoming->'device_id');
    END IF;
    RETURN merged;
END
$fn$;

-- The number of items keys in a key envelope as devices write it; raises for anything else,
-- or for a passphrase cost under the floor every device enforces (2 passes, 64 MiB).
CREATE OR REPLACE FUNCTION diary.envelope_items_keys(envelope jsonb) RETURNS int
    LANGUAGE plpgsql IMMUTABLE
    SET search_path = pg_catalog, diary, pg_temp
AS $fn$
DECLARE
    numbers int[];
BEGIN
    IF jsonb_typeof(envelope) IS DISTINCT FROM 'object' OR envelope->'format' IS DISTINCT FROM '1'
       OR envelope->>'kdf' IS DISTINCT FROM 'argon2id13' OR jsonb_typeof(envelope->'key_id') IS DISTINCT FROM 'string'
       OR envelope->>'key_id' !~ '^[0-9a-f]+$' OR length(envelope->>'key_id') <> 16
       OR jsonb_typeof(envelope->'items_keys') IS DISTINCT FROM 'array' OR length(envelope::text) > 65536 THEN
        RAISE EXCEPTION 'not a key envelope' USING ERRCODE = '22023';
    END IF;
    IF NOT (jsonb_typeof(envelope->'ops') = 'number' AND jsonb_typeof(envelope->'mem') = 'number'
            AND (envelope->>'ops')::numeric >= 2 AND (envelope->>'mem')::numeric >= 67108864) THEN
        RAISE EXCEPTION 'the passphrase cost is under the floor (2 passes, 64 MiB)' USING ERRCODE = '22023';
    END IF;
    SELECT array_agg((k->>'id')::int ORDER BY (k->>'id')::int) INTO numbers
      FROM jsonb_array_elements(envelope->'items_keys') k
     WHERE jsonb_typeof(k->'id') = 'number' AND (k->>'id') ~ '^[1-9][0-9]{0,8}$';
    IF coalesce(cardinality(numbers), 0) = 0 OR cardinality(numbers) <> jsonb_array_length(envelope->'items_keys')
       OR numbers <> ARRAY(SELECT generate_series(1, cardinality(numbers))) THEN
        RAISE EXCEPTION 'items keys are numbered 1, 2, … without a gap' USING ERRCODE = '22023';
    END IF;
    RETURN cardinality(numbers);
END
$fn$;

-- Stores the caller's key envelope: the first one makes the account sealed (only while it
-- holds no clear pages or settings: an account in clear is sealed by begin_sealing()); a
-- later one (a new passphrase, a new items key) must hold the same diary key and every
-- items key the account had. SECURITY DEFINER: people read their envelope but write it
-- only through here. Returns {key_id, items_keys}.
CREATE OR REPLACE FUNCTION diary.put_envelope(envelope jsonb) RETURNS jsonb
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path = pg_catalog, diary, pg_temp
AS $fn$
DECLARE
    uid uuid := diary.account_id();
    stored record;
    keys int := diary.envelope_items_keys(envelope);
BEGIN
    SELECT k.key_id, k.items_keys INTO stored FROM diary.key_envelope k WHERE k.user_id = uid FOR UPDATE;
    IF NOT FOUND THEN
        IF diary.holds_clear_rows(uid) THEN
            RAISE EXCEPTION 'this account holds pages in clear; seal them with diary-sync encrypt' USING ERRCODE = '55000';
        END IF;
        INSERT INTO diary.key_envelope (user_id, key_id, items_keys, envelope)
        VALUES (uid, envelope->>'key_id', keys, envelope);
    ELSIF stored.key_id <> envelope->>'key_id' THEN
        RAISE EXCEPTION 'this envelope holds another diary key' USING ERRCODE = '55000';
    ELSIF keys < stored.items_keys THEN
        RAISE EXCEPTION 'an items key may not be taken away' USING ERRCODE = '55000';
    ELSE
        UPDATE diary.key_envelope k SET items_keys = keys, envelope = put_envelope.envelope, updated_at = now()
         WHERE k.user_id = uid;
    END IF;
    RETURN jsonb_build_object('key_id', envelope->>'key_id', 'items_keys', keys);
END
$fn$;

-- ---------------------------------------------------------------------------------------
-- Sealing an account that synced in clear (diary-sync encrypt). One device, holding the
-- whole diary, stores the envelope (begin_sealing), reads the clear rows page by page
-- (clear_records), sends each back sealed with the same clocks (reseal: no new server_seq,
-- so no device fetches again what it already has), uploads every file sealed, and ends
-- (finish_sealing) by removing what stayed in clear: the clear files, the versions kept by
-- merges, the receipts. Each step may be repeated: a device killed at any point runs
-- encrypt again and carries on. While sealing, push() refuses every change ('sealing'):
-- they wait on their devices.

-- True when the account holds an entry or a setting in clear.
CREATE OR REPLACE FUNCTION diary.holds_clear_rows(uid uuid) RETURNS boolean
    LANGUAGE sql STABLE
    AS $fn$ SELECT EXISTS (SELECT 1 FROM diary.entry e WHERE e.user_id = uid AND NOT (e.doc ? 'parts'))
                   OR EXISTS (SELECT 1 FROM diary.setting s WHERE s.user_id = uid AND NOT s.sealed) $fn$;

-- Stores the envelope of an account that holds clear rows and starts sealing it; the same
-- envelope again (a resumed encrypt) changes nothing. Push receipts go at once: their keys
-- are hashes of clear records, and no clear push is taken from now on. Returns
-- {key_id, items_keys, sealing}.
CREATE OR REPLACE FUNCTION diary.begin_sealing(envelope jsonb) RETURNS jsonb
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path = pg_catalog, diary, pg_temp
AS $fn$
DECLARE
    uid uuid := diary.account_id();
    keys int := diary.envelope_items_keys(envelope);
    stored record;
BEGIN
    -- Under the person's counter lock: no push is half-way while the account changes state.
    PERFORM 1 FROM diary.account a WHERE a.user_id = uid FOR UPDATE;
    SELECT k.key_id, k.items_keys, k.sealing INTO stored FROM diary.key_envelope k WHERE k.user_id = uid;
    IF FOUND THEN
        IF stored.key_id <> envelope->>'key_id' THEN
            RAISE EXCEPTION 'this envelope holds another diary key' USING ERRCODE = '55000';
        END IF;
        RETURN jsonb_build_object('key_id', stored.key_id, 'items_keys', stored.items_keys, 'sealing', stored.sealing);
    END IF;
    INSERT INTO diary.key_envelope (user_id, key_id, items_keys, envelope, sealing)
    VALUES (uid, envelope->>'key_id', keys, envelope, diary.holds_clear_rows(uid));
    DELETE FROM diary.push_receipt r WHERE r.user_id = uid;
    RETURN jsonb_build_object('key_id', envelope->>'key_id', 'items_keys', keys,
                              'sealing', (SELECT k.sealing FROM diary.key_envelope k WHERE k.user_id = uid));
END
$fn$;

-- The next clear entries after the id `after` (at most max_rows, 1..200), as pull() gives
-- them, and every clear setting: {entries, settings, more}.
CREATE OR REPLACE FUNCTION diary.clear_records(after text, max_rows int) RETURNS jsonb
    LANGUAGE plpgsql STABLE
    SET search_path = pg_catalog, diary, pg_temp
AS $fn$
DECLARE
    uid uuid := diary.account_id();
    page_size int := least(greatest(coalesce(max_rows, 200), 1), 200);
    entries jsonb;
    found_rows int;
BEGIN
    WITH page AS (SELECT e.id, e.doc FROM diary.entry e
                   WHERE e.user_id = uid AND NOT (e.doc ? 'parts') AND e.id COLLATE "C" > coalesce(after, '') COLLATE "C"
                   ORDER BY e.id COLLATE "C" LIMIT page_size + 1)
    SELECT coalesce(jsonb_agg((SELECT r.record FROM diary.entry_record(uid, p.id, p.doc) r) ORDER BY p.id COLLATE "C")
                    FILTER (WHERE p.n <= page_size), '[]'), count(*)
      INTO entries, found_rows
      FROM (SELECT page.*, row_number() OVER (ORDER BY page.id COLLATE "C") AS n FROM page) p;
    RETURN jsonb_build_object('entries', entries, 'more', found_rows > page_size,
                              'settings', coalesce((SELECT jsonb_agg(diary.setting_record(s) ORDER BY s.key)
                                                      FROM diary.setting s WHERE s.user_id = uid AND NOT s.sealed), '[]'));
END
$fn$;

-- Replaces clear rows by their sealed forms: [{"record": sealed entry}, {"record": sealed
-- setting, "was": its key in clear}]. Each must carry the clock the clear row has (an entry
-- also the same media and messages, and as many tag links); it then takes the row's place
-- with its server_seq, so devices that hold the clear version fetch nothing again. Per item:
-- 'sealed', 'gone' (no such clear row: already sealed, or never there) or 'rejected' with
-- what did not match.
CREATE OR REPLACE FUNCTION diary.reseal(batch jsonb) RETURNS jsonb
    LANGUAGE plpgsql
    SET search_path = pg_catalog, diary, pg_temp
    SET jit = off
AS $fn$
DECLARE
    uid uuid := diary.account_id();
    keys int;
    item jsonb;
    rec jsonb;
    stored record;
    problem text;
    results jsonb := '[]';
BEGIN
    IF jsonb_typeof(batch) IS DISTINCT FROM 'array' OR jsonb_array_length(batch) > 50 THEN
        RAISE EXCEPTION 'a reseal is an array of at most 50 items' USING ERRCODE = '22023';
    END IF;
    PERFORM diary.lock_counter();
    SELECT k.items_keys INTO keys FROM diary.key_envelope k WHERE k.user_id = uid AND k.sealing;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'this account is not being sealed' USING ERRCODE = '55000';
    END IF;
    FOR item IN SELECT value FROM jsonb_array_elements(batch) LOOP
        rec := item->'record';
        IF rec->>'kind' = 'setting' THEN
            SELECT s.hlc, s.server_seq, s.echo_of INTO stored FROM diary.setting s
             WHERE s.user_id = uid AND s.key = item->>'was' AND NOT s.sealed FOR UPDATE;
            problem := CASE WHEN NOT FOUND THEN 'gone'
                            WHEN stored.hlc IS DISTINCT FROM rec->>'hlc' THEN 'hlc'
                            ELSE diary.unsealed_setting_field(rec, keys) END;
            IF problem IS NULL THEN
                DELETE FROM diary.setting s WHERE s.user_id = uid AND s.key = item->>'was';
                INSERT INTO diary.setting (user_id, key, value, hlc, device_id, updated_at, server_seq, echo_of, sealed)
                VALUES (uid, rec->>'key', rec->>'box', rec->>'hlc', rec->>'device_id', NULL, stored.server_seq, stored.echo_of, true);
            END IF;
            results := results || jsonb_build_object('was', item->>'was', 'status',
                                                     CASE WHEN problem IS NULL THEN 'sealed' WHEN problem = 'gone' THEN 'gone' ELSE 'rejected' END,
                                                     'error', problem);
            CONTINUE;
        END IF;
        SELECT e.hlc INTO stored FROM diary.entry e WHERE e.user_id = uid AND e.id = rec->>'id' AND NOT (e.doc ? 'parts') FOR UPDATE;
        problem := CASE WHEN NOT FOUND THEN 'gone'
                        WHEN stored.hlc IS DISTINCT FROM rec->>'hlc' THEN 'hlc'
                        ELSE diary.unsealed_entry_field(rec, keys) END;
        -- Nothing of the clear row may be left behind: the same media and messages, as many tag links.
        IF problem IS NULL AND (
               (SELECT coalesce(array_agg(m.id ORDER BY m.id), '{}') FROM diary.media m WHERE m.user_id = uid AND m.entry_id = rec->>'id')
               IS DISTINCT FROM (SELECT coalesce(array_agg(x->>'id' ORDER BY x->>'id'), '{}') FROM jsonb_array_elements(rec->'media') x)) THEN
            problem := 'media';
        ELSIF problem IS NULL AND (
               (SELECT coalesce(array_agg(m.id ORDER BY m.id), '{}') FROM diary.message m WHERE m.user_id = uid AND m.entry_id = rec->>'id')
               IS DISTINCT FROM (SELECT coalesce(array_agg(x->>'id' ORDER BY x->>'id'), '{}') FROM jsonb_array_elements(rec->'messages') x)) THEN
            problem := 'messages';
        ELSIF problem IS NULL AND (SELECT count(*) FROM diary.entry_tag t WHERE t.user_id = uid AND t.entry_id = rec->>'id')
                                  <> jsonb_array_length(rec->'tag_links') THEN
            problem := 'tag_links';
        END IF;
        IF problem IS NULL THEN
            UPDATE diary.entry e SET doc = rec - '{media,messages,tag_links}'::text[], created_at = NULL, occurred_at = NULL
             WHERE e.user_id = uid AND e.id = rec->>'id';
            DELETE FROM diary.media m WHERE m.user_id = uid AND m.entry_id = rec->>'id';
            DELETE FROM diary.message m WHERE m.user_id = uid AND m.entry_id = rec->>'id';
            DELETE FROM diary.entry_tag t WHERE t.user_id = uid AND t.entry_id = rec->>'id';
            INSERT INTO diary.media (user_id, id, entry_id, sha256, hlc, device_id, deleted, doc)
            SELECT uid, x->>'id', rec->>'id', diary.media_key(x), x->>'hlc', x->>'device_id', (x->>'deleted_at') IS NOT NULL, x
              FROM jsonb_array_elements(rec->'media') x;
            INSERT INTO diary.message (user_id, id, entry_id, hlc, device_id, deleted, doc)
            SELECT uid, x->>'id', rec->>'id', x->>'hlc', x->>'device_id', (x->>'deleted_at') IS NOT NULL, x
              FROM jsonb_array_elements(rec->'messages') x;
            INSERT INTO diary.entry_tag (user_id, entry_id, name, hlc, device_id, deleted, doc)
            SELECT uid, rec->>'id', x->>'name', x->>'hlc', x->>'device_id', (x->>'deleted_at') IS NOT NULL, x
              FROM jsonb_array_elements(rec->'tag_links') x;
        END IF;
        results := results || jsonb_build_object('id', rec->>'id', 'status',
                                                 CASE WHEN problem IS NULL THEN 'sealed' WHEN problem = 'gone' THEN 'gone' ELSE 'rejected' END,
                                                 'error', problem);
    END LOOP;
    RETURN jsonb_build_object('results', results);
END
$fn$;

-- The caller's stored files no media row names any more: once every row is sealed, the
-- clear files. Storage objects among them are removed by the device through the Storage
-- API (SQL may not delete them), before finish_sealing() forgets them.
CREATE OR REPLACE FUNCTION diary.unreferenced_objects() RETURNS jsonb
    LANGUAGE sql STABLE
    SET search_path = pg_catalog, diary, pg_temp
AS $fn$
    SELECT coalesce(jsonb_agg(jsonb_build_object('sha256', o.sha256, 'name', o.name, 'chunks', o.chunks) ORDER BY o.sha256), '[]')
      FROM diary.media_object o
     WHERE o.user_id = diary.account_id()
       AND NOT EXISTS (SELECT 1 FROM diary.media m WHERE m.user_id = o.user_id AND m.sha256 = o.sha256)
$fn$;

-- Ends the sealing once no clear row is left: removes the clear files' chunks and records,
-- and every version kept by a merge (all from before: nothing was pushed while sealing);
-- from then on the account takes sealed pushes. Returns {sealed, clear_left}.
CREATE OR REPLACE FUNCTION diary.finish_sealing() RETURNS jsonb
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path = pg_catalog, diary, pg_temp
AS $fn$
DECLARE
    uid uuid := diary.account_id();
    left_rows bigint;
BEGIN
    PERFORM 1 FROM diary.account a WHERE a.user_id = uid FOR UPDATE;
    IF NOT EXISTS (SELECT 1 FROM diary.key_envelope k WHERE k.user_id = uid) THEN
        RAISE EXCEPTION 'this account is not being sealed' USING ERRCODE = '55000';
    END IF;
    SELECT (SELECT count(*) FROM diary.entry e WHERE e.user_id = uid AND NOT (e.doc ? 'parts'))
         + (SELECT count(*) FROM diary.setting s WHERE s.user_id = uid AND NOT s.sealed) INTO left_rows;
    IF left_rows > 0 THEN
        RETURN jsonb_build_object('sealed', false, 'clear_left', left_rows);
    END IF;
    DELETE FROM diary.media_chunk c WHERE c.user_id = uid
       AND NOT EXISTS (SELECT 1 FROM diary.media m WHERE m.user_id = uid AND m.sha256 = c.sha256);
    DELETE FROM diary.media_object o WHERE o.user_id = uid
       AND NOT EXISTS (SELECT 1 FROM diary.media m WHERE m.user_id = uid AND m.sha256 = o.sha256);
    DELETE FROM diary.conflict c WHERE c.user_id = uid AND EXISTS (SELECT 1 FROM diary.key_envelope k WHERE k.user_id = uid AND k.sealing);
    UPDATE diary.key_envelope k SET sealing = false, updated_at = now() WHERE k.user_id = uid;
    RETURN jsonb_build_object('sealed', true, 'clear_left', 0);
END
$fn$;
