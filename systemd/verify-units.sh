#!/bin/sh
# Checks the systemd units: `systemd-analyze verify` must print nothing, and
# `systemd-analyze security --offline=true` must rate each service at most $MAX_EXPOSURE.
# Usage: systemd/verify-units.sh [PATH/TO/authbrokerd]   (default: .build/debug/authbrokerd)
# Exits 0 with a "skipped" line when systemd-analyze is not installed.
set -eu
cd "$(dirname "$0")/.."
MAX_EXPOSURE=${MAX_EXPOSURE:-2.0}
binary=${1:-.build/debug/authbrokerd}

if ! command -v systemd-analyze >/dev/null 2>&1; then
    echo "verify-units: skipped (systemd-analyze not installed; apt-get install systemd)"
    exit 0
fi
if [ ! -x "$binary" ]; then
    echo "verify-units: $binary not found; run 'swift build' first or pass the binary's path" >&2
    exit 1
fi
binary=$(cd "$(dirname "$binary")" && pwd)/$(basename "$binary")

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/user" "$work/system" "$work/runtime"
chmod 0700 "$work/runtime"
# verify needs ExecStart's binary to exist: point copies of the units at the built one.
for unit in systemd/authbrokerd.service systemd/authbrokerd.socket; do
    sed "s|/usr/local/bin/authbrokerd|$binary|" "$unit" > "$work/user/$(basename "$unit")"
done
for unit in systemd/system/authbrokerd.service systemd/system/authbrokerd.socket; do
    sed "s|/usr/local/bin/authbrokerd|$binary|" "$unit" > "$work/system/$(basename "$unit")"
done

status=0
check_verify() { # $1 = label, rest = systemd-analyze arguments
    label=$1; shift
    out=$(systemd-analyze "$@" 2>&1) || { status=1; }
    if [ -n "$out" ]; then
        echo "verify-units: $label: systemd-analyze verify reported:" >&2
        echo "$out" >&2
        status=1
    else
        echo "verify-units: $label: verify clean"
    fi
}
check_security() { # $1 = label, rest = systemd-analyze arguments
    label=$1; shift
    out=$(systemd-analyze "$@" 2>&1 || true)
    line=$(echo "$out" | grep 'Overall exposure level' || true)
    score=$(echo "$line" | sed -n 's/.*: \([0-9.]*\) .*/\1/p')
    if [ -z "$score" ]; then
        echo "verify-units: $label: no exposure score in systemd-analyze output:" >&2
        echo "$out" >&2
        status=1
    elif awk -v s="$score" -v m="$MAX_EXPOSURE" 'BEGIN { exit !(s > m) }'; then
        echo "verify-units: $label: exposure $score > $MAX_EXPOSURE" >&2
        echo "$out" | grep -v '^✓' >&2
        status=1
    else
        echo "verify-units: $label: exposure $score (limit $MAX_EXPOSURE)"
    fi
}

# Documentation=man:… is checked too: serve the man pages from docs/.
mkdir -p "$work/man/man1" "$work/man/man8"
cp docs/authctl.1 "$work/man/man1/" && cp docs/authbrokerd.8 "$work/man/man8/"
MANPATH=$work/man XDG_RUNTIME_DIR=$work/runtime
export MANPATH XDG_RUNTIME_DIR
check_verify "user units" --user verify "$work/user/authbrokerd.socket" "$work/user/authbrokerd.service"
check_verify "system units" verify "$work/system/authbrokerd.socket" "$work/system/authbrokerd.service"
check_security "user authbrokerd.service" security --user --offline=true "$work/user/authbrokerd.service"
check_security "system authbrokerd.service" security --offline=true "$work/system/authbrokerd.service"
exit $status
