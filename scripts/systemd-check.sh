#!/usr/bin/env bash
# Checks deploy/alertd.service and deploy/alertd.sysusers without a running systemd (`make test` runs it):
#   1. systemd-analyze verify, in a scratch root holding systemd's own units, the unit and the programs it runs:
#      any finding fails;
#   2. systemd-analyze security --offline: the exposure score must stay at or below MAX_EXPOSURE (2.0, "OK");
#   3. systemd-sysusers --dry-run creates the user the unit runs as;
#   4. the unit's ExecStart, with its Environment= lines and a 0700 state directory, starts alertd: /healthz
#      answers, the journal is made in the state directory, ExecReload's SIGHUP keeps it serving, and SIGTERM
#      stops it with exit 0 within TimeoutStopSec.
# Usage: scripts/systemd-check.sh      ALERTD_BIN: the alertd for steps 1 and 4 (default .build/debug/alertd)
set -euo pipefail
cd "$(dirname "$0")/.."

unit=deploy/alertd.service
sysusers=deploy/alertd.sysusers
bin=${ALERTD_BIN:-.build/debug/alertd}
max_exposure=${MAX_EXPOSURE:-2.0}
failures=0
say() { echo "systemd-check: $*"; }
fail() { say "FAIL $*"; failures=$((failures + 1)); }
pass() { say "ok   $*"; }

[ -x "$bin" ] || { fail "$bin not found; build it first (swift build), or set ALERTD_BIN"; exit 1; }
work=$(mktemp -d "${TMPDIR:-/tmp}/alertd-systemd-check.XXXXXX")
pid=
cleanup() { [ -n "$pid" ] && kill -KILL "$pid" 2>/dev/null; rm -rf "$work"; }
trap cleanup EXIT

setting() { sed -n "s/^$1=//p" "$unit"; }  # setting KEY: every value of KEY in the unit, one a line

# 1. verify. systemd-analyze checks that each Exec*= program exists, so the scratch root holds them at the
# paths the unit names: alertd is the one built here, the others the host's.
root=$work/root
mkdir -p "$root/etc/systemd/system" "$root/usr/lib/systemd"
cp -a /usr/lib/systemd/system "$root/usr/lib/systemd/"
cp "$unit" "$root/etc/systemd/system/"
for program in $(sed -n 's/^Exec[A-Za-z]*=[-@:+!]*\([^ ]*\).*/\1/p' "$unit" | sort -u); do
    mkdir -p "$root$(dirname "$program")"
    if [ "$(basename "$program")" = alertd ]; then cp "$bin" "$root$program"; else cp "$(command -v "$program")" "$root$program"; fi
done
if findings=$(systemd-analyze verify --root="$root" alertd.service 2>&1) && [ -z "$findings" ]; then
    pass "systemd-analyze verify: no findings"
else
    fail "systemd-analyze verify: ${findings:-exit status $?}"
fi

# 2. security.
exposure=$(systemd-analyze security --offline=yes "$unit" 2>&1 | sed -n 's/.*Overall exposure level for [^:]*: \([0-9.]*\).*/\1/p')
if [ -n "$exposure" ] && awk -v e="$exposure" -v m="$max_exposure" 'BEGIN { exit !(e <= m) }'; then
    pass "systemd-analyze security: exposure $exposure (at most $max_exposure)"
else
    fail "systemd-analyze security: exposure ${exposure:-?}, more than $max_exposure"
fi

# 3. The user.
user=$(setting User)
mkdir -p "$work/sysroot/etc"
created=$(systemd-sysusers --root="$work/sysroot" --dry-run "$PWD/$sysusers" 2>&1 || true)
if grep -q "Creating user '$user'" <<<"$created"; then
    pass "systemd-sysusers creates the unit's user '$user'"
else
    fail "$sysusers does not create the unit's user '$user'"
fi

# 4. The service's command, as systemd would start it (without its sandbox, which needs systemd itself).
state=$work/state
mkdir -m 0700 "$state"
environment=()
while read -r assignment; do environment+=("$assignment"); done < <(setting Environment)
read -r -a command <<<"$(setting ExecStart | sed -e "s|\${STATE_DIRECTORY}|$state|g")"
command[0]=$bin
env "${environment[@]}" ALERTD_PORT=0 "${command[@]}" >"$work/out" 2>"$work/log" &
pid=$!
url=
for _ in $(seq 200); do
    url=$(sed -n 's/.*listening on \(http:[^ ]*\).*/\1/p' "$work/out" | head -n 1)
    [ -n "$url" ] && break
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.05
done
healthy() { curl -fsS --max-time 5 "$url/healthz" >/dev/null; }
if [ -n "$url" ] && healthy; then pass "ExecStart serves /healthz at $url"
else fail "ExecStart did not serve (stdout: $(head -c 300 "$work/out"); stderr: $(tail -c 300 "$work/log"))"; fi
if [ -f "$state/alertd.sqlite3" ]; then pass "the journal is in the state directory"
else fail "no journal in the state directory: $(ls -A "$state" | tr '\n' ' ')"; fi
reload=$(setting ExecReload | sed "s/\$MAINPID/$pid/")
$reload
if [ -n "$url" ] && healthy && healthy; then pass "ExecReload (SIGHUP) keeps it serving"
else fail "after ExecReload it does not serve"; fi
stop=$(setting TimeoutStopSec | tr -dc 0-9)
kill -"$(setting KillSignal | sed 's/^SIG//')" "$pid"
status=0
for _ in $(seq $((stop * 20))); do kill -0 "$pid" 2>/dev/null || break; sleep 0.05; done
if kill -0 "$pid" 2>/dev/null; then
    fail "still running ${stop} s after $(setting KillSignal)"
else
    wait "$pid" || status=$?
    pid=
    if [ "$status" = 0 ]; then pass "$(setting KillSignal) stops it with exit 0"; else fail "exit $status after $(setting KillSignal)"; fi
fi

if [ "$failures" -gt 0 ]; then
    say "$failures failed"
    exit 1
fi
say "all passed"
