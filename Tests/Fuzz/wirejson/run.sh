#!/bin/sh
# Fuzzes WireJSON (the CLI's JSON parser and Codable coder) with libFuzzer + AddressSanitizer.
# usage: Tests/Fuzz/wirejson/run.sh [SECONDS]   (default 60; prints libFuzzer's final stats)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
seconds=${1:-60}
work=${TMPDIR:-/tmp}/authbroker-fuzz-wirejson
mkdir -p "$work/corpus"
cp "$here"/corpus/* "$work/corpus/"
src="$root/Sources/BrokerProtocol"
# WireJSON lives in the WireFormats module: build that first (modules.sh).
modules="$work/modules"
mkdir -p "$modules"
(cd "$root" && . Tests/Fuzz/modules.sh && build_module WireFormats)
swiftc -sanitize=fuzzer,address -parse-as-library -O -g -swift-version 6 -I "$modules" -L "$modules" -lWireFormats \
    "$here/main.swift" "$src/WireTypes.swift" "$src/WireTypes+Commands.swift" "$src/WireError.swift" \
    -o "$work/fuzz-wirejson" 2>&1 | { grep -v "Cannot export local symbol" || true; }
test -x "$work/fuzz-wirejson"
# The Swift backtracer hangs on a crash under libFuzzer: turn it off.
SWIFT_BACKTRACE=enable=no ASAN_OPTIONS=detect_leaks=0 "$work/fuzz-wirejson" \
    -max_total_time="$seconds" -max_len=4096 -timeout=5 -print_final_stats=1 \
    -artifact_prefix="$work/" "$work/corpus"
