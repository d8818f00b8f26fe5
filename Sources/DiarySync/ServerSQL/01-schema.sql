-- InnerBloom Diary: the server side of sync, schema version 11.
-- Everything lives in schema "diary" (plus auth.uid() on plain Postgres). Every statement
-- is idempotent: re-running the script changes nothing and keeps an operator's edits to
-- diary.config. Apply it inside one transaction (diary-sync server-init does).

-- Stop before touching anything when the server already runs a newer schema than this
-- script knows: an older build must not "repair" it back.
DO $guard$
BEGIN
    IF to_regclass('diary.schema_migration') IS NOT NULL THEN
        -- Nested IF: this statement is only planned once the table is known to exist.
        IF EXISTS (SELECT 1 FROM diary.schema_migration WHERE version > 11) THEN
            RAISE EXCEPTION 'the diary schema on this server (version %) is newer than this script (version 11)',
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
    -- to_regrole and pg_has_role, not pg_roles: a superuser's run takes the role list from
    -- PUBLIC (see "What the catalog tells"), and the operator's next run may be no superuser.
    IF to_regrole('diary_user') IS NULL THEN
        CREATE ROLE diary_user NOLOGIN;
    END IF;
    -- Version 6 and before made authenticated a member; the grants below replace that.
    IF to_regrole('authenticated') IS NOT NULL AND pg_catalog.pg_has_role('authenticated', 'diary_user', 'MEMBER') THEN
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
-- A sealed entry's doc is mostly base64, which pglz tries and fails to compress on every
-- write (a seventh of a sealed push's server time); lz4 gives up at once and decompresses
-- faster for pulls. Left as it is where the server was built without lz4.
DO $lz4$
BEGIN
    ALTER TABLE diary.entry ALTER COLUMN doc SET COMPRESSION lz4;
EXCEPTION WHEN others THEN
    RAISE NOTICE 'lz4 is not available on this server: entry documents keep the default compression';
END
$lz4$;
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

-- ---------------------------------------------------------------------------------------
-- A sealed diary (version 10): its records arrive sealed by the person's devices, so the
-- server keeps only what it needs to merge them (ids, links between ids, clocks, device
-- ids, tombstones, items-key numbers, padded sizes). The rest of the rules are in
-- 10-sealed.sql.

-- The keys of a sealed diary as only its devices can open them: the diary key wrapped by
-- the passphrase (Argon2id, its cost beside it) and by the recovery key, and the items keys
-- wrapped by the diary key. A row here makes the account sealed: from then on its pushes
-- must be sealed. items_keys is the highest items-key number a sealed value may name.
CREATE TABLE IF NOT EXISTS diary.key_envelope (
    user_id    uuid PRIMARY KEY REFERENCES diary.account (user_id) ON DELETE CASCADE,
    key_id     text NOT NULL,
    items_keys int NOT NULL CHECK (items_keys >= 1),
    envelope   jsonb NOT NULL,
    updated_at timestamptz NOT NULL DEFAULT now()
);
-- A sealed entry's times are inside its seal; a sealed setting's value is its seal.
ALTER TABLE diary.entry ALTER COLUMN created_at DROP NOT NULL;
ALTER TABLE diary.entry ALTER COLUMN occurred_at DROP NOT NULL;
ALTER TABLE diary.setting ALTER COLUMN updated_at DROP NOT NULL;
ALTER TABLE diary.setting ADD COLUMN IF NOT EXISTS sealed boolean NOT NULL DEFAULT false;
-- Version 11: an account that synced in clear being sealed (diary-sync encrypt): its
-- envelope is stored, and until every clear row is replaced by its sealed form no device
-- may push (a clear push would add what is being removed; a sealed one could meet a row
-- half replaced).
ALTER TABLE diary.key_envelope ADD COLUMN IF NOT EXISTS sealing boolean NOT NULL DEFAULT false;

CREATE TABLE IF NOT EXISTS diary.schema_migration (
    version    int PRIMARY KEY,
    name       text,
    applied_at timestamptz DEFAULT now()
);

