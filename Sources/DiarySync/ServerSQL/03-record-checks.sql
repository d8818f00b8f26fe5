-- ---------------------------------------------------------------------------------------
-- What a client checks when it reads a record back. The server refuses at push what no
-- client could read: stored, such a record would reach every device of the person at
-- each pull. These mirror the client's reader field by field; where they differ, the
-- server is the stricter (times only in the RFC 3339 form clients write, counters only
-- as plain digits).

-- A bounded repetition ({1,64}) makes Postgres' regular expressions build large automata,
-- costing tens of microseconds a match: lengths are checked apart, and the patterns
-- repeat without bounds. These small tests have no SET search_path, so that Postgres inlines them into the
-- expressions that use them (a SET makes every call a function call of its own, which
-- was most of a push's time); they use only built-in functions and operators, which
-- pg_catalog, always searched first, provides.

-- YYYY-MM-DD(T| )HH:MM:SS[.fff](Z|±HH:MM), the only form the server takes.
CREATE OR REPLACE FUNCTION diary.is_time(v jsonb) RETURNS boolean
    LANGUAGE sql IMMUTABLE
    AS $fn$ SELECT jsonb_typeof(v) = 'string' AND (v #>> '{}') ~ '^{{time_form}}$' $fn$;

-- A whole number from 0 to 2^63 - 1, written as plain digits.
CREATE OR REPLACE FUNCTION diary.is_count(v jsonb) RETURNS boolean
    LANGUAGE sql IMMUTABLE
    AS $fn$ SELECT CASE WHEN jsonb_typeof(v) = 'number' AND length(v #>> '{}') <= 19 AND (v #>> '{}') ~ '^{{count_form}}$'
                        THEN (v #>> '{}')::numeric <= 9223372036854775807 ELSE false END $fn$;

-- A number a client reads as a finite double.
CREATE OR REPLACE FUNCTION diary.is_finite(v jsonb) RETURNS boolean
    LANGUAGE sql IMMUTABLE
    AS $fn$ SELECT CASE WHEN jsonb_typeof(v) = 'number' THEN abs((v #>> '{}')::numeric) < 1e308 ELSE false END $fn$;

-- Absent or null counts as "not given" for optional fields, as on the client.
CREATE OR REPLACE FUNCTION diary.is_given(v jsonb) RETURNS boolean
    LANGUAGE sql IMMUTABLE
    AS $fn$ SELECT coalesce(jsonb_typeof(v), 'null') <> 'null' $fn$;

-- An id: 1 to 64 lowercase hex digits and dashes.
CREATE OR REPLACE FUNCTION diary.is_id(v jsonb) RETURNS boolean
    LANGUAGE sql IMMUTABLE
    AS $fn$ SELECT jsonb_typeof(v) = 'string' AND length(v #>> '{}') <= 64 AND (v #>> '{}') ~ '^{{id_form}}$' $fn$;

-- The wall-clock time (ms) of a hybrid clock (15-digit wall ms '.' 6-digit counter '.'
-- device id), or NULL when it is not one.
CREATE OR REPLACE FUNCTION diary.hlc_ms(h text) RETURNS bigint
    LANGUAGE sql IMMUTABLE
    AS $fn$ SELECT CASE WHEN h ~ '^[0-9]+\.[0-9]+\..' AND length(split_part(h, '.', 1)) = 15 AND length(split_part(h, '.', 2)) = 6
                        THEN split_part(h, '.', 1)::bigint END $fn$;

-- A hybrid clock, as a JSON string.
CREATE OR REPLACE FUNCTION diary.is_hlc(v jsonb) RETURNS boolean
    LANGUAGE sql IMMUTABLE
    AS $fn$ SELECT jsonb_typeof(v) = 'string' AND diary.hlc_ms(v #>> '{}') IS NOT NULL $fn$;

-- The first field of an item (`path` names where it sits) that a client could not read:
-- `fields` pairs each field name with what it must be — 'string', 'text' (string or not
-- given), 'time', 'time?', 'id', 'count', 'count?', 'finite?', 'bool?', 'digest',
-- 'digest?', 'hlc' — checked in order. NULL when all are readable.
CREATE OR REPLACE FUNCTION diary.unreadable_field(item jsonb, path text, fields text[]) RETURNS text
    LANGUAGE plpgsql IMMUTABLE
    SET search_path = pg_catalog, diary, pg_temp
AS $fn$
DECLARE
    i int;
    v jsonb;
    ok boolean;
BEGIN
    FOR i IN 1 .. coalesce(array_length(fields, 1), 0) / 2 LOOP
        v := CASE WHEN jsonb_typeof(item) = 'object' THEN item -> fields[2 * i - 1] END;
        ok := CASE fields[2 * i]
{{field_kind_tests}}
        END;
        IF NOT coalesce(ok, false) THEN
            RETURN path || fields[2 * i - 1];
        END IF;
    END LOOP;
    RETURN NULL;
END
$fn$;

-- The first field of an entry record a client could not read, named as the client names
-- it (e.g. 'media[0].kind'), or NULL.
CREATE OR REPLACE FUNCTION diary.unreadable_entry_field(rec jsonb) RETURNS text
    LANGUAGE plpgsql STABLE
    SET search_path = pg_catalog, diary, pg_temp
AS $fn$
DECLARE
    problem text;
    child jsonb;
    part text;
    n int;
    weather jsonb;
BEGIN
    IF jsonb_typeof(rec) IS DISTINCT FROM 'object' OR rec->'kind' IS DISTINCT FROM '"entry"' THEN
        RETURN 'kind';
    END IF;
    problem := {{unreadable_identity}};
    IF problem IS NOT NULL THEN RETURN problem; END IF;
    IF NOT EXISTS (SELECT 1 FROM diary.time_zone z WHERE z.name = rec->>'time_zone') THEN
        RETURN 'time_zone';
    END IF;
    IF coalesce(rec->>'status', '') NOT IN ({{statuses}})
       OR jsonb_typeof(rec->'status') <> 'string' THEN
        RETURN 'status';
    END IF;
    problem := {{unreadable_clock_fields}};
    IF problem IS NOT NULL THEN RETURN problem; END IF;
    IF diary.is_given(rec->'context') THEN
        IF jsonb_typeof(rec->'context') <> 'object' THEN
            RETURN 'context';
        END IF;
        problem := {{unreadable_place}};
        IF problem IS NOT NULL THEN RETURN problem; END IF;
        -- A weather that is not an object is read as no weather.
        weather := rec->'context'->'weather';
        IF jsonb_typeof(weather) = 'object' THEN
            problem := {{unreadable_weather}};
            IF problem IS NOT NULL THEN RETURN problem; END IF;
        END IF;
    END IF;
    -- A reflection: its period, first and last day, and the ids it cites, all text.
    IF diary.is_given(rec->'reflection') THEN
        IF jsonb_typeof(rec->'reflection') <> 'object'
           OR jsonb_typeof(rec->'reflection'->'period') IS DISTINCT FROM 'string'
           OR jsonb_typeof(rec->'reflection'->'from') IS DISTINCT FROM 'string'
           OR jsonb_typeof(rec->'reflection'->'to') IS DISTINCT FROM 'string'
           OR jsonb_typeof(rec->'reflection'->'cites') IS DISTINCT FROM 'array'
           OR EXISTS (SELECT 1 FROM jsonb_array_elements(rec->'reflection'->'cites') c WHERE jsonb_typeof(c.value) <> 'string') THEN
            RETURN 'reflection';
        END IF;
    END IF;
    IF diary.is_given(rec->'field_clocks') THEN
        IF jsonb_typeof(rec->'field_clocks') <> 'object' THEN
            RETURN 'field_clocks';
        END IF;
        FOREACH part IN ARRAY ARRAY[{{clock_parts}}] LOOP
            IF diary.is_given(rec->'field_clocks'->part) AND NOT diary.is_hlc(rec->'field_clocks'->part) THEN
                RETURN 'field_clocks.' || part;
            END IF;
        END LOOP;
    END IF;
    IF diary.is_given(rec->'order_key') AND (length(rec->>'order_key') > 64 OR rec->>'order_key' !~ '^[0-9a-z]*[1-9a-z]$') THEN
        RETURN 'order_key';
    END IF;
    FOREACH part IN ARRAY ARRAY['media', 'messages', 'tag_links'] LOOP
        IF diary.is_given(rec->part) AND jsonb_typeof(rec->part) <> 'array' THEN
            RETURN part;
        END IF;
        FOR child, n IN SELECT c.value, c.n - 1 FROM jsonb_array_elements(CASE WHEN jsonb_typeof(rec->part) = 'array'
                                                                             THEN rec->part ELSE '[]' END)
                                                    WITH ORDINALITY AS c(value, n) LOOP
            -- Each item's fields of a kind, then those with checks of their own.
            IF part = 'media' THEN
                problem := coalesce({{unreadable_media}},
                    CASE WHEN coalesce(child->>'kind', '') NOT IN ({{media_kinds}}) OR jsonb_typeof(child->'kind') <> 'string'
                         THEN format('media[%s].kind', n)
                         WHEN length(child->>'ext') > 8 OR child->>'ext' !~ '^[a-z0-9]+$' THEN format('media[%s].ext', n) END);
            ELSIF part = 'messages' THEN
                problem := coalesce({{unreadable_message}},
                    CASE WHEN coalesce(child->>'author', '') NOT IN ({{authors}}) OR jsonb_typeof(child->'author') <> 'string'
                         THEN format('messages[%s].author', n) END);
            ELSE
                -- A tag name is read trimmed of spaces, quotes and leading '#': something must remain.
                IF jsonb_typeof(child->'name') IS DISTINCT FROM 'string'
                   OR child->>'name' !~ '{{tag_name_remains}}' THEN
                    RETURN format('tag_links[%s].name', n);
                END IF;
                problem := {{unreadable_tag_link}};
            END IF;
            IF problem IS NOT NULL THEN RETURN problem; END IF;
        END LOOP;
    END LOOP;
    RETURN NULL;
END
$fn$;

-- Checks that a pushed record has the shape the server relies on (raising 22023 with the
-- reason otherwise) and returns the newest wall-clock time (ms) among all its clocks.
CREATE OR REPLACE FUNCTION diary.record_clock_ms(rec jsonb) RETURNS bigint
    LANGUAGE plpgsql STABLE
    SET search_path = pg_catalog, diary, pg_temp
AS $fn$
DECLARE
    hlcs text[];
    child_hlcs text[];
    times bigint;
    part text;
    problem text;
    bad int;
    newest bigint;
BEGIN
    IF jsonb_typeof(rec) IS DISTINCT FROM 'object' THEN
        RAISE EXCEPTION 'record is not a JSON object' USING ERRCODE = '22023';
    END IF;
    IF coalesce(rec->>'device_id', '') = '' THEN
        RAISE EXCEPTION 'record without device_id' USING ERRCODE = '22023';
    END IF;
    IF rec->>'kind' = 'entry' THEN
        problem := diary.unreadable_entry_field(rec);
        IF problem IS NOT NULL THEN
            RAISE EXCEPTION 'no client could read % of this entry', problem USING ERRCODE = '22023';
        END IF;
        -- Postgres must take the times it stores or sorts by, too (no 30 February).
        PERFORM (rec->>'created_at')::timestamptz, (rec->>'occurred_at')::timestamptz, (rec->>'deleted_at')::timestamptz;
        hlcs := ARRAY[rec->>'hlc'];
        hlcs := hlcs || ARRAY(SELECT c.value FROM jsonb_each_text(CASE WHEN jsonb_typeof(rec->'field_clocks') = 'object'
                                                                      THEN rec->'field_clocks' ELSE '{}' END) c
                              WHERE c.value IS NOT NULL);
        -- Every child in one statement: a device id names who wrote a version (never empty),
        -- and pull() sorts messages by a time Postgres must take.
        SELECT min(p.part) FILTER (WHERE c.value->>'device_id' = ''), array_agg(c.value->>'hlc'),
               count((c.value->>'created_at')::timestamptz) + count((c.value->>'deleted_at')::timestamptz)
          INTO part, child_hlcs, times
          FROM unnest(ARRAY['media', 'messages', 'tag_links']) p(part),
               jsonb_array_elements(CASE WHEN jsonb_typeof(rec->p.part) = 'array' THEN rec->p.part ELSE '[]' END) c(value);
        IF part IS NOT NULL THEN
            RAISE EXCEPTION 'an item in % without a device', part USING ERRCODE = '22023';
        END IF;
        hlcs := hlcs || coalesce(child_hlcs, '{}');
    ELSIF rec->>'kind' = 'setting' THEN
        IF coalesce(rec->>'key', '') = '' OR jsonb_typeof(rec->'value') IS DISTINCT FROM 'string' THEN
            RAISE EXCEPTION 'setting needs a key and a string value' USING ERRCODE = '22023';
        END IF;
        IF rec->>'updated_at' IS NULL THEN
            RAISE EXCEPTION 'setting without updated_at' USING ERRCODE = '22023';
        END IF;
        PERFORM (rec->>'updated_at')::timestamptz;
        hlcs := ARRAY[rec->>'hlc'];
    ELSE
        RAISE EXCEPTION 'unknown record kind %', rec->'kind' USING ERRCODE = '22023';
    END IF;
    -- HLC: 15-digit wall ms '.' 6-digit counter '.' device id. All in one statement; the
    -- first bad one is named.
    SELECT (min(u.n) FILTER (WHERE diary.hlc_ms(u.h) IS NULL))::int, max(diary.hlc_ms(u.h))
      INTO bad, newest
      FROM unnest(hlcs) WITH ORDINALITY u(h, n);
    IF bad IS NOT NULL THEN
        RAISE EXCEPTION 'bad hlc %', coalesce(hlcs[bad], 'null') USING ERRCODE = '22023';
    END IF;
    RETURN newest;
END
$fn$;

-- For a batch of new entries (push's one-statement path), the checks above made once for
-- the whole batch: a query costs far less per record over twenty records than over one,
-- and most batches are fine. When these say no, the batch goes record by record, where
-- the record is refused and the reason named.

-- True when every record of the batch is an entry a client could read: the same rules as
-- unreadable_entry_field. First each field's type and size, record by record; then each
-- field with a written form (times, ids, clocks, digests, counts, tag names): all values of
-- one form in one string, matched once. Postgres builds a pattern's automaton again at
-- every match, so one match per batch costs a tenth of one per value. A newline would hide
-- where a value ends: no value may hold one.
CREATE OR REPLACE FUNCTION diary.batch_readable(batch jsonb) RETURNS boolean
    LANGUAGE plpgsql STABLE
    SET search_path = pg_catalog, diary, pg_temp
AS $fn$
BEGIN
    IF NOT (SELECT coalesce(bool_and(coalesce({{entry_shaped}}, false)), true)
              FROM diary.batch_items(batch) p)
       OR NOT ({{items_shaped}}) THEN
        RETURN false;
    END IF;
    RETURN {{entry_forms_match}};
END
$fn$;

-- The newest wall-clock time (ms) among every clock of a batch of entry records, or NULL
-- unless record_clock_ms would take each of them (an error when Postgres refuses a time).
-- Clocks are matched as lines of one string, like the forms above; once all are in the
-- HLC form, the greatest in byte order has the newest wall clock.
CREATE OR REPLACE FUNCTION diary.batch_clock_ms(batch jsonb) RETURNS bigint
    LANGUAGE plpgsql STABLE
    SET search_path = pg_catalog, diary, pg_temp
AS $fn$
DECLARE
    good boolean;
    newest text;
    times bigint;
BEGIN
    -- Each record and each item: its clock, its device, the times Postgres must take.
    SELECT coalesce(string_agg(E'\n' || x.hlc, '') ~ '^(?:\n{{hlc_form}})*$'
                    AND bool_and(x.hlc IS NOT NULL AND strpos(x.hlc, E'\n') = 0 AND coalesce(x.device, '') <> ''), false),
           max(x.hlc COLLATE "C"), count(x.created) + count(x.occurred) + count(x.deleted)
      INTO good, newest, times
      FROM (SELECT p.rec->>'hlc' AS hlc, p.rec->>'device_id' AS device, (p.rec->>'created_at')::timestamptz AS created,
                   (p.rec->>'occurred_at')::timestamptz AS occurred, (p.rec->>'deleted_at')::timestamptz AS deleted
              FROM diary.batch_items(batch) p
            UNION ALL
            SELECT c.value #>> '{}', 'field clock', NULL, NULL, NULL
              FROM jsonb_path_query(batch, '$[*].record.field_clocks.*') c(value)
             WHERE c.value #>> '{}' IS NOT NULL{{item_clocks}}) x;
    RETURN CASE WHEN good THEN left(newest, 15)::bigint END;
END
$fn$;

