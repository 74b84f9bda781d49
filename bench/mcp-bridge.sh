#!/bin/bash
# The latency `authctl mcp` adds per MCP `tools/call`: the official MCP Python SDK's client calling
# an SDK server (Tests/IntegrationTests/Fixtures/mcp: MCPServer, Streamable HTTP, token checked by
# introspection at mock-oidc-provider) through the bridge (stdio → authctl mcp → authbrokerd →
# the server) and directly (the SDK's Streamable HTTP client with the same token), in the same
# run, rounds alternating so machine noise hits both alike. The first 20 calls of each session
# are warm-up and not counted. Needs the SDK venv: ./.ci/install-deps (.build/mcp-venv).
# usage: bench/mcp-bridge.sh [CALLS_PER_ROUND] [ROUNDS]   (defaults 300 and 4). Prints Markdown rows.
calls=${1:-300}
rounds=${2:-4}
source "$(dirname "$0")/lib/broker-setup.sh"
python=${AUTHBROKER_MCP_PYTHON:-$root/.build/mcp-venv/bin/python}
fixtures=$root/Tests/IntegrationTests/Fixtures/mcp
[ -x "$python" ] || { echo "needs the MCP SDK venv: run ./.ci/install-deps" >&2; exit 69; }

start_mock '{"clientAuthentication": "client_secret_basic", "clientSecret": "s3cret", "accessTokenLifetime": 3600}'
start_daemon
# The SDK server runs until the FIFO it reads as stdin is closed (this script's exit).
mkfifo "$work/server.in"
"$python" "$fixtures/sdk_server.py" --issuer "$issuer" <"$work/server.in" >"$work/server.out" 2>"$work/server.err" &
pids+=($!)
exec 3>"$work/server.in"
for _ in $(seq 600); do grep -q listening "$work/server.out" 2>/dev/null && break; sleep 0.05; done
url=$(awk '/listening/ {print $2}' "$work/server.out")
[ -n "$url" ] || { cat "$work/server.err" >&2; exit 1; }
sign_in --resource-url "$url" --scope mcp:tools
token=$(authctl token bench)

step="bench echo {\"text\": \"x\"} $calls"
for round in $(seq "$rounds"); do
    echo "$step" | "$python" "$fixtures/sdk_client.py" stdio "$bin/authctl" --socket "$socket" mcp bench | grep seconds >>"$work/bridge.jsonl"
    echo "$step" | "$python" "$fixtures/sdk_client.py" http "$url" "$token" | grep seconds >>"$work/direct.jsonl"
done
python3 - "$work/bridge.jsonl" "$work/direct.jsonl" "$calls" "$rounds" <<'PY'
import json, statistics, sys
def load(path):
    times = []
    for line in open(path):
        times += json.loads(line)["seconds"][20:]
    return sorted(t * 1000 for t in times)
bridge, direct = load(sys.argv[1]), load(sys.argv[2])
def p(values, q): return values[min(len(values) - 1, int(q * len(values)))]
print(f"MCP tools/call, SDK client, {sys.argv[4]} alternating rounds of {sys.argv[3]} calls (20 warm-up calls dropped per round)")
print()
print("| path | calls | median ms | p90 ms | p99 ms |")
print("|---|---|---|---|---|")
print(f"| direct (SDK Streamable HTTP client → SDK server) | {len(direct)} | {statistics.median(direct):.3f} | {p(direct, .9):.3f} | {p(direct, .99):.3f} |")
print(f"| bridge (SDK stdio client → authctl mcp → authbrokerd → SDK server) | {len(bridge)} | {statistics.median(bridge):.3f} | {p(bridge, .9):.3f} | {p(bridge, .99):.3f} |")
print()
print(f"added by the bridge, median: {statistics.median(bridge) - statistics.median(direct):.3f} ms (target <= 1 ms)")
PY
