#!/usr/bin/env bash
# What each command costs before it does anything, and what the install weighs (issue 13):
#   - the size of the five binaries as SwiftPM builds them, and of the tools and their
#     shared libraries as scripts/install.sh installs them (stripped);
#   - `diary-find --help` (process start, no diary), installed and as SwiftPM built it,
#     against `sqlite3 :memory: 'select 1'`;
#   - `diary-find 海邊 --limit 20 --json` on a diary of N entries (default 100,000), the same
#     two ways, against the sqlite3 CLI asking the same question of a plain FTS5 copy (the
#     floor of search.sh).
# The pairs are measured interleaved: ROUNDS rounds (default 10) of hyperfine, each running
# every command RUNS times (default 10), so load on the machine hits them alike; medians
# are over every run of every round.
#
# Usage: bench/startup.sh [N]     BIN_DIR=… uses binaries already built (release, static)
# Release build with the Swift runtime linked in, each binary on its own, in .build-bench
# (bench/build.sh); scripts/install.sh links the installed tools from its object files.
# Figures: bench/out/startup-N/results.md (and the hyperfine JSON beside it).
set -euo pipefail
cd "$(dirname "$0")/.."
root="$PWD"
n="${1:-100000}"
rounds="${ROUNDS:-10}"
runs="${RUNS:-10}"

need() { command -v "$1" >/dev/null || apt-get install -y -qq "$2" >/dev/null; }
need hyperfine hyperfine
need sqlite3 sqlite3
need python3 python3

. "$root/bench/build.sh"
if [ -z "${BIN_DIR:-}" ]; then
    retry build_main >&2
    BIN_DIR="$(build_main --show-bin-path)"
fi
bin="$BIN_DIR"
out="$root/bench/out/startup-$n"
mkdir -p "$out"
version="$(git rev-parse --short HEAD)$(git diff --quiet HEAD -- Sources Package.swift || echo ' + uncommitted changes in Sources/')"

# Sizes: as built, and as scripts/install.sh links and installs them (stripped).
prefix="$out/prefix"
rm -rf "$prefix"
tools=(diary-new diary-chat diary-save diary-find diary-sync)
# All five must be in BIN_DIR; say which is missing rather than stop without a word.
for tool in "${tools[@]}"; do
    [ -x "$bin/$tool" ] || { echo "bench/startup.sh: $bin/$tool is missing (BIN_DIR needs all five release binaries)" >&2; exit 1; }
done
scripts/install.sh --from "$bin" "$prefix" 2>/dev/null
: >"$out/sizes.tsv"
for tool in "${tools[@]}"; do
    printf '%s\t%s\t%s\n' "$tool" "$(stat -c %s "$bin/$tool")" "$(stat -c %s "$prefix/bin/$tool")" >>"$out/sizes.tsv"
done
for lib in "$prefix"/lib/innerbloom/*.so; do
    printf '%s\t-\t%s\n' "lib/innerbloom/$(basename "$lib")" "$(stat -c %s "$lib")" >>"$out/sizes.tsv"
done
installed="$prefix/bin"

# The corpus (shared with search.sh when it made one already).
corpus_dir="$root/bench/out/search-$n"
if [ ! -f "$corpus_dir/corpus.done" ]; then
    mkdir -p "$corpus_dir"
    "$corpus" "$corpus_dir/home" "$n" --seed 42 --floor "$corpus_dir/floor.sqlite" >&2
    sqlite3 "$corpus_dir/home/diary.sqlite" "PRAGMA wal_checkpoint(TRUNCATE);" >/dev/null
    touch "$corpus_dir/corpus.done"
fi
export DIARY_HOME="$corpus_dir/home" XDG_CONFIG_HOME="$out/config" XDG_STATE_HOME="$out/state" LANG=C.UTF-8 NO_COLOR=1
personal='{title summary note transcript tags person_chat}'
floor_query="SELECT d.id, d.local_date, d.title FROM f JOIN doc d ON d.rowid = f.rowid WHERE f MATCH '$personal : \"海边\"' ORDER BY f.rowid DESC LIMIT 20"

# The two answer the same question: the same 20 pages, in the same order.
ours=$("$installed/diary-find" 海邊 --limit 20 --json | python3 -c 'import json,sys; print(" ".join(json.loads(l)["id"] for l in sys.stdin if l.strip()))')
floor=$(sqlite3 -init /dev/null -readonly "$corpus_dir/floor.sqlite" "SELECT d.id FROM f JOIN doc d ON d.rowid = f.rowid WHERE f MATCH '$personal : \"海边\"' ORDER BY f.rowid DESC LIMIT 20" | tr '\n' ' ' | sed 's/ $//')
[ "$ours" = "$floor" ] && echo same >"$out/floor-check.txt" || echo DIFFERENT >"$out/floor-check.txt"

# The last command of each set is the one the others are compared with.
compare() {
    local name="$1" round
    shift
    for round in $(seq "$rounds"); do
        hyperfine -N --style none --warmup 3 --runs "$runs" --export-json "$out/$name-$round.json" "$@" >/dev/null
    done
}
echo "== --help against sqlite3 select 1 ==" >&2
compare help "$installed/diary-find --help" "$bin/diary-find --help" "sqlite3 -init /dev/null :memory: 'select 1'"
echo "== 海邊 at $n against the sqlite3 floor ==" >&2
compare search "$installed/diary-find 海邊 --limit 20 --json" "$bin/diary-find 海邊 --limit 20 --json" \
    "sqlite3 -init /dev/null -readonly $corpus_dir/floor.sqlite \"$floor_query\""

python3 - "$out" "$n" "$version" "$rounds" "$runs" <<'PY' | tee "$out/results.md"
import glob, json, statistics, sys
out, n, version, rounds, runs = sys.argv[1:]
def medians(name):
    times = {}
    for path in sorted(glob.glob(f"{out}/{name}-*.json")):
        for result in json.load(open(path))["results"]:
            times.setdefault(result["command"], []).extend(result["times"])
    return [(command, statistics.median(t) * 1000, len(t)) for command, t in times.items()]
print(f"# Start-up, size and search against the floor (N = {int(n):,}, build {version})\n")
print(f"{rounds} interleaved rounds of {runs} runs each; medians over all runs; load {open('/proc/loadavg').read().split()[0]}.\n")
print("| file | as SwiftPM built it (MB) | installed, stripped (MB) |\n|---|---:|---:|")
total_built = total_installed = 0
for line in open(f"{out}/sizes.tsv"):
    name, built, installed = line.split()
    # A library has no SwiftPM-built counterpart ("-").
    built, installed = (None if built == "-" else int(built)), int(installed)
    total_built += built or 0
    total_installed += installed
    print(f"| {name} | {'–' if built is None else f'{built / 1e6:.1f}'} | {installed / 1e6:.1f} |")
print(f"| **all** | **{total_built / 1e6:.1f}** | **{total_installed / 1e6:.1f}** |\n")
for name, title in (("help", "process start"), ("search", f"海邊 --limit 20 at {int(n):,} entries")):
    rows = medians(name)
    print(f"| {title} | median (ms) | runs | against the last |\n|---|---:|---:|---:|")
    for command, median, count in rows:
        print(f"| `{command[:90]}` | {median:.2f} | {count} | **{median / rows[-1][1]:.2f}×** |")
    print()
print(f"Same 20 pages as the floor: {open(f'{out}/floor-check.txt').read().strip()}")
PY
