#!/usr/bin/env bash
# Search benchmark (issue 4): whole-process time of diary-find on a diary of N entries
# (default 100,000), beside what the same corpus costs other tools: the sqlite3 CLI on a
# plain FTS5 copy of the same token stream (the floor), ripgrep over one Markdown file per
# entry, and jrnl (only up to 10,000 entries: it reads the whole journal every time).
#
# Usage: bench/search.sh [N]      (RUNS=30 WARMUP=3 COLD_RUNS=10 JRNL_RUNS=3 override;
#                                  REGEN=1 makes the corpus again, e.g. to time the bulk load)
#
# Release build with the Swift runtime linked in (--static-swift-stdlib): the code that is
# installed.
# The corpus is generated once into bench/out/search-N/ (delete the folder to redo it):
#   home/diary.sqlite   the diary, filled through DiaryStore.importEntries
#   floor.sqlite        doc/tag/entry_tag + FTS5 `f` (unicode61 over our tokens)
#   md/                 one Markdown file per entry
#   journal.txt         the same entries as a jrnl journal (jrnl.yaml points at it)
# Figures: hyperfine JSON in bench/out/search-N/*.json, the table on stdout and in
# bench/out/search-N/results.md.
set -euo pipefail
cd "$(dirname "$0")/.."
root="$PWD"
n="${1:-100000}"
runs="${RUNS:-30}"
warmup="${WARMUP:-3}"
cold_runs="${COLD_RUNS:-10}"
jrnl_runs="${JRNL_RUNS:-3}"
jrnl_max="${JRNL_MAX:-10000}"

need() { command -v "$1" >/dev/null || { apt-get install -y -qq "$2" >/dev/null; }; }
need hyperfine hyperfine
need rg ripgrep
need sqlite3 sqlite3
[ -x /usr/bin/time ] || apt-get install -y -qq time >/dev/null

swift build -c release --static-swift-stdlib >&2
swift build -c release --package-path bench --product diary-corpus >&2
bin="$(swift build -c release --static-swift-stdlib --show-bin-path)"
corpus="$(swift build -c release --package-path bench --show-bin-path)/diary-corpus"

