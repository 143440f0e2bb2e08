#!/usr/bin/env bash
# Checks the Dockerfile without a Docker engine (`make test` runs it):
#   1. hadolint, pinned with hashes in scripts/hadolint-requirements.txt, in .venv-hadolint/: any finding fails;
#   2. the build stage follows what CI runs: the Swift image tag is the version of the swift running the
#      tests, it installs every package scripts/deps.sh installs for a release build (pinned to the
#      upstream versions installed here), and it runs `make release`'s swift build command;
#   3. the HEALTHCHECK script (deploy/docker-healthcheck.sh) finds the port alertd listens on: its --port
#      (both spellings) over ALERTD_PORT, ALERTD_PORT alone, and fails once alertd is gone.
# Usage: scripts/docker-check.sh      ALERTD_BIN: the alertd for step 3 (default .build/debug/alertd)
set -euo pipefail
cd "$(dirname "$0")/.."

venv=${HADOLINT_VENV:-.venv-hadolint}
requirements=scripts/hadolint-requirements.txt
bin=${ALERTD_BIN:-.build/debug/alertd}
swift=${SWIFT:-swift}
failures=0
say() { echo "docker-check: $*"; }
fail() { say "FAIL $*"; failures=$((failures + 1)); }
pass() { say "ok   $*"; }

# 1. hadolint.
scripts/deps.sh schema  # python3 and python3-venv
scripts/pinned-venv.sh "$venv" "$requirements" hadolint
if "$venv/bin/hadolint" --no-color Dockerfile; then
    pass "hadolint $("$venv/bin/hadolint" --version | grep -o '[0-9][0-9.]*' | head -n 1): no findings"
else
    fail "hadolint has findings (above)"
fi

# 2. The build stage against what CI runs: the pins are compared with the packages installed here for a release build.
scripts/deps.sh release  # libcurl4-openssl-dev, which only a release build needs
build_stage=$(sed -n '/^FROM .* AS build$/,/^FROM /p' Dockerfile)
run_stage=$(sed -n '/^FROM debian/,$p' Dockerfile)
tested=$("$swift" --version 2>/dev/null | grep -o 'Swift version [0-9.]*' | head -n 1 | cut -d' ' -f3)
image=$(sed -n 's/^FROM swift:\([0-9.]*\)-.* AS build$/\1/p' Dockerfile)
if [ -n "$tested" ] && [ "$image" = "$tested" ]; then
    pass "the build image is swift:$image, the Swift the tests run with"
else
    fail "the build image is swift:${image:-?}, the tests run with Swift ${tested:-? (swift not found)}"
fi
# Packages scripts/deps.sh installs for `build` (top-level need lines) and `release` (need_curl_dev).
packages=$(sed -n -e 's/^need \([a-z0-9.+-]*\) .*/\1/p' -e 's/^need_curl_dev() { need \([a-z0-9.+-]*\) .*/\1/p' \
    scripts/deps.sh)
[ -n "$packages" ] || fail "found no packages in scripts/deps.sh"
for package in $packages; do
    pin=$(grep -o " $package=[^ ]*" <<<"$build_stage" | cut -d= -f2 || true)
    installed=$(dpkg-query -W -f '${Version}' "$package" 2>/dev/null || true)
    if [ -z "$pin" ]; then
        fail "the build stage does not install $package (scripts/deps.sh does)"
    elif [ -z "$installed" ]; then
        fail "$package is not installed here, so its pin ($pin) is not the tested version"
    elif [[ "$installed" != ${pin} ]]; then
        fail "the build stage pins $package=$pin; the tests here use $installed"
    else
        pass "the build stage installs $package=$pin (here: $installed)"
    fi
done
release=$(sed -n 's/^\t$(SWIFT) \(build -c release[^$]*\)$/\1/p' Makefile | head -n 1)
if [ -n "$release" ] && grep -q "^RUN swift $release \\\\\$" <<<"$build_stage"; then
    pass "the build stage runs make release's 'swift $release'"
else
    fail "the build stage does not run make release's 'swift ${release:-build ?}' (the whole command, first)"
