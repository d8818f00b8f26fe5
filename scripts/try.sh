#!/usr/bin/env bash
# Installs what is needed, builds and installs the tools (scripts/install.sh; PREFIX, default
# ~/.local), and writes one diary page offline from a sample photo: diary-new | diary-chat |
# diary-save, then finds it again. The page goes to a throwaway diary unless DIARY_HOME is set.
set -euo pipefail
cd "$(dirname "$0")/.."
prefix="${PREFIX:-$HOME/.local}"
scripts/install-deps.sh
scripts/install.sh "$prefix"
export PATH="$prefix/bin:$PATH"
export DIARY_HOME="${DIARY_HOME:-$(mktemp -d)/diary}"
work="$(mktemp -d)"
ffmpeg -v error -y -f lavfi -i "testsrc2=size=1280x960" -frames:v 1 "$work/beach.jpg"

echo "Diary folder: $DIARY_HOME" >&2
diary-new "$work/beach.jpg" --text "今天去海邊" | diary-chat -m "風好大，但很舒服" | diary-save --readable
echo >&2
diary-find 海邊 --readable
diary-find --tags --readable
