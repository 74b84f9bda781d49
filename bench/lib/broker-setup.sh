# Sourced by the bench/*.sh scripts: builds release binaries (static Swift stdlib, as `make install`
# does), starts mock-oidc-provider and authbrokerd in a temporary directory with its own XDG
# directories, and signs in account "bench" (the script plays the browser). Cleans up on exit.
# Provides: $root $work $bin $issuer $socket, authctl(), start_daemon(), stop_daemon(), seed_accounts().
# BENCH_CONFIG=debug uses the debug build instead (bench/instruction-budgets.sh in CI).
# AUTHBROKERD=PATH runs that daemon binary instead of this build's (a saved "before" build, so two
# binaries can be compared in consecutive runs of the same script).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/authbroker-bench.XXXXXX")
pids=()
cleanup() {
    local pid
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
    wait 2>/dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT

cd "$root"
# BENCH_CONFIG=debug: the debug build `make test` made (built here only when missing).
if [ "${BENCH_CONFIG:-release}" = debug ]; then
    bin=$(swift build --show-bin-path)
    [ -x "$bin/authbrokerd" ] && [ -x "$bin/socket-bench" ] && [ -x "$bin/mock-oidc-provider" ] || swift build >&2
else
    swift build -c release --static-swift-stdlib >&2
    bin=$(swift build -c release --static-swift-stdlib --show-bin-path)
fi
mkdir -m 0700 "$work/run"
export HOME=$work XDG_RUNTIME_DIR=$work/run XDG_STATE_HOME=$work/state XDG_CONFIG_HOME=$work/config
socket=$work/run/authbroker.sock
helper="$root/bench/lib/mock-login.py"

authctl() { "$bin/authctl" --socket "$socket" "$@"; }

start_mock() {
    "$bin/mock-oidc-provider" --no-stdin --config "${1:-{\}}" >"$work/mock.out" 2>&1 &
    pids+=($!)
    for _ in $(seq 100); do grep -q listening "$work/mock.out" 2>/dev/null && break; sleep 0.05; done
    issuer=$(awk '/listening/ {print $2}' "$work/mock.out")
}

start_daemon() {
    "${AUTHBROKERD:-$bin/authbrokerd}" --socket "$socket" "$@" >>"$work/daemon.log" 2>&1 &
    daemon_pid=$!
    pids+=($daemon_pid)
    for _ in $(seq 200); do authctl ping >/dev/null 2>&1 && return; sleep 0.01; done
    echo "authbrokerd did not start:" >&2; cat "$work/daemon.log" >&2; exit 1
}

# Starts this build's authbrokerd (or $1) under callgrind with instrumentation off (turn it on with
# callgrind_control -i on "$daemon_pid"), profile in $2; valgrind starts slowly: up to 60 s.
start_callgrind_daemon() {
    valgrind --tool=callgrind --instr-atstart=no --callgrind-out-file="$2" "$1" --socket "$socket" >>"$work/daemon.log" 2>&1 &
    daemon_pid=$!
    pids+=($daemon_pid)
    for _ in $(seq 1200); do authctl ping >/dev/null 2>&1 && return; sleep 0.05; done
    echo "authbrokerd did not start under valgrind:" >&2; cat "$work/daemon.log" >&2; exit 1
}

stop_daemon() { kill "$daemon_pid"; wait "$daemon_pid" 2>/dev/null || true; }

# Adds account "bench" (or $account when set) for the mock's confidential client (with any extra
# `account add` options given) and signs in.
sign_in() {
    printf 's3cret' >"$work/secret"; chmod 600 "$work/secret"
    authctl account add "${account:-bench}" --issuer "$issuer" --client-id mock-client --client-secret-file "$work/secret" \
        --scope openid --scope offline_access "$@" >/dev/null
    # One file per login, made before the login starts: a reused one could still hold the
    # previous login's URL (its listener closed) when the loop below reads it.
    local out="$work/login-${account:-bench}.out"
    : >"$out"
    authctl login "${account:-bench}" --no-browser --timeout 30 >"$out" 2>&1 &
    local login=$!
    for _ in $(seq 100); do grep -q '^http' "$out" && break; sleep 0.02; done
    python3 "$helper" browse "$(grep -m1 '^http' "$out")"
    wait "$login"
}

# Adds and signs in N accounts acct-0001… through the socket API, four clients side by side.
seed_accounts() {
    local count=$1 clients=4 first=1 share seeders=() seeder
    share=$(( (count + clients - 1) / clients ))
    while [ "$first" -le "$count" ]; do
        python3 "$helper" seed "$socket" "$issuer" "$(( share < count - first + 1 ? share : count - first + 1 ))" "$first" &
        seeders+=($!)
        first=$(( first + share ))
    done
    for seeder in "${seeders[@]}"; do wait "$seeder"; done
}
