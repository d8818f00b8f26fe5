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
                              -- A sealed diary's key envelope (null in clear): what a new device opens with the passphrase.
                              'envelope', (SELECT k.envelope FROM diary.key_envelope k WHERE k.user_id = uid),
                              -- True while an account that synced in clear is being sealed (diary-sync encrypt).
                              'sealing', coalesce((SELECT k.sealing FROM diary.key_envelope k WHERE k.user_id = uid), false),
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
                             'conflict', 'push_receipt', 'companion_use', 'key_envelope'] LOOP
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

