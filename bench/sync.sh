#!/usr/bin/env bash
# Sync through Postgres (issue 6), on a throwaway Postgres 15 cluster on loopback with
# fsync on (scripts/pg-cluster.sh, PG_DURABLE=1), stopped and removed on exit:
#
#   1. push and pull: device A is filled by diary-corpus with N entries (default 10,000,
#      no media), so every entry waits in its outbox; `diary-sync push` sends them, then
#      `diary-sync pull` takes them on a fresh device B. Wall seconds and entries/s, the
#      median of RUNS runs, each run with its own new user (a re-push to the same user
#      would only meet receipts) and a fresh copy of the corpus; rows on the server
#      (entries, messages, tag links) per user. Then A's next full sync, once: A has not
#      pulled yet; the server does not send a device back what its own pushes left as
#      they are, so this sync should move nothing and cost about one no-op round trip.
#      Each run then does the same for a sealed account (push-sealed, pull-sealed: the
#      account sealed at its first login, every record sealed before it leaves A and
#      opened on B), so the two compare within one run.
#  1b. the same push and pull (RUNS runs, new devices and a new person each) through a
#      Supabase project's APIs: `diary-sync signup --supabase` / `login --supabase`, then
#      push and pull over HTTP. No live project is reachable from here; the tests' stand-in
#      (bench/Sources/supabase-standin: Auth, PostgREST's RPC and Storage over database
#      diary_sb of this cluster, shaped like a Supabase project) runs on this machine, so
#      its work shares the two cores with the client's and Postgres's.
#   2. a sync with nothing to do: hyperfine of the whole `diary-sync` process on the
#      up-to-date device B (beside `diary-sync status --json`, which opens the diary and
#      reads the credentials but connects nowhere: the local floor); the statements that
#      one such sync sends, counted twice: pg_stat_statements (top level) and the server
#      log with `ALTER ROLE user SET log_statement = 'all'` for that one run.
#   3. propagation in watch: A and B both run `diary-sync watch --json`; CHANGES times
#      (default 200) a page is written on A (`diary-new photo.jpg --text "change N"`, one
#      small JPEG made with ffmpeg) and the clock runs until B's watch prints a line with
#      "pulled" >= 1 (bench/sync-report.py watch, reading B's stdout as it comes).
#      Median, p95 and max, from before diary-new starts and from its exit.
#   4. pull latency on a big server: USERS users (default 100,000) x 20 entries filled
#      straight into diary.account and diary.entry with SQL as the admin (USERS-1
#      synthetic accounts, plus one real login made with `diary-sync user-add`; the docs
#      are device A's real entry docs from step 1, each user's 20 rows interleaved with
#      everyone else's in the heap as on a server that has lived; the real user's 20
#      entries also get their messages and tag links), then VACUUM ANALYZE and a
#      CHECKPOINT (all timed). Then: `diary-sync pull` of those 20 entries on a fresh
#      device (hyperfine, PULL_RUNS runs, a new device before each), a no-op sync there,
#      `SELECT diary.pull(0, 200)` as that user in psql (\timing, PULL_RUNS times),
#      and the plans of the statements inside diary.pull as they really ran as that user
#      (auto_explain with ANALYZE and BUFFERS, one call).
#
# Usage: bench/sync.sh [ENTRIES] [USERS]          e.g. bench/sync.sh 10000 100000
#   RUNS=3          push/pull runs (median)
#   CHANGES=200     pages written on A in the watch test
#   NOOP_RUNS=30    hyperfine runs of the sync with nothing to do (3 warm-ups)
#   PULL_RUNS=10    runs of the pull on the big server
#   PER_USER=20     entries per user on the big server
#   SKIP_BIG=1      leave out step 4 (the 2,000,000-row fill is most of the time)
#   SUPABASE=0      leave out step 1b
#   TAG=name        a suffix for the output folder (bench/out/sync-TAG)
#   KEEP=1          keep the devices (bench/out/sync/dev) at the end
#
# Files: bench/out/sync[-TAG]/{results.md,info.tsv,runs.tsv,rows.tsv,fill.tsv,noop.json,
# noop-statements.{tsv,log},watch.tsv,watch-{a,b}.jsonl,big-*.json,big-psql.txt,
# auto-explain.txt,checks.txt,stderr.log}. Load averages are noted beside every step.
# The main package is built in release with the Swift runtime linked in, each binary on
# its own (the code is what is installed), in its own scratch folder (.build-bench), shared
# with bench/archive.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
root="$PWD"
entries="${1:-10000}"
users="${2:-100000}"
runs="${RUNS:-3}"
changes="${CHANGES:-200}"
noop_runs="${NOOP_RUNS:-30}"
pull_runs="${PULL_RUNS:-10}"
per_user="${PER_USER:-20}"
started=$(date +%s)

