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

-- The triggers are made only where missing, never dropped and made again: on Supabase the
-- operator's role (postgres) may create a trigger on auth.users but not drop one, since
-- supabase_auth_admin owns the table, so a DROP would fail every run after the first. The
-- functions they call are replaced above, which is all an upgrade needs.
DO $supabase_auth$
BEGIN
    IF to_regclass('auth.users') IS NOT NULL THEN
        IF NOT EXISTS (SELECT 1 FROM pg_catalog.pg_trigger t WHERE t.tgrelid = 'auth.users'::regclass AND t.tgname = 'diary_account') THEN
            CREATE TRIGGER diary_account AFTER INSERT ON auth.users
                FOR EACH ROW EXECUTE FUNCTION diary.account_for_auth_user();
        END IF;
        IF NOT EXISTS (SELECT 1 FROM pg_catalog.pg_trigger t WHERE t.tgrelid = 'auth.users'::regclass AND t.tgname = 'diary_forget') THEN
            CREATE TRIGGER diary_forget AFTER DELETE ON auth.users
                FOR EACH ROW EXECUTE FUNCTION diary.forget_auth_user();
        END IF;
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

