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
                             'media_chunk', 'media_object', 'companion_use', 'key_envelope', 'account'] LOOP
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
    'version', 3,
    'zh-Hant', $consent$開啟同步後，這台伺服器會存放你日記的一份副本，讓你的每台裝置都能看到同一本日記：你寫下的每一頁、你和「InnerBloom 夥伴」的對話、照片和其他媒體、標籤，以及你的設定。新帳號預設會加密：這些內容在離開你的裝置之前就已封好，伺服器只存放它讀不懂的資料，但仍看得到你何時寫、大約有幾篇、多大。若你選擇不加密（--no-seal），或你的帳號在加密推出前就已開始同步，經營這台伺服器的人就能讀到內容，所以請只在你信任對方的時候這麼做；之後再加密（diary-sync encrypt）時，伺服器先前做的備份裡仍會留著未加密的日記。你可以隨時停止同步；刪除帳號會把你在這台伺服器上的所有資料一併移除，你自己裝置上的日記則會留著。伺服器備份裡的副本，可能要再過一段時間才會跟著消失。$consent$,
    'en', $consent$When you turn on sync, this server keeps a copy of your diary so that all your devices show the same one: every page you write, your conversations with the InnerBloom companion, your photos and other media, your tags and your settings. A new account is sealed by default: all of it is sealed before it leaves your device, and the server keeps only what it cannot read, though it still sees when you write and roughly how many pages there are and how big. If you choose not to seal (--no-seal), or your account synced before sealing existed, whoever runs this server can read it; then please turn sync on only if you trust them, and know that sealing it later (diary-sync encrypt) cannot reach the server's older backups, which still hold it in clear. You can stop syncing at any time. Deleting your account removes everything of yours from this server, while the diary on your own devices stays with you. Copies in the server's backups may take a little longer to disappear.$consent$
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

