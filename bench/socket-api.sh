#!/bin/bash
# The daemon's socket API under load: 16 keep-alive clients (threads of bench/socket-bench in
# token mode) sending `GET /v1/accounts/bench/token` (Accept: text/plain) back to back to a real
# authbrokerd holding a valid token from mock-oidc-provider. Best of 3 runs per client count.
# Each answer is audited: the daemon logs one audit line per token handed out (to a file here).
# usage: bench/socket-api.sh [SECONDS-PER-RUN=3] [CLIENT-COUNTS=1,16]
seconds=${1:-3}
clients=${2:-1,16}
source "$(dirname "$0")/lib/broker-setup.sh"
start_mock '{"clientAuthentication": "client_secret_basic", "clientSecret": "s3cret", "accessTokenLifetime": 3600}'
start_daemon
sign_in
[[ $(authctl token bench) == at-* ]] || { echo "no token" >&2; exit 1; }
"$bin/socket-bench" --token "$socket" bench "$seconds" "$clients"
echo "audit lines written: $(grep -c 'audit: token' "$work/daemon.log")"
