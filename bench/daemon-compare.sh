#!/bin/bash
# This build's authbrokerd against other daemon binaries (e.g. main's release build copied aside)
# on one database of ACCOUNTS signed-in accounts (1-hour tokens from mock-oidc-provider), so
# before/after figures come from one run on one machine load: the daemons are restarted
# alternately RUNS times each; READY=1 wall and CPU time, and RSS by mapping 5 s after READY.
# usage: bench/daemon-compare.sh ACCOUNTS RUNS OTHER_DAEMON...
# SEEDED=DIR keeps the seeded state in DIR and reuses it in later runs (seeding 1,000 accounts takes
# minutes): the mock then listens on the port saved there, so the stored issuer still answers, and
# its tokens live a day, so a reused database does not start with every token due for refresh.
accounts=${1:?ACCOUNTS}
runs=${2:?RUNS}
shift 2
source "$(dirname "$0")/lib/broker-setup.sh"
if [ -n "${SEEDED:-}" ] && [ -f "$SEEDED/port" ]; then
    cp -a "$SEEDED/state" "$SEEDED/config" "$work/"
    "$bin/mock-oidc-provider" --no-stdin --port "$(cat "$SEEDED/port")" --config '{"accessTokenLifetime": 86400}' \
        >"$work/mock.out" 2>&1 &
    pids+=($!)
    for _ in $(seq 100); do grep -q listening "$work/mock.out" 2>/dev/null && break; sleep 0.05; done
    echo "reusing the $(cat "$SEEDED/accounts") accounts seeded in $SEEDED"
else
    lifetime=3600; [ -n "${SEEDED:-}" ] && lifetime=86400
    start_mock "{\"accessTokenLifetime\": $lifetime}"
    start_daemon
    seed_accounts "$accounts"
    stop_daemon
    if [ -n "${SEEDED:-}" ]; then
        mkdir -p "$SEEDED"
        cp -a "$work/state" "$work/config" "$SEEDED/"
        echo "$accounts" >"$SEEDED/accounts"
        echo "${issuer##*:}" >"$SEEDED/port"
    fi
fi
# Every daemon is copied the same way first: how a file was written decides how the page cache
# holds it (a `cp` leaves large folios, which fault-around maps whole), and a freshly linked
# binary measured 0.8 MB less RSS than a `cp` of the same bytes.
daemons=()
for daemon in "$bin/authbrokerd" "$@"; do
    copy="$work/daemon-${#daemons[@]}"
    cp "$daemon" "$copy"
    daemons+=("$copy")
done
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg); daemon 1 is this build's, then: $*"
python3 "$root/bench/lib/footprint.py" compare "$socket" "$runs" "${daemons[@]}"
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
