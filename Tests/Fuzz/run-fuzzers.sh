#!/bin/sh
# Builds and runs the libFuzzer targets, each for N seconds (default 60), one after the other.
#   Tests/Fuzz/run-fuzzers.sh [seconds] [target...]
#   targets: request response chunked form url (WireFormats) provider callback (BrokerCore) jose (BrokerCrypto)
# FUZZ_RUNS=N stops a target after N executions if that comes first; FUZZ_MAX_LEN=N caps input
# length (default 4096). Seeds live in
# Tests/Fuzz/corpus/<target>; new inputs go to .build/fuzz/corpus/<target> and crashes to
# .build/fuzz/crashes/<target>-*. Prints the executions and exec/s each target ran.
set -eu
cd "$(dirname "$0")/../.."
seconds="${1:-60}"
[ $# -gt 0 ] && shift
targets="${*:-request response chunked form url provider callback jose}"
out=.build/fuzz
modules="$out/modules"
mkdir -p "$out/crashes" "$modules"
. Tests/Fuzz/modules.sh
codec="$(find Sources/WireFormats -name '*.swift' | sort | tr '\n' ' ')"
# The Swift backtracer hangs on a crash under libFuzzer (SWIFT-LINUX-NOTES).
export SWIFT_BACKTRACE=enable=no
# XCTest-style leaks at exit are not what these targets look for.
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=0}"
domain="WireFormats SystemCalls BrokerProtocol BrokerCrypto BrokerStore BrokerHTTP BrokerCore"
status=0
summary=""
for target in $targets; do
    built=yes
    case "$target" in
        request) entry=RequestParserFuzz uses="" ;;
        response) entry=ResponseParserFuzz uses="" ;;
        chunked) entry=ChunkedDecoderFuzz uses="" ;;
        form) entry=FormDecodingFuzz uses="" ;;
        url) entry=URLParserFuzz uses="" ;;
        provider) entry=ProviderAnswerFuzz uses=$domain ;;
        callback) entry=CallbackFuzz uses=$domain ;;
        jose) entry=JOSEFuzz uses="WireFormats BrokerCrypto" ;;
        *) echo "unknown target $target" >&2; exit 2 ;;
    esac
    echo "== building $target"
    if [ -z "$uses" ]; then
        # WireFormats uses only the standard library: compile its sources with the entry.
        # shellcheck disable=SC2086
        swiftc -sanitize=fuzzer,address -parse-as-library -O -module-name BrokerHTTPFuzz \
            $codec "Tests/Fuzz/$entry.swift" -o "$out/fuzz-$target" >"$out/build-$target.log" 2>&1 || built=no
    else
        for name in $uses; do build_module "$name"; done
        # shellcheck disable=SC2086
        link_entry "Tests/Fuzz/$entry.swift" "$out/fuzz-$target" $uses >"$out/build-$target.log" 2>&1 || built=no
    fi
    if [ "${built:-yes}" = no ]; then
        # (ld.gold's "Cannot export local symbol __asan_*" warnings are harmless and kept in the log.)
        cat "$out/build-$target.log" >&2
        exit 1
    fi
    mkdir -p "$out/corpus/$target"
    echo "== running $target for ${seconds}s${FUZZ_RUNS:+ or $FUZZ_RUNS executions}"
    log="$out/fuzz-$target.log"
    if ! "$out/fuzz-$target" -max_total_time="$seconds" ${FUZZ_RUNS:+-runs=$FUZZ_RUNS} -max_len="${FUZZ_MAX_LEN:-4096}" -timeout=10 \
        -print_final_stats=1 -artifact_prefix="$out/crashes/$target-" "$out/corpus/$target" "Tests/Fuzz/corpus/$target" \
        >"$log" 2>&1; then
        status=1
        echo "!! $target crashed; see $log and $out/crashes/" >&2
        tail -n 30 "$log" >&2
    fi
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
    rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -n 1)
    summary="$summary$target: ${runs:-?} executions, ${rate:-?} exec/s
"
done
printf '\n== executions per target\n%s' "$summary"
exit $status
