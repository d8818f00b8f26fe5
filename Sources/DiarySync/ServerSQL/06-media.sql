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

