#!/bin/bash
# authbrokerd at idle with ACCOUNTS signed-in accounts (1-hour tokens from mock-oidc-provider, so
# no refresh falls due during the run), restarted so the figures are those of a fresh start:
#   - RSS by mapping 5 s after start (bench/lib/footprint.py rss): the daemon's own pages, each
#     shared library, heap, thread stacks; the threads and how much of each stack is touched;
#   - wake-ups over SECONDS of idle: per thread, how often it was scheduled (/proc schedstat) and,
#     when perf is installed, every system call the process made in that window;
#   - the working set: pages referenced during those SECONDS plus 100 `authctl token` requests
#     (referenced bits cleared first), beside RSS — what start-up alone touched is the difference.
# usage: bench/daemon-idle.sh [ACCOUNTS=1] [SECONDS=60]
accounts=${1:-1}
seconds=${2:-60}
source "$(dirname "$0")/lib/broker-setup.sh"
start_mock '{"accessTokenLifetime": 3600}'
start_daemon
seed_accounts "$accounts"
stop_daemon
start_daemon
sleep 5
echo "## $accounts account(s), load average $(cut -d' ' -f1-3 /proc/loadavg)"
grep -E 'VmRSS|VmHWM|Threads' "/proc/$daemon_pid/status" | tr -s '\t ' ' ' | paste -sd ';'
echo
python3 "$root/bench/lib/footprint.py" rss "$daemon_pid"
echo
python3 "$root/bench/lib/footprint.py" clear-refs "$daemon_pid"
if command -v perf >/dev/null; then
    perf stat -x, -e 'syscalls:sys_enter_*' -p "$daemon_pid" -o "$work/perf.csv" -- sleep "$seconds" &
    perf_pid=$!
fi
python3 "$root/bench/lib/footprint.py" wakeups "$daemon_pid" "$seconds"
if [ -n "${perf_pid:-}" ]; then
    wait "$perf_pid" || true
    echo "system calls during those $seconds s (perf stat -e 'syscalls:sys_enter_*'):"
    awk -F, '$1 ~ /^[0-9]+$/ && $1 > 0 {sub("syscalls:sys_enter_", "", $3); printf "  %s %s\n", $3, $1; n += $1}
        END {printf "  total %d\n", n}' "$work/perf.csv"
fi
for _ in $(seq 100); do authctl token acct-0001 >/dev/null; done
echo
echo "working set: $seconds s of idle, then 100 token requests"
python3 "$root/bench/lib/footprint.py" referenced "$daemon_pid"
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
