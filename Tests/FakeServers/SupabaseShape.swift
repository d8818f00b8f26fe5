/// What a Supabase project has before our script runs, as much of it as the script and the
/// client touch, written after Supabase's own public migrations: the roles of supabase/postgres'
/// initial schema (anon, authenticated and service_role are NOLOGIN NOINHERIT), auth.users and
/// auth.uid() as supabase/auth defines them (the claim `sub` of the request's JWT), and
/// storage.buckets, storage.objects, storage.foldername() and the protect_delete trigger of
/// supabase/storage (a DELETE in SQL is refused, as it would orphan the stored bytes); and the
/// tables Auth itself keeps, for FakeSupabase: users' `email_confirmed_at`, sessions, refresh
/// tokens and one-time codes; and the operator's role postgres, no superuser. No live Supabase project is used. Plain SQL, applied once by a
/// superuser to a fresh database before the diary's server script.
public let supabaseShapeSQL = #"""
DO $roles$
BEGIN
    IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'anon') THEN CREATE ROLE anon NOLOGIN NOINHERIT; END IF;
    IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'authenticated') THEN CREATE ROLE authenticated NOLOGIN NOINHERIT; END IF;
    IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'service_role') THEN CREATE ROLE service_role NOLOGIN NOINHERIT BYPASSRLS; END IF;
    IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'supabase_auth_admin') THEN CREATE ROLE supabase_auth_admin NOLOGIN NOINHERIT CREATEROLE; END IF;
    IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'supabase_storage_admin') THEN CREATE ROLE supabase_storage_admin NOLOGIN NOINHERIT CREATEROLE; END IF;
END
$roles$;
CREATE SCHEMA auth AUTHORIZATION supabase_auth_admin;
GRANT USAGE ON SCHEMA auth TO anon, authenticated, service_role;
CREATE TABLE auth.users (
    instance_id uuid, id uuid PRIMARY KEY, aud varchar(255), role varchar(255), email varchar(255) UNIQUE,
    encrypted_password varchar(255), created_at timestamptz DEFAULT now(), updated_at timestamptz DEFAULT now(),
    raw_app_meta_data jsonb, raw_user_meta_data jsonb
);
ALTER TABLE auth.users OWNER TO supabase_auth_admin;
CREATE FUNCTION auth.uid() RETURNS uuid LANGUAGE sql STABLE AS $$
    SELECT coalesce(nullif(current_setting('request.jwt.claim.sub', true), ''),
                    (nullif(current_setting('request.jwt.claims', true), '')::jsonb ->> 'sub'))::uuid
$$;
ALTER FUNCTION auth.uid() OWNER TO supabase_auth_admin;
CREATE SCHEMA storage AUTHORIZATION supabase_storage_admin;
GRANT USAGE ON SCHEMA storage TO anon, authenticated, service_role;
CREATE TABLE storage.buckets (
    id text PRIMARY KEY, name text NOT NULL UNIQUE, owner uuid, public boolean DEFAULT false,
    created_at timestamptz DEFAULT now(), updated_at timestamptz DEFAULT now()
);
CREATE TABLE storage.objects (
    id uuid PRIMARY KEY DEFAULT gen_random_uuid(), bucket_id text REFERENCES storage.buckets (id), name text,
    owner uuid, created_at timestamptz DEFAULT now(), updated_at timestamptz DEFAULT now(),
    last_accessed_at timestamptz DEFAULT now(), metadata jsonb, UNIQUE (bucket_id, name)
);
ALTER TABLE storage.buckets OWNER TO supabase_storage_admin;
ALTER TABLE storage.objects OWNER TO supabase_storage_admin;
ALTER TABLE storage.buckets ENABLE ROW LEVEL SECURITY;
ALTER TABLE storage.objects ENABLE ROW LEVEL SECURITY;
GRANT ALL ON storage.buckets, storage.objects TO anon, authenticated, service_role;
CREATE FUNCTION storage.foldername(name text) RETURNS text[] LANGUAGE plpgsql AS $$
DECLARE
    _parts text[];
BEGIN
    SELECT string_to_array(name, '/') INTO _parts;
    RETURN _parts[1:array_length(_parts, 1) - 1];
END
$$;
CREATE FUNCTION storage.protect_delete() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF coalesce(current_setting('storage.allow_delete_query', true), 'false') <> 'true' THEN
        RAISE EXCEPTION 'Direct deletion from storage tables is not allowed. Use the Storage API instead.' USING ERRCODE = '42501';
    END IF;
    RETURN NULL;
END
$$;
CREATE TRIGGER protect_objects_delete BEFORE DELETE ON storage.objects FOR EACH STATEMENT EXECUTE FUNCTION storage.protect_delete();
-- What Supabase Auth keeps besides users, as much as FakeSupabase uses, after the migrations of supabase/auth:
-- 00_init_auth_schema (refresh_tokens), 20210710035447_alter_users (the column
-- renamed email_confirmed_at), 20210927181326_add_refresh_token_parent (parent, token unique),
-- 20220811173540_add_sessions_table (sessions, refresh_tokens.session_id cascading),
-- 20221021073300_add_refresh_tokens_session_id_revoked_index and
-- 20240427152123_add_one_time_tokens_table (token_type is an enum there, text here).
-- All owned by supabase_auth_admin, the role Auth connects as.
ALTER TABLE auth.users ADD COLUMN email_confirmed_at timestamptz;
CREATE TABLE auth.sessions (
    id uuid PRIMARY KEY, user_id uuid NOT NULL REFERENCES auth.users (id) ON DELETE CASCADE,
    created_at timestamptz DEFAULT now(), updated_at timestamptz DEFAULT now()
);
CREATE TABLE auth.refresh_tokens (
    id bigserial PRIMARY KEY, token varchar(255) UNIQUE, user_id varchar(255), revoked bool, parent varchar(255),
    session_id uuid REFERENCES auth.sessions (id) ON DELETE CASCADE,
    created_at timestamptz DEFAULT now(), updated_at timestamptz DEFAULT now()
);
CREATE INDEX refresh_tokens_session_id_revoked_idx ON auth.refresh_tokens (session_id, revoked);
CREATE TABLE auth.one_time_tokens (
    id uuid PRIMARY KEY, user_id uuid NOT NULL REFERENCES auth.users (id) ON DELETE CASCADE,
    token_type text NOT NULL, token_hash text NOT NULL CHECK (char_length(token_hash) > 0), relates_to text NOT NULL,
    created_at timestamptz DEFAULT now(), UNIQUE (user_id, token_type)
);
ALTER TABLE auth.sessions OWNER TO supabase_auth_admin;
ALTER TABLE auth.refresh_tokens OWNER TO supabase_auth_admin;
ALTER TABLE auth.one_time_tokens OWNER TO supabase_auth_admin;
-- The operator's own role, postgres, as the SQL editor and the connection string log in: no
-- superuser, owning neither auth.users nor storage.objects, but allowed to use them, and so
-- to create a trigger on auth.users, though not to drop one (supabase/supabase#3445).
DO $operator$
BEGIN
    IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'postgres') THEN
        CREATE ROLE postgres LOGIN NOSUPERUSER CREATEROLE CREATEDB BYPASSRLS;
    END IF;
    EXECUTE format('GRANT CREATE ON DATABASE %I TO postgres', current_database());
END
$operator$;
GRANT USAGE ON SCHEMA auth, storage TO postgres;
GRANT ALL ON auth.users TO postgres;
GRANT ALL ON storage.buckets, storage.objects TO postgres;
GRANT anon, authenticated, service_role TO postgres;
"""#
