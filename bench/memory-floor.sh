#!/bin/bash
# The memory floor under authbrokerd's idle RSS, measured in the same run as the daemon
# (docs/BENCHMARKS-archive.md, "Daemon idle: the code laid out together"): VmRSS 5 s after start of
#   - bench/lib/sleeper.swift: a static Swift program that starts one task and sleeps (the Swift
#     runtime, Dispatch and the concurrency runtime: what any daemon written this way carries);
#   - bench/floor/vault-libraries.c: one AES-256-GCM operation with libcrypto and a SQLite
#     database in WAL mode with one insert (the C libraries the vault needs before serving);
#   - bench/floor/pause.c: a C program that only waits (its libc/ld.so/stack, counted once);
#   - this build's authbrokerd with ACCOUNTS signed-in accounts (every binary `cp`'d the same way).
# floor = sleeper + vault-libraries − pause. usage: bench/memory-floor.sh [ACCOUNTS=1]
accounts=${1:-1}
source "$(dirname "$0")/lib/broker-setup.sh"
swiftc -O -static-stdlib "$root/bench/lib/sleeper.swift" -o "$work/sleeper-build" >&2
cc -O2 "$root/bench/floor/vault-libraries.c" -o "$work/vault-libraries-build" -lcrypto -lsqlite3
cc -O2 "$root/bench/floor/pause.c" -o "$work/pause-build"
for program in sleeper vault-libraries pause; do cp "$work/$program-build" "$work/$program"; done
start_mock '{"accessTokenLifetime": 3600}'
start_daemon
seed_accounts "$accounts"
stop_daemon
cp "$bin/authbrokerd" "$work/authbrokerd"
AUTHBROKERD=$work/authbrokerd start_daemon
"$work/sleeper" & pids+=($!); sleeper=$!
"$work/vault-libraries" "$work/floor.db" >/dev/null & pids+=($!); libraries=$!
"$work/pause" >/dev/null & pids+=($!); pause=$!
sleep 5
rss() { awk '/^VmRSS/ {print $2}' "/proc/$1/status"; }
echo "memory floor, $(date -u +%Y-%m-%d), load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo
echo "| process | VmRSS kB |"
echo "|---|---:|"
echo "| static Swift program sleeping in a task (bench/lib/sleeper.swift) | $(rss $sleeper) |"
echo "| C: libcrypto AES-256-GCM + SQLite WAL insert (bench/floor/vault-libraries.c) | $(rss $libraries) |"
echo "| C: pause() only (bench/floor/pause.c) | $(rss $pause) |"
echo "| **floor** = sleeper + vault-libraries − pause | **$(( $(rss $sleeper) + $(rss $libraries) - $(rss $pause) ))** |"
echo "| authbrokerd, $accounts signed-in account(s) | $(rss $daemon_pid) |"
