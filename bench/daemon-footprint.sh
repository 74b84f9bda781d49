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
seed_accounts "$accounts"
active=$(authctl status --json | grep -c '"active"')
stop_daemon
echo "load average $(cut -d' ' -f1-3 /proc/loadavg)"
python3 "$root/bench/lib/footprint.py" ready "$bin/authbrokerd" "$socket" "$bin/authctl" "$runs"
echo "accounts in the database: $accounts ($active active); database $(du -h "$XDG_STATE_HOME/authbroker/tokens.db" | cut -f1)"
