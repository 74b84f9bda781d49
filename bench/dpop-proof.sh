#!/bin/bash
# DPoP serving cost (docs/dpop.md), against mock-oidc-provider with `dpop: accepted`:
# 1. proof-signing latency over the socket: one keep-alive client (bench/socket-bench --dpop),
#    REQUESTS `POST /v1/accounts/bench/dpop-proof` (ES256 signature, `ath`, audit line) against as
#    many `GET …/token` in the same run, rounds interleaved;
# 2. `authctl curl bench URL` (proof + curl) against plain `curl -H "Authorization: Bearer …" URL`
#    of a Bearer account, on the mock's /resource, median of RUNS interleaved runs. Resource
#    nonces are off here, so each is one request; with a nonce-demanding server authctl curl
#    pays one more proof and one more curl run (the retry).
# 3. the daemon's CPU time per proof over REQUESTS proofs alone.
# usage: bench/dpop-proof.sh [REQUESTS=5000] [RUNS=200]. Prints Markdown tables.
requests=${1:-5000}
runs=${2:-200}
source "$(dirname "$0")/lib/broker-setup.sh"
start_mock '{"clientAuthentication": "client_secret_basic", "clientSecret": "s3cret", "accessTokenLifetime": 3600, "dpop": "accepted"}'
start_daemon
sign_in --dpop
account=plain sign_in
resource="$issuer/resource"
authctl curl bench -sf -o /dev/null "$resource" || { echo "authctl curl was refused by the resource" >&2; exit 1; }
bearer=$(authctl token plain)
curl -sf -o /dev/null -H "Authorization: Bearer $bearer" "$resource" || { echo "the Bearer token was refused" >&2; exit 1; }

echo "DPoP proofs, $(nproc) cores, $(date -u +%Y-%m-%d), load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
echo
"$bin/socket-bench" --dpop "$socket" bench "$resource" "$requests"
echo
echo "proofs audited: $(grep -c 'audit: dpop_proof' "$work/daemon.log")"
# Daemon CPU (user + system) per proof over a run of proofs alone: steadier than p50s under load.
cpu_ticks() { cut -d')' -f2 "/proc/$daemon_pid/stat" | awk '{print $12 + $13}'; }
before=$(cpu_ticks)
"$bin/socket-bench" --dpop "$socket" bench "$resource" "$requests" proofs-only >/dev/null
after=$(cpu_ticks)
echo "daemon CPU per proof: $(awk -v t="$((after - before))" -v hz="$(getconf CLK_TCK)" -v n="$requests" 'BEGIN {printf "%.1f", t / hz * 1e6 / n}') µs ($requests proofs alone)"
echo
timings=$(python3 "$helper" time "$runs" "$bin/authctl" --socket "$socket" curl bench -sf -o /dev/null "$resource" \
    -- "$(command -v curl)" -sf -o /dev/null -H "Authorization: Bearer $bearer" "$resource")
read -r a_median a_p99 b_median b_p99 <<<"$(echo $timings)"
echo "| command ($runs interleaved runs each) | median ms | p99 ms |"
echo "|---|---|---|"
echo "| \`authctl curl bench URL\` (DPoP) | $a_median | $a_p99 |"
echo "| \`curl -H \"Authorization: Bearer …\" URL\` | $b_median | $b_p99 |"
echo
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