need() { command -v "$1" >/dev/null || apt-get install -y -qq "$2" >/dev/null; }
need sqlite3 sqlite3
need hyperfine hyperfine
need ffmpeg ffmpeg
need psql postgresql-client
[ -x /usr/bin/time ] || apt-get install -y -qq time >/dev/null
if [ "$entries" -lt "$per_user" ]; then echo "ENTRIES must be at least PER_USER ($per_user)" >&2; exit 64; fi

. "$root/bench/build.sh"
retry build_main --product diary-sync >&2
retry build_main --product diary-new >&2
bin="$(build_main --show-bin-path)"
sync_bin="$bin/diary-sync"
version="$(git rev-parse --short HEAD)$(git diff --quiet HEAD -- Sources Package.swift || echo ' + uncommitted changes in Sources/')"

work="$root/bench/out/sync${TAG:+-$TAG}"
pgdir="$work/pg"
mkdir -p "$work"
rm -rf "$work/dev" "$work/corpus" "$work/users"
mkdir -p "$work/dev" "$work/users"
export DIARY_CONFIG="$work/no-config.toml" LANG=C.UTF-8 NO_COLOR=1
: >"$work/stderr.log"
: >"$work/checks.txt"
load() { cut -d' ' -f1-3 /proc/loadavg; }
say() { printf '[%4ds] %s\n' $(($(date +%s) - started)) "$*" >&2; }
now() { date +%s.%N; }
elapsed() { echo "$(now) - $1" | bc; } # seconds since a `now`

