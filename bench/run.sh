#!/usr/bin/env bash
# Whole-process time (median, hyperfine) and peak memory (/usr/bin/time -v) of each
# command on a diary of N entries (default 10,000), release build with the Swift runtime
# linked in (--static-swift-stdlib), the code that is installed.
# Usage: bench/run.sh [N]    Figures go to stdout; bench/RESULTS.md records them.
set -euo pipefail
cd "$(dirname "$0")/.."
n="${1:-10000}"
command -v hyperfine >/dev/null || { apt-get install -y -qq hyperfine time >/dev/null; }
swift build -c release --static-swift-stdlib >&2
swift build -c release --package-path bench >&2
bin="$(swift build -c release --static-swift-stdlib --show-bin-path)"
out="bench/out"; home="$out/home-$n"; mkdir -p "$out"
if [ ! -f "$home/diary.sqlite" ]; then
    start=$(date +%s.%N)
    "$(swift build -c release --package-path bench --show-bin-path)/diary-corpus" "$home" "$n"
    echo "fill: $n entries in $(echo "$(date +%s.%N) - $start" | bc) s" | tee "$out/fill-$n.txt"
fi
ffmpeg -v error -y -f lavfi -i "testsrc2=size=4032x3024" -frames:v 1 "$out/photo.jpg"
export DIARY_HOME="$home" LANG=zh_TW.UTF-8
draft=$("$bin/diary-new" --text-only --text "bench" -q | sed -E 's/.*"id":"([^"]+)".*/\1/')
"$bin/diary-chat" "$draft" -m "開始" -q >/dev/null

hyperfine -N --warmup 3 --runs 30 --export-json "$out/times-$n.json" \
    -n "diary-new (photo)" "$bin/diary-new $out/photo.jpg --text 今天 -q" \
    -n "diary-chat -m" "$bin/diary-chat $draft -m 風好大 -q" \
    -n "diary-save" "$bin/diary-save $draft -q" \
    -n "diary-find keyword --limit 20" "$bin/diary-find 海邊 --limit 20 --json" \
    -n "diary-find keyword (all, JSON)" "$bin/diary-find 海邊 --json" \
    -n "diary-find --tag --limit 20" "$bin/diary-find --tag 旅行 --limit 20 --json" \
    -n "diary-find --tags" "$bin/diary-find --tags --json" >&2
python3 - "$out/times-$n.json" <<'PY'
import json, sys
for r in json.load(open(sys.argv[1]))["results"]:
    print(f'{r["command"]:34s} median {r["median"]*1000:7.1f} ms  (min {r["min"]*1000:.1f}, max {r["max"]*1000:.1f})')
PY
peak() { /usr/bin/time -v "$@" 2>&1 >/dev/null | sed -n 's/.*Maximum resident set size (kbytes): //p'; }
echo "peak memory (MB):"
echo "  diary-new (photo)        $(( $(peak "$bin/diary-new" "$out/photo.jpg" -q) / 1024 ))"
echo "  diary-chat -m            $(( $(peak "$bin/diary-chat" "$draft" -m 再一句 -q) / 1024 ))"
echo "  diary-save               $(( $(peak "$bin/diary-save" "$draft" -q) / 1024 ))"
echo "  diary-find keyword (20)  $(( $(peak "$bin/diary-find" 海邊 --limit 20 --json) / 1024 ))"
echo "  diary-find keyword (all) $(( $(peak "$bin/diary-find" 海邊 --json) / 1024 ))"
echo "  diary-find --tags        $(( $(peak "$bin/diary-find" --tags --json) / 1024 ))"
echo "  entries matching 海邊:   $("$bin/diary-find" 海邊 --json | wc -l)"
