import DiaryKit
import SyncSession
/// The server side of sync, shipped as SQL: the `diary` schema on Postgres (or Supabase)
/// with its tables, row-level security, privileges and the functions the client calls
/// (`push`, `pull`, the media chunk functions, `add_user`, `whoami`, `delete_account`).
/// `diary-sync server-init` runs it statement by statement inside one transaction under an
/// advisory lock; an operator may also paste it into Supabase's SQL editor. The contract
/// it implements is the sync protocol: records travel in the archive's JSON shape, each
/// person sees only their own rows, and a person's changes are numbered in commit order.
package enum ServerSchema {
    /// The newest version this build knows.
    package static let version = 9
    /// The whole script: idempotent, safe to paste into Supabase's SQL editor or to re-run.
    package static let script: String = #"""
    -- InnerBloom Diary: the server side of sync, schema version 9.
    -- Everything lives in schema "diary" (plus auth.uid() on plain Postgres). Every statement
    -- is idempotent: re-running the script changes nothing and keeps an operator's edits to
    -- diary.config. Apply it inside one transaction (diary-sync server-init does).

    -- Stop before touching anything when the server already runs a newer schema than this
    -- script knows: an older build must not "repair" it back.
    DO $guard$
    BEGIN
        IF to_regclass('diary.schema_migration') IS NOT NULL THEN
            -- Nested IF: this statement is only planned once the table is known to exist.
            IF EXISTS (SELECT 1 FROM diary.schema_migration WHERE version > 9) THEN
                RAISE EXCEPTION 'the diary schema on this server (version %) is newer than this script (version 9)',
                    (SELECT max(version) FROM diary.schema_migration)
                    USING ERRCODE = '55000', HINT = 'Update InnerBloom Diary before running server-init.';
            END IF;
        END IF;
    END
    $guard$;

    -- ---------------------------------------------------------------------------------------
    -- Roles. On plain Postgres every person has a LOGIN role of their own that is a member of
    -- diary_user; the group holds all privileges, row-level security keeps each person to
    -- their own rows. On Supabase people arrive as "authenticated" (auth.uid() reads their
    -- token), a NOINHERIT role: membership in diary_user would give it nothing, so the same
    -- privileges are granted to it directly (see "Privileges").
    DO $roles$
    BEGIN
        IF NOT EXISTS (SELECT 1 FROM pg_catalog.pg_roles WHERE rolname = 'diary_user') THEN
            CREATE ROLE diary_user NOLOGIN;
        END IF;
        -- Version 6 and before made authenticated a member; the grants below replace that.
        IF EXISTS (SELECT 1 FROM pg_catalog.pg_auth_members m
                   WHERE m.roleid = 'diary_user'::regrole AND m.member::regrole::text = 'authenticated') THEN
            REVOKE diary_user FROM authenticated;
        END IF;
    END
    $roles$;

    CREATE SCHEMA IF NOT EXISTS diary;

    -- ---------------------------------------------------------------------------------------
    -- Tables. Clocks (hlc) are text in the "C" collation: the fixed-width HLC format sorts by
    -- bytes exactly as the clock does, whatever the database's locale.

    -- One row per person: their login role and the counter that orders their changes.
    CREATE TABLE IF NOT EXISTS diary.account (
        user_id    uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        role_name  text NOT NULL UNIQUE,
        created_at timestamptz NOT NULL DEFAULT now(),
        server_seq bigint NOT NULL DEFAULT 0
    );
    -- The channel the person's devices LISTEN on: random, so that nobody who learns a user id
    -- can listen in on or poke someone else's devices (Postgres lets any login use any channel).
    ALTER TABLE diary.account ADD COLUMN IF NOT EXISTS channel text NOT NULL
        DEFAULT ('diary_' || replace(gen_random_uuid()::text, '-', ''));
    -- The account of someone who signs up through Supabase Auth has no login role: their
    -- user id is auth.users.id and their token says who they are.
    ALTER TABLE diary.account ALTER COLUMN role_name DROP NOT NULL;

    -- An entry's own fields as the client's record has them (doc), plus the columns the server
    -- sorts and merges by. server_seq is the person's counter value at its last change.
    CREATE TABLE IF NOT EXISTS diary.entry (
        user_id     uuid NOT NULL,
        id          text NOT NULL,
        hlc         text COLLATE "C" NOT NULL,
        device_id   text NOT NULL,
        deleted     boolean NOT NULL DEFAULT false,
        created_at  timestamptz NOT NULL,
        occurred_at timestamptz NOT NULL,
        doc         jsonb NOT NULL,
        server_seq  bigint NOT NULL,
        -- The device whose push left the row exactly as it is now: that device already
        -- holds this version, so its pulls skip the row instead of fetching its own echo.
        echo_of     text,
        PRIMARY KEY (user_id, id)
    );
    -- pull walks this index; (user_id, created_at) serves listings by date.
    CREATE INDEX IF NOT EXISTS entry_user_seq_idx ON diary.entry (user_id, server_seq);
    CREATE INDEX IF NOT EXISTS entry_user_created_idx ON diary.entry (user_id, created_at);

    CREATE TABLE IF NOT EXISTS diary.media (
        user_id   uuid NOT NULL,
        id        text NOT NULL,
        entry_id  text NOT NULL,
        sha256    text NOT NULL,
        hlc       text COLLATE "C" NOT NULL,
        device_id text NOT NULL,
        deleted   boolean NOT NULL DEFAULT false,
        doc       jsonb NOT NULL,
        PRIMARY KEY (user_id, id)
    );
    CREATE INDEX IF NOT EXISTS media_user_entry_idx ON diary.media (user_id, entry_id);

    CREATE TABLE IF NOT EXISTS diary.message (
        user_id   uuid NOT NULL,
        id        text NOT NULL,
        entry_id  text NOT NULL,
        hlc       text COLLATE "C" NOT NULL,
        device_id text NOT NULL,
        deleted   boolean NOT NULL DEFAULT false,
        doc       jsonb NOT NULL,
        PRIMARY KEY (user_id, id)
    );
    CREATE INDEX IF NOT EXISTS message_user_entry_idx ON diary.message (user_id, entry_id);

    -- Tag links by name (tag ids differ between devices); removals stay as deleted rows so a
    -- newer removal can beat an older add and the other way round.
    CREATE TABLE IF NOT EXISTS diary.entry_tag (
        user_id   uuid NOT NULL,
        entry_id  text NOT NULL,
        name      text NOT NULL,
        hlc       text COLLATE "C" NOT NULL,
        device_id text NOT NULL,
        deleted   boolean NOT NULL DEFAULT false,
        doc       jsonb NOT NULL,
        PRIMARY KEY (user_id, entry_id, name)
    );

    CREATE TABLE IF NOT EXISTS diary.setting (
        user_id    uuid NOT NULL,
        key        text NOT NULL,
        value      text NOT NULL,
        hlc        text COLLATE "C" NOT NULL,
        device_id  text NOT NULL,
        updated_at timestamptz NOT NULL,
        server_seq bigint NOT NULL,
        echo_of    text,
        PRIMARY KEY (user_id, key)
    );
    CREATE INDEX IF NOT EXISTS setting_user_seq_idx ON diary.setting (user_id, server_seq);

    -- Versions that lost a merge: nothing a device sends is ever silently thrown away.
    CREATE TABLE IF NOT EXISTS diary.conflict (
        user_id    uuid NOT NULL,
        id         uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        table_name text NOT NULL,
        row_id     text NOT NULL,
        hlc        text COLLATE "C" NOT NULL,
        winner_hlc text COLLATE "C" NOT NULL,
        kept_at    timestamptz NOT NULL DEFAULT now(),
        version    jsonb NOT NULL,
        UNIQUE (user_id, table_name, row_id, hlc)
    );

    -- Idempotency keys of applied pushes: a retried push after a lost reply is a no-op.
    CREATE TABLE IF NOT EXISTS diary.push_receipt (
        user_id    uuid NOT NULL,
        key        text NOT NULL,
        status     text NOT NULL,
        applied_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (user_id, key)
    );

    -- Media bytes in chunks of at most 4 MiB, written one INSERT at a time so an upload can
    -- resume where it stopped; media_object marks a file whose chunks are all there.
    CREATE TABLE IF NOT EXISTS diary.media_chunk (
        user_id uuid NOT NULL,
        sha256  text NOT NULL,
        n       int NOT NULL CHECK (n >= 0),
        bytes   bytea NOT NULL CHECK (octet_length(bytes) BETWEEN 1 AND 4194304),
        PRIMARY KEY (user_id, sha256, n)
    );

    CREATE TABLE IF NOT EXISTS diary.media_object (
        user_id    uuid NOT NULL,
        sha256     text NOT NULL,
        bytes      bigint NOT NULL,
        chunks     int NOT NULL,
        name       text NOT NULL,   -- '{user_id}/{entry_id}/{sha256}.{ext}'
        created_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (user_id, sha256)
    );

    -- Companion use through the operator's gateway, counted where a person cannot reset it
    -- (F-020): replies per entry and pages per day. People read their own counts; only
    -- diary.use_companion() writes them.
    CREATE TABLE IF NOT EXISTS diary.companion_use (
        user_id uuid NOT NULL REFERENCES diary.account (user_id) ON DELETE CASCADE,
        kind    text NOT NULL CHECK (kind IN ('reply', 'page')),
        -- The entry a reply was about, or the person's day ('YYYY-MM-DD') a page was written on.
        scope   text NOT NULL,
        used    int NOT NULL,
        PRIMARY KEY (user_id, kind, scope)
    );
    -- Premium people (F-024) have no limits, and their requests say so to the gateway.
    ALTER TABLE diary.account ADD COLUMN IF NOT EXISTS premium boolean NOT NULL DEFAULT false;

    -- Server-wide settings every person may read (no user_id): the companion provider and
    -- the consent text shown before sync is turned on.
    CREATE TABLE IF NOT EXISTS diary.config (
        key   text PRIMARY KEY,
        value jsonb NOT NULL
    );

    -- The time zone names a client accepts, read from this server's own zone database
    -- (the record checks below use it; no per-person rows).
    CREATE TABLE IF NOT EXISTS diary.time_zone (name text PRIMARY KEY);
    INSERT INTO diary.time_zone (name)
        SELECT z.name FROM pg_catalog.pg_timezone_names z
         WHERE z.name ~ '^[A-Za-z][A-Za-z0-9_+-]*(/[A-Za-z0-9_+-]+)*$' AND z.name !~ '^(posix|right)/'
           -- Links to this machine's own zone, not zones of their own.
           AND z.name NOT IN ('posixrules', 'localtime')
        ON CONFLICT DO NOTHING;

    -- One row per deleted account, without saying whose: a hash of the id, never the id.
    CREATE TABLE IF NOT EXISTS diary.deletion_audit (
        id           bigserial PRIMARY KEY,
        user_hash    text NOT NULL,
        deleted_at   timestamptz NOT NULL DEFAULT now(),
        rows_removed bigint
    );

    -- Storage objects of deleted people, for the Storage API to remove. Supabase refuses a
    -- DELETE on storage.objects in SQL (it would orphan the stored bytes), so they wait here.
    CREATE TABLE IF NOT EXISTS diary.storage_removal (
        bucket_id text NOT NULL,
        name      text NOT NULL,
        queued_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (bucket_id, name)
    );

    CREATE TABLE IF NOT EXISTS diary.schema_migration (
        version    int PRIMARY KEY,
        name       text,
        applied_at timestamptz DEFAULT now()
    );

    -- ---------------------------------------------------------------------------------------
    -- auth.uid(): who is asking. Supabase has its own (reading the login token), which must
    -- never be replaced; on plain Postgres the login role names the account. Ours carries a
    -- comment, so that a later run of the script can recognise and update it.
    DO $uid$
    BEGIN
        IF to_regprocedure('auth.uid()') IS NULL
           OR obj_description(to_regprocedure('auth.uid()'), 'pg_proc') = 'InnerBloom Diary: the account of the login role' THEN
            CREATE SCHEMA IF NOT EXISTS auth;
            -- SECURITY DEFINER so it can read every account row; session_user (the login role)
            -- cannot be changed by SET ROLE, and SET SESSION AUTHORIZATION needs a superuser.
            -- session_user is of type name (collation "C"): compared as text in the column's
            -- collation, so that the unique index on role_name is used.
            -- PL/pgSQL keeps its plan for the session; an SQL function with SET is planned again
            -- at every statement that asks (most of a push's statements, through the policies).
            CREATE OR REPLACE FUNCTION auth.uid() RETURNS uuid
                LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pg_catalog
                AS 'BEGIN RETURN (SELECT user_id FROM diary.account WHERE role_name = (session_user::text COLLATE "default")); END';
            COMMENT ON FUNCTION auth.uid() IS 'InnerBloom Diary: the account of the login role';
            REVOKE ALL ON FUNCTION auth.uid() FROM PUBLIC;
            GRANT USAGE ON SCHEMA auth TO diary_user;
            GRANT EXECUTE ON FUNCTION auth.uid() TO diary_user;
        END IF;
    END
    $uid$;

    -- The caller's diary account, or NULL for a login without one (on Supabase, anyone signed
    -- in has an auth.uid(); only a diary account makes them a person here). SECURITY DEFINER
    -- reads account as its owner, past its row-level security, which would otherwise ask again.
    -- In PL/pgSQL for its kept plan, as auth.uid() above.
    CREATE OR REPLACE FUNCTION diary.my_account() RETURNS uuid
        LANGUAGE plpgsql STABLE SECURITY DEFINER
        SET search_path = pg_catalog, diary, pg_temp
        AS 'BEGIN RETURN (SELECT a.user_id FROM diary.account a WHERE a.user_id = auth.uid()); END';

    -- ---------------------------------------------------------------------------------------
    -- Row-level security: a person sees and writes only rows with their own user_id, and a
    -- login without a diary account nothing at all. "(SELECT diary.my_account())" is computed
    -- once per statement, so the (user_id, ...) indexes are used. FORCE makes the policies
    -- apply to the tables' owner too (unless a superuser or BYPASSRLS), so that even the
    -- SECURITY DEFINER remove_person() can only touch the rows of the person it acts for.
    DO $rls$
    DECLARE
        t text;
    BEGIN
        FOREACH t IN ARRAY ARRAY['entry', 'media', 'message', 'entry_tag', 'setting', 'conflict', 'push_receipt',
                                 'media_chunk', 'media_object', 'companion_use', 'account'] LOOP
            EXECUTE format('ALTER TABLE diary.%I ENABLE ROW LEVEL SECURITY', t);
            -- account is not FORCEd: auth.uid() reads it as the owner, and a forced policy there
            -- would call auth.uid() again, endlessly, unless the owner bypasses RLS.
            IF t <> 'account' THEN
                EXECUTE format('ALTER TABLE diary.%I FORCE ROW LEVEL SECURITY', t);
            END IF;
            EXECUTE format('DROP POLICY IF EXISTS own_rows ON diary.%I', t);
            -- account's own policy cannot go through my_account(), which reads account.
            EXECUTE format('CREATE POLICY own_rows ON diary.%1$I FOR ALL USING (user_id = (SELECT %2$s)) WITH CHECK (user_id = (SELECT %2$s))',
                           t, CASE t WHEN 'account' THEN 'auth.uid()' ELSE 'diary.my_account()' END);
        END LOOP;
        -- Tables without per-person rows: RLS on (no policy = no access) but not forced, so
        -- the owner (the operator, and remove_person writing its audit row) still can.
        FOREACH t IN ARRAY ARRAY['config', 'deletion_audit', 'schema_migration', 'storage_removal'] LOOP
            EXECUTE format('ALTER TABLE diary.%I ENABLE ROW LEVEL SECURITY', t);
        END LOOP;
        DROP POLICY IF EXISTS read_config ON diary.config;
        CREATE POLICY read_config ON diary.config FOR SELECT USING ((SELECT diary.my_account()) IS NOT NULL);
    END
    $rls$;

    -- ---------------------------------------------------------------------------------------
    -- Defaults an operator may edit afterwards: ON CONFLICT DO NOTHING keeps their version.
    -- No 'provider' row by default: each device keeps the companion its own config names.
    -- An operator who wants one for everyone (D-011) adds it, e.g.
    --   INSERT INTO diary.config VALUES ('provider', '"openai"');
    INSERT INTO diary.config (key, value) VALUES ('consent', jsonb_build_object(
        'version', 1,
        'zh-Hant', $consent$開啟同步後，這台伺服器會存放你日記的一份副本，讓你的每台裝置都能看到同一本日記：你寫下的每一頁、你和「InnerBloom 夥伴」的對話、照片和其他媒體、標籤，以及你的設定。這些內容在伺服器上並沒有另外加密，經營這台伺服器的人可以讀到它們，所以請只在你信任對方的時候開啟同步。你可以隨時停止同步；刪除帳號會把你在這台伺服器上的所有資料一併移除，你自己裝置上的日記則會留著。伺服器備份裡的副本，可能要再過一段時間才會跟著消失。$consent$,
        'en', $consent$When you turn on sync, this server keeps a copy of your diary so that all your devices show the same one: every page you write, your conversations with the InnerBloom companion, your photos and other media, your tags and your settings. They are not encrypted separately on the server, so whoever runs this server can read them; please turn sync on only if you trust them. You can stop syncing at any time. Deleting your account removes everything of yours from this server, while the diary on your own devices stays with you. Copies in the server's backups may take a little longer to disappear.$consent$
    )) ON CONFLICT (key) DO NOTHING;

    -- ---------------------------------------------------------------------------------------
    -- Functions. All set search_path (pg_temp last, so nobody's temporary table can stand in
    -- for ours) and schema-qualify every table anyway.

    -- The person this login acts for; a login without a diary account may do nothing.
    CREATE OR REPLACE FUNCTION diary.account_id() RETURNS uuid
        LANGUAGE plpgsql STABLE
        SET search_path = pg_catalog, diary, pg_temp
    AS $fn$
    DECLARE
        uid uuid := diary.my_account();
    BEGIN
        IF uid IS NULL THEN
            RAISE EXCEPTION 'no diary account for this login' USING ERRCODE = '42501';
        END IF;
        RETURN uid;
    END
    $fn$;

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
        AS $fn$ SELECT jsonb_typeof(v) = 'string' AND (v #>> '{}') ~ '^\#(timeForm)$' $fn$;

    -- A whole number from 0 to 2^63 - 1, written as plain digits.
    CREATE OR REPLACE FUNCTION diary.is_count(v jsonb) RETURNS boolean
        LANGUAGE sql IMMUTABLE
        AS $fn$ SELECT CASE WHEN jsonb_typeof(v) = 'number' AND length(v #>> '{}') <= 19 AND (v #>> '{}') ~ '^\#(countForm)$'
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
        AS $fn$ SELECT jsonb_typeof(v) = 'string' AND length(v #>> '{}') <= 64 AND (v #>> '{}') ~ '^\#(idForm)$' $fn$;

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
    \#(fieldKinds.map { "                WHEN '\($0)' THEN " + test($0, "v") }.joined(separator: "\n"))
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
        problem := \#(firstUnreadable("rec", path: "''", Fields.identity));
        IF problem IS NOT NULL THEN RETURN problem; END IF;
        IF NOT EXISTS (SELECT 1 FROM diary.time_zone z WHERE z.name = rec->>'time_zone') THEN
            RETURN 'time_zone';
        END IF;
        IF coalesce(rec->>'status', '') NOT IN ('draft', 'chatting', 'saved', 'summary_failed')
           OR jsonb_typeof(rec->'status') <> 'string' THEN
            RETURN 'status';
        END IF;
        problem := \#(firstUnreadable("rec", path: "''", Fields.clock + Fields.moment));
        IF problem IS NOT NULL THEN RETURN problem; END IF;
        IF diary.is_given(rec->'context') THEN
            IF jsonb_typeof(rec->'context') <> 'object' THEN
                RETURN 'context';
            END IF;
            problem := \#(firstUnreadable("rec->'context'", path: "'context.'", Fields.place));
            IF problem IS NOT NULL THEN RETURN problem; END IF;
            -- A weather that is not an object is read as no weather.
            weather := rec->'context'->'weather';
            IF jsonb_typeof(weather) = 'object' THEN
                problem := \#(firstUnreadable("weather", path: "'context.weather.'", Fields.weather));
                IF problem IS NOT NULL THEN RETURN problem; END IF;
            END IF;
        END IF;
        problem := \#(firstUnreadable("rec", path: "''", Fields.page));
        IF problem IS NOT NULL THEN RETURN problem; END IF;
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
            FOREACH part IN ARRAY ARRAY[\#(Fields.clockParts.map { "'\($0)'" }.joined(separator: ", "))] LOOP
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
                IF part = 'media' THEN
                    IF coalesce(child->>'kind', '') NOT IN ('photo', 'video', 'audio', 'file') OR jsonb_typeof(child->'kind') <> 'string' THEN
                        RETURN format('media[%s].kind', n);
                    END IF;
                    problem := \#(firstUnreadable("child", path: "format('media[%s].', n)", Fields.mediaFile));
                    IF problem IS NOT NULL THEN RETURN problem; END IF;
                    IF length(child->>'ext') > 8 OR child->>'ext' !~ '^[a-z0-9]+$' THEN
                        RETURN format('media[%s].ext', n);
                    END IF;
                    problem := \#(firstUnreadable("child", path: "format('media[%s].', n)", Fields.mediaItem));
                ELSIF part = 'messages' THEN
                    IF coalesce(child->>'author', '') NOT IN ('person', 'companion') OR jsonb_typeof(child->'author') <> 'string' THEN
                        RETURN format('messages[%s].author', n);
                    END IF;
                    problem := \#(firstUnreadable("child", path: "format('messages[%s].', n)", Fields.message));
                ELSE
                    -- A tag name is read trimmed of spaces, quotes and leading '#': something must remain.
                    IF jsonb_typeof(child->'name') IS DISTINCT FROM 'string'
                       OR child->>'name' !~ '\#(tagNameRemains)' THEN
                        RETURN format('tag_links[%s].name', n);
                    END IF;
                    problem := \#(firstUnreadable("child", path: "format('tag_links[%s].', n)", Fields.tagLink));
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
        IF NOT (SELECT coalesce(bool_and(coalesce(\#(entryShaped("p.rec")), false)), true)
                  FROM diary.batch_items(batch) p)
           OR NOT (\#(itemsShaped("batch"))) THEN
            RETURN false;
        END IF;
        RETURN \#(entryFormsMatch("batch"));
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
        SELECT coalesce(string_agg(E'\n' || x.hlc, '') ~ '^(?:\n\#(hlcForm))*$'
                        AND bool_and(x.hlc IS NOT NULL AND strpos(x.hlc, E'\n') = 0 AND coalesce(x.device, '') <> ''), false),
               max(x.hlc COLLATE "C"), count(x.created) + count(x.occurred) + count(x.deleted)
          INTO good, newest, times
          FROM (SELECT p.rec->>'hlc' AS hlc, p.rec->>'device_id' AS device, (p.rec->>'created_at')::timestamptz AS created,
                       (p.rec->>'occurred_at')::timestamptz AS occurred, (p.rec->>'deleted_at')::timestamptz AS deleted
                  FROM diary.batch_items(batch) p
                UNION ALL
                SELECT c.value #>> '{}', 'field clock', NULL, NULL, NULL
                  FROM jsonb_path_query(batch, '$[*].record.field_clocks.*') c(value)
                 WHERE c.value #>> '{}' IS NOT NULL\#(itemShapes.map { """

                UNION ALL
                SELECT c.value->>'hlc', c.value->>'device_id', (c.value->>'created_at')::timestamptz, NULL, (c.value->>'deleted_at')::timestamptz
                  FROM \(batchItems("batch", $0.part))
    """ }.joined())) x;
        RETURN CASE WHEN good THEN left(newest, 15)::bigint END;
    END
    $fn$;

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
    -- content the entry's clock, else none ('').
    CREATE OR REPLACE FUNCTION diary.part_clock(doc jsonb, part text) RETURNS text
        LANGUAGE sql IMMUTABLE
        SET search_path = pg_catalog, diary, pg_temp
    AS $fn$
        SELECT coalesce(doc->'field_clocks'->>part, CASE WHEN part = 'content' THEN doc->>'hlc' ELSE '' END) COLLATE "C";
    $fn$;

    -- Merges two live versions of an entry part by part, each part to the side that changed
    -- it last (the client's rule in RecordExchange.swift): a star or a move made on one
    -- device never undoes an edit of the words made on another.
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
        IF diary.part_clock(incoming, 'content') > diary.part_clock(stored, 'content') THEN
            merged := (incoming - 'starred' - 'trashed_at' - 'order_key' - 'field_clocks' - 'hlc' - 'device_id')
                      || jsonb_build_object('starred', stored->'starred', 'trashed_at', stored->'trashed_at',
                                            'order_key', stored->'order_key', 'hlc', stored->'hlc', 'device_id', stored->'device_id');
        END IF;
        FOREACH part IN ARRAY ARRAY['star', 'trash', 'order'] LOOP
            field := CASE part WHEN 'star' THEN 'starred' WHEN 'trash' THEN 'trashed_at' ELSE 'order_key' END;
            IF diary.part_clock(incoming, part) > diary.part_clock(stored, part) THEN
                merged := merged || jsonb_build_object(field, incoming->field);
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
                VALUES (uid, child->>'id', eid, child->>'sha256', child_hlc, child->>'device_id',
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
                   SET sha256 = child->>'sha256', hlc = child_hlc, device_id = child->>'device_id',
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
               AND c.sha256 IN (SELECT x->>'sha256' FROM jsonb_array_elements(attachments) x WHERE (x->>'deleted_at') IS NOT NULL)
               AND NOT EXISTS (SELECT 1 FROM diary.media m WHERE m.user_id = uid AND m.sha256 = c.sha256 AND NOT m.deleted);
            DELETE FROM diary.media_object o
             WHERE o.user_id = uid
               AND o.sha256 IN (SELECT x->>'sha256' FROM jsonb_array_elements(attachments) x WHERE (x->>'deleted_at') IS NOT NULL)
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

    -- Merges one setting record: the greater clock wins.
    CREATE OR REPLACE FUNCTION diary.apply_setting(uid uuid, rec jsonb, next_seq bigint) RETURNS boolean
        LANGUAGE plpgsql
        SET search_path = pg_catalog, diary, pg_temp
    AS $fn$
    DECLARE
        new_hlc text COLLATE "C" := rec->>'hlc';
        stored record;
    BEGIN
        SELECT s.value, s.hlc INTO stored FROM diary.setting s WHERE s.user_id = uid AND s.key = rec->>'key' FOR UPDATE;
        IF FOUND THEN
            IF stored.hlc COLLATE "C" = new_hlc THEN
                RETURN false;
            ELSIF new_hlc < stored.hlc COLLATE "C" THEN
                PERFORM diary.keep_conflict(uid, 'setting', rec->>'key', new_hlc, stored.hlc,
                                            jsonb_build_object('key', rec->>'key', 'value', rec->>'value', 'hlc', new_hlc));
                RETURN false;
            END IF;
            PERFORM diary.keep_conflict(uid, 'setting', rec->>'key', stored.hlc, new_hlc,
                                        jsonb_build_object('key', rec->>'key', 'value', stored.value, 'hlc', stored.hlc));
        END IF;
        INSERT INTO diary.setting (user_id, key, value, hlc, device_id, updated_at, server_seq)
        VALUES (uid, rec->>'key', rec->>'value', new_hlc, rec->>'device_id', (rec->>'updated_at')::timestamptz, next_seq)
        ON CONFLICT (user_id, key) DO UPDATE
            SET value = excluded.value, hlc = excluded.hlc, device_id = excluded.device_id,
                updated_at = excluded.updated_at, server_seq = excluded.server_seq;
        RETURN true;
    END
    $fn$;

    -- push(batch): applies up to 20 records [{"key": idempotency key, "record": {...}}, ...].
    -- SECURITY INVOKER: row-level security applies to everything it does.
    -- A push's items in order: their position, idempotency key and record. The record is cut
    -- out of the batch once per item (OFFSET 0 keeps the sub-query apart): inlined, every
    -- mention of it would copy it out of the batch again.
    CREATE OR REPLACE FUNCTION diary.batch_items(batch jsonb) RETURNS TABLE (n bigint, key text, rec jsonb)
        LANGUAGE sql IMMUTABLE
        AS $fn$ SELECT b.n, b.value->>'key', r.rec FROM pg_catalog.jsonb_array_elements(batch) WITH ORDINALITY b(value, n),
                       LATERAL (SELECT b.value->'record' OFFSET 0) r(rec) $fn$;

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
    BEGIN
        IF jsonb_typeof(batch) IS DISTINCT FROM 'array' OR jsonb_array_length(batch) > 20 THEN
            RAISE EXCEPTION 'a push is an array of at most 20 items' USING ERRCODE = '22023';
        END IF;
        -- Lock the person's counter first. Every push of one person waits here for the one
        -- before it to commit, so counter values are handed out in commit order and a pull
        -- "server_seq > cursor" can never skip a row committed later with a smaller number.
        SELECT a.server_seq INTO seq FROM diary.account a WHERE a.user_id = uid FOR UPDATE;
        IF NOT FOUND THEN
            RAISE EXCEPTION 'no diary account for this login' USING ERRCODE = '42501';
        END IF;
        start_seq := seq;
        -- A clock more than a day ahead is a broken or hostile device: taking it would make
        -- every later edit from elsewhere lose to it.
        horizon := (extract(epoch FROM clock_timestamp()) * 1000)::bigint + 86400000;

        -- A batch of entries the server has never seen (a device's first push, an import, new
        -- pages) goes in with one statement per table instead of one entry at a time: each
        -- record passes the same checks, and nothing of it (key, entry, media, message) may be
        -- here already. Anything else, or any doubt on the way, undoes this attempt and goes
        -- item by item below, where every case is handled and a bad item is named.
        IF NOT EXISTS (SELECT 1 FROM jsonb_array_elements(batch) b
                        WHERE coalesce(b.value->>'key', '') = '' OR b.value->'record'->>'kind' IS DISTINCT FROM 'entry') THEN
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
                IF NOT diary.batch_readable(batch) OR NOT coalesce(diary.batch_clock_ms(batch) <= horizon, false) THEN
                    RAISE EXCEPTION 'not all readable, or a clock ahead' USING ERRCODE = 'P0001';
                END IF;
                INSERT INTO diary.entry (user_id, id, hlc, device_id, deleted, created_at, occurred_at, doc, server_seq, echo_of)
                SELECT uid, p.rec->>'id', p.rec->>'hlc', p.rec->>'device_id', (p.rec->>'deleted_at') IS NOT NULL,
                       (p.rec->>'created_at')::timestamptz, (p.rec->>'occurred_at')::timestamptz,
                       p.rec - '{media,messages,tag_links,tags}'::text[], seq + p.n, device
                  FROM diary.batch_items(batch) p ORDER BY p.n;
                INSERT INTO diary.media (user_id, id, entry_id, sha256, hlc, device_id, deleted, doc)
                SELECT uid, x->>'id', p.rec->>'id', x->>'sha256', x->>'hlc', x->>'device_id', false, x
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
                IF diary.record_clock_ms(rec) > horizon THEN
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
            UPDATE diary.account a SET server_seq = seq WHERE a.user_id = uid;
            -- Wakes the person's other devices that LISTEN; delivered on commit.
            PERFORM pg_notify((SELECT a.channel FROM diary.account a WHERE a.user_id = uid), seq::text);
        END IF;
        RETURN jsonb_build_object('results', results, 'server_seq', seq);
    END
    $fn$;

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
                (SELECT 'setting', s.key, s.server_seq,
                        jsonb_build_object('kind', 'setting', 'key', s.key, 'value', s.value,
                                           'updated_at', to_char(s.updated_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
                                           'hlc', s.hlc, 'device_id', s.device_id)
                   FROM diary.setting s
                  WHERE s.user_id = uid AND s.server_seq > cursor_seq AND (device IS NULL OR s.echo_of IS DISTINCT FROM device)
                  ORDER BY s.server_seq LIMIT page_size + 1)
            ) c
            ORDER BY c.server_seq LIMIT page_size + 1
        ), page AS (
            SELECT * FROM changed ORDER BY server_seq LIMIT page_size
        )
        SELECT coalesce(jsonb_agg(jsonb_build_object('seq', p.server_seq, 'record',
                   CASE WHEN p.kind = 'setting' THEN p.doc ELSE p.doc || jsonb_build_object(
                       'media', coalesce((SELECT jsonb_agg(m.doc ORDER BY (m.doc->>'position')::numeric, m.id)
                                            FROM diary.media m WHERE m.user_id = uid AND m.entry_id = p.row_id), '[]'),
                       'messages', coalesce((SELECT jsonb_agg(m.doc ORDER BY (m.doc->>'created_at')::timestamptz, m.id)
                                               FROM diary.message m WHERE m.user_id = uid AND m.entry_id = p.row_id), '[]'),
                       'tag_links', coalesce((SELECT jsonb_agg(t.doc ORDER BY (t.doc->>'position')::numeric, t.name)
                                                FROM diary.entry_tag t WHERE t.user_id = uid AND t.entry_id = p.row_id), '[]'),
                       'tags', coalesce((SELECT jsonb_agg(t.name ORDER BY (t.doc->>'position')::numeric, t.name)
                                           FROM diary.entry_tag t WHERE t.user_id = uid AND t.entry_id = p.row_id AND NOT t.deleted), '[]'))
                   END) ORDER BY p.server_seq), '[]'),
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

    -- Which of the chunks 0..total-1 of a file are not uploaded yet.
    CREATE OR REPLACE FUNCTION diary.missing_chunks(sha text, total int) RETURNS int[]
        LANGUAGE plpgsql
        SET search_path = pg_catalog, diary, pg_temp
    AS $fn$
    DECLARE
        uid uuid := diary.account_id();
        missing int[];
    BEGIN
        SELECT coalesce(array_agg(g.n ORDER BY g.n), '{}') INTO missing
          FROM generate_series(0, total - 1) AS g(n)
         WHERE NOT EXISTS (SELECT 1 FROM diary.media_chunk c WHERE c.user_id = uid AND c.sha256 = sha AND c.n = g.n);
        RETURN missing;
    END
    $fn$;

    -- Marks a file complete once chunks 0..chunks-1 are all there and add up to its size.
    CREATE OR REPLACE FUNCTION diary.finish_media(sha text, bytes bigint, chunks int, name text) RETURNS boolean
        LANGUAGE plpgsql
        SET search_path = pg_catalog, diary, pg_temp
    AS $fn$
    DECLARE
        uid uuid := diary.account_id();
        present bigint;
        total bigint;
    BEGIN
        SELECT count(*), coalesce(sum(octet_length(c.bytes)), 0) INTO present, total
          FROM diary.media_chunk c
         WHERE c.user_id = uid AND c.sha256 = sha AND c.n BETWEEN 0 AND finish_media.chunks - 1;
        -- An empty file is never a photo: nothing with no bytes is marked complete.
        IF finish_media.chunks < 1 OR finish_media.bytes < 1 OR present <> finish_media.chunks OR total <> finish_media.bytes THEN
            RETURN false;
        END IF;
        INSERT INTO diary.media_object (user_id, sha256, bytes, chunks, name)
        VALUES (uid, sha, finish_media.bytes, finish_media.chunks, finish_media.name)
        ON CONFLICT (user_id, sha256) DO NOTHING;
        RETURN true;
    END
    $fn$;

    -- Which of these files are complete on the server.
    CREATE OR REPLACE FUNCTION diary.present_media(shas text[]) RETURNS text[]
        LANGUAGE plpgsql
        SET search_path = pg_catalog, diary, pg_temp
    AS $fn$
    DECLARE
        uid uuid := diary.account_id();
        present text[];
    BEGIN
        SELECT coalesce(array_agg(o.sha256 ORDER BY o.sha256), '{}') INTO present
          FROM diary.media_object o WHERE o.user_id = uid AND o.sha256 = ANY (shas);
        RETURN present;
    END
    $fn$;

    -- Supabase Storage: where a file went up as an object instead of in chunks. The client
    -- uploads '{user_id}/{entry_id}/{sha256}.{ext}' to the bucket diary-media, then registers
    -- it here; the object must be in the caller's own folder (the bucket's policy lets them see
    -- only those) and as big as the file. Complete files are listed by present_media() for
    -- both ways of reaching the server, so a device syncing over postgres:// and one through
    -- Supabase's APIs see the same media (bytes travel only the way they went up).
    CREATE OR REPLACE FUNCTION diary.register_object(sha text, bytes bigint, name text) RETURNS boolean
        LANGUAGE plpgsql
        SET search_path = pg_catalog, diary, pg_temp
    AS $fn$
    DECLARE
        uid uuid := diary.account_id();
        stored bigint;
    BEGIN
        IF to_regclass('storage.objects') IS NULL OR register_object.bytes < 1
           OR split_part(register_object.name, '/', 1) <> uid::text OR sha !~ '^[0-9a-f]{64}$' THEN
            RETURN false;
        END IF;
        EXECUTE 'SELECT (o.metadata ->> ''size'')::bigint FROM storage.objects o WHERE o.bucket_id = ''diary-media'' AND o.name = $1'
            INTO stored USING register_object.name;
        IF stored IS DISTINCT FROM register_object.bytes THEN
            RETURN false;
        END IF;
        INSERT INTO diary.media_object (user_id, sha256, bytes, chunks, name)
        VALUES (uid, sha, register_object.bytes, 0, register_object.name)
        ON CONFLICT (user_id, sha256) DO NOTHING;
        RETURN true;
    END
    $fn$;

    -- The names of the caller's objects in the bucket diary-media, whether registered or not
    -- (an upload cut off before register_object): what delete-account removes through the
    -- Storage API before the account goes. None on plain Postgres.
    CREATE OR REPLACE FUNCTION diary.my_objects() RETURNS text[]
        LANGUAGE plpgsql STABLE
        SET search_path = pg_catalog, diary, pg_temp
    AS $fn$
    DECLARE
        uid uuid := diary.account_id();
        names text[];
    BEGIN
        IF to_regclass('storage.objects') IS NULL THEN
            RETURN '{}';
        END IF;
        EXECUTE 'SELECT coalesce(array_agg(o.name ORDER BY o.name), ''{}'') FROM storage.objects o
                  WHERE o.bucket_id = ''diary-media'' AND o.name LIKE $1 || ''/%'''
            INTO names USING uid::text;
        RETURN names;
    END
    $fn$;

    -- Where these complete files are: [{sha256, name, bytes, chunks}], chunks 0 for a Storage object.
    CREATE OR REPLACE FUNCTION diary.media_objects(shas text[]) RETURNS jsonb
        LANGUAGE sql STABLE
        SET search_path = pg_catalog, diary, pg_temp
    AS $fn$
        SELECT coalesce(jsonb_agg(jsonb_build_object('sha256', o.sha256, 'name', o.name, 'bytes', o.bytes, 'chunks', o.chunks)
                                  ORDER BY o.sha256), '[]')
          FROM diary.media_object o WHERE o.user_id = diary.account_id() AND o.sha256 = ANY (shas)
    $fn$;

    -- ---------------------------------------------------------------------------------------
    -- Media space per person: what their chunks and Storage objects take (kept by triggers)
    -- and a limit the operator may set, the person's own (account.media_quota) or else the
    -- server's default (config 'media_quota_bytes'); with neither there is no limit. A chunk
    -- or an object that would go over the limit is refused with SQLSTATE IB001; the device
    -- keeps the file and says so.
    ALTER TABLE diary.account ADD COLUMN IF NOT EXISTS media_quota bigint CHECK (media_quota >= 0);
    ALTER TABLE diary.account ADD COLUMN IF NOT EXISTS media_bytes bigint;
    -- Counted once, when the column arrives on a server from before version 4.
    UPDATE diary.account a
       SET media_bytes = (SELECT coalesce(sum(octet_length(c.bytes)), 0) FROM diary.media_chunk c WHERE c.user_id = a.user_id)
     WHERE a.media_bytes IS NULL;
    ALTER TABLE diary.account ALTER COLUMN media_bytes SET DEFAULT 0;
    ALTER TABLE diary.account ALTER COLUMN media_bytes SET NOT NULL;

    -- SECURITY DEFINER: people may not write media_bytes themselves, only through their chunks
    -- and, through Supabase Storage, the objects they register (media_object rows with no
    -- chunks: their bytes are counted once, when the file is complete).
    CREATE OR REPLACE FUNCTION diary.count_media_bytes() RETURNS trigger
        LANGUAGE plpgsql SECURITY DEFINER
        SET search_path = pg_catalog, diary, pg_temp
    AS $fn$
    DECLARE
        uid uuid;
        change bigint;
        used bigint;
        quota bigint;
    BEGIN
        IF TG_TABLE_NAME = 'media_object' THEN
            IF TG_OP = 'INSERT' THEN
                uid := NEW.user_id;
                change := CASE WHEN NEW.chunks = 0 THEN NEW.bytes ELSE 0 END;
            ELSE
                uid := OLD.user_id;
                change := CASE WHEN OLD.chunks = 0 THEN -OLD.bytes ELSE 0 END;
            END IF;
        ELSIF TG_OP = 'INSERT' THEN
            uid := NEW.user_id;
            change := octet_length(NEW.bytes);
        ELSIF TG_OP = 'DELETE' THEN
            uid := OLD.user_id;
            change := -octet_length(OLD.bytes);
        ELSE
            uid := NEW.user_id;
            change := octet_length(NEW.bytes) - octet_length(OLD.bytes);
        END IF;
        IF change = 0 THEN
            RETURN NULL;
        END IF;
        UPDATE diary.account a SET media_bytes = a.media_bytes + change WHERE a.user_id = uid
        RETURNING a.media_bytes, coalesce(a.media_quota, (SELECT (c.value #>> '{}')::bigint FROM diary.config c
                                                          WHERE c.key = 'media_quota_bytes' AND jsonb_typeof(c.value) = 'number'))
             INTO used, quota;
        IF change > 0 AND used > quota THEN
            RAISE EXCEPTION 'the media space of this account (% bytes) is used up', quota USING ERRCODE = 'IB001';
        END IF;
        RETURN NULL;
    END
    $fn$;
    CREATE OR REPLACE TRIGGER count_media_bytes AFTER INSERT OR DELETE OR UPDATE OF bytes ON diary.media_chunk
        FOR EACH ROW EXECUTE FUNCTION diary.count_media_bytes();
    CREATE OR REPLACE TRIGGER count_object_bytes AFTER INSERT OR DELETE ON diary.media_object
        FOR EACH ROW EXECUTE FUNCTION diary.count_media_bytes();

    -- The caller's own media space: {used, limit} in bytes (limit null: none). A device asks
    -- before sending a file to Storage, so a file over the limit does not travel in vain.
    CREATE OR REPLACE FUNCTION diary.media_space() RETURNS jsonb
        LANGUAGE sql STABLE
        SET search_path = pg_catalog, diary, pg_temp
    AS $fn$
        SELECT jsonb_build_object('used', a.media_bytes,
                                  'limit', coalesce(a.media_quota, (SELECT (c.value #>> '{}')::bigint FROM diary.config c
                                                                    WHERE c.key = 'media_quota_bytes' AND jsonb_typeof(c.value) = 'number')))
          FROM diary.account a WHERE a.user_id = diary.account_id()
    $fn$;

    -- media_quota(role_name): for the operator. A login's limit (its own, or the default),
    -- the default alone with a NULL login, and what the login's media take.
    CREATE OR REPLACE FUNCTION diary.media_quota(role_name text) RETURNS jsonb
        LANGUAGE plpgsql STABLE
        SET search_path = pg_catalog, diary, pg_temp
    AS $fn$
    DECLARE
        fallback bigint := (SELECT (c.value #>> '{}')::bigint FROM diary.config c
                             WHERE c.key = 'media_quota_bytes' AND jsonb_typeof(c.value) = 'number');
        answer jsonb;
    BEGIN
        IF media_quota.role_name IS NULL THEN
            RETURN jsonb_build_object('user', NULL, 'limit', fallback, 'used', NULL);
        END IF;
        SELECT jsonb_build_object('user', a.role_name, 'limit', coalesce(a.media_quota, fallback), 'used', a.media_bytes)
          INTO answer FROM diary.account a WHERE a.role_name = media_quota.role_name;
        IF answer IS NULL THEN
            RAISE EXCEPTION 'no diary account for %', media_quota.role_name USING ERRCODE = '42704';
        END IF;
        RETURN answer;
    END
    $fn$;

    -- set_media_quota(role_name, limit_bytes): for the operator. Sets a login's own limit, or
    -- with a NULL login the default for everyone; a NULL limit removes it. Returns media_quota().
    CREATE OR REPLACE FUNCTION diary.set_media_quota(role_name text, limit_bytes bigint) RETURNS jsonb
        LANGUAGE plpgsql
        SET search_path = pg_catalog, diary, pg_temp
    AS $fn$
    BEGIN
        IF limit_bytes < 0 THEN
            RAISE EXCEPTION 'a limit is 0 bytes or more' USING ERRCODE = '22023';
        END IF;
        IF set_media_quota.role_name IS NULL THEN
            DELETE FROM diary.config WHERE key = 'media_quota_bytes';
            IF limit_bytes IS NOT NULL THEN
                INSERT INTO diary.config (key, value) VALUES ('media_quota_bytes', to_jsonb(limit_bytes));
            END IF;
        ELSE
            UPDATE diary.account a SET media_quota = limit_bytes WHERE a.role_name = set_media_quota.role_name;
        END IF;
        RETURN diary.media_quota(set_media_quota.role_name);
    END
    $fn$;

    -- add_user(role_name, password_verifier): for the operator (a role with CREATEROLE). The
    -- client sends a SCRAM-SHA-256 verifier, so the password itself never leaves the device.
    CREATE OR REPLACE FUNCTION diary.add_user(role_name text, password_verifier text) RETURNS uuid
        LANGUAGE plpgsql
        SET search_path = pg_catalog, diary, pg_temp
    AS $fn$
    DECLARE
        uid uuid;
    BEGIN
        IF add_user.role_name IS NULL OR add_user.role_name !~ '^[a-z_][a-z0-9_]{0,62}$' THEN
            RAISE EXCEPTION 'a user name is 1 to 63 lowercase letters, digits or _, not starting with a digit'
                USING ERRCODE = '22023';
        END IF;
        IF coalesce(password_verifier, '') = '' THEN
            RAISE EXCEPTION 'a password verifier is needed' USING ERRCODE = '22023';
        END IF;
        -- In a Supabase project auth.uid() is Supabase's and reads the request's JWT claims,
        -- which a direct login could set for itself: logins there belong to Supabase Auth.
        IF obj_description(to_regprocedure('auth.uid()'), 'pg_proc') IS DISTINCT FROM 'InnerBloom Diary: the account of the login role' THEN
            RAISE EXCEPTION 'auth.uid() is not this project''s: people sign in through the platform''s own auth'
                USING ERRCODE = '0A000';
        END IF;
        -- An existing role raises 42710 (duplicate_object) here.
        EXECUTE format('CREATE ROLE %I LOGIN PASSWORD %L IN ROLE diary_user', add_user.role_name, password_verifier);
        INSERT INTO diary.account (role_name) VALUES (add_user.role_name) RETURNING user_id INTO uid;
        RETURN uid;
    END
    $fn$;

    -- Who am I, as the server sees it.
    CREATE OR REPLACE FUNCTION diary.whoami() RETURNS jsonb
        LANGUAGE plpgsql
        SET search_path = pg_catalog, diary, pg_temp
    AS $fn$
    DECLARE
        uid uuid := diary.account_id();
        seq bigint;
    BEGIN
        SELECT a.server_seq INTO seq FROM diary.account a WHERE a.user_id = uid;
        -- The consent text comes along: a device logging in through Supabase's REST API reads
        -- no table directly.
        RETURN jsonb_build_object('user_id', uid, 'role', session_user, 'server_seq', coalesce(seq, 0),
                                  'channel', (SELECT a.channel FROM diary.account a WHERE a.user_id = uid),
                                  'premium', coalesce((SELECT a.premium FROM diary.account a WHERE a.user_id = uid), false),
                                  'consent', (SELECT c.value FROM diary.config c WHERE c.key = 'consent'));
    END
    $fn$;

    -- Removes everything of one person's: their rows, chunks and account, their Storage objects
    -- (queued for the Storage API), and leaves an anonymous audit row. Only for the functions
    -- below (no grant): the tables' forced row-level security limits it to the person the
    -- session acts for, which must be the one named.
    CREATE OR REPLACE FUNCTION diary.remove_person(uid uuid) RETURNS bigint
        LANGUAGE plpgsql SECURITY DEFINER
        SET search_path = pg_catalog, diary, pg_temp
    AS $fn$
    DECLARE
        t text;
        n bigint;
        removed bigint := 0;
    BEGIN
        IF uid IS NULL OR diary.my_account() IS DISTINCT FROM uid THEN
            RAISE EXCEPTION 'no diary account for this login' USING ERRCODE = '42501';
        END IF;
        FOREACH t IN ARRAY ARRAY['media_chunk', 'media_object', 'media', 'message', 'entry_tag', 'entry', 'setting',
                                 'conflict', 'push_receipt', 'companion_use'] LOOP
            EXECUTE format('DELETE FROM diary.%I WHERE user_id = $1', t) USING uid;
            GET DIAGNOSTICS n = ROW_COUNT;
            removed := removed + n;
        END LOOP;
        IF to_regclass('storage.objects') IS NOT NULL THEN
            EXECUTE 'INSERT INTO diary.storage_removal (bucket_id, name)
                     SELECT o.bucket_id, o.name FROM storage.objects o
                      WHERE o.bucket_id = ''diary-media'' AND o.name LIKE $1 || ''/%''
                     ON CONFLICT DO NOTHING' USING uid::text;
            GET DIAGNOSTICS n = ROW_COUNT;
            removed := removed + n;
        END IF;
        -- The account row last: the policies above find the person through it.
        DELETE FROM diary.account a WHERE a.user_id = uid;
        GET DIAGNOSTICS n = ROW_COUNT;
        removed := removed + n;
        INSERT INTO diary.deletion_audit (user_hash, rows_removed)
        VALUES (encode(sha256(convert_to(uid::text, 'UTF8')), 'hex'), removed);
        RETURN removed;
    END
    $fn$;

    -- Removes everything of the caller's and disables their login (a login role of our own;
    -- on Supabase session_user is a shared role and the person deletes their auth user).
    CREATE OR REPLACE FUNCTION diary.delete_account() RETURNS bigint
        LANGUAGE plpgsql SECURITY DEFINER
        SET search_path = pg_catalog, diary, pg_temp
    AS $fn$
    DECLARE
        uid uuid := diary.account_id();
        login_role text := (SELECT a.role_name FROM diary.account a WHERE a.user_id = uid);
        removed bigint := diary.remove_person(uid);
    BEGIN
        IF login_role = session_user THEN
            EXECUTE format('ALTER ROLE %I NOLOGIN', session_user);
        ELSIF login_role IS NULL AND to_regclass('auth.users') IS NOT NULL THEN
            -- A Supabase person: their auth user goes too (Auth has no self-service deletion),
            -- which ends every session of theirs. The trigger finds no account left to remove.
            BEGIN
                EXECUTE 'DELETE FROM auth.users WHERE id = $1' USING uid;
            EXCEPTION WHEN insufficient_privilege THEN
                RAISE NOTICE 'the diary data is gone; the auth user stays (no right to delete it here)';
            END;
        END IF;
        RETURN removed;
    END
    $fn$;

    -- ---------------------------------------------------------------------------------------
    -- Supabase Auth: whoever signs up gets a diary account, and whoever is deleted from
    -- auth.users (by the dashboard, the admin API or their own account deletion) loses
    -- everything here too. SECURITY DEFINER: the Auth server's role has no rights in diary.
    CREATE OR REPLACE FUNCTION diary.account_for_auth_user() RETURNS trigger
        LANGUAGE plpgsql SECURITY DEFINER
        SET search_path = pg_catalog, diary, pg_temp
    AS $fn$
    BEGIN
        INSERT INTO diary.account (user_id, role_name) VALUES (NEW.id, NULL) ON CONFLICT (user_id) DO NOTHING;
        RETURN NULL;
    END
    $fn$;

    CREATE OR REPLACE FUNCTION diary.forget_auth_user() RETURNS trigger
        LANGUAGE plpgsql SECURITY DEFINER
        SET search_path = pg_catalog, diary, pg_temp
    AS $fn$
    DECLARE
        sub text := current_setting('request.jwt.claim.sub', true);
        claims text := current_setting('request.jwt.claims', true);
    BEGIN
        IF EXISTS (SELECT 1 FROM diary.account a WHERE a.user_id = OLD.id) THEN
            -- The forced policies let remove_person() touch only the rows of the person the
            -- session acts for: act for the deleted user until it is done, as Supabase's
            -- auth.uid() reads it, then put the caller's claims back.
            PERFORM set_config('request.jwt.claim.sub', OLD.id::text, true);
            PERFORM set_config('request.jwt.claims', jsonb_build_object('sub', OLD.id)::text, true);
            PERFORM diary.remove_person(OLD.id);
            PERFORM set_config('request.jwt.claim.sub', coalesce(sub, ''), true);
            PERFORM set_config('request.jwt.claims', coalesce(claims, ''), true);
        END IF;
        RETURN NULL;
    END
    $fn$;

    DO $supabase_auth$
    BEGIN
        IF to_regclass('auth.users') IS NOT NULL THEN
            DROP TRIGGER IF EXISTS diary_account ON auth.users;
            CREATE TRIGGER diary_account AFTER INSERT ON auth.users
                FOR EACH ROW EXECUTE FUNCTION diary.account_for_auth_user();
            DROP TRIGGER IF EXISTS diary_forget ON auth.users;
            CREATE TRIGGER diary_forget AFTER DELETE ON auth.users
                FOR EACH ROW EXECUTE FUNCTION diary.forget_auth_user();
            -- People who signed up before the script ran.
            INSERT INTO diary.account (user_id, role_name) SELECT u.id, NULL FROM auth.users u ON CONFLICT (user_id) DO NOTHING;
        END IF;
    END
    $supabase_auth$;

    -- ---------------------------------------------------------------------------------------
    -- Supabase Storage: media as objects '{user_id}/{entry_id}/{file}' in the private bucket
    -- diary-media. A person reads and writes only under their own folder, and only with a
    -- diary account. Where the script may not add policies to storage.objects (it is not
    -- its owner), it says so and the operator adds them in the dashboard.
    DO $supabase_storage$
    BEGIN
        IF to_regclass('storage.objects') IS NOT NULL AND to_regclass('storage.buckets') IS NOT NULL THEN
            INSERT INTO storage.buckets (id, name, public) VALUES ('diary-media', 'diary-media', false)
                ON CONFLICT (id) DO NOTHING;
            BEGIN
                DROP POLICY IF EXISTS diary_media_own ON storage.objects;
                CREATE POLICY diary_media_own ON storage.objects FOR ALL TO authenticated
                    USING (bucket_id = 'diary-media' AND (storage.foldername(name))[1] = (SELECT diary.my_account())::text)
                    WITH CHECK (bucket_id = 'diary-media' AND (storage.foldername(name))[1] = (SELECT diary.my_account())::text);
            EXCEPTION WHEN insufficient_privilege THEN
                RAISE NOTICE 'cannot add the policy diary_media_own to storage.objects: add it in the dashboard (see diary-sync(1))';
            END;
        END IF;
    END
    $supabase_storage$;

    -- ---------------------------------------------------------------------------------------
    -- The operator's companion gateway (F-015, F-020, F-024). An operator who runs an
    -- OpenAI-compatible endpoint that holds the model keys (a LiteLLM proxy, an edge function)
    -- names it, and may limit what people without premium use of it:
    --   INSERT INTO diary.config VALUES ('gateway', '{"url": "https://gw.example.org/v1", "model": "companion"}');
    --   INSERT INTO diary.config VALUES ('companion_limits', '{"replies_per_entry": 4, "pages_per_day": 1}');
    -- Devices signed in through Supabase then talk through the gateway with the person's own
    -- access token as the bearer, and count each reply and page here first.
    --
    -- use_companion counts one more use unless the limit is reached, and answers
    -- {"allowed", "used", "limit", "premium"}. A reply counts against its entry, a page against
    -- the person's day in `zone` (a name in diary.time_zone, else UTC). A gateway that must
    -- hold the line even against a rebuilt client calls it itself with the same token.
    CREATE OR REPLACE FUNCTION diary.use_companion(what text, entry_id text DEFAULT NULL, zone text DEFAULT NULL) RETURNS jsonb
        LANGUAGE plpgsql SECURITY DEFINER
        SET search_path = pg_catalog, diary, pg_temp
    AS $fn$
    DECLARE
        uid uuid := diary.account_id();
        is_premium boolean;
        cap int;
        scope_key text;
        count_now int;
        allowed boolean;
    BEGIN
        SELECT a.premium INTO is_premium FROM diary.account a WHERE a.user_id = uid;
        IF what = 'reply' THEN
            IF coalesce(entry_id, '') = '' OR length(entry_id) > 64 THEN
                RAISE EXCEPTION 'a reply is counted against an entry id' USING ERRCODE = '22023';
            END IF;
            scope_key := entry_id;
        ELSIF what = 'page' THEN
            scope_key := to_char(now() AT TIME ZONE coalesce((SELECT z.name FROM diary.time_zone z WHERE z.name = zone), 'UTC'),
                                 'YYYY-MM-DD');
            -- Yesterday's and older page counts are no longer needed.
            DELETE FROM diary.companion_use u
             WHERE u.user_id = uid AND u.kind = 'page' AND u.scope < to_char(now() - interval '2 days', 'YYYY-MM-DD');
        ELSE
            RAISE EXCEPTION 'unknown companion use %', what USING ERRCODE = '22023';
        END IF;
        IF NOT is_premium THEN
            -- A limit that is not a number fails here, and the device treats its usage as used up.
            cap := (SELECT (c.value ->> CASE what WHEN 'reply' THEN 'replies_per_entry' ELSE 'pages_per_day' END)::int
                      FROM diary.config c WHERE c.key = 'companion_limits');
        END IF;
        INSERT INTO diary.companion_use AS u (user_id, kind, scope, used)
        SELECT uid, what, scope_key, 1 WHERE cap IS NULL OR cap >= 1
        ON CONFLICT (user_id, kind, scope) DO UPDATE SET used = u.used + 1 WHERE cap IS NULL OR u.used < cap
        RETURNING u.used INTO count_now;
        allowed := count_now IS NOT NULL;
        IF NOT allowed THEN
            SELECT u.used INTO count_now FROM diary.companion_use u WHERE u.user_id = uid AND u.kind = what AND u.scope = scope_key;
        END IF;
        RETURN jsonb_build_object('allowed', allowed,
                                  'used', coalesce(count_now, 0), 'limit', cap, 'premium', is_premium);
    END
    $fn$;

    -- ---------------------------------------------------------------------------------------
    -- Privileges, last, once every table and function exists: nothing for PUBLIC (nor
    -- Supabase's anon); the people's role gets exactly what the client needs: diary_user on
    -- plain Postgres, and on Supabase authenticated too. Revoked from them all first, so that
    -- re-running the script also takes back anything granted by hand (and functions, which
    -- PUBLIC may execute by default). record_clock_ms and the batch checks (and the record
    -- checks they use), keep_conflict, apply_entry and apply_setting run inside push(),
    -- which runs as the caller, so the caller needs them too (row-level security still
    -- applies). add_user,
    -- remove_person, the Auth triggers and the media quota functions are for the operator and
    -- the server only; deletion_audit, storage_removal and schema_migration for nobody.
    DO $privileges$
    DECLARE
        who text;
        target text;
    BEGIN
        FOREACH who IN ARRAY ARRAY['PUBLIC', 'diary_user', 'anon', 'authenticated'] LOOP
            CONTINUE WHEN who <> 'PUBLIC' AND NOT EXISTS (SELECT 1 FROM pg_catalog.pg_roles WHERE rolname = who);
            target := CASE who WHEN 'PUBLIC' THEN who ELSE quote_ident(who) END;
            EXECUTE 'REVOKE ALL ON SCHEMA diary FROM ' || target;
            EXECUTE 'REVOKE ALL ON ALL TABLES IN SCHEMA diary FROM ' || target;
            EXECUTE 'REVOKE ALL ON ALL SEQUENCES IN SCHEMA diary FROM ' || target;
            EXECUTE 'REVOKE ALL ON ALL FUNCTIONS IN SCHEMA diary FROM ' || target;
        END LOOP;
        FOREACH who IN ARRAY ARRAY['diary_user', 'authenticated'] LOOP
            CONTINUE WHEN NOT EXISTS (SELECT 1 FROM pg_catalog.pg_roles WHERE rolname = who);
            EXECUTE format('GRANT USAGE ON SCHEMA diary TO %I', who);
            EXECUTE format('GRANT SELECT, INSERT, UPDATE, DELETE ON diary.entry, diary.media, diary.message, diary.entry_tag, '
                           'diary.setting, diary.conflict, diary.push_receipt, diary.media_chunk, diary.media_object TO %I', who);
            EXECUTE format('GRANT SELECT ON diary.config, diary.time_zone, diary.companion_use TO %I', who);
            -- push() locks and advances the person's own counter; nothing else in account is theirs to change.
            EXECUTE format('GRANT SELECT, UPDATE (server_seq) ON diary.account TO %I', who);
            EXECUTE format('GRANT EXECUTE ON FUNCTION
                diary.my_account(), diary.account_id(), diary.push(jsonb, text), diary.batch_items(jsonb), diary.pull(bigint, int, text),
                diary.entry_matches(uuid, jsonb), diary.missing_chunks(text, int), diary.finish_media(text, bigint, int, text),
                diary.present_media(text[]), diary.register_object(text, bigint, text), diary.media_objects(text[]), diary.my_objects(), diary.media_space(),
                diary.whoami(), diary.delete_account(), diary.use_companion(text, text, text),
                diary.record_clock_ms(jsonb), diary.keep_conflict(uuid, text, text, text, text, jsonb),
                diary.apply_entry(uuid, jsonb, bigint), diary.apply_setting(uuid, jsonb, bigint),
                diary.part_clock(jsonb, text), diary.merge_parts(jsonb, jsonb), diary.same_fields(jsonb, jsonb),
                diary.batch_readable(jsonb), diary.batch_clock_ms(jsonb), diary.hlc_ms(text), diary.unreadable_entry_field(jsonb), diary.unreadable_field(jsonb, text, text[]), diary.is_time(jsonb),
                diary.is_count(jsonb), diary.is_finite(jsonb), diary.is_given(jsonb), diary.is_id(jsonb), diary.is_hlc(jsonb)
                TO %I', who);
        END LOOP;
    END
    $privileges$;

    -- ---------------------------------------------------------------------------------------
    -- What the catalog tells any login about everyone's data. Postgres grants PUBLIC the
    -- statistics views and functions (live row counts per table), the relation sizes and the
    -- list of roles (every person's login name); a person who logs in with plain SQL could
    -- count other people's pages. Taken from PUBLIC in this database and given to
    -- pg_read_all_stats (so monitoring keeps working). Needs a superuser: where the script
    -- runs without one (a hosted service), the catalog stays as the service set it.
    DO $catalog$
    DECLARE
        object text;
    BEGIN
        FOREACH object IN ARRAY ARRAY['pg_stat_all_tables', 'pg_stat_user_tables', 'pg_stat_sys_tables',
                                      'pg_stat_xact_all_tables', 'pg_stat_xact_user_tables', 'pg_stat_xact_sys_tables',
                                      'pg_statio_all_tables', 'pg_statio_user_tables', 'pg_statio_sys_tables',
                                      'pg_stat_all_indexes', 'pg_stat_user_indexes', 'pg_statio_all_indexes',
                                      'pg_statio_user_indexes', 'pg_statio_all_sequences', 'pg_statio_user_sequences',
                                      'pg_stat_user_functions', 'pg_stat_xact_user_functions', 'pg_stat_database',
                                      'pg_roles', 'pg_user', 'pg_auth_members'] LOOP
            IF to_regclass('pg_catalog.' || object) IS NOT NULL THEN
                EXECUTE format('REVOKE SELECT ON pg_catalog.%I FROM PUBLIC', object);
                EXECUTE format('GRANT SELECT ON pg_catalog.%I TO pg_read_all_stats', object);
            END IF;
        END LOOP;
        FOR object IN
            SELECT p.oid::regprocedure::text FROM pg_catalog.pg_proc p
            WHERE p.pronamespace = 'pg_catalog'::regnamespace
              AND (p.proname LIKE 'pg\_stat\_get\_%' OR p.proname IN ('pg_total_relation_size', 'pg_relation_size', 'pg_table_size',
                                                               'pg_indexes_size', 'pg_database_size'))
        LOOP
            EXECUTE format('REVOKE EXECUTE ON FUNCTION %s FROM PUBLIC', object);
            EXECUTE format('GRANT EXECUTE ON FUNCTION %s TO pg_read_all_stats', object);
        END LOOP;
    EXCEPTION WHEN insufficient_privilege THEN
        RAISE NOTICE 'not a superuser: the statistics views, relation sizes and role list stay readable to every login';
    END
    $catalog$;

    -- Recorded last, so a script that stopped half-way is not counted as applied.
    INSERT INTO diary.schema_migration (version, name, applied_at) VALUES (9, 'diary-v9-companion-gateway-usage', now())
        ON CONFLICT DO NOTHING;
    """#

    // MARK: What a client can read

    /// The field kinds `diary.unreadable_field` knows, each with its SQL test: the same test
    /// serves the check of a whole item at once and the search for the field that failed.
    private static let fieldKinds = ["string", "text", "time", "time?", "id", "count", "count?", "finite?", "bool?",
                                     "digest", "digest?", "hlc"]

    /// The SQL that is true when `value` (a jsonb expression) is readable as `kind`.
    private static func test(_ kind: String, _ value: String) -> String {
        if kind.hasSuffix("?") { return "(NOT diary.is_given(\(value)) OR \(test(String(kind.dropLast()), value)))" }
        switch kind {
        case "string": return "jsonb_typeof(\(value)) = 'string'"
        case "text": return test("string?", value)
        case "time": return "diary.is_time(\(value))"
        case "id": return "diary.is_id(\(value))"
        case "count": return "diary.is_count(\(value))"
        case "finite": return "diary.is_finite(\(value))"
        case "bool": return "jsonb_typeof(\(value)) = 'boolean'"
        case "digest": return "(jsonb_typeof(\(value)) = 'string' AND length(\(value) #>> '{}') = 64 AND (\(value) #>> '{}') ~ '^\(digestForm)$')"
        case "hlc": return "diary.is_hlc(\(value))"
        default: preconditionFailure("no field kind \(kind)")
        }
    }

    /// The SQL that is true when `check(kind, value)` holds for every one of `fields` of
    /// `item` (NULL counts as no).
    private static func every(_ item: String, _ fields: [(String, String)], _ check: (String, String) -> String) -> String {
        "(" + fields.map { check($0.1, "(\(item) -> '\($0.0)')") }.joined(separator: " AND ") + ")"
    }

    /// An expression naming the first of `fields` of `item` a client could not read, or NULL.
    /// All are tested in one expression first; only when that fails does
    /// `diary.unreadable_field` go field by field to name the one (most records are fine, and
    /// one expression costs a fraction of a loop over the fields).
    private static func firstUnreadable(_ item: String, path: String, _ fields: [(String, String)]) -> String {
        let spec = fields.map { "'\($0.0)', '\($0.1)'" }.joined(separator: ", ")
        return "CASE WHEN coalesce(\(every(item, fields, test)), false) THEN NULL ELSE diary.unreadable_field(\(item), \(path), ARRAY[\(spec)]) END"
    }

    // MARK: The same rules, for a whole batch at once (diary.batch_readable)

    /// The written form each field kind's text must take, as a pattern without anchors: the
    /// single-value tests (`diary.is_time`, `is_id`, `is_count`, digests) and the batch's
    /// matches use the same.
    private static let kindForms = ["time": timeForm, "id": idForm, "hlc": hlcForm, "digest": digestForm, "count": countForm]
    private static let idForm = "[0-9a-f-]+", digestForm = "[0-9a-f]+", countForm = "[0-9]+"

    /// YYYY-MM-DD(T| )HH:MM:SS[.fff](Z|±HH:MM), as `diary.is_time` takes it.
    private static let timeForm = "[0-9][0-9][0-9][0-9]-(?:0[1-9]|1[0-2])-(?:0[1-9]|[12][0-9]|3[01])[T ](?:[01][0-9]|2[0-3]):[0-5][0-9]:(?:[0-5][0-9]|60)(?:\\.[0-9]+)?(?:[Zz]|[+-][0-9][0-9]:[0-9][0-9])"
    /// 15 digits '.' 6 digits '.' something, as `diary.is_hlc` takes it (written out: bounded
    /// repeats make large automata). No form may match a newline, which ends each value.
    private static let hlcForm = String(repeating: "[0-9]", count: 15) + "\\." + String(repeating: "[0-9]", count: 6) + "\\.[^\\n]+"

    /// Every written form a batch's values are matched against, by name.
    private static let forms = kindForms.merging(["order_key": "[0-9a-z]*[1-9a-z]", "ext": "[a-z0-9]+", "tag_name": "[^\\n]*\(tagNameRemains)[^\\n]*"]) { $1 }

    /// The SQL that is true when `value` has the type and size of `kind`; its written form is
    /// matched apart (`formValues`). The value is looked up once where the type alone decides
    /// (a lookup copies the value out of the record, and most fields are optional text).
    private static func shaped(_ kind: String, _ value: String) -> String {
        let optional = kind.hasSuffix("?") || kind == "text"
        let base = kind == "text" ? "string" : kind.hasSuffix("?") ? String(kind.dropLast()) : kind
        let type = ["time": "string", "hlc": "string", "id": "string", "digest": "string", "string": "string",
                    "count": "number", "finite": "number", "bool": "boolean"][base]!
        let typed = optional ? "coalesce(jsonb_typeof(\(value)), 'null') IN ('\(type)', 'null')" : "jsonb_typeof(\(value)) = '\(type)'"
        let size: String? = switch base {
        case "id": "length(\(value) #>> '{}') <= 64"
        case "digest": "length(\(value) #>> '{}') = 64"
        case "count": "length(\(value) #>> '{}') <= 19 AND (\(value) #>> '{}')::numeric <= 9223372036854775807"
        case "finite": "abs((\(value) #>> '{}')::numeric) < 1e308"
        default: nil
        }
        guard let size else { return typed }
        // A JSON null's text is SQL NULL: an optional value not given passes its size.
        return "(\(typed) AND coalesce(\(size), true))"
    }

    /// The SQL that is true when every one of `fields` of `item` has its type and size.
    private static func allShaped(_ item: String, _ fields: [(String, String)]) -> String { every(item, fields, shaped) }

    /// The values of `fields` of `item` that have a written form, each with its form.
    private static func formValues(_ item: String, _ fields: [(String, String)]) -> [(form: String, sql: String)] {
        fields.compactMap { field, kind in
            let form = kind.hasSuffix("?") ? String(kind.dropLast()) : kind
            return kindForms[form] == nil ? nil : (form, "\(item)->>'\(field)'")
        }
    }

    /// A sub-query, true when each of `values` (over the rows `from`) has its written form:
    /// per form, all rows' values in one string, a line each, matched once; and no value holds
    /// a newline, which would hide where it ends.
    private static func formsMatch(_ values: [(form: String, sql: String)], from: String) -> String {
        let byForm = Dictionary(grouping: values, by: \.form)
        let matches = byForm.keys.sorted().map { form in
            // Each value given starts a line; a value not given adds nothing.
            let lines = "concat(" + byForm[form]!.map { "E'\\n' || (\($0.sql))" }.joined(separator: ", ") + ")"
            return "coalesce(string_agg(\(lines), '') ~ '^(?:\\n\(forms[form]!))*$', true)"
        }
        let oneLineEach = "coalesce(bool_and(strpos(concat(\(values.map(\.sql).joined(separator: ", "))), E'\\n') = 0), true)"
        return "(SELECT " + (matches + [oneLineEach]).joined(separator: "\n                    AND ") + "\n                  FROM \(from))"
    }

    /// The SQL that is true when the entry record `rec` passes every check of
    /// `diary.unreadable_entry_field` but the written forms.
    private static func entryShaped(_ rec: String) -> String {
        func given(_ value: String) -> String { "diary.is_given(\(value))" }
        func isList(_ part: String) -> String {
            let list = "\(rec)->'\(part)'"
            return "(NOT \(given(list)) OR jsonb_typeof(\(list)) = 'array')"
        }
        let context = "\(rec)->'context'", weather = "\(rec)->'context'->'weather'"
        let reflection = "\(rec)->'reflection'", clocks = "\(rec)->'field_clocks'", orderKey = "\(rec)->'order_key'"
        var checks: [String] = [
            "jsonb_typeof(\(rec)) = 'object' AND \(rec)->'kind' = '\"entry\"'",
            allShaped(rec, Fields.identity),
            "EXISTS (SELECT 1 FROM diary.time_zone z WHERE z.name = \(rec)->>'time_zone')",
            "\(rec)->>'status' IN ('draft', 'chatting', 'saved', 'summary_failed') AND jsonb_typeof(\(rec)->'status') = 'string'",
            allShaped(rec, Fields.clock + Fields.moment),
        ]
        let weatherShaped: String = "(jsonb_typeof(\(weather)) IS DISTINCT FROM 'object' OR \(allShaped(weather, Fields.weather)))"
        checks.append("(NOT \(given(context)) OR (jsonb_typeof(\(context)) = 'object' AND \(allShaped(context, Fields.place))"
                      + "\n                 AND \(weatherShaped)))")
        checks.append(allShaped(rec, Fields.page))
        let reflectionParts: String = ["period", "from", "to"].map { " AND jsonb_typeof(\(reflection)->'\($0)') = 'string'" }.joined()
        checks.append("(NOT \(given(reflection)) OR (jsonb_typeof(\(reflection)) = 'object'\(reflectionParts) AND jsonb_typeof(\(reflection)->'cites') = 'array'"
                      + "\n                 AND NOT EXISTS (SELECT 1 FROM jsonb_array_elements(\(reflection)->'cites') c WHERE jsonb_typeof(c.value) <> 'string')))")
        let clockParts: String = Fields.clockParts.map { " AND \(shaped("hlc?", "\(clocks)->'\($0)'"))" }.joined()
        checks.append("(NOT \(given(clocks)) OR (jsonb_typeof(\(clocks)) = 'object'\(clockParts)))")
        checks.append("(NOT \(given(orderKey)) OR length(\(rec)->>'order_key') <= 64)")
        checks += itemShapes.map { isList($0.part) }
        return checks.joined(separator: "\n        AND ")
    }

    /// What each item of an entry's lists must be (but the written forms), as SQL on `c.value`.
    private static let itemShapes: [(part: String, test: String)] = [
        ("media", "c.value->>'kind' IN ('photo', 'video', 'audio', 'file') AND jsonb_typeof(c.value->'kind') = 'string'"
            + " AND \(allShaped("c.value", Fields.mediaFile)) AND length(c.value->>'ext') <= 8 AND \(allShaped("c.value", Fields.mediaItem))"),
        ("messages", "c.value->>'author' IN ('person', 'companion') AND jsonb_typeof(c.value->'author') = 'string'"
            + " AND \(allShaped("c.value", Fields.message))"),
        ("tag_links", "jsonb_typeof(c.value->'name') = 'string' AND \(allShaped("c.value", Fields.tagLink))"),
    ]

    /// Rows `c(value)`: every item of the list `part` of every record of `batch`, in one scan
    /// of the batch. A list that is null is no list (lax `[*]` would take the null for an
    /// item); one that is neither null nor a list is refused by the record's own checks.
    private static func batchItems(_ batch: String, _ part: String) -> String {
        #"jsonb_path_query(\#(batch), '$[*].record ? (@.\#(part).type() != "null").\#(part)[*]') c(value)"#
    }

    /// The SQL that is true when every item of every record of `batch` has its shape.
    private static func itemsShaped(_ batch: String) -> String {
        itemShapes.map { "NOT EXISTS (SELECT 1 FROM \(batchItems(batch, $0.part)) WHERE NOT coalesce(\($0.test), false))" }
            .joined(separator: "\n               AND ")
    }

    /// The SQL that is true when every value with a written form in the entry records of
    /// `batch` has it: the records' own fields, then each list of items.
    private static func entryFormsMatch(_ batch: String) -> String {
        let records = "diary.batch_items(\(batch)) p"
        let entry = formValues("p.rec", Fields.identity + Fields.clock + Fields.moment + Fields.page)
            + formValues("(p.rec->'context'->'weather')", Fields.weather)
            + formValues("(p.rec->'field_clocks')", Fields.clockParts.map { ($0, "hlc") }) + [("order_key", "p.rec->>'order_key'")]
        return [formsMatch(entry, from: records),
                formsMatch(formValues("c.value", Fields.mediaFile + Fields.mediaItem) + [("ext", "c.value->>'ext'")], from: batchItems(batch, "media")),
                formsMatch(formValues("c.value", Fields.message), from: batchItems(batch, "messages")),
                formsMatch(formValues("c.value", Fields.tagLink) + [("tag_name", "c.value->>'name'")], from: batchItems(batch, "tag_links"))]
            .joined(separator: "\n            AND ")
    }

    /// A tag name is read trimmed of spaces, quotes and leading '#': this pattern finds what remains.
    private static let tagNameRemains = #"[^[:space:]\u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000"''「」『』#＂＃＇]"#

    /// The fields of a record's parts and what each must be, in the order they are checked.
    private enum Fields {
        static let identity = [("id", "id"), ("time_zone", "string")]
        static let clock = [("hlc", "hlc"), ("device_id", "string"), ("deleted_at", "time?")]
        static let moment = [("created_at", "time"), ("updated_at", "time"), ("occurred_at", "time"), ("note", "text"),
                             ("transcript", "text"), ("analysis", "text"), ("analysis_provider", "text")]
        static let place = [("place", "text"), ("latitude", "finite?"), ("longitude", "finite?"), ("locality", "text"),
                            ("region", "text"), ("country", "text")]
        static let weather = [("description", "text"), ("temperature_c", "finite?"), ("humidity_percent", "finite?"),
                              ("pressure_hpa", "finite?"), ("wind_kph", "finite?"), ("wind_bearing", "finite?"),
                              ("wind_chill_c", "finite?"), ("visibility_km", "finite?"), ("moon_phase", "finite?"),
                              ("sunrise", "time?"), ("sunset", "time?"), ("code", "text"), ("service", "text")]
        static let page = [("persona", "string"), ("provider", "text"), ("title", "text"), ("summary", "text"),
                           ("summarized_at", "time?"), ("last_error", "text"), ("digest", "text"), ("digest_through", "text"),
                           ("edited_at", "time?"), ("starred", "bool?"), ("trashed_at", "time?"), ("order_key", "text"),
                           ("journal", "text")]
        static let mediaFile = [("sha256", "digest"), ("ext", "string")]
        static let mediaItem = [("thumbnail", "digest?"), ("id", "id"), ("position", "count")] + clock
            + [("mime", "string"), ("bytes", "count"), ("width", "count?"), ("height", "count?"), ("duration", "finite?"),
               ("taken_at", "time?"), ("anchor", "count?")]
        static let message = [("id", "id"), ("persona", "string"), ("provider", "text"), ("text", "string"),
                              ("created_at", "time")] + clock
        static let tagLink = [("position", "count"), ("created_at", "time"), ("label", "text")] + clock
        /// The parts of an entry with a clock of their own in `field_clocks`.
        static let clockParts = ["content", "star", "trash", "order"]
    }
}