# The cluster, stopped and removed whatever happens (a leftover from a killed run first).
# The watch driver notes the pids of the two `diary-sync watch` it starts in watch.pids.
cleanup() {
    local status=$? pid
    if [ -f "$work/watch.pids" ]; then
        for pid in $(cat "$work/watch.pids"); do kill "$pid" 2>/dev/null || true; done
        rm -f "$work/watch.pids"
    fi
    scripts/pg-cluster.sh stop "$pgdir" >/dev/null 2>&1 || echo "could not stop the cluster in $pgdir" >&2
    if [ "${KEEP:-0}" != 1 ]; then rm -rf "$work/dev" "$work/corpus" "$work/users"; fi # users: passwords of a cluster now gone
    exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
[ -e "$pgdir" ] && scripts/pg-cluster.sh stop "$pgdir"
say "starting Postgres 15 (fsync on) in $pgdir"
eval "$(PG_DURABLE=1 scripts/pg-cluster.sh start "$pgdir")"
port=$(cat "$pgdir/port")
admin_url="$DIARY_TEST_PG_URL"
adm() { psql -X -q -At -v ON_ERROR_STOP=1 -d "$admin_url" "$@"; }
# pg_stat_statements counts the statements of step 2; auto_explain shows the plans inside
# diary.pull in step 4 (off until a role asks for it, so it costs nothing before).
adm -c "ALTER SYSTEM SET shared_preload_libraries = pg_stat_statements, auto_explain"
scripts/pg-cluster.sh restart "$pgdir"
adm -c "CREATE EXTENSION IF NOT EXISTS pg_stat_statements"

start=$(now)
"$sync_bin" server-init --url "$admin_url" >>"$work/stderr.log" 2>&1
server_init_s=$(elapsed "$start")
if [ -z "$(adm -c "SELECT to_regprocedure('diary.pull(bigint,integer,text)')")" ]; then
    echo "the server has no diary.pull after server-init: is Sources/DiarySync/ServerSQL in this build?" >&2
    exit 1
fi

{
    printf 'entries\t%s\n' "$entries"
    printf 'users\t%s\n' "$users"
    printf 'per_user\t%s\n' "$per_user"
    printf 'runs\t%s\n' "$runs"
    printf 'changes\t%s\n' "$changes"
    printf 'noop_runs\t%s\n' "$noop_runs"
    printf 'pull_runs\t%s\n' "$pull_runs"
    printf 'version\t%s\n' "$version"
    printf 'postgres\t%s\n' "$(adm -c "SELECT version()" | cut -d, -f1)"
    printf 'pg_settings\t%s\n' "$(adm -c "SELECT string_agg(name || '=' || setting || coalesce(unit, ''), ' ' ORDER BY name) FROM pg_settings
        WHERE name IN ('fsync', 'synchronous_commit', 'full_page_writes', 'shared_buffers', 'max_wal_size', 'work_mem')")"
    printf 'server_init_s\t%.3f\n' "$server_init_s"
    printf 'cpus\t%s\n' "$(nproc)"
    printf 'memory\t%s\n' "$(free -g | awk '/^Mem:/ { print $2 " GiB" }')"
    printf 'swift\t%s\n' "$(swift --version 2>/dev/null | head -1)"
    printf 'date\t%s\n' "$(date -Is)"
    printf 'start_load\t%s\n' "$(load)"
} >"$work/info.tsv"

# Devices: each its own DIARY_HOME and XDG_STATE_HOME (where the credentials live).
dev() { # NAME command...
    local name=$1; shift
    DIARY_HOME="$work/dev/$name/home" XDG_STATE_HOME="$work/dev/$name/state" "$@"
}
json_field() { python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])' "$1" "$2"; }
user_add() { # NAME: the new login's {"password","user_id"} in users/NAME.json
    "$sync_bin" user-add "$1" --url "$admin_url" --json >"$work/users/$1.json" 2>>"$work/stderr.log"
}
# The diary passphrase of the sealed runs (a file, as scripts give it).
printf 'a bench passphrase\n' >"$work/passphrase"
login() { # DEVICE USER [sealed] (a fresh device when it has no folder yet); in clear unless "sealed"
    mkdir -p "$work/dev/$1/home" "$work/dev/$1/state"
    local seal=(--no-seal)
    [ "${3:-}" = sealed ] && seal=(--passphrase-file "$work/passphrase")
    json_field "$work/users/$2.json" password \
        | dev "$1" "$sync_bin" login --url "postgres://$2@127.0.0.1:$port/diary_test" --password-stdin --accept-consent \
            "${seal[@]}" >>"$work/stderr.log" 2>&1
}
# The device's pull cursor in its diary (sync_state), for the workaround in step 1.
count_entries() { sqlite3 -readonly "$work/dev/$1/home/diary.sqlite" "SELECT count(*) FROM entry"; }

# measure STEP RUN DEVICE command...: one timed run, a line in runs.tsv with the JSON line
# diary-sync printed.
runs_tsv="$work/runs.tsv"
printf 'step\trun\tseconds\tmax_rss_kb\tuser_s\tsys_s\tload1\tstatus\tjson\n' >"$runs_tsv"
measure() {
    local step=$1 run=$2 device=$3; shift 3
    local load1 status=ok e m u s line
    sync
    load1=$(cut -d' ' -f1 /proc/loadavg)
    dev "$device" /usr/bin/time -f '%e %M %U %S' -o "$work/time.txt" "$@" >"$work/out.txt" 2>>"$work/stderr.log" || status=failed
    read -r e m u s < <(tail -1 "$work/time.txt")
    line=$(tail -1 "$work/out.txt" | tr -d '\t')
    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$step" "$run" "$e" "$m" "$u" "$s" "$load1" "$status" "$line" >>"$runs_tsv"
    say "$(printf '%-8s run %s: %7.2f s  %7d KB  (load %s) %s%s' "$step" "$run" "$e" "$m" "$load1" "$line" \
        "$([ "$status" = ok ] || echo '  FAILED')")"
    rm -f "$work/time.txt" "$work/out.txt"
}

