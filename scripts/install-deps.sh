#!/usr/bin/env bash
# Installs what InnerBloom Diary needs on Debian 12 beyond the Swift toolchain:
# ffmpeg (ffprobe reads videos; the try-out makes its sample photo with it) and the
# sqlite3 shell the tests use to look inside a diary.
set -euo pipefail

if ! command -v swift >/dev/null 2>&1; then
    echo "Swift 6 is needed (https://www.swift.org/install/linux/); put swift on PATH and run this again." >&2
    exit 69
fi

missing=()
for tool in ffmpeg:ffmpeg ffprobe:ffmpeg sqlite3:sqlite3 pkg-config:pkg-config; do
    command -v "${tool%%:*}" >/dev/null 2>&1 || missing+=("${tool##*:}")
done
dpkg -s libsqlite3-dev >/dev/null 2>&1 || missing+=(libsqlite3-dev)
if [ ${#missing[@]} -gt 0 ]; then
    sudo=""
    [ "$(id -u)" -eq 0 ] || sudo="sudo"
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends $(printf '%s\n' "${missing[@]}" | sort -u) >/dev/null
fi
