#!/usr/bin/env bash
# Entries that share one instant (issue 17): `diary-sync import` of a Day One JSON with N
# entries all at the same second, beside the same N entries a second apart, each into a
# fresh diary and then into a diary that already holds N; and N ids piped into
# `diary-save --star`. Linear means the shared-instant times stay close to the distinct ones.
#
# Usage: bench/same-instant.sh [N]      (default 50,000)
#   BIN_DIR=…   binaries already built; else a release build in .build-bench
# Figures: bench/out/same-instant-N/results.md
set -euo pipefail
cd "$(dirname "$0")/.."
root="$PWD"
n="${1:-50000}"
if [ -z "${BIN_DIR:-}" ]; then
    swift build -c release --static-swift-stdlib --scratch-path "$root/.build-bench" >&2
    BIN_DIR="$(swift build -c release --static-swift-stdlib --scratch-path "$root/.build-bench" --show-bin-path)"
fi
out="$root/bench/out/same-instant-$n"
rm -rf "$out" && mkdir -p "$out"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# A Day One export: a zip holding Journal.json.
journal() {  # journal NAME SPREAD(0 = one instant, 1 = a second apart)
    python3 - "$work/$1" "$n" "$2" <<'PY'
import json, sys, uuid, zipfile, datetime
path, n, spread = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
start = datetime.datetime(2026, 11, 20, 10, 0, 0)
entries = [{"uuid": uuid.uuid4().hex.upper(),
            "creationDate": (start + datetime.timedelta(seconds=i * spread)).strftime("%Y-%m-%dT%H:%M:%SZ"),
            "timeZone": "Asia/Taipei", "text": f"# 第 {i} 篇\n\n同一刻的第 {i} 篇日記。", "tags": ["bench"]} for i in range(n)]
with zipfile.ZipFile(path + ".zip", "w", zipfile.ZIP_DEFLATED) as z:
    z.writestr("Journal.json", json.dumps({"metadata": {"version": "1.0"}, "entries": entries}))
PY
}
journal shared 0
journal distinct 1
journal second 0

seconds() { local start end; start=$(date +%s.%N); "$@" >/dev/null; end=$(date +%s.%N); python3 -c "print(f'{$end - $start:.2f}')"; }
{
    echo "# $n entries at one instant (commit $(git rev-parse --short HEAD))"
    echo
    echo "| case | seconds |"
    echo "|---|---|"
    for kind in distinct shared; do
        home="$work/home-$kind"
        echo "| import $n $kind into an empty diary | $(DIARY_HOME=$home seconds "$BIN_DIR/diary-sync" import "$work/$kind.zip") |"
        echo "| import $n more at one instant into that diary | $(DIARY_HOME=$home seconds "$BIN_DIR/diary-sync" import "$work/second.zip") |"
    done
    home="$work/home-shared"
    DIARY_HOME=$home "$BIN_DIR/diary-find" --tag bench --json > "$work/ids.jsonl" 2>/dev/null || true
    echo "| $(wc -l < "$work/ids.jsonl") ids piped into diary-save --star | $(DIARY_HOME=$home seconds sh -c "\"$BIN_DIR/diary-save\" --star < \"$work/ids.jsonl\"") |"
} | tee "$out/results.md"
