#!/usr/bin/env bash
# What the companion client adds per turn over a fake provider's own latency (in-process
# and whole-process, median and p95), time to the first streamed token, and prompt size
# at turn 1, 10, 20 and 50. Release build with the Swift runtime linked in
# (--static-swift-stdlib), the code that is installed. Usage: bench/companion.sh [TURNS]
set -euo pipefail
cd "$(dirname "$0")/.."
swift build -c release --static-swift-stdlib >&2
swift build -c release --package-path bench --product companion-bench >&2
"$(swift build -c release --package-path bench --show-bin-path)/companion-bench" "$(swift build -c release --static-swift-stdlib --show-bin-path)" "${1:-40}"