# The corpus, once; every run pushes a copy of it.
say "generating $entries entries (diary-corpus, seed 42, no media)"
start=$(now)
"$corpus" "$work/corpus" "$entries" --seed 42 2>"$work/fill-corpus.txt" || { cat "$work/fill-corpus.txt" >&2; exit 1; }
sqlite3 "$work/corpus/diary.sqlite" "PRAGMA wal_checkpoint(TRUNCATE);" >/dev/null
printf 'corpus_s\t%.2f\n' "$(elapsed "$start")" >>"$work/info.tsv"
printf 'corpus_outbox\t%s\n' "$(sqlite3 -readonly "$work/corpus/diary.sqlite" "SELECT count(*) FROM outbox")" >>"$work/info.tsv"

# --- 1. push and pull -------------------------------------------------------------------
rows_tsv="$work/rows.tsv"
printf 'user\tentries\tmessages\ttag_links\tmedia\tsettings\taccount_seq\n' >"$rows_tsv"
server_rows() { # USER: a line in rows.tsv
    local uid
    uid=$(json_field "$work/users/$1.json" user_id)
    adm -F $'\t' -c "SELECT '$1',
        (SELECT count(*) FROM diary.entry WHERE user_id = '$uid'),
        (SELECT count(*) FROM diary.message WHERE user_id = '$uid'),
        (SELECT count(*) FROM diary.entry_tag WHERE user_id = '$uid'),
        (SELECT count(*) FROM diary.media WHERE user_id = '$uid'),
        (SELECT count(*) FROM diary.setting WHERE user_id = '$uid'),
        (SELECT server_seq FROM diary.account WHERE user_id = '$uid')" >>"$rows_tsv"
}
for run in $(seq 1 "$runs"); do
    user="bench_r$run"
    user_add "$user"
    mkdir -p "$work/dev/a$run"
    cp -a "$work/corpus" "$work/dev/a$run/home"
    login "a$run" "$user"
    measure push "$run" "a$run" "$sync_bin" push --json
    server_rows "$user"
    login "b$run" "$user"
    measure pull "$run" "b$run" "$sync_bin" pull --json
    echo "run $run: A has $(count_entries "a$run") entries, B pulled into $(count_entries "b$run")" >>"$work/checks.txt"
    # The same diary sealed (a new account, sealed at its first login), in the same run so
    # that the two compare on the same machine state.
    user_add "bench_s$run"
    mkdir -p "$work/dev/sealed-a$run"
    cp -a "$work/corpus" "$work/dev/sealed-a$run/home"
    login "sealed-a$run" "bench_s$run" sealed
    measure push-sealed "$run" "sealed-a$run" "$sync_bin" push --json
    login "sealed-b$run" "bench_s$run" sealed
    measure pull-sealed "$run" "sealed-b$run" "$sync_bin" pull --json
    echo "sealed run $run: A has $(count_entries "sealed-a$run") entries, B pulled into $(count_entries "sealed-b$run")" >>"$work/checks.txt"
    rm -rf "$work/dev/sealed-a$run" "$work/dev/sealed-b$run"
    # Only the last run's devices go on to the next steps.
    if [ "$run" -lt "$runs" ]; then rm -rf "$work/dev/a$run" "$work/dev/b$run"; fi