fi
# The runtime libraries: the build stage's upstream versions.
for pair in libmicrohttpd12:libmicrohttpd-dev libsqlite3-0:libsqlite3-dev libpq5:libpq-dev libcurl4:libcurl4-openssl-dev \
    libncursesw6:libncurses-dev; do
    runtime=${pair%%:*} dev=${pair#*:}
    runtime_pin=$(grep -o " $runtime=[^ ]*" <<<"$run_stage" | cut -d= -f2 || true)
    dev_pin=$(grep -o " $dev=[^ ]*" <<<"$build_stage" | cut -d= -f2 || true)
    if [ -n "$runtime_pin" ] && [ "$runtime_pin" = "$dev_pin" ]; then
        pass "the runtime stage installs $runtime=$runtime_pin, as built against"
    else
        fail "the runtime stage's $runtime=${runtime_pin:-(missing)} is not the build's $dev=${dev_pin:-?}"
    fi
done

# 3. The health check's port.
[ -x "$bin" ] || { fail "$bin not found; build it first (swift build), or set ALERTD_BIN"; exit 1; }
command -v curl >/dev/null || { fail "curl not found (scripts/deps.sh test installs it)"; exit 1; }
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
work=$(mktemp -d "${TMPDIR:-/tmp}/alertd-docker-check.XXXXXX")
probe() { # probe <description> <expected exit> <alertd arguments...>: alertd with ALERTD_PORT=1 unless given
    local description=$1 expected=$2; shift 2
    local pid status=0
    env ALERTD_PORT=1 "$@" >"$work/out" 2>"$work/log" &
    pid=$!
    # Up to 30 s for "listening": a start takes tens of ms, but a loaded machine can starve it for seconds.
    for _ in $(seq 600); do grep -q listening "$work/out" 2>/dev/null && break; sleep 0.05; done
    ALERTD_PORT=${probe_port:-1} ALERTD_HOST=${probe_host:-} ALERTD_HEALTHCHECK_PID=$pid \
        deploy/docker-healthcheck.sh 2>/dev/null || status=$?
    kill -TERM "$pid" 2>/dev/null; wait "$pid" 2>/dev/null || true
    if [ "$status" = "$expected" ]; then pass "health check, $description: exit $status"
    else fail "health check, $description: exit $status, not $expected"; tail -n 5 "$work/out" "$work/log" >&2; fi
}
probe "--port=$port over ALERTD_PORT" 0 "$bin" --host 127.0.0.1 --port="$port"
probe "--port $port over ALERTD_PORT" 0 "$bin" --port "$port" --host=127.0.0.1
probe_port=$port probe "ALERTD_PORT=$port alone" 0 env ALERTD_PORT="$port" "$bin"
probe_port=$port probe_host=0.0.0.0 probe "ALERTD_HOST=0.0.0.0 probed on loopback" 0 env ALERTD_PORT="$port" "$bin"
status=0
ALERTD_PORT=$port ALERTD_HEALTHCHECK_PID=999999999 deploy/docker-healthcheck.sh 2>/dev/null || status=$?
[ "$status" = 1 ] && pass "health check, no alertd: exit 1" || fail "health check, no alertd: exit $status, not 1"
rm -rf "$work"

# 4. What docs/OPERATIONS.md says of installing, the README's make help list, and what git and docker leave out.
operations=docs/OPERATIONS.md
apt_line=$(grep -A1 '^sudo apt-get install' "$operations" | tr -d '\\\n')
for package in $packages; do
    grep -qw -- "$package" <<<"$apt_line" && pass "$operations's apt-get line installs $package" \
        || fail "$operations's apt-get line ($apt_line) lacks $package, which scripts/deps.sh installs"
done
for runtime in $(grep -o ' lib[a-z0-9.+-]*=' <<<"$run_stage" | tr -d ' ='); do
    grep -q "\`$runtime\`" <<<"$(sed -n '/^## Install and run/,/^## /p' "$operations")" \
        && pass "$operations's Install and run names the run-time library $runtime" \
        || fail "$operations's Install and run does not name $runtime, which the image's runtime stage installs"
    grep -q "\`$runtime\`" <<<"$(sed -n '/^## Docker/,/^## /p' "$operations")" \
        && pass "$operations's Docker section names $runtime" \
        || fail "$operations's Docker section does not name $runtime"
done
help_line=$(grep -A1 '^`make help` lists the targets' README.md | tr '\n' ' ')
for target in $(make -s help | sed -n 's/^  make \([a-z]*\) .*/\1/p'); do
    [ "$target" = help ] && continue
    grep -q "\`$target\`" <<<"$help_line" && pass "README's make help list names $target" \
        || fail "README's make help list ($help_line) lacks $target"
done
for local in tokens secrets/tokens .alertd-data/alertd.sqlite3 .alertd-cluster/postgresql.conf; do
    git check-ignore -q "$local" && pass ".gitignore covers $local" || fail ".gitignore does not cover $local"
    grep -qx "${local%%/*}/\{0,1\}" .dockerignore && pass ".dockerignore covers $local" \
        || fail ".dockerignore does not cover $local"
done

if [ "$failures" -gt 0 ]; then
    say "$failures failed"
    exit 1
fi
say "all passed"
