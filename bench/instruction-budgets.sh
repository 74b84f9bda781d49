#!/bin/bash
# Instruction-count budgets (docs/BENCHMARKS.md, "Instruction counts"): counts of the hot paths under
# valgrind's callgrind, which — unlike latency — do not move with the machine's load, checked
# against bench/instruction-budgets.txt (per toolchain and build configuration, ~10 % above the
# recorded figure, like swift-nio's benchmark thresholds). Fails when a count is over its budget.
#   token-route     the daemon's instructions per `authctl token NAME` (a new connection each, as authctl does)
#   dpop-proof      the daemon's instructions per DPoP proof (keep-alive, bench/socket-bench --dpop … proofs-only)
#   forced-refresh  the daemon's instructions per `authctl token NAME --min-ttl 3600` that refreshes
#   authctl-token   all of authctl's own instructions for `authctl token NAME` (the Embedded front)
# Uses this build's binaries: BENCH_CONFIG=debug (what `make test` built; CI runs it after the
# suite, so it adds no build) or release (default for the other bench scripts; builds it).
# usage: BENCH_CONFIG=debug bench/instruction-budgets.sh [--record]
#   --record  writes this toolchain's budgets (figures + 10 %) into the budgets file instead of checking.
# Needs valgrind (.ci/install-deps installs it).
set -euo pipefail
record=${1:-}
command -v valgrind >/dev/null || { echo "instruction-budgets.sh needs valgrind (apt-get install valgrind)" >&2; exit 1; }
export BENCH_CONFIG=${BENCH_CONFIG:-release}
source "$(dirname "$0")/lib/broker-setup.sh"
budgets=$root/bench/instruction-budgets.txt
toolchain=$(swift --version 2>/dev/null | sed -n 's/.*Swift version \([0-9.]*\).*/\1/p' | head -1)
tokens=100 proofs=200 refreshes=3
profiles=$work/profiles
mkdir "$profiles"

# The measured account's mock: hour-long tokens, so nothing refreshes while the counts run.
start_mock '{"clientAuthentication": "client_secret_basic", "clientSecret": "s3cret", "accessTokenLifetime": 3600, "dpop": "accepted"}'
start_callgrind_daemon "$bin/authbrokerd" "$profiles/daemon.out"
sign_in
account=bound sign_in --dpop
# A second mock with 20-second tokens for the forced refreshes: a token younger than a tenth of
# its life is brand new and not refreshed again, so rounds are 2.2 s apart.
short_issuer_mock() {
    "$bin/mock-oidc-provider" --no-stdin --config '{"clientAuthentication": "client_secret_basic", "clientSecret": "s3cret", "accessTokenLifetime": 20}' \
        >"$work/mock2.out" 2>&1 &
    pids+=($!)
    for _ in $(seq 100); do grep -q listening "$work/mock2.out" 2>/dev/null && break; sleep 0.05; done
    issuer=$(awk '/listening/ {print $2}' "$work/mock2.out")
}

# Sets `count` to the daemon's instructions while "$@" runs: instrumentation on, off, then a dump
# (callgrind_control -d dumps and zeroes; dump N is daemon.out.N).
phase=0
measure() {
    callgrind_control -i on "$daemon_pid" >/dev/null 2>&1
    "$@"
    callgrind_control -i off "$daemon_pid" >/dev/null 2>&1
    callgrind_control -d "$daemon_pid" >/dev/null 2>&1
    phase=$((phase + 1))
    for _ in $(seq 200); do [ -s "$profiles/daemon.out.$phase" ] && break; sleep 0.05; done
    count=$(awk '/^totals:/ {print $2; exit}' "$profiles/daemon.out.$phase")
    [ -n "$count" ] || { echo "no callgrind dump for phase $phase" >&2; exit 1; }
}
token_loop() { for _ in $(seq "$tokens"); do authctl token bench >/dev/null; done; }
proof_loop() { "$bin/socket-bench" --dpop "$socket" bound "$issuer/resource" "$proofs" proofs-only >/dev/null; }
refresh_loop() { for _ in $(seq "$refreshes"); do sleep 2.2; authctl token fast --min-ttl 3600 >/dev/null; done; }

token_loop  # warm: first connections, the audit log opened
measure token_loop
token_route=$((count / tokens))
proof_loop
measure proof_loop
dpop_proof=$((count / proofs))
short_issuer_mock
account=fast sign_in
refresh_loop  # warm: the first refresh fetches the provider's keys
measure refresh_loop
forced_refresh=$((count / refreshes))
valgrind --tool=callgrind --callgrind-out-file="$profiles/authctl.out" "$bin/authctl" --socket "$socket" token bench \
    >/dev/null 2>"$work/authctl-valgrind.log"
authctl_token=$(awk '/^totals:/ {print $2; exit}' "$profiles/authctl.out")

echo "instruction counts, Swift $toolchain, $BENCH_CONFIG build, $(date -u +%Y-%m-%d)"
if [ "$record" = "--record" ]; then
    grep -v "^$toolchain $BENCH_CONFIG " "$budgets" >"$work/budgets" || true
    for pair in "token-route $token_route" "dpop-proof $dpop_proof" "forced-refresh $forced_refresh" "authctl-token $authctl_token"; do
        set -- $pair
        echo "$toolchain $BENCH_CONFIG $1 $(( $2 + $2 / 10 ))" >>"$work/budgets"
        printf '  %-15s %12d   budget recorded: %d\n' "$1" "$2" "$(( $2 + $2 / 10 ))"
    done
    cp "$work/budgets" "$budgets"
    exit 0
fi
failed=0 known=0
for pair in "token-route $token_route" "dpop-proof $dpop_proof" "forced-refresh $forced_refresh" "authctl-token $authctl_token"; do
    set -- $pair
    budget=$(awk -v t="$toolchain" -v c="$BENCH_CONFIG" -v m="$1" '$1 == t && $2 == c && $3 == m {print $4}' "$budgets")
    if [ -z "$budget" ]; then
        printf '  %-15s %12d   (no budget for Swift %s, %s)\n' "$1" "$2" "$toolchain" "$BENCH_CONFIG"
        continue
    fi
    known=1
    verdict=ok
    [ "$2" -le "$budget" ] || { verdict="OVER BUDGET"; failed=1; }
    printf '  %-15s %12d   budget %12d   %3d %%   %s\n' "$1" "$2" "$budget" "$(( $2 * 100 / budget ))" "$verdict"
done
[ "$known" = 1 ] || echo "No budgets for Swift $toolchain ($BENCH_CONFIG) yet: record them with BENCH_CONFIG=$BENCH_CONFIG bench/instruction-budgets.sh --record"
if [ "$failed" = 1 ]; then
    echo "A hot path costs more instructions than its budget: find out why (bench/dpop-proof-instructions.sh shows where they go)," >&2
    echo "or, when the cost is meant, record new budgets: BENCH_CONFIG=$BENCH_CONFIG bench/instruction-budgets.sh --record" >&2
    exit 1
fi
