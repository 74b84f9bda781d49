#!/bin/bash
# Instructions per DPoP proof (docs/BENCHMARKS.md, "Instruction counts"; its history in
# docs/BENCHMARKS-archive.md, "DPoP proofs: the rest of the proof's own CPU"): the daemon runs under
# valgrind's callgrind with instrumentation off; after 200 warm-up proofs it is switched on for
# PROOFS proofs on one keep-alive connection (bench/socket-bench --dpop … proofs-only), then off.
# Prints instructions per proof, the ES256 signature's share (EVP_DigestSign, inclusive) and the
# top functions. Unlike latency, the count does not move with the machine's load.
# AUTHBROKERD=PATH measures a saved binary instead of this build's.
# usage: bench/dpop-proof-instructions.sh [PROOFS=2000]. Needs valgrind.
proofs=${1:-2000}
command -v valgrind >/dev/null || { echo "needs valgrind (apt-get install valgrind)" >&2; exit 1; }
daemon=${AUTHBROKERD:-}
unset AUTHBROKERD
source "$(dirname "$0")/lib/broker-setup.sh"
cp "${daemon:-$bin/authbrokerd}" "$work/authbrokerd"
profile=$work/callgrind.out
start_mock '{"clientAuthentication": "client_secret_basic", "clientSecret": "s3cret", "accessTokenLifetime": 3600, "dpop": "accepted"}'
start_callgrind_daemon "$work/authbrokerd" "$profile"
sign_in --dpop
resource="$issuer/resource"
"$bin/socket-bench" --dpop "$socket" bench "$resource" 200 proofs-only >/dev/null
callgrind_control -i on "$daemon_pid" >/dev/null 2>&1
"$bin/socket-bench" --dpop "$socket" bench "$resource" "$proofs" proofs-only >/dev/null
callgrind_control -i off "$daemon_pid" >/dev/null 2>&1
callgrind_control -d "$daemon_pid" >/dev/null 2>&1
sleep 1
dump=$(ls "$profile".* | head -1)
total=$(callgrind_annotate "$dump" 2>/dev/null | awk '/PROGRAM TOTALS/ {gsub(",", "", $1); print $1}')
signature=$(callgrind_annotate --inclusive=yes "$dump" 2>/dev/null | awk '/:EVP_DigestSign \[/ && !found {gsub(",", "", $1); print $1; found = 1}')
echo "DPoP proof instructions, $proofs proofs, $(date -u +%Y-%m-%d)"
awk -v t="$total" -v s="${signature:-0}" -v n="$proofs" \
    'BEGIN {printf "instructions per proof: %.1f k, of which the ES256 signature (EVP_DigestSign): %.1f k\n", t / n / 1000, s / n / 1000}'
echo
echo "top functions (self):"
callgrind_annotate "$dump" 2>/dev/null | grep -E '^ *[0-9,]+ \(' | sed -n '2,13p' | cut -c1-160 || true
