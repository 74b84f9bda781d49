#!/bin/bash
# Narrowed tokens (docs/BENCHMARKS.md, "Narrowed tokens"): `authctl token NAME` latency for a
# narrowed key served from the daemon's cache (`--scope openid`) against the plain token, the two
# commands interleaved call by call in one loop; then the daemon's RSS before and after minting
# KEYS distinct keys (`--audience aud-N`, one narrowed refresh each), per key.
# usage: bench/narrowed-token.sh [RUNS] [KEYS]   (defaults 500 and 1000). Prints Markdown rows.
runs=${1:-500}
keys=${2:-1000}
(( runs >= 200 )) || { echo "use at least 200 runs" >&2; exit 64; }
source "$(dirname "$0")/lib/broker-setup.sh"

start_mock '{"clientAuthentication": "client_secret_basic", "clientSecret": "s3cret", "accessTokenLifetime": 3600, "rotates": true, "detectRefreshTokenReuse": true}'
# Every key is a new narrowed refresh: lift the per-account limit (default 10, then 6 a minute)
# and allow the KEYS audiences, as an account that really used that many would have to.
start_daemon --narrowed-refresh-limit "$((keys + 10)),600"
sign_in --allow-narrowing $(for i in $(seq "$keys"); do printf -- '--allow-audience aud-%d ' "$i"; done)
[[ $(authctl token bench --scope openid --json) == *openid* ]] || { echo "no narrowed token" >&2; exit 1; }

timings=$(python3 "$helper" time "$runs" "$bin/authctl" --socket "$socket" token bench \
    -- "$bin/authctl" --socket "$socket" token bench --scope openid)
read -r p_median p_p99 n_median n_p99 <<<"$(echo $timings)"

rss() { awk '/^VmRSS/ {print $2}' "/proc/$daemon_pid/status"; }
before=$(rss)
for i in $(seq "$keys"); do authctl token bench --audience "aud-$i" >/dev/null; done
after=$(rss)
authctl token bench --min-ttl 86400 >/dev/null  # the rotated refresh token chain is intact
metrics=$(curl -s --unix-socket "$socket" http://localhost/metrics | awk '/^authbroker_narrowed_tokens / {print $2}')

echo "narrowed vs plain \`authctl token\`, $runs interleaved runs each, $(nproc) cores, $(date -u +%Y-%m-%d)"
echo
echo "| command | median ms | p99 ms |"
echo "|---|---|---|"
echo "| \`authctl token bench\` (plain, fast path) | $p_median | $p_p99 |"
echo "| \`authctl token bench --scope openid\` (narrowed, cached key) | $n_median | $n_p99 |"
echo
echo "| narrowed keys cached | daemon RSS before KiB | after KiB | per key bytes |"
echo "|---|---|---|---|"
echo "| $metrics (of $keys minted) | $before | $after | $(( (after - before) * 1024 / keys )) |"
