#!/bin/bash
# authctl start-up cost: builds release (static Swift stdlib, as `make install` does) and measures
#   1. `authctl version`                               (start-up + one write)
#   2. `authctl --socket /nonexistent token x`         (start-up + argument parsing + failed connect, exit 69)
#   3. `authctl --socket STUB token x`                 (the whole client side of the token path, against
#                                                       bench/token-stub.py; needs python3)
#   4. a Swift hello world linked -static-stdlib and -static-executable (authctl is the latter, see
#      Package.swift): the floor, process start + Swift runtime
# with hyperfine when installed (apt-get install hyperfine), else a python3 loop on the monotonic clock.
# Prints median and p99 in milliseconds as Markdown rows for docs/BENCHMARKS.md ("authctl start-up").
# usage: bench/authctl-startup.sh [RUNS]   (default 500, at least 200)
set -euo pipefail
runs=${1:-500}
(( runs >= 200 )) || { echo "use at least 200 runs" >&2; exit 64; }
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/authctl-bench.XXXXXX")
stub_pid=""
cleanup() { [[ -n $stub_pid ]] && kill "$stub_pid" 2>/dev/null; rm -rf "$work"; }
trap cleanup EXIT

cd "$root"
swift build -c release --static-swift-stdlib --product authctl >&2
authctl="$(swift build -c release --static-swift-stdlib --show-bin-path)/authctl"
printf 'print("hello")\n' >"$work/hello.swift"
swiftc -O -static-stdlib "$work/hello.swift" -o "$work/hello"
swiftc -O -static-executable "$work/hello.swift" -o "$work/hello-static-executable" 2>/dev/null

# Measures one command; prints "median p99" in ms.
measure() {
    local name=$1; shift
    if command -v hyperfine >/dev/null; then
        hyperfine -N -i --warmup 20 --runs "$runs" --style none --export-json "$work/$name.json" -- "$*" >/dev/null 2>&1
        python3 - "$work/$name.json" <<'PY'
import json, sys
times = sorted(json.load(open(sys.argv[1]))["results"][0]["times"])
print("%.2f %.2f" % (times[len(times) // 2] * 1e3, times[min(len(times) - 1, int(len(times) * 0.99))] * 1e3))
PY
    else
        python3 - "$runs" "$@" <<'PY'
import os, sys, time
runs, argv = int(sys.argv[1]), sys.argv[2:]
devnull = os.open(os.devnull, os.O_WRONLY)
actions = [(os.POSIX_SPAWN_DUP2, devnull, 1), (os.POSIX_SPAWN_DUP2, devnull, 2)]
times = []
for i in range(runs + 20):
    start = time.monotonic_ns()
    os.waitpid(os.posix_spawn(argv[0], argv, os.environ, file_actions=actions), 0)
    if i >= 20: times.append((time.monotonic_ns() - start) / 1e6)
times.sort()
print("%.2f %.2f" % (times[len(times) // 2], times[min(len(times) - 1, int(len(times) * 0.99))]))
PY
    fi
}

row() {
    local label=$1 name=$2; shift 2
    read -r median p99 < <(measure "$name" "$@")
    printf '| %s | %s | %s |\n' "$label" "$median" "$p99"
}

tool=$(command -v hyperfine >/dev/null && hyperfine --version || echo "python3 posix_spawn loop")
echo "authctl start-up, $runs runs each, $tool, $(nproc) cores, $(date -u +%Y-%m-%d)"
libraries=$(ldd "$authctl" 2>/dev/null | awk '{print $1}' | grep -v vdso | tr '\n' ' ' || true)
echo "authctl: $(stat -c %s "$authctl") bytes; dynamic libraries: ${libraries:-none (statically linked)}"
echo
echo "| command | median ms | p99 ms |"
echo "|---|---|---|"
row "Swift hello world, \`-static-stdlib\` (reference)" hello "$work/hello"
row "Swift hello world, \`-static-executable\` (reference, as authctl is linked)" hello-exe "$work/hello-static-executable"
row "\`authctl version\`" version "$authctl" version
row "\`authctl --socket /nonexistent token x\` (exit 69)" nosocket "$authctl" --socket /nonexistent token x
if command -v python3 >/dev/null; then
    python3 "$root/bench/token-stub.py" "$work/stub.sock" >"$work/stub.log" 2>&1 &
    stub_pid=$!
    for _ in $(seq 50); do grep -q ready "$work/stub.log" 2>/dev/null && break; sleep 0.1; done
    "$authctl" --socket "$work/stub.sock" token x >/dev/null
    row "\`authctl token x\` against bench/token-stub.py" stub "$authctl" --socket "$work/stub.sock" token x
fi
