#!/usr/bin/env bash
# Prints the local diary's SQLite schema as the migrations leave it: what docs/schema.sql
# holds. A test compares the two, so a migration that changes the schema fails the tests
# until the document is written again:
#   scripts/gen-schema.sh > docs/schema.sql
# It lets the built diary-find create a fresh diary (BIN_DIR, default: the debug build) and
# reads the schema back with the sqlite3 shell. FTS5's own shadow tables are left out.
set -euo pipefail
cd "$(dirname "$0")/.."
bin="${1:-$(swift build --show-bin-path)}"
home="$(mktemp -d)"
trap 'rm -rf "$home"' EXIT
# An empty diary finds nothing (exit 1); creating it is all that is wanted here.
DIARY_HOME="$home" XDG_CONFIG_HOME="$home/config" XDG_STATE_HOME="$home/state" "$bin/diary-find" --count >/dev/null || [ $? -eq 1 ]
db="$home/diary.sqlite"
cat <<HEADER
-- The local diary's schema (SQLite), generated from the migrations by scripts/gen-schema.sh.
-- Do not edit: add a migration in Sources/DiaryKit/Store/Migrations/, then run
--   scripts/gen-schema.sh > docs/schema.sql
-- docs/ARCHITECTURE.md says what each table is for. The sync server's schema is the SQL that
-- 'diary-sync server-init --print-sql' prints.
--
HEADER
echo "-- Migrations: $(sqlite3 "$db" "SELECT group_concat(identifier, ', ') FROM (SELECT identifier FROM grdb_migrations ORDER BY rowid)")"
echo
sqlite3 "$db" "
    SELECT sql || ';' || char(10) FROM sqlite_master
    WHERE sql IS NOT NULL AND name NOT LIKE 'sqlite_%' AND name != 'grdb_migrations'
      AND name NOT GLOB '*_fts_data' AND name NOT GLOB '*_fts_idx' AND name NOT GLOB '*_fts_content'
      AND name NOT GLOB '*_fts_docsize' AND name NOT GLOB '*_fts_config'
    ORDER BY rowid"
