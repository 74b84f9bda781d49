#!/bin/bash
# A forced refresh end to end against the provider's own time. mock-oidc-provider (10-second
# access tokens, rotation on) logs its handling time per request (`timingLog`); authbrokerd runs
# with --log-level debug for its `commit_ms`. Each round, 1.2 s apart (a token younger than a tenth
# of its lifetime is "brand new" and not refreshed again), does one of two forced refreshes in
# turn: `authctl token bench --min-ttl 3600` (then a plain `authctl token bench` and `/bin/true`,
# the process-start floor, from a python3 posix_spawn loop), or the same request straight over the
# socket (`GET /v1/accounts/bench/token?min_ttl=3600`, a new connection, as authctl does: the
# daemon's share without any process start). Every round also times one fsync'd SQLite commit
# (WAL, synchronous=FULL, as the vault) on the same disk: the floor of any commit there.
# Each round also times a `GET /jwks` to the mock on a keep-alive connection against the mock's
# own log: its HTTP layer and the loopback round trip, which its log leaves out.
# Prints medians and p90s of each, the broker-added time (forced minus the provider's time),
# that minus the commit, and the commits themselves.
# usage: bench/forced-refresh.sh [ROUNDS=50]   (ROUNDS refreshes of each kind)
rounds=${1:-50}
source "$(dirname "$0")/lib/broker-setup.sh"
start_mock "{\"clientAuthentication\": \"client_secret_basic\", \"clientSecret\": \"s3cret\", \"accessTokenLifetime\": 10, \"timingLog\": \"$work/mock-timing.log\"}"
start_daemon --log-level debug
sign_in
[[ $(authctl token bench) == at-* ]] || { echo "no token" >&2; exit 1; }
: >"$work/mock-timing.log"
: >"$work/daemon.log"
echo "forced refresh, $rounds rounds of each kind, $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg), $(date -u +%Y-%m-%d)"
python3 - "$rounds" "$bin/authctl" "$socket" "$work/mock-timing.log" "$work/daemon.log" "$work/state/fsync-floor.db" "$issuer" <<'PY'
import os, re, socket, sqlite3, sys, time
rounds, authctl, socket_path, timing_log, daemon_log, floor_db, issuer = int(sys.argv[1]), *sys.argv[2:]
devnull = os.open(os.devnull, os.O_WRONLY)
actions = [(os.POSIX_SPAWN_DUP2, devnull, 1)]
def timed(argv):
    start = time.monotonic_ns()
    _, status = os.waitpid(os.posix_spawn(argv[0], argv, os.environ, file_actions=actions), 0)
    if status != 0: sys.exit("%s failed" % " ".join(argv))
    return (time.monotonic_ns() - start) / 1e6
def over_socket(query):
    request = ("GET /v1/accounts/bench/token%s HTTP/1.1\r\nHost: localhost\r\nAccept: text/plain\r\n"
               "Connection: close\r\n\r\n" % query).encode()
    start = time.monotonic_ns()
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as client:
        client.connect(socket_path)
        client.sendall(request)
        answer = b""
        while chunk := client.recv(65536): answer += chunk
    elapsed = (time.monotonic_ns() - start) / 1e6
    if not answer.startswith(b"HTTP/1.1 200"): sys.exit("socket request failed: %r" % answer[:200])
    return elapsed
# The floor of a durable commit on this disk: one small row per transaction, WAL, synchronous=FULL.
floor = sqlite3.connect(floor_db, isolation_level=None)
floor.execute("PRAGMA journal_mode=WAL"); floor.execute("PRAGMA synchronous=FULL")
floor.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, value BLOB)")
def fsync_commit(index):
    start = time.monotonic_ns()
    floor.execute("BEGIN"); floor.execute("INSERT OR REPLACE INTO t VALUES (1, ?)", (os.urandom(600),)); floor.execute("COMMIT")
    return (time.monotonic_ns() - start) / 1e6
