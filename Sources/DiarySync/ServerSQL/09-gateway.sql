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

