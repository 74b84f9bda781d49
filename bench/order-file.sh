#!/bin/bash
# Regenerates Sources/authbrokerd/authbrokerd.order: the functions of the release daemon that run
# when it is used — a first start, two logins (one DPoP), tokens, a forced refresh, proofs, status,
# then a restart that restores those accounts and serves again — so the link lays them out together
# (Package.swift, `daemonLinkerSettings`; docs/BENCHMARKS-archive.md,
# "Daemon idle: the code laid out together").
# The daemon runs under valgrind's callgrind (every function executed, not a sample); names are kept
# mangled, as the linker wants them, and only those the binary defines are written, sorted.
# Run it after changes that add or rename much of the daemon's code, then relink: SwiftPM does not
# see the file as an input, so remove .build/*/authbrokerd (or change a daemon source) first; a
# stale file only costs memory (the linker skips names it lacks, without warning). Needs valgrind.
# usage: bench/order-file.sh
set -euo pipefail
command -v valgrind >/dev/null || { echo "order-file.sh needs valgrind (apt-get install valgrind)" >&2; exit 1; }
source "$(dirname "$0")/lib/broker-setup.sh"
profiles=$work/profiles
mkdir "$profiles"
cp "$bin/authbrokerd" "$work/authbrokerd"
cat >"$work/daemon-under-callgrind" <<EOF
#!/bin/sh
exec valgrind --tool=callgrind --demangle=no --compress-strings=no \
    --callgrind-out-file="$profiles/run-\$\$.out" "$work/authbrokerd" "\$@"
EOF
chmod +x "$work/daemon-under-callgrind"
export AUTHBROKERD=$work/daemon-under-callgrind

# valgrind starts slowly: wait up to 30 s for the socket.
boot() {
    "$AUTHBROKERD" --socket "$socket" >>"$work/daemon.log" 2>&1 &
    daemon_pid=$!
    pids+=($daemon_pid)
    for _ in $(seq 600); do authctl ping >/dev/null 2>&1 && return; sleep 0.05; done
    echo "authbrokerd did not start under valgrind:" >&2; cat "$work/daemon.log" >&2; exit 1
}

start_mock '{"clientAuthentication": "client_secret_basic", "clientSecret": "s3cret", "accessTokenLifetime": 3600, "dpop": "accepted"}'
boot
sign_in
account=bound sign_in --dpop
for _ in 1 2 3; do authctl token bench >/dev/null; authctl token bench --json >/dev/null; done
authctl token bench --min-ttl 7200 >/dev/null
authctl status >/dev/null
"$bin/socket-bench" --dpop "$socket" bound "$issuer/resource" 20 >/dev/null
stop_daemon
boot
for _ in 1 2 3; do authctl token bench >/dev/null; done
"$bin/socket-bench" --dpop "$socket" bound "$issuer/resource" 20 proofs-only >/dev/null
stop_daemon

python3 - "$work/authbrokerd" "$root/Sources/authbrokerd/authbrokerd.order" "$profiles"/run-*.out <<'PY'
import bisect, re, subprocess, sys
binary, order, profiles = sys.argv[1], sys.argv[2], sys.argv[3:]
# The binary's functions: name → size, and start addresses for names callgrind could not give.
sizes, starts = {}, []
for line in subprocess.run(["nm", "-S", "--defined-only", binary], capture_output=True, text=True, check=True).stdout.splitlines():
    fields = line.split()
    if len(fields) == 4 and fields[2] in "tTwW":
        sizes[fields[3]] = int(fields[1], 16)
        starts.append((int(fields[0], 16), fields[3]))
starts.sort()
addresses = [address for address, _ in starts]
executed = set()
for profile in profiles:
    obj = None
    for line in open(profile, errors="replace"):
        if line.startswith("ob="):
            obj = line[3:].strip()
        elif line.startswith("fn=") and obj == binary:
            name = re.sub(r"'\d+$", "", line[3:].strip())  # callgrind marks recursion levels as 'N
            if name.startswith("0x"):  # no symbol at that address: the function containing it
                index = bisect.bisect_right(addresses, int(name, 16)) - 1
                if index >= 0:
                    executed.add(starts[index][1])
            else:
                executed.add(name)
named = sorted(name for name in executed if name in sizes)
with open(order, "w") as file:
    file.write("# The functions authbrokerd runs, laid out together by its link (Package.swift). Made by bench/order-file.sh.\n")
    file.write("\n".join(named) + "\n")
print(f"{len(named)} functions, {sum(sizes[name] for name in named) / 1024:.0f} KiB of code, written to {order}")
PY