# What the mock's log leaves out of "the provider's time": its HTTP layer (parsing, its connection
# thread, serializing) and the loopback round trip, seen by a keep-alive client as the broker's pool is.
host, port = issuer.split("//")[1].split("/")[0].split(":")
mock = socket.create_connection((host, int(port))); mock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
def mock_round_trip():
    start = time.monotonic_ns()
    mock.sendall(b"GET /jwks HTTP/1.1\r\nHost: %s\r\n\r\n" % host.encode())
    answer = b""
    while b"\r\n\r\n" not in answer: answer += mock.recv(65536)
    head, body = answer.split(b"\r\n\r\n", 1)
    length = int(re.search(rb"(?i)content-length: *([0-9]+)", head).group(1))
    while len(body) < length: body += mock.recv(65536)
    return (time.monotonic_ns() - start) / 1e6
forced, plain, true_floor, forced_socket, plain_socket, commit_floor, mock_trips = [], [], [], [], [], [], []
for index in range(rounds):
    time.sleep(1.2)
    forced.append(timed([authctl, "--socket", socket_path, "token", "bench", "--min-ttl", "3600"]))
    plain.append(timed([authctl, "--socket", socket_path, "token", "bench"]))
    true_floor.append(timed(["/bin/true"]))
    time.sleep(1.2)
    forced_socket.append(over_socket("?min_ttl=3600"))
    plain_socket.append(over_socket(""))
    commit_floor.append(fsync_commit(index))
    mock_trips.append(mock_round_trip())
provider = [int(line.split()[2]) / 1000 for line in open(timing_log) if line.startswith("POST /token ")]
jwks_logged = [int(line.split()[2]) / 1000 for line in open(timing_log) if line.startswith("GET /jwks ")][-rounds:]
# ` commit_ms=`, not `answer_to_commit_ms=` (the old pattern matched both: every refresh counted twice).
commits = [float(m.group(1)) for m in re.finditer(r'[ "]commit_ms[=:]"?([0-9.]+)', open(daemon_log).read())]
if len(provider) != 2 * rounds: sys.exit("expected %d refreshes at the provider, saw %d" % (2 * rounds, len(provider)))
# The refreshes alternate: authctl's, then the socket's.
provider_cli, provider_socket = provider[0::2], provider[1::2]
commits_cli, commits_socket = (commits[0::2], commits[1::2]) if len(commits) == 2 * rounds else ([], [])
def stats(values):
    values = sorted(values)
    return "%.2f | %.2f" % (values[len(values) // 2], values[int(len(values) * 0.9)])
print()
print("| what | median ms | p90 ms |")
print("|---|---|---|")
print("| `authctl token bench --min-ttl 3600` (a refresh first) | %s |" % stats(forced))
print("| `authctl token bench` (cached) | %s |" % stats(plain))
print("| `/bin/true` (process start floor) | %s |" % stats(true_floor))
print("| provider: `POST /token` handling (mock's log) | %s |" % stats(provider))
print("| authctl: forced − provider, per round | %s |" % stats([f - p for f, p in zip(forced, provider_cli)]))
print("| authctl: forced − provider − cached call, per round | %s |" % stats([f - p - c for f, p, c in zip(forced, provider_cli, plain)]))
print("| socket: `token?min_ttl=3600`, new connection | %s |" % stats(forced_socket))
print("| socket: `token` (cached), new connection | %s |" % stats(plain_socket))
print("| **socket: broker-added = forced − provider, per round** | %s |" % stats([f - p for f, p in zip(forced_socket, provider_socket)]))
if commits_socket:
    print("| of which the commit (`commit_ms`) | %s |" % stats(commits_socket))
    print("| **socket: broker-added − commit, per round** | %s |" % stats([f - p - c for f, p, c in zip(forced_socket, provider_socket, commits_socket)]))
    print("| socket: broker-added − commit − the cached call − the mock's HTTP layer, per round (the refresh machinery's own share) | %s |"
          % stats([f - p - c - q - m for f, p, c, q, m in zip(forced_socket, provider_socket, commits_socket, plain_socket, mock_trips)]))
    print("| authctl's refreshes: `commit_ms` | %s |" % stats(commits_cli))
else:
    print("| `commit_ms` (%d lines, not one per refresh) | %s |" % (len(commits), stats(commits)))
print("| floor: mock's HTTP layer + loopback round trip (`GET /jwks` seen by a client − its log) | %s |" % stats([t - l for t, l in zip(mock_trips, jwks_logged)]))
print("| floor: one fsync'd SQLite WAL commit, same disk (python3 sqlite3) | %s |" % stats(commit_floor))
PY
