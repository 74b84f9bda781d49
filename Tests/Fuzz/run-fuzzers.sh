#!/bin/sh
# Builds and runs the libFuzzer targets of the BrokerHTTP codec, each for N seconds (default 60).
#   Tests/Fuzz/run-fuzzers.sh [seconds] [target...]     targets: request response chunked
# Seeds live in Tests/Fuzz/corpus/<target>; new inputs go to .build/fuzz/corpus/<target> and
# crashes to .build/fuzz/crashes/<target>-*. Prints the executions each target ran.
set -eu
cd "$(dirname "$0")/../.."
seconds="${1:-60}"
[ $# -gt 0 ] && shift
targets="${*:-request response chunked}"
out=.build/fuzz
mkdir -p "$out/crashes"
codec="$(ls Sources/HTTPCodec/*.swift | tr '\n' ' ')"
# The Swift backtracer hangs on a crash under libFuzzer (SWIFT-LINUX-NOTES).
export SWIFT_BACKTRACE=enable=no
status=0
summary=""
for target in $targets; do
    case "$target" in
        request) entry=RequestParserFuzz ;;
        response) entry=ResponseParserFuzz ;;
        chunked) entry=ChunkedDecoderFuzz ;;
        *) echo "unknown target $target" >&2; exit 2 ;;
    esac
    echo "== building $target"
    # shellcheck disable=SC2086
    if ! swiftc -sanitize=fuzzer,address -parse-as-library -O -module-name BrokerHTTPFuzz \
        $codec "Tests/Fuzz/$entry.swift" -o "$out/fuzz-$target" >"$out/build-$target.log" 2>&1; then
        # (ld.gold's "Cannot export local symbol __asan_*" warnings are harmless and kept in the log.)
        cat "$out/build-$target.log" >&2
        exit 1
    fi
    mkdir -p "$out/corpus/$target"
    echo "== running $target for ${seconds}s"
    log="$out/fuzz-$target.log"
    if ! "$out/fuzz-$target" -max_total_time="$seconds" -print_final_stats=1 \
        -artifact_prefix="$out/crashes/$target-" "$out/corpus/$target" "Tests/Fuzz/corpus/$target" >"$log" 2>&1; then
        status=1
        echo "!! $target crashed; see $log and $out/crashes/" >&2
        tail -n 30 "$log" >&2
    fi
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
    summary="$summary$target: ${runs:-?} executions in ${seconds}s
"
done
printf '\n== executions per target\n%s' "$summary"
exit $status
