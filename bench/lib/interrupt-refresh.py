#!/usr/bin/env python3
"""Interrupts authbrokerd in the middle of refreshes (bench/kill-during-refresh.sh; never used by tests).

  interrupt-refresh.py BIN SOCKET ISSUER DATABASE LOG KILLS TERMS

The account "bench" is signed in and the daemon stopped. Each round: start the daemon, wait until
its token is no longer brand new, slow the mock's token endpoint by D (20-120 ms, random), ask for a
refresh (`authctl token --min-ttl 3600`), and send SIGKILL (or SIGTERM) to the daemon at a random
point of [0, D + 40 ms] after starting that authctl. Then `PRAGMA integrity_check` on the database, a
restart, and a forced refresh, which tells whether the login survived (exit 0) or not (77: the
stored refresh token had been retired). Each loss is checked against the one inherent window: the
provider rotated (its tokens_issued counter moved) and the daemon never logged the commit.
Prints Markdown.
"""
import json, os, random, signal, sqlite3, statistics, subprocess, sys, time, urllib.request

BIN, SOCKET, ISSUER, DATABASE, LOG = sys.argv[1:6]
KILLS, TERMS = int(sys.argv[6]), int(sys.argv[7])
LIFETIME = 4.0  # the mock's accessTokenLifetime: brand new for 0.4 s, proactive refresh ≥ 1.5 s later
COMMITTED = "refresh answer committed"


def mock(path, body=None):
    data = None if body is None else json.dumps(body).encode()
    with urllib.request.urlopen(urllib.request.Request(ISSUER + path, data), timeout=10) as answer:
        return json.load(answer) if body is None else None


def authctl(*arguments, timeout=30):
    return subprocess.run([BIN + "/authctl", "--socket", SOCKET, *arguments], capture_output=True, text=True,
                          timeout=timeout)


def log_size():
    return os.path.getsize(LOG) if os.path.exists(LOG) else 0


def log_since(offset):
    with open(LOG, errors="replace") as f:
        f.seek(offset)
        return f.read()


def start_daemon():
    log = open(LOG, "a")
    daemon = subprocess.Popen([BIN + "/authbrokerd", "--socket", SOCKET, "--log-level", "debug"], stdout=log,
                              stderr=log)
    for _ in range(500):
        if authctl("ping", timeout=5).returncode == 0:
            return daemon
        time.sleep(0.01)
    sys.exit("authbrokerd did not start; see " + LOG)


class NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args):
        return None


def browse(url):
    opener = urllib.request.build_opener(NoRedirect)
    try:
        opener.open(url, timeout=10)
    except urllib.error.HTTPError as redirect:
        urllib.request.urlopen(redirect.headers["Location"], timeout=10).read()


