#!/usr/bin/env bash
# Installs what is needed and runs every test: unit tests per DiaryKit folder and the
# end-to-end tests that run the built binaries through real pipes.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
swift build --build-tests
swift test --skip-build
