#!/usr/bin/env bash
# Installs what is needed and runs every test: unit tests per DiaryKit folder and the
# end-to-end tests that run the built binaries through real pipes.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh --tests
swift build --build-tests
# The real jrnl, from PyPI in a virtual environment of its own, for the tests that move
# journals both ways between it and the diary.
if [ ! -x .build/jrnl-venv/bin/jrnl ]; then
    python3 -m venv .build/jrnl-venv
    .build/jrnl-venv/bin/pip install --quiet --disable-pip-version-check jrnl==4.6
fi
export DIARY_TEST_JRNL="$PWD/.build/jrnl-venv/bin/jrnl"
# A throwaway Postgres on loopback for the sync tests, stopped and removed however the
# tests end.
cluster=$(mktemp -d /tmp/diary-pg.XXXXXX)
trap 'scripts/pg-cluster.sh stop "$cluster" || true' EXIT
eval "$(scripts/pg-cluster.sh start "$cluster")"
export DIARY_REQUIRE_POSTGRES=1
# One test at a time: the fake model and weather servers run inside the test process on
# Swift's shared concurrency threads, which tests waiting on child processes would
# otherwise tie up (2 cores here), turning a slow machine into spurious timeouts.
swift test --skip-build --no-parallel
