#!/bin/bash
# A forced refresh end to end against the provider's own time. mock-oidc-provider (10-second
# access tokens, rotation on) logs its handling time per request (`timingLog`); authbrokerd runs
# with --log-level debug for its `commit_ms`. Each round, 1.2 s apart (a token younger than a tenth
# of its lifetime is "brand new" and not refreshed again), times one `authctl token bench
# --min-ttl 3600` (a refresh first: more than the lifetime) and one plain `authctl token bench`
# (the cached answer: process start + the token route) from a python3 posix_spawn loop.
# Prints medians and p90s of: the forced call, the plain call, the provider's token endpoint time,
# the forced call minus the provider's time (the daemon's and authctl's share), and the commit.
# usage: bench/forced-refresh.sh [ROUNDS=50]
rounds=${1:-50}
source "$(dirname "$0")/lib/broker-setup.sh"
start_mock "{\"clientAuthentication\": \"client_secret_basic\", \"clientSecret\": \"s3cret\", \"accessTokenLifetime\": 10, \"timingLog\": \"$work/mock-timing.log\"}"
start_daemon --log-level debug
sign_in
[[ $(authctl token bench) == at-* ]] || { echo "no token" >&2; exit 1; }
: >"$work/mock-timing.log"
: >"$work/daemon.log"
echo "forced refresh, $rounds rounds, $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg), $(date -u +%Y-%m-%d)"
python3 - "$rounds" "$bin/authctl" "$socket" "$work/mock-timing.log" "$work/daemon.log" <<'PY'
import os, re, sys, time
rounds, authctl, socket, timing_log, daemon_log = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5]
devnull = os.open(os.devnull, os.O_WRONLY)
actions = [(os.POSIX_SPAWN_DUP2, devnull, 1)]
def timed(argv):
    start = time.monotonic_ns()
    _, status = os.waitpid(os.posix_spawn(argv[0], argv, os.environ, file_actions=actions), 0)
    if status != 0: sys.exit("%s failed" % " ".join(argv))
    return (time.monotonic_ns() - start) / 1e6
forced, plain = [], []
for _ in range(rounds):
    time.sleep(1.2)
    forced.append(timed([authctl, "--socket", socket, "token", "bench", "--min-ttl", "3600"]))
    plain.append(timed([authctl, "--socket", socket, "token", "bench"]))
provider = [int(line.split()[2]) / 1000 for line in open(timing_log) if line.startswith("POST /token ")]
commits = [float(m.group(1)) for m in re.finditer(r'commit_ms[=:]"?([0-9.]+)', open(daemon_log).read())]
if len(provider) != rounds: sys.exit("expected %d refreshes at the provider, saw %d" % (rounds, len(provider)))
def stats(values):
    values = sorted(values)
    return "%.2f | %.2f" % (values[len(values) // 2], values[int(len(values) * 0.9)])
print()
print("| what | median ms | p90 ms |")
print("|---|---|---|")
print("| `authctl token bench --min-ttl 3600` (a refresh first) | %s |" % stats(forced))
print("| `authctl token bench` (cached) | %s |" % stats(plain))
print("| provider: `POST /token` handling (mock's log) | %s |" % stats(provider))
print("| forced call − provider time, per round | %s |" % stats([f - p for f, p in zip(forced, provider)]))
print("| forced − provider − cached call, per round | %s |" % stats([f - p - c for f, p, c in zip(forced, provider, plain)]))
if commits: print("| of which the commit (`commit_ms`, %d) | %s |" % (len(commits), stats(commits)))
PY
