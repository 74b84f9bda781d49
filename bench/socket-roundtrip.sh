#!/bin/sh
# Measures HTTP request round trips over a Unix socket: our HTTPServer (async handler and the
# synchronous handleImmediately fast path) beside a trivial echo server, same run, same socket
# type, 1 and 16 keep-alive clients; prints p50/p99 latency, requests/s and the ratio.
#   bench/socket-roundtrip.sh [seconds-per-run=2] [clients=1,16]   (each server: best of 3 runs)
set -eu
cd "$(dirname "$0")/.."
swift build -c release --product socket-bench >/dev/null 2>&1 || swift build -c release --target socket-bench
"$(swift build -c release --show-bin-path)/socket-bench" "${1:-2}" "${2:-1,16}"
