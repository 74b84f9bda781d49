#!/bin/bash
# This build's authbrokerd against other daemon binaries (e.g. main's release build copied aside)
# on one database of ACCOUNTS signed-in accounts (1-hour tokens from mock-oidc-provider), so
# before/after figures come from one run on one machine load: the daemons are restarted
# alternately RUNS times each; READY=1 wall and CPU time, and RSS by mapping 5 s after READY.
# usage: bench/daemon-compare.sh ACCOUNTS RUNS OTHER_DAEMON...
accounts=${1:?ACCOUNTS}
runs=${2:?RUNS}
shift 2
source "$(dirname "$0")/lib/broker-setup.sh"
start_mock '{"accessTokenLifetime": 3600}'
start_daemon
seed_accounts "$accounts"
stop_daemon
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
