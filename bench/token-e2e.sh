#!/bin/bash
# `authctl token NAME` end to end (process start → token on stdout → exit) against oidc-agent's
# `oidc-token` (apt-get install oidc-agent-cli), both holding a valid token for the same
# mock-oidc-provider account setup (confidential client, 1-hour tokens, so neither refreshes).
# The two commands alternate call by call in one loop, so machine noise hits both alike.
# A static Swift hello world, /bin/true and the static C token client (bench/floor/token-client.c:
# the same exchange with the real daemon, the floor of any client) run in the same loop as floors.
# usage: bench/token-e2e.sh [RUNS]   (default 500, at least 200). Prints Markdown rows.
runs=${1:-500}
(( runs >= 200 )) || { echo "use at least 200 runs" >&2; exit 64; }
source "$(dirname "$0")/lib/broker-setup.sh"
command -v oidc-token >/dev/null || { echo "needs oidc-agent-cli (apt-get install oidc-agent-cli)" >&2; exit 69; }

start_mock '{"clientAuthentication": "client_secret_basic", "clientSecret": "s3cret", "accessTokenLifetime": 3600}'
start_daemon
sign_in

# oidc-agent: its own agent and config directory; the account is generated non-interactively
# from a refresh token of the same mock client (oidc-gen --rt, --pw-env, --prompt=none).
eval "$(oidc-agent --no-autoload)" >/dev/null
pids+=("$OIDCD_PID")
OIDC_ENCRYPTION_PW=bench oidc-gen bench --issuer="$issuer" --client-id=mock-client --client-secret=s3cret \
    --rt="$(python3 "$helper" refresh-token "$issuer" mock-client s3cret)" --scope="openid offline_access" \
    --redirect-uri=http://localhost:4242 --pw-env --confirm-default --prompt=none >"$work/oidc-gen.log" 2>&1 \
    || { cat "$work/oidc-gen.log" >&2; exit 1; }
[[ $(authctl token bench) == at-* && $(oidc-token bench) == at-* ]] || { echo "no token from one of them" >&2; exit 1; }

# The floor: a static Swift hello world (process start + Swift runtime), and /bin/true.
printf 'print("at-hello")\n' >"$work/hello.swift"
swiftc -O -static-executable "$work/hello.swift" -o "$work/hello" 2>/dev/null
cc -O2 -static "$root/bench/floor/token-client.c" -o "$work/token-client"
[[ $("$work/token-client" "$socket" bench) == at-* ]] || { echo "no token from the C client" >&2; exit 1; }
timings=$(python3 "$helper" time "$runs" "$bin/authctl" --socket "$socket" token bench -- "$(command -v oidc-token)" bench \
    -- "$work/hello" -- /bin/true -- "$work/token-client" "$socket" bench)
read -r a_median a_p99 b_median b_p99 h_median h_p99 t_median t_p99 c_median c_p99 <<<"$(echo $timings)"
echo "authctl token vs oidc-token, $runs interleaved runs each, $(nproc) cores, $(date -u +%Y-%m-%d), $(oidc-token --version 2>&1 | head -1)"
echo
echo "| command | median ms | p99 ms |"
echo "|---|---|---|"
echo "| \`authctl token bench\` | $a_median | $a_p99 |"
echo "| \`oidc-token bench\` | $b_median | $b_p99 |"
echo "| Swift hello world, \`-static-executable\` (floor) | $h_median | $h_p99 |"
echo "| \`/bin/true\` (process start, for reference) | $t_median | $t_p99 |"
echo "| static C token client, same daemon (floor of any client) | $c_median | $c_p99 |"
echo
python3 -c "print('ratio of medians vs oidc-token: %.2f; vs /bin/true (target <= 1.15): %.2f; C client vs /bin/true: %.2f' % ($a_median / $b_median, $a_median / $t_median, $c_median / $t_median))"