done
# --- 1b. the same through a Supabase project's APIs --------------------------------------
# No live project is reachable from here: the tests' stand-in (bench supabase-standin: Auth,
# PostgREST's RPC and Storage over a database of this cluster shaped like a Supabase project)
# runs on this machine beside the client and Postgres, and its own work counts in the times.
if [ "${SUPABASE:-1}" != 0 ]; then
    say "push and pull through the Supabase stand-in, $runs runs"
    # Step 1's leftovers (vacuuming the rows its pushes wrote, their dirty pages) are done
    # first, not during these runs.
    adm -c "VACUUM ANALYZE" -c "CHECKPOINT"
    retry swift build -c release --package-path bench --product supabase-standin >&2
    sb_url="${admin_url%/*}/diary_sb"
    adm -c "DROP DATABASE IF EXISTS diary_sb" -c "CREATE DATABASE diary_sb"
    supabase_shape_sql | psql -X -q -v ON_ERROR_STOP=1 -d "$sb_url" >/dev/null
    "$sync_bin" server-init --url "$sb_url" >>"$work/stderr.log" 2>&1
    # The stand-in serves until its standard input closes (fd 8 here, closed on exit).
    rm -f "$work/standin.in" && mkfifo "$work/standin.in"
    "$(build_bench --show-bin-path)/supabase-standin" "$sb_url" <"$work/standin.in" >"$work/standin.json" 2>>"$work/stderr.log" &
    standin=$!
    exec 8>"$work/standin.in"
    for _ in $(seq 100); do [ -s "$work/standin.json" ] && break; sleep 0.1; done
    sb_project=$(json_field "$work/standin.json" url)
    sb_key=$(json_field "$work/standin.json" anon_key)
    for run in $(seq 1 "$runs"); do
        mkdir -p "$work/dev/sa$run/state" "$work/dev/sb$run/home" "$work/dev/sb$run/state"
        cp -a "$work/corpus" "$work/dev/sa$run/home"
        echo "bench-password-$run" | dev "sa$run" "$sync_bin" signup --supabase "$sb_project" --anon-key "$sb_key" \
            --email "bench$run@example.com" --password-stdin --accept-consent --no-seal >>"$work/stderr.log" 2>&1
        measure push-supabase "$run" "sa$run" "$sync_bin" push --json
        echo "bench-password-$run" | dev "sb$run" "$sync_bin" login --supabase "$sb_project" --anon-key "$sb_key" \
            --email "bench$run@example.com" --password-stdin --accept-consent --no-seal >>"$work/stderr.log" 2>&1
        measure pull-supabase "$run" "sb$run" "$sync_bin" pull --json
        echo "Supabase run $run: A has $(count_entries "sa$run") entries, B pulled into $(count_entries "sb$run")" >>"$work/checks.txt"
        rm -rf "$work/dev/sa$run" "$work/dev/sb$run"
    done
    exec 8>&-
    wait "$standin"
    rm -f "$work/standin.in"
fi

user="bench_r$runs"
a="a$runs" b="b$runs"
# A has pushed but not pulled (its cursor is at 0): its next sync passes over its own
# echoes on the server.
cursor_of() { sqlite3 -readonly "$work/dev/$1/home/diary.sqlite" "SELECT coalesce((SELECT value FROM sync_state WHERE key = 'pull_cursor'), 'none')"; }
echo "before A's next sync: pull cursor A $(cursor_of "$a"), B $(cursor_of "$b"); server_seq $(tail -1 "$work/rows.tsv" | cut -f7)" >>"$work/checks.txt"
measure catchup 1 "$a" "$sync_bin" --json
echo "after A's next sync: pull cursor A $(cursor_of "$a")" >>"$work/checks.txt"

# --- 2. a sync with nothing to do ------------------------------------------------------
say "sync with nothing to do: hyperfine, $noop_runs runs"
dev "$b" "$sync_bin" --json >>"$work/checks.txt" 2>>"$work/stderr.log" # up to date now
printf 'noop_load\t%s\n' "$(load)" >>"$work/info.tsv"
dev "$b" hyperfine -N --style basic --warmup 3 --runs "$noop_runs" --export-json "$work/noop.json" \
    -n 'diary-sync (nothing to do)' "$sync_bin" \
    -n 'diary-sync status --json (no network)' "$sync_bin status --json" >&2
# One more run, with every statement counted and logged.
adm -c "SELECT pg_stat_statements_reset()" >/dev/null
adm -c "ALTER ROLE $user SET log_statement = 'all'"
log_from=$(stat -c %s "$pgdir/server.log")
dev "$b" "$sync_bin" --json >>"$work/checks.txt" 2>>"$work/stderr.log"
sleep 1
adm -c "ALTER ROLE $user RESET log_statement"
tail -c +$((log_from + 1)) "$pgdir/server.log" | grep -E 'LOG:  (statement|execute)' >"$work/noop-statements.log" || true
adm -F $'\t' -c "SELECT calls, rows, round(total_exec_time::numeric, 3), regexp_replace(query, '\s+', ' ', 'g')
    FROM pg_stat_statements WHERE userid = '$user'::regrole ORDER BY calls DESC" >"$work/noop-statements.tsv"

# --- 3. propagation in watch -----------------------------------------------------------
say "watch: $changes pages written on A, waiting for B each time"
ffmpeg -loglevel error -y -f lavfi -i testsrc2=size=640x480 -frames:v 1 "$work/photo.jpg"
printf 'watch_load_before\t%s\n' "$(load)" >>"$work/info.tsv"
python3 "$root/bench/sync-report.py" watch --bin "$bin" --changes "$changes" --photo "$work/photo.jpg" \
    --a "$work/dev/$a" --b "$work/dev/$b" --out "$work" 2>>"$work/stderr.log"
