#!/bin/bash
# The daemon's CPU and context switches per forced refresh, which do not swing with the load as
# wall-clock latencies do: `perf stat` on authbrokerd over ROUNDS forced refreshes over the socket
# (`GET /v1/accounts/bench/token?min_ttl=3600`, a new connection each, 1.2 s apart: a token younger
# than a tenth of its lifetime is not refreshed again) against mock-oidc-provider with 10-second
# tokens. Also prints the median wall-clock time of those requests and of the mock's own handling.
# usage: bench/refresh-cpu.sh [ROUNDS=20]   (AUTHBROKERD=PATH: another daemon binary)
rounds=${1:-20}
source "$(dirname "$0")/lib/broker-setup.sh"
start_mock "{\"clientAuthentication\": \"client_secret_basic\", \"clientSecret\": \"s3cret\", \"accessTokenLifetime\": 10, \"timingLog\": \"$work/mock-timing.log\"}"
start_daemon
sign_in
[[ $(authctl token bench) == at-* ]] || { echo "no token" >&2; exit 1; }
: >"$work/mock-timing.log"
cat >"$work/loop.py" <<'PY'
import socket, sys, time
rounds, socket_path, out = int(sys.argv[1]), sys.argv[2], sys.argv[3]
request = b"GET /v1/accounts/bench/token?min_ttl=3600 HTTP/1.1\r\nHost: localhost\r\nAccept: text/plain\r\nConnection: close\r\n\r\n"
times = []
for _ in range(rounds):
    time.sleep(1.2)
    start = time.monotonic_ns()
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as client:
        client.connect(socket_path); client.sendall(request)
        answer = b""
        while chunk := client.recv(65536): answer += chunk
    times.append((time.monotonic_ns() - start) / 1e6)
    if not answer.startswith(b"HTTP/1.1 200"): sys.exit("request failed: %r" % answer[:200])
open(out, "w").write("\n".join("%.3f" % t for t in times))
PY
echo "refresh CPU, $rounds forced refreshes, $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
perf stat -x, -e task-clock,context-switches,cpu-migrations -p "$daemon_pid" -o "$work/perf.csv" -- \
    python3 "$work/loop.py" "$rounds" "$socket" "$work/times.txt"
python3 - "$rounds" "$work/perf.csv" "$work/times.txt" "$work/mock-timing.log" <<'PY'
import sys
rounds, perf, times, timing = int(sys.argv[1]), *sys.argv[2:]
counters = {}
for line in open(perf):
    fields = line.strip().split(",")
    if len(fields) > 2 and fields[0] and not line.startswith("#"):
        try: counters[fields[2]] = float(fields[0])
        except ValueError: pass
median = lambda values: sorted(values)[len(values) // 2]
forced = [float(line) for line in open(times)]
provider = [int(line.split()[2]) / 1000 for line in open(timing) if line.startswith("POST /token ")]
print("daemon CPU per refresh %.3f ms, context switches per refresh %.1f, migrations %.1f" % (
    counters.get("task-clock", 0) / rounds, counters.get("context-switches", 0) / rounds, counters.get("cpu-migrations", 0) / rounds))
print("median forced %.2f ms, provider %.2f ms, forced - provider %.2f ms" % (
    median(forced), median(provider), median([f - p for f, p in zip(forced, provider)])))
PY
