#!/bin/bash
# authbrokerd with 10,000 signed-in accounts (mock-oidc-provider, 1-hour tokens):
#   - start-up: time to READY=1 and idle RSS (as bench/daemon-footprint.sh, RUNS restarts);
#   - the refresh schedule's spread for tokens that expire together: every stored token is set to
#     have been obtained within the same 5 s, 3,200 s ago, with a 1-hour lifetime (so all are due
#     within the next ~40 s, and expire in ~400 s); the daemon is started and the time of each
#     refresh it starts is taken from its log; prints refreshes per second and the largest second.
# The run is bounded: at most TIMEOUT seconds (default 300) waiting for the refreshes.
# usage: bench/fleet-10k.sh [ACCOUNTS=10000] [RUNS=3] [TIMEOUT=300]
accounts=${1:-10000}
runs=${2:-3}
timeout=${3:-300}
source "$(dirname "$0")/lib/broker-setup.sh"
start_mock '{"accessTokenLifetime": 3600}'
start_daemon
seed_accounts "$accounts"
stop_daemon
echo "## $accounts accounts; database $(du -h "$XDG_STATE_HOME/authbroker/tokens.db" | cut -f1); load average $(cut -d' ' -f1-3 /proc/loadavg)"
python3 "$root/bench/lib/footprint.py" ready "$bin/authbrokerd" "$socket" "$bin/authctl" "$runs"
# Only the unsealed times change: the sealed token values (and their AAD) stay as they are.
sqlite3 "$XDG_STATE_HOME/authbroker/tokens.db" \
    "UPDATE tokens SET obtained_at = strftime('%s','now') - 3200 + (account_id % 5000) * 0.001,
                       expires_at = strftime('%s','now') + 400 + (account_id % 5000) * 0.001
     WHERE access_token IS NOT NULL;"
python3 "$root/bench/lib/footprint.py" refreshes "$bin/authbrokerd" "$socket" "$accounts" "$timeout" "$work/refreshes.txt"
python3 "$root/bench/lib/footprint.py" histogram "$work/refreshes.txt"
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