printf 'watch_load_after\t%s\n' "$(load)" >>"$work/info.tsv"
echo "after watch: A has $(count_entries "$a") entries, B $(count_entries "$b")" >>"$work/checks.txt"

# --- 4. pull on a server holding USERS users x PER_USER entries ------------------------
fill_tsv="$work/fill.tsv"
printf 'step\tseconds\tload1\n' >"$fill_tsv"
timed_sql() { # NAME SQL: one timed statement as the admin, a line in fill.tsv
    local load1 start
    load1=$(cut -d' ' -f1 /proc/loadavg)
    start=$(now)
    adm -c "$2" >/dev/null
    printf '%s\t%.2f\t%s\n' "$1" "$(elapsed "$start")" "$load1" >>"$fill_tsv"
    say "$(printf 'fill: %-16s %7.2f s (load %s)' "$1" "$(tail -1 "$fill_tsv" | cut -f2)" "$load1")"
}
if [ "${SKIP_BIG:-0}" != 1 ]; then
    big="bench_big"
    user_add "$big"
    big_uid=$(json_field "$work/users/$big.json" user_id)
    source_uid=$(json_field "$work/users/$user.json" user_id)
    total=$((users * per_user))
    say "filling $users users x $per_user entries ($total entry rows) with SQL"
    # The docs: device A's entries as the server holds them, numbered in push order.
    adm -c "DROP TABLE IF EXISTS public.bench_doc"
    timed_sql template "CREATE TABLE public.bench_doc AS
        SELECT (row_number() OVER (ORDER BY server_seq, id) - 1)::int AS k, id, hlc, device_id, created_at, occurred_at, doc
        FROM diary.entry WHERE user_id = '$source_uid' AND NOT deleted ORDER BY server_seq, id LIMIT $entries"
    adm -c "ALTER TABLE public.bench_doc ADD PRIMARY KEY (k); ANALYZE public.bench_doc"
    docs=$(adm -c "SELECT count(*) FROM public.bench_doc")
    # Synthetic users n = 1 … USERS-1 have made-up ids and role names (no login role:
    # nobody logs in as them); n = USERS is the real login. Row i of the fill is entry
    # s = i / USERS + 1 of user n = i % USERS + 1, so each user's rows lie in PER_USER
    # different places of the heap; server_seq runs 1 … PER_USER per user.
    timed_sql accounts "INSERT INTO diary.account(user_id, role_name, created_at, server_seq)
        SELECT md5('bench-user-' || n)::uuid, 'bench_synthetic_' || n, now() - interval '1 day' * (n % 700), $per_user
        FROM generate_series(1, $users - 1) n"
    timed_sql entries "INSERT INTO diary.entry(user_id, id, hlc, device_id, deleted, created_at, occurred_at, doc, server_seq)
        SELECT CASE WHEN g.n = $users THEN '$big_uid'::uuid ELSE md5('bench-user-' || g.n)::uuid END,
               d.id, d.hlc, d.device_id, false, d.created_at, d.occurred_at, d.doc, g.s
        FROM (SELECT i % $users + 1 AS n, i / $users + 1 AS s FROM generate_series(0, $total - 1) i) g
        JOIN public.bench_doc d ON d.k = (g.n * $per_user + g.s) % $docs"
    # The real user's entries keep their ids, so their messages and tag links come along.
    owned="to_jsonb(x) || jsonb_build_object('user_id', '$big_uid')"
    mine="x.user_id = '$source_uid' AND x.entry_id IN (SELECT id FROM diary.entry WHERE user_id = '$big_uid')"
    timed_sql children "INSERT INTO diary.message SELECT (jsonb_populate_record(NULL::diary.message, $owned)).* FROM diary.message x WHERE $mine;
        INSERT INTO diary.entry_tag SELECT (jsonb_populate_record(NULL::diary.entry_tag, $owned)).* FROM diary.entry_tag x WHERE $mine;
        UPDATE diary.account SET server_seq = $per_user WHERE user_id = '$big_uid'"
    timed_sql vacuum_analyze "VACUUM (ANALYZE) diary.account, diary.entry, diary.message, diary.entry_tag"
    timed_sql checkpoint "CHECKPOINT"
    adm -c "DROP TABLE public.bench_doc"
    adm -F $'\t' -c "SELECT 'entry_rows', count(*) FROM diary.entry
        UNION ALL SELECT 'accounts', count(*) FROM diary.account
        UNION ALL SELECT 'big_user_entries', count(*) FROM diary.entry WHERE user_id = '$big_uid'
        UNION ALL SELECT 'big_user_messages', count(*) FROM diary.message WHERE user_id = '$big_uid'
        UNION ALL SELECT 'big_user_tag_links', count(*) FROM diary.entry_tag WHERE user_id = '$big_uid'
        UNION ALL SELECT 'avg_doc_bytes', round(avg(pg_column_size(doc)))::bigint FROM diary.entry
        UNION ALL SELECT 'entry_heap_bytes', pg_relation_size('diary.entry')
        UNION ALL SELECT 'entry_total_bytes', pg_total_relation_size('diary.entry')
        UNION ALL SELECT 'database_bytes', pg_database_size(current_database())" >"$work/big-server.tsv"

    # diary-sync pull of the 20 entries on a fresh device each time (made untimed).
    cat >"$work/fresh-device.sh" <<EOF
