#!/usr/bin/env bash
# Recall benchmark (issue 15): what picking the earlier pages adds to a turn (in process)
# and `diary-find --related` (whole process) on a diary of N entries (default 100,000),
# the same corpus as bench/search.sh (made once into bench/out/search-N/).
# Usage: bench/recall.sh [N]      (PAGES=50 pages asked about)
# Release build with the Swift runtime linked in (--static-swift-stdlib): the code that is
# installed.
set -euo pipefail
cd "$(dirname "$0")/.."
root="$PWD"
n="${1:-100000}"
source bench/build.sh
retry build_main >&2
bin="$(build_main --show-bin-path)"
swift build -c release --package-path bench --product recall-bench >&2
out="$root/bench/out/search-$n"
if [ ! -f "$out/corpus.done" ]; then
    mkdir -p "$out"
    "$corpus" "$out/home" "$n" --seed 42 >&2
    touch "$out/corpus.done"
fi
"$(swift build -c release --package-path bench --show-bin-path)/recall-bench" "$out/home" "$bin" "${PAGES:-50}"