out="$root/bench/out/search-$n"
mkdir -p "$out"
# What is measured: the commit, and whether Sources/ had uncommitted changes at build time.
version="$(git rev-parse --short HEAD)$(git diff --quiet HEAD -- Sources Package.swift || echo ' + uncommitted changes in Sources/')"
[ "${REGEN:-0}" = 1 ] && rm -f "$out/corpus.done"
if [ ! -f "$out/corpus.done" ]; then
    rm -rf "${out:?}"/*
    echo "generating $n entries into $out" >&2
    "$corpus" "$out/home" "$n" --seed 42 --jrnl "$out/journal.txt" --markdown "$out/md" --floor "$out/floor.sqlite" \
        2> >(tee "$out/fill.txt" >&2)
    # Settle the WAL into the file so every run starts from the same state.
    sqlite3 "$out/home/diary.sqlite" "PRAGMA wal_checkpoint(TRUNCATE);" >/dev/null
    touch "$out/corpus.done"
fi
sleep 1 # let tee finish writing fill.txt

# jrnl from PyPI in a venv, its config beside the journal; it runs with HOME pointed here
# so it never reads or writes the real home.
venv="$root/bench/out/venv"
if [ "$n" -le "$jrnl_max" ]; then
    [ -x "$venv/bin/jrnl" ] || { python3 -m venv "$venv" && "$venv/bin/pip" install -q jrnl; }
    mkdir -p "$out/jrnl-home"
    cat >"$out/jrnl.yaml" <<YAML
colors:
  body: none
  date: none
  tags: none
  title: none
default_hour: 9
default_minute: 0
editor: ''
encrypt: false
highlight: false
indent_character: '|'
journals:
  default:
    journal: $out/journal.txt
linewrap: 79
tagsymbols: '@'
template: false
timeformat: '%F %r'
version: '$("$venv/bin/jrnl" --version | sed -n 's/^jrnl v\{0,1\}//p')'
YAML
fi

export DIARY_HOME="$out/home" DIARY_CONFIG="$out/no-config.toml" XDG_STATE_HOME="$out/state" LANG=C.UTF-8 NO_COLOR=1
db="$out/home/diary.sqlite"
floor="$out/floor.sqlite"
md="$out/md"
q="sqlite3 -init /dev/null -readonly"
jrnl="$venv/bin/jrnl --config-file $out/jrnl.yaml"

# name|command, one per line (hyperfine -N: no shell; quotes group words).
diary_cmds=(
    "diary-find 海邊 --limit 20 --json|$bin/diary-find 海邊 --limit 20 --json"
    "diary-find 開心 --limit 20 --json|$bin/diary-find 開心 --limit 20 --json"
    "diary-find coffee --limit 20 --json|$bin/diary-find coffee --limit 20 --json"
    "diary-find --tag 旅行 --limit 20 --json|$bin/diary-find --tag 旅行 --limit 20 --json"
    "diary-find --tag 旅行 --from 2020-01 --to 2020-06 --limit 20 --json|$bin/diary-find --tag 旅行 --from 2020-01 --to 2020-06 --limit 20 --json"
    "diary-find 海邊 --tag 旅行 --limit 20 --json|$bin/diary-find 海邊 --tag 旅行 --limit 20 --json"
    "diary-find --tags --json|$bin/diary-find --tags --json"
    "diary-find --calendar 2024-03 --json|$bin/diary-find --calendar 2024-03 --json"
    "diary-find --count 海邊|$bin/diary-find --count 海邊"
    "diary-find --help (process start, no database)|$bin/diary-find --help"
)
# The floor: the same questions as raw SQL in the sqlite3 CLI. Keywords run on floor.sqlite
# (FTS5 unicode61 over our own token stream, folded to Simplified: 海邊 -> 海边); tags,
# dates and the calendar on the real diary.sqlite, which the CLI can read except entry_fts.
personal='{title summary note transcript tags person_chat}'
floor_cmds=(
    "sqlite3 海边 by rowid|$q $floor \"SELECT d.id, d.local_date, d.title FROM f JOIN doc d ON d.rowid = f.rowid WHERE f MATCH '\\\"海边\\\"' ORDER BY f.rowid DESC LIMIT 20\""
    "sqlite3 海边 own words first (tier 0)|$q $floor \"SELECT d.id, d.local_date, d.title FROM f JOIN doc d ON d.rowid = f.rowid WHERE f MATCH '$personal : \\\"海边\\\"' ORDER BY f.rowid DESC LIMIT 20\""
    "sqlite3 开心 by rowid|$q $floor \"SELECT d.id, d.local_date, d.title FROM f JOIN doc d ON d.rowid = f.rowid WHERE f MATCH '\\\"开心\\\"' ORDER BY f.rowid DESC LIMIT 20\""
    "sqlite3 coffee* by rowid|$q $floor \"SELECT d.id, d.local_date, d.title FROM f JOIN doc d ON d.rowid = f.rowid WHERE f MATCH '\\\"coffee\\\"*' ORDER BY f.rowid DESC LIMIT 20\""
    "sqlite3 tag 旅行, newest first (diary.sqlite)|$q $db \"SELECT e.id, e.local_date, e.title FROM entry e WHERE e.deleted_at IS NULL AND EXISTS (SELECT 1 FROM entry_tag et WHERE et.entry_id = e.id AND et.tag_id = (SELECT id FROM tag WHERE name = '旅行')) ORDER BY e.moment_key DESC LIMIT 20\""
    "sqlite3 tag 旅行, join as written (diary.sqlite)|$q $db \"SELECT e.id, e.local_date, e.title FROM tag t JOIN entry_tag et ON et.tag_id = t.id JOIN entry e ON e.id = et.entry_id WHERE t.name = '旅行' AND e.deleted_at IS NULL ORDER BY e.moment_key DESC LIMIT 20\""
    "sqlite3 tag 旅行 + 2020-01..06, newest first (diary.sqlite)|$q $db \"SELECT e.id, e.local_date, e.title FROM entry e WHERE e.deleted_at IS NULL AND e.local_date BETWEEN '2020-01-01' AND '2020-06-30' AND EXISTS (SELECT 1 FROM entry_tag et WHERE et.entry_id = e.id AND et.tag_id = (SELECT id FROM tag WHERE name = '旅行')) ORDER BY e.moment_key DESC LIMIT 20\""
    "sqlite3 tag 旅行 + 2020-01..06, join as written (diary.sqlite)|$q $db \"SELECT e.id, e.local_date, e.title FROM tag t JOIN entry_tag et ON et.tag_id = t.id JOIN entry e ON e.id = et.entry_id WHERE t.name = '旅行' AND e.deleted_at IS NULL AND e.local_date BETWEEN '2020-01-01' AND '2020-06-30' ORDER BY e.moment_key DESC LIMIT 20\""
    "sqlite3 tag 旅行, integer keys (floor.sqlite)|$q $floor \"SELECT d.id, d.local_date, d.title FROM entry_tag et JOIN doc d ON d.rowid = et.entry_id WHERE et.tag_id = (SELECT id FROM tag WHERE name = '旅行') ORDER BY et.entry_id DESC LIMIT 20\""
    "sqlite3 海边 + tag 旅行 (floor.sqlite)|$q $floor \"SELECT d.id, d.local_date, d.title FROM f JOIN doc d ON d.rowid = f.rowid WHERE f MATCH '\\\"海边\\\"' AND EXISTS (SELECT 1 FROM entry_tag et WHERE et.entry_id = f.rowid AND et.tag_id = (SELECT id FROM tag WHERE name = '旅行')) ORDER BY f.rowid DESC LIMIT 20\""
    "sqlite3 tag counts GROUP BY entry_tag (diary.sqlite)|$q $db \"SELECT t.name, count(*) FROM entry_tag et JOIN tag t ON t.id = et.tag_id GROUP BY et.tag_id ORDER BY max(t.last_used_at) DESC\""
    "sqlite3 tag counts from tag.entry_count (diary.sqlite)|$q $db \"SELECT name, entry_count FROM tag WHERE deleted_at IS NULL ORDER BY last_used_at DESC\""
    "sqlite3 calendar 2024-03 (diary.sqlite)|$q $db \"SELECT local_date, count(*) FROM entry WHERE deleted_at IS NULL AND local_date BETWEEN '2024-03-01' AND '2024-03-31' GROUP BY local_date\""
    "sqlite3 count 海边|$q $floor \"SELECT count(*) FROM f WHERE f MATCH '\\\"海边\\\"'\""
    "sqlite3 SELECT 1 (process start + open)|$q $db \"SELECT 1\""
)
rg_cmds=(
    "rg -l 海邊 (all files)|rg -l -F 海邊 $md"
    "rg -l 海邊, sort -r, head -20 (newest 20)|bash -c \"rg -l -F 海邊 $md | sort -r | head -20\""
    "rg -l coffee (all files)|rg -l -i -F coffee $md"
    "rg -l '#旅行' (tag line, all files)|rg -l -F '#旅行' $md"
    "rg -c 海邊 (count per file)|rg -c -F 海邊 $md"
)
jrnl_cmds=(
    "jrnl -contains 海邊 -n 20|$jrnl -contains 海邊 -n 20"
    "jrnl @旅行 -n 20|$jrnl @旅行 -n 20"
    "jrnl --tags|$jrnl --tags"
)

# Runs one hyperfine group: bench NAME JSON RUNS WARMUP [extra hyperfine args --] entries...
bench() {
    local json="$1" count="$2" warm="$3"; shift 3
    printf '%s\t%s\n' "$json" "$(cut -d' ' -f1-3 /proc/loadavg)" >>"$out/load.tsv"
    local extra=()
    while [ "$#" -gt 0 ] && [ "$1" != "--" ]; do extra+=("$1"); shift; done
    shift
    local args=()
    local entry
    for entry in "$@"; do args+=(-n "${entry%%|*}" "${entry#*|}"); done
    hyperfine -N --style basic --warmup "$warm" --runs "$count" "${extra[@]}" --export-json "$out/$json" "${args[@]}" >&2
}

# Every command once first: a failing one is shown here instead of stopping hyperfine.
check() {
    local entry
    for entry in "$@"; do
        if ! eval "${entry#*|}" >/dev/null 2>"$out/check.err"; then
            echo "FAILED: ${entry#*|}" >&2; cat "$out/check.err" >&2
        fi
    done
}
check "${diary_cmds[@]}" "${floor_cmds[@]}" "${rg_cmds[@]}"

# The floor answers the same question: the 20 newest pages where 海邊 is in the person's own
# words are what diary-find lists first (relevance puts those first, newest first).
diary_ids=$("$bin/diary-find" 海邊 --limit 20 --json | python3 -c 'import json,sys; print(" ".join(json.loads(l)["id"] for l in sys.stdin if l.strip()))')
floor_ids=$($q "$floor" "SELECT d.id FROM f JOIN doc d ON d.rowid = f.rowid WHERE f MATCH '$personal : \"海边\"' ORDER BY f.rowid DESC LIMIT 20" | tr '\n' ' ' | sed 's/ $//')
if [ "$diary_ids" = "$floor_ids" ]; then echo "same" >"$out/floor-check.txt"; else echo "DIFFERENT" >"$out/floor-check.txt"; fi

# Matches per question, for reading the times.
{
    echo "海邊	$("$bin/diary-find" --count 海邊 || true)"
    echo "開心	$("$bin/diary-find" --count 開心 || true)"
    echo "coffee	$("$bin/diary-find" --count coffee || true)"
    echo "tag 旅行	$("$bin/diary-find" --count --tag 旅行 || true)"
    echo "tag 旅行 2020-01..06	$("$bin/diary-find" --count --tag 旅行 --from 2020-01 --to 2020-06 || true)"
    echo "海邊 + tag 旅行	$("$bin/diary-find" --count 海邊 --tag 旅行 || true)"
    echo "floor 海边	$($q "$floor" "SELECT count(*) FROM f WHERE f MATCH '\"海边\"'")"
    echo "floor 开心	$($q "$floor" "SELECT count(*) FROM f WHERE f MATCH '\"开心\"'")"
    echo "floor coffee*	$($q "$floor" "SELECT count(*) FROM f WHERE f MATCH '\"coffee\"*'")"
    echo "rg files with 海邊	$(rg -l -F 海邊 "$md" | wc -l)"
} >"$out/counts.tsv"

: >"$out/load.tsv"
echo "== warm: diary-find ==" >&2
bench diary.json "$runs" "$warmup" -- "${diary_cmds[@]}"
echo "== warm: sqlite3 floor ==" >&2
bench floor.json "$runs" "$warmup" -- "${floor_cmds[@]}"
echo "== warm: ripgrep ==" >&2
bench rg.json "$runs" "$warmup" -- "${rg_cmds[@]}"
rm -f "$out/jrnl.json"
if [ "$n" -le "$jrnl_max" ]; then
    echo "== warm: jrnl ==" >&2
    HOME="$out/jrnl-home" check "${jrnl_cmds[@]}"
    HOME="$out/jrnl-home" XDG_CONFIG_HOME="$out/jrnl-home/.config" XDG_DATA_HOME="$out/jrnl-home/.local/share" \
        bench jrnl.json "$jrnl_runs" 1 -- "${jrnl_cmds[@]}"
fi

# Cold: the page cache dropped before every run (needs root and a writable /proc/sys).
rm -f "$out/cold.json" "$out/cold.txt"
drop="sync; echo 3 > /proc/sys/vm/drop_caches"
if sh -c "$drop" 2>/dev/null; then
    echo "== cold: caches dropped before each run ==" >&2
    bench cold.json "$cold_runs" 0 --prepare "sh -c '$drop'" -- \
        "${diary_cmds[9]}" "${diary_cmds[0]}" "${diary_cmds[3]}" "${diary_cmds[4]}" "${diary_cmds[6]}" "${diary_cmds[7]}" \
        "${floor_cmds[0]}" "${floor_cmds[4]}" "${floor_cmds[5]}" "${rg_cmds[0]}"
else
    echo "cold runs skipped: cannot write /proc/sys/vm/drop_caches here" | tee "$out/cold.txt" >&2
fi

# Peak memory: the largest of three runs of /usr/bin/time -v.
peak() {
    local best=0 kb i
    for i in 1 2 3; do
        kb=$(eval "/usr/bin/time -v $1" 2>&1 >/dev/null | sed -n 's/.*Maximum resident set size (kbytes): //p')
        [ "${kb:-0}" -gt "$best" ] && best=$kb
    done
    echo "$best"
}
: >"$out/peak.tsv"
for entry in "${diary_cmds[@]}" "${floor_cmds[@]}" "${rg_cmds[@]}"; do
    case "${entry#*|}" in bash\ -c*) continue ;; esac
    printf '%s\t%s\n' "${entry%%|*}" "$(peak "${entry#*|}")" >>"$out/peak.tsv"
done
if [ "$n" -le "$jrnl_max" ]; then
    for entry in "${jrnl_cmds[@]}"; do
        printf '%s\t%s\n' "${entry%%|*}" "$(HOME="$out/jrnl-home" peak "${entry#*|}")" >>"$out/peak.tsv"
    done
fi

# Sizes on disk.
{
    printf 'diary.sqlite\t%s\n' "$(du -k "$db" | cut -f1)"
    printf 'floor.sqlite\t%s\n' "$(du -k "$floor" | cut -f1)"
    printf 'md/ (files)\t%s\n' "$(du -sk "$md" | cut -f1)"
    printf 'journal.txt\t%s\n' "$(du -k "$out/journal.txt" | cut -f1)"
} >"$out/sizes.tsv"
# Where the diary's bytes are, by table and index (MB).
sqlite3 -readonly -separator '	' "$db" \
    "SELECT name, printf('%.1f', sum(pgsize) / 1048576.0) FROM dbstat GROUP BY name ORDER BY sum(pgsize) DESC LIMIT 12" \
    >"$out/tables.tsv" || true

echo "$version" >"$out/version.txt"
python3 "$root/bench/search-report.py" "$out" "$n" | tee "$out/results.md"