#!/usr/bin/env bash
set -e
rm -rf "$work/dev/big"
mkdir -p "$work/dev/big/home" "$work/dev/big/state"
python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["password"])' "$work/users/$big.json" \\
    | DIARY_HOME="$work/dev/big/home" XDG_STATE_HOME="$work/dev/big/state" \\
      "$sync_bin" login --url "postgres://$big@127.0.0.1:$port/diary_test" --password-stdin --accept-consent --no-seal >/dev/null 2>&1
EOF
    chmod +x "$work/fresh-device.sh"
    bash "$work/fresh-device.sh"
    say "pull of $per_user entries on a fresh device, $pull_runs runs"
    printf 'big_pull_load\t%s\n' "$(load)" >>"$work/info.tsv"
    dev big hyperfine -N --style basic --runs "$pull_runs" --prepare "bash $work/fresh-device.sh" \
        --export-json "$work/big-pull.json" -n "diary-sync pull ($per_user entries, fresh device)" "$sync_bin pull" >&2
    echo "big server: the fresh device holds $(count_entries big) entries after its pull" >>"$work/checks.txt"
    dev big hyperfine -N --style basic --warmup 2 --runs "$pull_runs" --export-json "$work/big-noop.json" \
        -n "diary-sync (nothing to do, big server)" "$sync_bin" >&2

    # The same function as that user in psql, and the plans.
    big_pw=$(json_field "$work/users/$big.json" password)
    as_big() { PGPASSWORD="$big_pw" psql -X -q -At -v ON_ERROR_STOP=1 -h 127.0.0.1 -p "$port" -U "$big" -d diary_test "$@"; }
    {
        echo '\timing on'
        echo 'SELECT octet_length(diary.pull(0, 200)::text) AS answer_bytes;'
        for _ in $(seq 1 "$pull_runs"); do echo 'SELECT diary.pull(0, 200) IS NOT NULL;'; done
    } | as_big >"$work/big-psql.txt"
    # auto_explain: the plans of every statement inside one diary.pull call, with timings.
    log_from=$(stat -c %s "$pgdir/server.log")
    adm -c "ALTER ROLE $big SET auto_explain.log_min_duration = 0" \
        -c "ALTER ROLE $big SET auto_explain.log_analyze = on" \
        -c "ALTER ROLE $big SET auto_explain.log_buffers = on" \
        -c "ALTER ROLE $big SET auto_explain.log_nested_statements = on"
    as_big -c "SELECT diary.pull(0, 200) IS NOT NULL" >/dev/null
    sleep 1
    adm -c "ALTER ROLE $big RESET ALL"
    tail -c +$((log_from + 1)) "$pgdir/server.log" >"$work/auto-explain.txt"
fi

printf 'total_s\t%s\n' "$(($(date +%s) - started))" >>"$work/info.tsv"
printf 'end_load\t%s\n' "$(load)" >>"$work/info.tsv"
python3 "$root/bench/sync-report.py" report "$work" | tee "$work/results.md"
