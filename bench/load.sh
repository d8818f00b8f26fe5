#!/usr/bin/env bash
# Many people on one server, through the real functions (issue 18, item 5), on a throwaway
# Postgres 15 cluster on loopback with fsync on (scripts/pg-cluster.sh, PG_DURABLE=1),
# stopped and removed on exit:
#
#   1. the database is shaped like a Supabase project (Tests/FakeServers/SupabaseShape.swift:
#      its roles, auth.users and auth.uid()) and `diary-sync server-init` installs the diary;
#   2. the records: a 20-entry diary from diary-corpus, backed up with `diary-sync backup`;
#      its entries.jsonl is the push wire format, one record per line;
#   3. fill (bench/load.py): PUSHED people sign up (rows in auth.users, so the real trigger
#      makes their accounts) and each pushes PER_USER entries through diary.push as
#      PostgREST calls it (role authenticated, the person's JWT claims), CLIENTS at once.
#      The other USERS - PUSHED people sign up the same way and get copies of one pushed
#      person's entry rows by SQL (entries only, numbered as their pushes would have), since
#      pushing two million pages through the functions takes this machine over an hour;
#      then VACUUM ANALYZE and the table sizes;
#   4. measure (bench/load.py): CLIENTS connections for SECONDS, each picking a random person:
#      a fresh device's pull of all 20 entries, an idle sync, a push of one new entry;
#   5. the plans of the statements inside diary.pull and diary.push as they run for one
#      person (auto_explain with ANALYZE and BUFFERS, nested statements), and the statements
#      that took the most time over the whole run (pg_stat_statements, nested ones included).
#
# Usage: bench/load.sh [USERS]              e.g. bench/load.sh 100000
#   PUSHED=2000    people filled through diary.push (all of them when USERS is smaller)
#   CLIENTS=50     concurrent connections in fill and measure
#   SECONDS_RUN=60 length of the measure step
#   PER_USER=20    entries per person
#   TAG=name       a suffix for the output folder (bench/out/load-TAG)
#
# Files: bench/out/load[-TAG]/{results.jsonl,info.tsv,sizes.tsv,explain.txt,statements.tsv,
# stderr.log}. The main package is built as bench/sync.sh builds it (release, static runtime).
set -euo pipefail
cd "$(dirname "$0")/.."
root="$PWD"
users="${1:-100000}"
clients="${CLIENTS:-50}"
seconds="${SECONDS_RUN:-60}"
per_user="${PER_USER:-20}"
pushed="${PUSHED:-2000}"
[ "$pushed" -gt "$users" ] && pushed=$users
python=/usr/bin/python3 # Debian's, where python3-psycopg2 installs

command -v psql >/dev/null || apt-get install -y -qq postgresql-client >/dev/null
"$python" -c 'import psycopg2' 2>/dev/null || apt-get install -y -qq python3-psycopg2 >/dev/null

. "$root/bench/build.sh"
retry build_main --product diary-sync >&2
sync_bin="$(build_main --show-bin-path)/diary-sync"

