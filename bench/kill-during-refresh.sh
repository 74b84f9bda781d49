#!/bin/bash
# authbrokerd interrupted in the middle of refreshes, against mock-oidc-provider with refresh-token
# rotation and reuse detection (its defaults): KILLS rounds with SIGKILL, then TERMS rounds with
# SIGTERM, each at a random point of a refresh whose token endpoint is slowed by 20-120 ms. After
# each: PRAGMA integrity_check, a restart, and a forced refresh that shows whether the login
# survived. Every lost login must be one where the provider rotated and the daemon had not
# committed the answer; SIGTERM must lose none. Also reports the daemon-side window (last byte of
# the token answer → COMMIT) from the daemon's debug log. About 1 s per round.
# usage: bench/kill-during-refresh.sh [KILLS] [TERMS]   (default 100 100). Prints Markdown.
kills=${1:-100}
terms=${2:-100}
source "$(dirname "$0")/lib/broker-setup.sh"
command -v python3 >/dev/null || { echo "needs python3" >&2; exit 69; }

start_mock '{"clientAuthentication": "client_secret_basic", "clientSecret": "s3cret", "accessTokenLifetime": 4}'
start_daemon --log-level debug
sign_in
stop_daemon
python3 "$root/bench/lib/interrupt-refresh.py" "$bin" "$socket" "$issuer" "$XDG_STATE_HOME/authbroker/tokens.db" \
    "$work/daemon.log" "$kills" "$terms"