def relogin():
    process = subprocess.Popen([BIN + "/authctl", "--socket", SOCKET, "login", "bench", "--no-browser", "--timeout",
                                "30"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    url = ""
    while not url.startswith("http"):
        url = process.stdout.readline().strip()
    browse(url)
    process.wait(timeout=30)
    if process.returncode != 0:
        sys.exit("re-login failed: " + process.stderr.read())


def integrity():
    connection = sqlite3.connect(DATABASE)
    try:
        return connection.execute("PRAGMA integrity_check").fetchone()[0]
    finally:
        connection.close()


def wait_until_not_brand_new(obtained_at):
    time.sleep(max(0.0, obtained_at + LIFETIME * 0.1 + 0.05 - time.time()))


def round_(number, how):
    """One interrupted refresh; returns a dict describing it."""
    daemon = start_daemon()
    wait_until_not_brand_new(state["obtained_at"])
    delay = random.randint(20, 120)
    mock("/_mock/config", {"faults": {"token": {"kind": "slow", "delayMilliseconds": delay, "remaining": 1}}})
    issued_before = mock("/_mock/stats")["tokensIssued"]
    offset = log_size()
    caller = subprocess.Popen([BIN + "/authctl", "--socket", SOCKET, "token", "bench", "--min-ttl", "3600"],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    at = random.uniform(0, (delay + 40) / 1000)
    time.sleep(at)
    daemon.send_signal(how)
    status = daemon.wait(timeout=20)
    caller.wait(timeout=20)
    # The mock finishes a request even for a dead client: wait until it has issued, or surely won't.
    deadline = time.monotonic() + (delay + 300) / 1000
    rotated = False
    while not rotated and time.monotonic() < deadline:
        rotated = mock("/_mock/stats")["tokensIssued"] > issued_before
        time.sleep(0.005)
    mock("/_mock/config", {"faults": {}})
    committed = "stored=true" in "\n".join(l for l in log_since(offset).splitlines() if COMMITTED in l)
    check = integrity()
    # Restart and force a refresh: it works only if the stored refresh token is the current one.
    daemon = start_daemon()
    time.sleep(LIFETIME * 0.1 + 0.05)
    revocations_before = mock("/_mock/stats")["familyRevocations"]
    verify = authctl("token", "bench", "--min-ttl", "3600")
    lost = verify.returncode != 0
    reuse = mock("/_mock/stats")["familyRevocations"] > revocations_before
    if lost:
        relogin()
    state["obtained_at"] = time.time()
    daemon.send_signal(signal.SIGTERM)
    daemon.wait(timeout=20)
    return {"round": number, "signal": how, "exit": status, "delay_ms": delay, "at_ms": at * 1000,
            "rotated": rotated, "committed": committed, "integrity": check, "lost": lost, "reuse": reuse,
            "verify_exit": verify.returncode}


def windows(key):
    values = []
    with open(LOG, errors="replace") as f:
        for line in f:
            if COMMITTED in line and "stored=true" in line and " " + key + "=" in line:
                value = line.split(" " + key + "=")[1].split()[0].strip('"')
                if value != "unknown":
                    values.append(float(value))
    return sorted(values)


def summary(values):
    p99 = values[min(len(values) - 1, int(len(values) * 0.99))]
    return f"median {statistics.median(values):.2f} ms, p99 {p99:.2f} ms, max {values[-1]:.2f} ms"


def report(rounds, how, name):
    subset = [r for r in rounds if r["signal"] == how]
    if not subset:
        return
    lost = [r for r in subset if r["lost"]]
    # Explained: the provider rotated and the daemon had not logged the commit. The log line comes
    # right after COMMIT returns, so a kill between the two keeps the login with no line (counted
    # in "committed, killed before its log line").
    explained = [r for r in lost if r["rotated"] and not r["committed"]]
    unexplained = [r for r in lost if r not in explained]
    silent = [r for r in subset if not r["lost"] and r["rotated"] and not r["committed"]]
    bad_integrity = [r for r in subset if r["integrity"] != "ok"]
    exits = sorted({r["exit"] for r in subset})
    print(f"| {name} | {len(subset)} | {exits} | {len(subset) - len(bad_integrity)}/{len(subset)} "
          f"| {sum(r['rotated'] for r in subset)} | {sum(r['committed'] for r in subset)} | {len(silent)} "
          f"| {len(lost)} | {len(explained)} | {len(unexplained)} |")
    for r in unexplained + bad_integrity:
        print(f"<!-- anomaly: {json.dumps(r)} -->")


def main():
    random.seed(int(os.environ.get("BENCH_SEED", "20261201")))
    rounds = []
    started = time.monotonic()
    for number in range(KILLS):
        rounds.append(round_(number, signal.SIGKILL))
    for number in range(TERMS):
        rounds.append(round_(KILLS + number, signal.SIGTERM))
    elapsed = time.monotonic() - started
    print(f"{KILLS} SIGKILLs and {TERMS} SIGTERMs at random points of refreshes (token endpoint slowed by "
          f"20-120 ms; signal 0-(D+40) ms after starting the authctl that asks for it), mock with rotation + reuse detection, "
          f"{os.cpu_count()} cores, {time.strftime('%Y-%m-%d', time.gmtime())}, {elapsed:.0f} s")
    print()
    print("| signal | rounds | daemon exit | integrity_check ok | provider rotated | commit logged "
          "| committed, killed before its log line | logins lost | lost: rotated, not committed | lost otherwise |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    report(rounds, signal.SIGKILL, "SIGKILL")
    report(rounds, signal.SIGTERM, "SIGTERM")
    window, commit = windows("answer_to_commit_ms"), windows("commit_ms")
    if window and commit:
        print()
        print(f"Daemon-side window, last byte of the token answer → COMMIT returned (`answer_to_commit_ms`, "
              f"{len(window)} committed refreshes): {summary(window)}; of which the commit itself "
              f"(`commit_ms`: vault thread, seal, one transaction, fsync): {summary(commit)}")


state = {"obtained_at": time.time()}
if __name__ == "__main__":
    main()
