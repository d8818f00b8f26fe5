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
        CONTINUE WHEN who <> 'PUBLIC' AND to_regrole(who) IS NULL;
        target := CASE who WHEN 'PUBLIC' THEN who ELSE quote_ident(who) END;
        EXECUTE 'REVOKE ALL ON SCHEMA diary FROM ' || target;
        EXECUTE 'REVOKE ALL ON ALL TABLES IN SCHEMA diary FROM ' || target;
        EXECUTE 'REVOKE ALL ON ALL SEQUENCES IN SCHEMA diary FROM ' || target;
        EXECUTE 'REVOKE ALL ON ALL FUNCTIONS IN SCHEMA diary FROM ' || target;
    END LOOP;
    FOREACH who IN ARRAY ARRAY['diary_user', 'authenticated'] LOOP
        CONTINUE WHEN to_regrole(who) IS NULL;
        EXECUTE format('GRANT USAGE ON SCHEMA diary TO %I', who);
        EXECUTE format('GRANT SELECT, INSERT, UPDATE, DELETE ON diary.entry, diary.media, diary.message, diary.entry_tag, '
                       'diary.setting, diary.conflict, diary.push_receipt, diary.media_chunk, diary.media_object TO %I', who);
        -- A sealed diary's envelope is read here and written only through put_envelope().
        EXECUTE format('GRANT SELECT ON diary.config, diary.time_zone, diary.companion_use, diary.key_envelope TO %I', who);
        -- People read their account; its counter moves only through lock_counter() and advance_counter().
        EXECUTE format('GRANT SELECT ON diary.account TO %I', who);
        EXECUTE format('GRANT EXECUTE ON FUNCTION
            diary.my_account(), diary.account_id(), diary.lock_counter(), diary.advance_counter(bigint), diary.push(jsonb, text), diary.batch_items(jsonb), diary.pull(bigint, int, text),
            diary.entry_matches(uuid, jsonb), diary.missing_chunks(text, int), diary.finish_media(text, bigint, int, text),
            diary.present_media(text[]), diary.register_object(text, bigint, text), diary.media_objects(text[]), diary.my_objects(), diary.media_space(),
            diary.whoami(), diary.delete_account(), diary.use_companion(text, text, text),
            diary.record_clock_ms(jsonb), diary.keep_conflict(uuid, text, text, text, text, jsonb),
            diary.apply_entry(uuid, jsonb, bigint), diary.apply_setting(uuid, jsonb, bigint),
            diary.part_clock(jsonb, text), diary.merge_parts(jsonb, jsonb), diary.same_fields(jsonb, jsonb),
            diary.batch_readable(jsonb), diary.batch_clock_ms(jsonb), diary.hlc_ms(text), diary.unreadable_entry_field(jsonb), diary.unreadable_field(jsonb, text, text[]), diary.is_time(jsonb),
            diary.is_count(jsonb), diary.is_finite(jsonb), diary.is_given(jsonb), diary.is_id(jsonb), diary.is_hlc(jsonb),
            diary.media_key(jsonb), diary.put_envelope(jsonb), diary.is_box(jsonb, int), diary.is_keyed_name(jsonb),
            diary.is_sealed_clock(jsonb), diary.unsealed_entry_field(jsonb, int), diary.unsealed_setting_field(jsonb, int),
            diary.merge_sealed_parts(jsonb, jsonb), diary.sealed_batch_newest(jsonb, int),
            diary.sealed_clear_fields(text), diary.entry_record(uuid, text, jsonb), diary.setting_record(diary.setting),
            diary.envelope_items_keys(jsonb), diary.begin_sealing(jsonb), diary.clear_records(text, int), diary.reseal(jsonb),
            diary.unreferenced_objects(), diary.finish_sealing()
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
    -- Without a superuser, REVOKE on the catalog only warns, object by object.
    IF current_setting('is_superuser') <> 'on' THEN
        RAISE NOTICE 'not a superuser: the statistics views, relation sizes and role list stay readable to every login';
        RETURN;
    END IF;
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
INSERT INTO diary.schema_migration (version, name, applied_at) VALUES (11, 'diary-v11-sealing-clear-accounts', now())
    ON CONFLICT DO NOTHING;
