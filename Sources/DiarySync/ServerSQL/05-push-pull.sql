-- push(batch): applies up to 20 records [{"key": idempotency key, "record": {...}}, ...].
-- SECURITY INVOKER: row-level security applies to everything it does.
-- A push's items in order: their position, idempotency key and record. The record is cut
-- out of the batch once per item (OFFSET 0 keeps the sub-query apart): inlined, every
-- mention of it would copy it out of the batch again.
CREATE OR REPLACE FUNCTION diary.batch_items(batch jsonb) RETURNS TABLE (n bigint, key text, rec jsonb)
    LANGUAGE sql IMMUTABLE
    AS $fn$ SELECT b.n, b.value->>'key', r.rec FROM pg_catalog.jsonb_array_elements(batch) WITH ORDINALITY b(value, n),
                   LATERAL (SELECT b.value->'record' OFFSET 0) r(rec) $fn$;

-- The person's change counter, locked for the rest of the transaction: every push (and
-- sealing step) of one person waits here for the one before it. SECURITY DEFINER: taking
-- the row lock needs the right to update the row, and people may only read their counter
-- (one who set it back would make their own devices' pulls skip rows). NULL without an account.
CREATE OR REPLACE FUNCTION diary.lock_counter() RETURNS bigint
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path = pg_catalog, diary, pg_temp
AS $fn$
DECLARE
    seq bigint;
BEGIN
    SELECT a.server_seq INTO seq FROM diary.account a WHERE a.user_id = diary.account_id() FOR UPDATE;
    RETURN seq;
END
$fn$;

-- Moves the caller's counter on to `seq`: forward only, and by at most a push's 20 changes.
CREATE OR REPLACE FUNCTION diary.advance_counter(seq bigint) RETURNS void
    LANGUAGE sql SECURITY DEFINER
    SET search_path = pg_catalog, diary, pg_temp
    AS $fn$ UPDATE diary.account a SET server_seq = advance_counter.seq
             WHERE a.user_id = diary.account_id() AND advance_counter.seq > a.server_seq
               AND advance_counter.seq <= a.server_seq + 20 $fn$;

-- No JIT: a batch is at most 20 records, but Postgres guesses a hundred rows for every
-- JSON list it takes apart, and compiling the statements those guesses make look costly
-- took longer than running them (50 ms a batch).
CREATE OR REPLACE FUNCTION diary.push(batch jsonb, device text DEFAULT NULL) RETURNS jsonb
    LANGUAGE plpgsql
    SET search_path = pg_catalog, diary, pg_temp
    SET jit = off
AS $fn$
DECLARE
    uid uuid := diary.account_id();
    seq bigint;
    start_seq bigint;
    horizon bigint;
    item jsonb;
    rec jsonb;
    item_key text;
    status text;
    changed boolean;
    applied text;
    results jsonb := '[]';
    -- The highest items-key number of a sealed account; NULL for an account in clear.
    sealed_keys int;
    being_sealed boolean;
    problem text;
    clock_ms bigint;
BEGIN
    IF jsonb_typeof(batch) IS DISTINCT FROM 'array' OR jsonb_array_length(batch) > 20 THEN
        RAISE EXCEPTION 'a push is an array of at most 20 items' USING ERRCODE = '22023';
    END IF;
    -- Lock the person's counter first. Every push of one person waits here for the one
    -- before it to commit, so counter values are handed out in commit order and a pull
    -- "server_seq > cursor" can never skip a row committed later with a smaller number.
    seq := diary.lock_counter();
    IF seq IS NULL THEN
        RAISE EXCEPTION 'no diary account for this login' USING ERRCODE = '42501';
    END IF;
    start_seq := seq;
    -- Read under the lock, which begin_sealing and finish_sealing take too: the account's
    -- state cannot change during this push. One being sealed (diary-sync encrypt on one of
    -- its devices) takes nothing until that is done: every change waits on its device, named.
    SELECT k.items_keys, k.sealing INTO sealed_keys, being_sealed FROM diary.key_envelope k WHERE k.user_id = uid;
    IF being_sealed THEN
        RETURN jsonb_build_object('results', (SELECT coalesce(jsonb_agg(jsonb_build_object('key', b.value->>'key', 'status', 'rejected',
                                                                                           'error', 'sealing')), '[]')
                                                FROM jsonb_array_elements(batch) b),
                                  'server_seq', seq);
    END IF;
    -- A clock more than a day ahead is a broken or hostile device: taking it would make
    -- every later edit from elsewhere lose to it.
    horizon := (extract(epoch FROM clock_timestamp()) * 1000)::bigint + 86400000;

    -- A batch of entries the server has never seen (a device's first push, an import, new
    -- pages) goes in with one statement per table instead of one entry at a time: each
    -- record passes the same checks, and nothing of it (key, entry, media, message) may be
    -- here already. Anything else, or any doubt on the way, undoes this attempt and goes
    -- item by item below, where every case is handled and a bad item is named.
    -- A sealed account's batch goes the same way, its records checked as sealed ones.
    IF NOT EXISTS (SELECT 1 FROM jsonb_array_elements(batch) b
                    WHERE coalesce(b.value->>'key', '') = '' OR b.value->'record'->>'kind' IS DISTINCT FROM 'entry'
                       OR (sealed_keys IS NOT NULL) <> (b.value->'record'->'sealed' IS NOT DISTINCT FROM '1')) THEN
        BEGIN
            -- A key, entry, media or message already here fails its unique index below, which
            -- undoes the attempt: an index probe each, whatever the size of the diary (a
            -- lookup planned while the tables were empty could read them whole). The
            -- receipts go first, so a batch sent again costs no checking.
            INSERT INTO diary.push_receipt (user_id, key, status) SELECT uid, p.key, 'applied' FROM diary.batch_items(batch) p;
            IF EXISTS (SELECT 1 FROM diary.batch_items(batch) p, jsonb_array_elements(p.rec->'media') x
                        WHERE (x->>'deleted_at') IS NOT NULL)
               OR EXISTS (SELECT 1 FROM diary.batch_items(batch) p, jsonb_array_elements(p.rec->'tag_links') x
                           GROUP BY p.n, x->>'name' HAVING count(*) > 1) THEN
                RAISE EXCEPTION 'not all new' USING ERRCODE = 'P0001';
            END IF;
            -- (In parentheses: PL/pgSQL's IF would end its condition at the CASE's first THEN.)
            IF (CASE WHEN sealed_keys IS NULL
                     THEN NOT diary.batch_readable(batch) OR NOT coalesce(diary.batch_clock_ms(batch) <= horizon, false)
                     ELSE NOT coalesce(diary.sealed_batch_newest(batch, sealed_keys) <= horizon, false)
                END) THEN
                RAISE EXCEPTION 'not all readable, or a clock ahead' USING ERRCODE = 'P0001';
            END IF;
            INSERT INTO diary.entry (user_id, id, hlc, device_id, deleted, created_at, occurred_at, doc, server_seq, echo_of)
            SELECT uid, p.rec->>'id', p.rec->>'hlc', p.rec->>'device_id', (p.rec->>'deleted_at') IS NOT NULL,
                   (p.rec->>'created_at')::timestamptz, (p.rec->>'occurred_at')::timestamptz,
                   p.rec - '{media,messages,tag_links,tags}'::text[], seq + p.n, device
              FROM diary.batch_items(batch) p ORDER BY p.n;
            INSERT INTO diary.media (user_id, id, entry_id, sha256, hlc, device_id, deleted, doc)
            SELECT uid, x->>'id', p.rec->>'id', diary.media_key(x), x->>'hlc', x->>'device_id', false, x
              FROM diary.batch_items(batch) p, jsonb_array_elements(p.rec->'media') x;
            INSERT INTO diary.message (user_id, id, entry_id, hlc, device_id, deleted, doc)
            SELECT uid, x->>'id', p.rec->>'id', x->>'hlc', x->>'device_id', (x->>'deleted_at') IS NOT NULL, x
              FROM diary.batch_items(batch) p, jsonb_array_elements(p.rec->'messages') x;
            INSERT INTO diary.entry_tag (user_id, entry_id, name, hlc, device_id, deleted, doc)
            SELECT uid, p.rec->>'id', x->>'name', x->>'hlc', x->>'device_id', (x->>'deleted_at') IS NOT NULL, x
              FROM diary.batch_items(batch) p, jsonb_array_elements(p.rec->'tag_links') x;
            SELECT coalesce(jsonb_agg(jsonb_build_object('key', p.key, 'status', 'applied') ORDER BY p.n), '[]'), seq + count(*)
              INTO results, seq FROM diary.batch_items(batch) p;
            batch := '[]'; -- nothing left for the loop below
        EXCEPTION WHEN others THEN
            -- Undone; item by item below.
            results := '[]';
            seq := start_seq;
        END;
    END IF;

    FOR item IN SELECT value FROM jsonb_array_elements(batch) LOOP
        item_key := item->>'key';
        -- Each item in its own subtransaction: a bad one is rejected, the others still apply.
        BEGIN
            IF coalesce(item_key, '') = '' THEN
                RAISE EXCEPTION 'item without a key' USING ERRCODE = '22023';
            END IF;
            IF EXISTS (SELECT 1 FROM diary.push_receipt r WHERE r.user_id = uid AND r.key = item_key) THEN
                results := results || jsonb_build_object('key', item_key, 'status', 'duplicate');
                CONTINUE;
            END IF;
            rec := item->'record';
            -- A sealed account takes only sealed records, and an account in clear none: a
            -- device without the keys (or an older version) cannot add clear pages to a
            -- sealed diary. Refused, the change stays on its device, named.
            IF (sealed_keys IS NOT NULL) <> (rec->'sealed' IS NOT DISTINCT FROM '1') THEN
                results := results || jsonb_build_object('key', item_key, 'status', 'rejected', 'error',
                                                         CASE WHEN sealed_keys IS NULL THEN 'not_sealed' ELSE 'sealed_account' END);
                CONTINUE;
            END IF;
            IF sealed_keys IS NULL THEN
                clock_ms := diary.record_clock_ms(rec);
            ELSIF rec->>'kind' = 'setting' THEN
                problem := diary.unsealed_setting_field(rec, sealed_keys);
                IF problem IS NOT NULL THEN
                    RAISE EXCEPTION 'a sealed record not as devices write it: %', problem USING ERRCODE = '22023';
                END IF;
                clock_ms := diary.hlc_ms(rec->>'hlc');
            ELSE
                -- The batch's one pass checks the entry and finds its newest clock; the
                -- record-by-record check runs only to name what is wrong.
                clock_ms := diary.sealed_batch_newest(jsonb_build_array(jsonb_build_object('record', rec)), sealed_keys);
                IF clock_ms IS NULL THEN
                    RAISE EXCEPTION 'a sealed record not as devices write it: %',
                        coalesce(diary.unsealed_entry_field(rec, sealed_keys), 'form') USING ERRCODE = '22023';
                END IF;
            END IF;
            IF clock_ms > horizon THEN
                results := results || jsonb_build_object('key', item_key, 'status', 'rejected', 'error', 'clock_ahead');
                CONTINUE;
            END IF;
            IF rec->>'kind' = 'entry' THEN
                applied := diary.apply_entry(uid, rec, seq + 1);
                changed := applied <> 'unchanged';
                -- What this device sent is what the server now holds: a new entry is that
                -- by construction; a merged one is compared.
                IF changed THEN
                    UPDATE diary.entry e
                       SET echo_of = CASE WHEN applied = 'new' OR diary.entry_matches(uid, rec) THEN device END
                     WHERE e.user_id = uid AND e.id = rec->>'id';
                END IF;
            ELSE
                changed := diary.apply_setting(uid, rec, seq + 1);
                IF changed THEN
                    UPDATE diary.setting s SET echo_of = device WHERE s.user_id = uid AND s.key = rec->>'key';
                END IF;
            END IF;
            status := CASE WHEN changed THEN 'applied' ELSE 'unchanged' END;
            INSERT INTO diary.push_receipt (user_id, key, status) VALUES (uid, item_key, status);
            IF changed THEN
                seq := seq + 1;
            END IF;
            results := results || jsonb_build_object('key', item_key, 'status', status);
        EXCEPTION WHEN others THEN
            results := results || jsonb_build_object('key', item_key, 'status', 'rejected',
                                                     'error', SQLSTATE || ' ' || SQLERRM);
        END;
    END LOOP;

    IF seq <> start_seq THEN
        PERFORM diary.advance_counter(seq);
        -- Wakes the person's other devices that LISTEN; delivered on commit.
        PERFORM pg_notify((SELECT a.channel FROM diary.account a WHERE a.user_id = uid), seq::text);
    END IF;
    RETURN jsonb_build_object('results', results, 'server_seq', seq);
END
$fn$;

-- An entry as devices read it: its row's doc with its media, messages and tag links (and,
-- in clear, its tag names). One row, read as (SELECT r.record FROM diary.entry_record(…) r):
-- a set-returning SQL function without settings of its own is inlined into the calling
-- statement (a scalar one would run apart for every row, doubling pull()'s time).
CREATE OR REPLACE FUNCTION diary.entry_record(uid uuid, entry_id text, doc jsonb) RETURNS TABLE (record jsonb)
    LANGUAGE sql STABLE ROWS 1
    AS $fn$ SELECT doc || jsonb_build_object(
                   'media', coalesce((SELECT jsonb_agg(m.doc ORDER BY (m.doc->>'position')::numeric, m.id)
                                        FROM diary.media m WHERE m.user_id = uid AND m.entry_id = entry_record.entry_id), '[]'),
                   'messages', coalesce((SELECT jsonb_agg(m.doc ORDER BY (m.doc->>'created_at')::timestamptz, m.id)
                                           FROM diary.message m WHERE m.user_id = uid AND m.entry_id = entry_record.entry_id), '[]'),
                   'tag_links', coalesce((SELECT jsonb_agg(t.doc ORDER BY (t.doc->>'position')::numeric, t.name)
                                            FROM diary.entry_tag t WHERE t.user_id = uid AND t.entry_id = entry_record.entry_id), '[]'))
                   -- A sealed entry's tag names are keyed: only its devices list them.
                   || CASE WHEN doc ? 'parts' THEN '{}' ELSE jsonb_build_object(
                   'tags', coalesce((SELECT jsonb_agg(t.name ORDER BY (t.doc->>'position')::numeric, t.name)
                                       FROM diary.entry_tag t WHERE t.user_id = uid AND t.entry_id = entry_record.entry_id
                                        AND NOT t.deleted), '[]')) END $fn$;

-- A setting as devices read it: in clear its value and time, sealed its box.
CREATE OR REPLACE FUNCTION diary.setting_record(s diary.setting) RETURNS jsonb
    LANGUAGE sql STABLE
    AS $fn$ SELECT CASE WHEN s.sealed
                        THEN jsonb_build_object('kind', 'setting', 'key', s.key, 'sealed', 1, 'hlc', s.hlc,
                                                'device_id', s.device_id, 'box', s.value)
                        ELSE jsonb_build_object('kind', 'setting', 'key', s.key, 'value', s.value,
                                                'updated_at', to_char(s.updated_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
                                                'hlc', s.hlc, 'device_id', s.device_id) END $fn$;

-- pull(after, max_rows): the person's entries and settings changed after the cursor, in
-- counter order, at most max_rows (clamped to 1..1000) at a time.
CREATE OR REPLACE FUNCTION diary.pull(after bigint, max_rows int, device text DEFAULT NULL) RETURNS jsonb
    LANGUAGE plpgsql
    SET search_path = pg_catalog, diary, pg_temp
AS $fn$
DECLARE
    uid uuid := diary.account_id();
    page_size int := least(greatest(coalesce(max_rows, 1000), 1), 1000);
    cursor_seq bigint := coalesce(after, 0);
    items jsonb;
    last_seq bigint;
    found_rows bigint;
    current_seq bigint;
    is_premium boolean;
    cfg jsonb;
BEGIN
    SELECT a.server_seq, a.premium INTO current_seq, is_premium FROM diary.account a WHERE a.user_id = uid;

    -- One row more than the page, to know whether there is more. Each branch walks its
    -- (user_id, server_seq) index and stops early.
    WITH changed AS (
        SELECT c.* FROM (
            (SELECT 'entry' AS kind, e.id AS row_id, e.server_seq, e.doc
               FROM diary.entry e
              WHERE e.user_id = uid AND e.server_seq > cursor_seq AND (device IS NULL OR e.echo_of IS DISTINCT FROM device)
              ORDER BY e.server_seq LIMIT page_size + 1)
            UNION ALL
            (SELECT 'setting', s.key, s.server_seq, diary.setting_record(s)
               FROM diary.setting s
              WHERE s.user_id = uid AND s.server_seq > cursor_seq AND (device IS NULL OR s.echo_of IS DISTINCT FROM device)
              ORDER BY s.server_seq LIMIT page_size + 1)
        ) c
        ORDER BY c.server_seq LIMIT page_size + 1
    ), page AS (
        SELECT * FROM changed ORDER BY server_seq LIMIT page_size
    )
    SELECT coalesce(jsonb_agg(jsonb_build_object('seq', p.server_seq, 'record',
               CASE WHEN p.kind = 'setting' THEN p.doc ELSE (SELECT r.record FROM diary.entry_record(uid, p.row_id, p.doc) r) END)
               ORDER BY p.server_seq), '[]'),
           max(p.server_seq),
           (SELECT count(*) FROM changed)
      INTO items, last_seq, found_rows
      FROM page p;

    SELECT jsonb_object_agg(c.key, c.value) INTO cfg
      FROM diary.config c WHERE c.key IN ('provider', 'consent', 'gateway');

    -- With nothing more to send, the cursor moves to the counter read before the rows:
    -- every row numbered up to it was committed then, so skipped echoes are passed too.
    RETURN jsonb_build_object('items', items,
                              'next', CASE WHEN found_rows > page_size THEN last_seq
                                           ELSE greatest(coalesce(last_seq, cursor_seq), coalesce(current_seq, 0), cursor_seq) END,
                              'more', found_rows > page_size,
                              'server_seq', coalesce(current_seq, 0), 'config', coalesce(cfg, '{}'),
                              'premium', coalesce(is_premium, false));
END
$fn$;

