#!/bin/bash
# The token route (`GET /v1/accounts/bench/token`, Accept: text/plain) of a real authbrokerd
# holding a valid token from mock-oidc-provider, against an echo server on the same kind of
# socket, all in one run (bench/socket-bench --token-route): 1 client keep-alive, 1 client with a
# new connection per request (what `authctl token` does), 16 keep-alive clients; p50/p99 and the
# 16-client throughput ratio, and the daemon CPU per token. Every token served is audit-logged (to a file here).
# usage: bench/token-route.sh [SECONDS-PER-RUN=2]
seconds=${1:-2}
source "$(dirname "$0")/lib/broker-setup.sh"
start_mock '{"clientAuthentication": "client_secret_basic", "clientSecret": "s3cret", "accessTokenLifetime": 3600}'
start_daemon
sign_in
[[ $(authctl token bench) == at-* ]] || { echo "no token" >&2; exit 1; }
echo "$(date -u +%Y-%m-%dT%H:%MZ), load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
"$bin/socket-bench" --token-route "$socket" bench "$seconds"
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
audits=$(grep -c 'audit: token' "$work/daemon.log")
echo "audit lines written: $audits"
# Daemon CPU (user + system, start-up and sign-in included) per token served over the whole run:
# steadier than latency on a shared machine, where other processes' load moves the p50s.
ticks=$(cut -d')' -f2 "/proc/$daemon_pid/stat" | awk '{print $12 + $13}')
echo "daemon CPU per token served: $(awk -v t="$ticks" -v hz="$(getconf CLK_TCK)" -v n="$audits" 'BEGIN {printf "%.1f", t / hz * 1e6 / n}') µs"