work="$root/bench/out/load${TAG:+-$TAG}"
pgdir="$work/pg"
mkdir -p "$work"
rm -rf "$work/corpus" "$work/seed.tar"
export DIARY_CONFIG="$work/no-config.toml" LANG=C.UTF-8 NO_COLOR=1
: >"$work/stderr.log"
started=$(date +%s)
say() { printf '[%5ds] %s\n' $(($(date +%s) - started)) "$*" >&2; }
cleanup() {
    local status=$?
    scripts/pg-cluster.sh stop "$pgdir" >/dev/null 2>&1 || echo "could not stop the cluster in $pgdir" >&2
    exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT
[ -e "$pgdir" ] && scripts/pg-cluster.sh stop "$pgdir"

say "starting Postgres (fsync on) in $pgdir"
eval "$(PG_DURABLE=1 scripts/pg-cluster.sh start "$pgdir")"
admin_url="$DIARY_TEST_PG_URL"
adm() { psql -X -q -At -v ON_ERROR_STOP=1 -d "$admin_url" "$@"; }
adm -c "ALTER SYSTEM SET shared_preload_libraries = pg_stat_statements" \
    -c "ALTER SYSTEM SET max_connections = $((clients + 20))" >/dev/null
scripts/pg-cluster.sh restart "$pgdir"
# Known only once the library is loaded; counts the statements inside the functions too.
adm -c "ALTER SYSTEM SET pg_stat_statements.track = 'all'" -c "SELECT pg_reload_conf()" \
    -c "CREATE EXTENSION IF NOT EXISTS pg_stat_statements" >/dev/null

say "shaping the database like a Supabase project, then server-init"
supabase_shape_sql >"$work/shape.sql"
adm -f "$work/shape.sql" >/dev/null
"$sync_bin" server-init --url "$admin_url" >>"$work/stderr.log" 2>&1

say "the records: a 20-entry diary from diary-corpus, backed up"
"$corpus" "$work/corpus" "$per_user" --seed 7 2>>"$work/stderr.log"
DIARY_HOME="$work/corpus" "$sync_bin" backup -o "$work/seed.tar" 2>>"$work/stderr.log"
tar -xOf "$work/seed.tar" entries.jsonl >"$work/records.jsonl"

{
    printf 'users\t%s\npushed\t%s\nper_user\t%s\nclients\t%s\nseconds\t%s\n' "$users" "$pushed" "$per_user" "$clients" "$seconds"
    printf 'version\t%s\n' "$(git rev-parse --short HEAD)$(git diff --quiet HEAD -- Sources || echo ' + uncommitted changes in Sources/')"
    printf 'postgres\t%s\n' "$(adm -c "SELECT version()" | cut -d, -f1)"
    printf 'cpus\t%s\nmemory\t%s\ndate\t%s\nstart_load\t%s\n' "$(nproc)" "$(free -g | awk '/^Mem:/ { print $2 " GiB" }')" \
        "$(date -Is)" "$(cut -d' ' -f1-3 /proc/loadavg)"
} >"$work/info.tsv"

say "fill: $pushed people x $per_user entries through diary.push, $clients clients"
: >"$work/results.jsonl"
"$python" "$root/bench/load.py" fill --url "$admin_url" --records "$work/records.jsonl" --users "$pushed" \
    --per-user "$per_user" --clients "$clients" | tee -a "$work/results.jsonl" >&2
if [ "$users" -gt "$pushed" ]; then
    say "fill: $((users - pushed)) more people, each with a copy of one pushed person's entries (SQL)"
    start=$(date +%s.%N)
    adm >/dev/null <<SQL
INSERT INTO auth.users (id, aud, role, email, encrypted_password, email_confirmed_at)
SELECT gen_random_uuid(), 'authenticated', 'authenticated', 'copy-' || n || '@example.com', '', now()
  FROM generate_series(1, $((users - pushed))) n;
-- Interleaved as on a server that has lived: each copy round inserts one entry per person.
INSERT INTO diary.entry (user_id, id, hlc, device_id, deleted, created_at, occurred_at, doc, server_seq, echo_of)
SELECT a.user_id, e.id, e.hlc, e.device_id, e.deleted, e.created_at, e.occurred_at, e.doc, e.server_seq, e.echo_of
  FROM (SELECT * FROM diary.entry WHERE user_id = (SELECT user_id FROM diary.account WHERE server_seq >= $per_user LIMIT 1)) e
 CROSS JOIN (SELECT user_id FROM diary.account WHERE server_seq = 0) a
 ORDER BY e.server_seq, a.user_id;
UPDATE diary.account SET server_seq = $per_user WHERE server_seq = 0;
SQL
    printf 'copy_fill_s\t%.1f\n' "$(echo "$(date +%s.%N) - $start" | bc)" >>"$work/info.tsv"
fi
say "VACUUM ANALYZE"
start=$(date +%s.%N)
adm -c "VACUUM ANALYZE" -c "CHECKPOINT"
printf 'vacuum_analyze_s\t%.1f\n' "$(echo "$(date +%s.%N) - $start" | bc)" >>"$work/info.tsv"
adm -F $'\t' -c "SELECT c.relname, c.reltuples::bigint, pg_size_pretty(pg_total_relation_size(c.oid))
    FROM pg_class c WHERE c.relnamespace = 'diary'::regnamespace AND c.relkind = 'r' ORDER BY pg_total_relation_size(c.oid) DESC" \
    >"$work/sizes.tsv"
printf 'database_size\t%s\n' "$(adm -c "SELECT pg_size_pretty(pg_database_size(current_database()))")" >>"$work/info.tsv"

say "measure: $clients clients for $seconds s"
adm -c "SELECT pg_stat_statements_reset()" >/dev/null
"$python" "$root/bench/load.py" measure --url "$admin_url" --records "$work/records.jsonl" --per-user "$per_user" \
    --clients "$clients" --seconds "$seconds" | tee -a "$work/results.jsonl" >&2
adm -F $'\t' -c "SELECT calls, round(total_exec_time::numeric, 1), round(mean_exec_time::numeric, 3), toplevel,
        left(regexp_replace(query, '\s+', ' ', 'g'), 160)
    FROM pg_stat_statements WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())
    ORDER BY total_exec_time DESC LIMIT 25" >"$work/statements.tsv"

say "plans inside diary.pull and diary.push for one person"
person=$(adm -c "SELECT user_id FROM diary.account WHERE server_seq >= $per_user ORDER BY random() LIMIT 1")
seq=$(adm -c "SELECT server_seq FROM diary.account WHERE user_id = '$person'")
batch=$("$python" "$root/bench/load.py" batch --records "$work/records.jsonl" --per-user 1)
log_from=$(stat -c %s "$pgdir/server.log")
adm -v batch="$batch" >/dev/null <<SQL
LOAD 'auto_explain';
SET auto_explain.log_min_duration = 0;
SET auto_explain.log_analyze = on;
SET auto_explain.log_buffers = on;
SET auto_explain.log_nested_statements = on;
BEGIN;
SET LOCAL ROLE authenticated;
SELECT set_config('request.jwt.claims', '{"sub": "$person", "role": "authenticated"}', true);
SELECT diary.pull(0, 200, 'explain') IS NOT NULL;
SELECT diary.pull($seq, 200, 'explain') IS NOT NULL;
SELECT diary.push(:'batch'::jsonb, 'explain') IS NOT NULL;
ROLLBACK;
SQL
tail -c +$((log_from + 1)) "$pgdir/server.log" >"$work/explain.txt"
say "done: $work"
cat "$work/results.jsonl"
