#!/bin/bash
# Where a forced refresh's time goes, phase by phase, from the daemon's and the mock's own system
# calls: `perf record -e raw_syscalls:*` on both processes (not system-wide) while ROUNDS forced
# refreshes are asked for over the socket (`GET /v1/accounts/bench/token?min_ttl=3600`, a new
# connection each, 1.2 s apart) against mock-oidc-provider with 10-second tokens. Per refresh it
# marks: the daemon's accept, its request to the provider (first `sendto`), the provider's answer
# (the mock's `sendto`), the daemon's `recvfrom` of it, the vault's `fdatasync` (enter and return),
# and the daemon's answer to the caller (its next `sendto`); it prints each phase's median and p25.
# Needs perf with tracepoints (Debian's linux-perf; `perf list | grep raw_syscalls`).
# usage: bench/refresh-phases.sh [ROUNDS=25]   (AUTHBROKERD=PATH: another daemon binary)
rounds=${1:-25}
command -v perf >/dev/null || { echo "refresh-phases.sh needs perf (apt-get install linux-perf)" >&2; exit 1; }
source "$(dirname "$0")/lib/broker-setup.sh"
start_mock '{"clientAuthentication": "client_secret_basic", "clientSecret": "s3cret", "accessTokenLifetime": 10}'
mock_pid=${pids[-1]}
start_daemon
sign_in
[[ $(authctl token bench) == at-* ]] || { echo "no token" >&2; exit 1; }
echo "refresh phases, $rounds forced refreshes, $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
perf record -q -o "$work/perf.data" -e 'raw_syscalls:sys_enter,raw_syscalls:sys_exit' -p "$daemon_pid,$mock_pid" \
    -- sleep $((rounds * 13 / 10 + 3)) &
perf_pid=$!
sleep 1
python3 - "$rounds" "$socket" <<'PY'
import socket, sys, time
rounds, socket_path = int(sys.argv[1]), sys.argv[2]
request = b"GET /v1/accounts/bench/token?min_ttl=3600 HTTP/1.1\r\nHost: localhost\r\nAccept: text/plain\r\nConnection: close\r\n\r\n"
for _ in range(rounds):
    time.sleep(1.2)
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as client:
        client.connect(socket_path); client.sendall(request)
        answer = b""
        while chunk := client.recv(65536): answer += chunk
    if not answer.startswith(b"HTTP/1.1 200"): sys.exit("request failed: %r" % answer[:200])
PY
wait "$perf_pid"
perf script -i "$work/perf.data" -F pid,time,event,trace 2>/dev/null | python3 -c '
import re, statistics, sys
daemon, mock = sys.argv[1:]
ACCEPT, ACCEPT4, SENDTO, RECVFROM, FDATASYNC = 43, 288, 44, 45, 75
events = []
for line in sys.stdin:
    match = re.match(r"\s*(\d+)\s+([\d.]+):\s+raw_syscalls:sys_(enter|exit):\s+NR (\d+)\s*(.*)", line)
    if match:
        pid, at, kind, number, rest = match.groups()
        events.append((float(at), pid, kind, int(number), rest))
events.sort()
steps = [  # each the first event of its kind after the previous step
    ("request_sent", lambda e: e[1] == daemon and e[2] == "enter" and e[3] == SENDTO),
    ("provider_answered", lambda e: e[1] == mock and e[2] == "enter" and e[3] == SENDTO),
    ("answer_read", lambda e: e[1] == daemon and e[2] == "exit" and e[3] == RECVFROM and "= -" not in e[4]),
    ("fsync_start", lambda e: e[1] == daemon and e[2] == "enter" and e[3] == FDATASYNC),
    ("fsync_end", lambda e: e[1] == daemon and e[2] == "exit" and e[3] == FDATASYNC),
    ("caller_answered", lambda e: e[1] == daemon and e[2] == "enter" and e[3] == SENDTO),
]
rows, index = [], 0
while index < len(events):
    at, pid, kind, number, rest = events[index]
    index += 1
    if not (pid == daemon and kind == "exit" and number in (ACCEPT, ACCEPT4) and not rest.strip().startswith("= -")):
        continue
    marks, step, scan = {"accepted": at}, 0, index
    while scan < len(events) and step < len(steps) and events[scan][0] - at < 0.1:
        if steps[step][1](events[scan]):
            marks[steps[step][0]] = events[scan][0]
            step += 1
        scan += 1
    if step == len(steps):
        rows.append(marks)
        index = scan
phases = [("accept → request sent", "accepted", "request_sent"),
          ("provider (its send − our send)", "request_sent", "provider_answered"),
          ("answer reaches us", "provider_answered", "answer_read"),
          ("answer read → fsync starts", "answer_read", "fsync_start"),
          ("fsync", "fsync_start", "fsync_end"),
          ("fsync returns → caller answered", "fsync_end", "caller_answered")]
print("refreshes traced: %d" % len(rows))
if not rows: sys.exit("no complete refresh in the trace")
print("| phase | median ms | p25 ms |\n|---|---|---|")
for name, start, end in phases:
    spans = sorted((row[end] - row[start]) * 1000 for row in rows)
    print("| %s | %.3f | %.3f |" % (name, statistics.median(spans), spans[len(spans) // 4]))
' "$daemon_pid" "$mock_pid"
