#!/bin/bash
# authbrokerd with 1,000 signed-in accounts in its database (tokens sealed in the vault, added
# and signed in through the socket API against mock-oidc-provider with 1-hour tokens):
#   - time to READY: from posix_spawn to the READY=1 datagram on NOTIFY_SOCKET (median of RUNS
#     restarts), and to the first successful `authctl ping` for comparison;
#   - idle RSS (VmRSS, and VmHWM) 5 s after READY.
# usage: bench/daemon-footprint.sh [ACCOUNTS=1000] [RUNS=10]
accounts=${1:-1000}
runs=${2:-10}
source "$(dirname "$0")/lib/broker-setup.sh"
start_mock '{"accessTokenLifetime": 3600}'
start_daemon
python3 "$helper" seed "$socket" "$issuer" "$accounts"
active=$(authctl status --json | grep -c '"active"')
stop_daemon

python3 - "$bin/authbrokerd" "$socket" "$runs" "$bin/authctl" <<'PY'
import os, socket, subprocess, sys, time
daemon, sock, runs, authctl = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
notify_path = os.path.join(os.environ["XDG_RUNTIME_DIR"], "notify.sock")
ready, pinged = [], []
for run in range(runs):
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    listener.bind(notify_path)
    env = dict(os.environ, NOTIFY_SOCKET=notify_path)
    log = open(os.path.join(os.environ["HOME"], "footprint.log"), "a")
    start = time.monotonic()
    pid = os.posix_spawn(daemon, [daemon, "--socket", sock], env,
                         file_actions=[(os.POSIX_SPAWN_DUP2, log.fileno(), 2)])
    listener.settimeout(10)
    while b"READY=1" not in listener.recv(4096).split(b"\n"):
        pass
    ready.append((time.monotonic() - start) * 1e3)
    while subprocess.run([authctl, "--socket", sock, "ping"], capture_output=True).returncode != 0:
        time.sleep(0.001)
    pinged.append((time.monotonic() - start) * 1e3)
    if run == runs - 1:
        time.sleep(5)
        status = dict(line.split(":", 1) for line in open(f"/proc/{pid}/status"))
        rss, hwm = status["VmRSS"].strip(), status["VmHWM"].strip()
        threads = status["Threads"].strip()
    os.kill(pid, 15)
    os.waitpid(pid, 0)
    listener.close()
    os.unlink(notify_path)
ready.sort(); pinged.sort()
print("time to READY=1: median %.1f ms, max %.1f ms; to first ping answered: median %.1f ms (%d runs)"
      % (ready[len(ready) // 2], ready[-1], pinged[len(pinged) // 2], runs))
print(f"idle 5 s after READY: VmRSS {rss}, VmHWM {hwm}, {threads} threads")
PY
echo "accounts in the database: $accounts ($active active); database $(du -h "$XDG_STATE_HOME/authbroker/tokens.db" | cut -f1)"
