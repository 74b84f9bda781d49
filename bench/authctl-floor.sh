#!/bin/bash
# How far `authctl token` is from the floor of any client, on the client side alone: against
# bench/floor/token-stub.c (a C server answering a fixed token at once), one interleaved
# posix_spawn loop runs
#   /bin/true                                  the target's reference (process start, dynamic libc)
#   bench/floor/token-client.c                 the same exchange as a static C program: the floor
#   bench/floor/token-client-embedded.swift    the same exchange in Embedded Swift, static
#   authctl --socket STUB token bench           the real client: the Embedded Swift front (release)
#   authctl-full --socket STUB token bench      the same command in the full CLI (what authctl
#                                               runs for every other command)
# and prints median/p99 with each one's ratio to /bin/true's median, then (when valgrind is
# installed) the user-space instructions and page faults of one run of each — instruction counts
# are deterministic, so they compare builds on a shared machine where times do not.
# usage: bench/authctl-floor.sh [RUNS=500]
set -euo pipefail
runs=${1:-500}
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/authctl-floor.XXXXXX")
stub_pid=""
cleanup() { [[ -n $stub_pid ]] && kill "$stub_pid" 2>/dev/null; rm -rf "$work"; }
trap cleanup EXIT

cd "$root"
swift build -c release --static-swift-stdlib --product authctl >&2
swift build -c release --static-swift-stdlib --product authctl-full >&2
authctl="$(swift build -c release --static-swift-stdlib --show-bin-path)/authctl"
full="$(swift build -c release --static-swift-stdlib --show-bin-path)/authctl-full"
cc -O2 -Wall bench/floor/token-stub.c -o "$work/token-stub"
cc -O2 -Wall -static bench/floor/token-client.c -o "$work/token-client"
swiftc -enable-experimental-feature Embedded -enable-experimental-feature Extern -wmo -Osize -parse-as-library \
    bench/floor/token-client-embedded.swift -Xclang-linker -static -o "$work/token-client-embedded" 2>/dev/null

"$work/token-stub" "$work/stub.sock" >"$work/stub.log" &
stub_pid=$!
for _ in $(seq 50); do grep -q ready "$work/stub.log" 2>/dev/null && break; sleep 0.1; done
expected=$("$authctl" --socket "$work/stub.sock" token bench)
[[ $("$full" --socket "$work/stub.sock" token bench) == "$expected" ]] || { echo "authctl-full printed something else" >&2; exit 1; }
for client in "$work/token-client" "$work/token-client-embedded"; do
    [[ $("$client" "$work/stub.sock" bench) == "$expected" ]] || { echo "$client printed something else" >&2; exit 1; }
done

echo "authctl token, client side only, $runs interleaved runs each, $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg), $(date -u +%Y-%m-%d)"
echo "authctl: $(stat -c %s "$authctl") bytes, authctl-full: $(stat -c %s "$full") bytes"
echo
echo "| command | median ms | p99 ms | median vs /bin/true |"
echo "|---|---|---|---|"
python3 - "$runs" /bin/true -- "$work/token-client" "$work/stub.sock" bench -- \
    "$work/token-client-embedded" "$work/stub.sock" bench -- "$authctl" --socket "$work/stub.sock" token bench -- \
    "$full" --socket "$work/stub.sock" token bench <<'PY'
import os, sys, time
runs = int(sys.argv[1])
commands, current = [], []
for word in sys.argv[2:] + ["--"]:
    if word == "--":
        commands.append(current); current = []
    else:
        current.append(word)
labels = ["`/bin/true`", "static C client (floor)", "Embedded Swift client, static", "`authctl token bench` (the front)",
    "`authctl-full token bench`"]
devnull = os.open(os.devnull, os.O_WRONLY)
actions = [(os.POSIX_SPAWN_DUP2, devnull, 1)]
times = [[] for _ in commands]
for round in range(runs + 20):
    for index, argv in enumerate(commands):
        start = time.monotonic_ns()
        _, status = os.waitpid(os.posix_spawn(argv[0], argv, os.environ, file_actions=actions), 0)
        if status != 0: sys.exit("%s failed" % argv[0])
        if round >= 20: times[index].append((time.monotonic_ns() - start) / 1e6)
medians = []
for index, sample in enumerate(times):
    sample.sort()
    medians.append(sample[len(sample) // 2])
for label, sample, median in zip(labels, times, medians):
    print("| %s | %.2f | %.2f | %.2f |" % (label, median, sample[min(len(sample) - 1, int(len(sample) * 0.99))], median / medians[0]))
PY
if command -v valgrind >/dev/null; then
    echo
    echo "| one run of | user-space instructions | page faults |"
    echo "|---|---:|---:|"
    count() {
        local label=$1; shift
        local instructions faults
        instructions=$(valgrind --tool=lackey --basic-counts=yes "$@" 2>&1 >/dev/null | awk '/guest instrs:/ {print $NF; exit}')
        faults=$( [[ -x /usr/bin/time ]] && /usr/bin/time -f %R "$@" 2>&1 >/dev/null | tail -1 || echo "?")
        printf '| %s | %s | %s |\n' "$label" "$instructions" "$faults"
    }
    count "\`/bin/true\`" /bin/true
    count "static C client" "$work/token-client" "$work/stub.sock" bench
    count "Embedded Swift client" "$work/token-client-embedded" "$work/stub.sock" bench
    count "\`authctl token bench\` (the front)" "$authctl" --socket "$work/stub.sock" token bench
    count "\`authctl-full token bench\`" "$full" --socket "$work/stub.sock" token bench
fi
