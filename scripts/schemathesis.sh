#!/usr/bin/env bash
# Schema conformance: runs schemathesis against a live alertd with openapi.yaml, with every check
# (status codes, content types, headers, response schemas, server errors, positive and negative
# data, methods, stateful links). Exits non-zero on any failure. `make test` runs it last.
#
# schemathesis and its dependencies are pinned with hashes in scripts/schemathesis-requirements.txt
# and installed into .venv-schemathesis/ (reinstalled when that file changes). Settings and the
# accepted exceptions: scripts/schemathesis.toml; long-polls kept short: scripts/schemathesis_hooks.py.
#
# Usage: scripts/schemathesis.sh [extra schemathesis run options]
#   ALERTD_BIN            the alertd to test (default .build/debug/alertd; build it first)
#   SCHEMATHESIS_EXAMPLES examples per operation and phase (default 50)
#   SCHEMATHESIS_SEED     the seed, fixed so CI runs are reproducible (default 20261130)
#   SCHEMATHESIS_WORKERS  concurrent workers (default 1: with more, Python 3.11's ast.parse, which
#                         hypothesis calls from each worker thread, fails now and then with
#                         "SystemError: AST constructor recursion depth mismatch")
#   SCHEMATHESIS_VENV     where the virtualenv lives (default .venv-schemathesis)
#   PYTHON                the python3 to create the virtualenv with (default python3 on PATH)
set -euo pipefail
cd "$(dirname "$0")/.."

bin=${ALERTD_BIN:-.build/debug/alertd}
examples=${SCHEMATHESIS_EXAMPLES:-50}
seed=${SCHEMATHESIS_SEED:-20261130}
workers=${SCHEMATHESIS_WORKERS:-1}
venv=${SCHEMATHESIS_VENV:-.venv-schemathesis}
requirements=scripts/schemathesis-requirements.txt

say() { echo "schemathesis: $*" >&2; }

[ -x "$bin" ] || { say "$bin not found; build it first (swift build), or set ALERTD_BIN"; exit 1; }

# The virtualenv, made or refreshed by scripts/pinned-venv.sh.
scripts/pinned-venv.sh "$venv" "$requirements" schemathesis

# A fresh alertd on a free port. Plenty of room for what the run creates; access log kept for a failure.
# An alertd that knows bearer tokens runs with one admin token, which every request carries (so
# should openapi.yaml ever require a token, the ignored_auth check can see requests without one refused).
work=$(mktemp -d "${TMPDIR:-/tmp}/alertd-schemathesis.XXXXXX")
auth=()
server_env=()
if "$bin" --help 2>/dev/null | grep -q -- '--tokens-file'; then
    token=$(od -An -N24 -tx1 /dev/urandom | tr -d ' \n')
    server_env=(ALERTD_TOKENS="schemathesis:admin:$token")
    auth=(--header "Authorization: Bearer $token")
fi
server_pid=
stop_server() {
    [ -n "$server_pid" ] || return 0
    kill -TERM "$server_pid" 2>/dev/null || true
    local status=0
    wait "$server_pid" || status=$?
    server_pid=
    return $status
}
trap 'stop_server || true' EXIT
env "${server_env[@]}" "$bin" --host 127.0.0.1 --port 0 --max-pending 1000000 --max-resolved 1000000 \
    >"$work/alertd.out" 2>"$work/alertd.log" &
server_pid=$!
url=
for _ in $(seq 100); do
    url=$(sed -n 's/^alertd listening on \(http:[^ ]*\).*$/\1/p' "$work/alertd.out" 2>/dev/null || true)
    [ -n "$url" ] && break
    kill -0 "$server_pid" 2>/dev/null || break
    sleep 0.1
done
if [ -z "$url" ]; then
    say "alertd did not start; its output:"
    cat "$work/alertd.out" "$work/alertd.log" >&2
    exit 1
fi
say "testing $url (alertd log: $work/alertd.log)"

# POST /mcp is left out (--exclude-path): its body is a JSON-RPC message whose rules JSON Schema does not
# reach (which methods exist, what each one's params are), so a schema-valid body is as often a JSON-RPC
# error (200, by design) as not, and a schema-valid `tools/call` of `ask` waits for a person without a
# bound, which the run's request timeout would report as a failure. Its HTTP rules (401, 403, 405, 406,
# 413, 415, JSON-RPC error objects, never a 5xx) are tested in Tests/AlertAPITests/MCPHTTPTests.swift,
# and the protocol with the Python MCP SDK as the client in scripts/mcp_test.py.
# The responder's page under /app is left out too (--exclude-path-regex): HTML forms behind a session cookie,
# a same-origin check and a CSRF token, which schemathesis cannot drive; Tests/AlertAPITests/ResponderPageTests.swift
# and scripts/app_test.py (headless Chromium) test it.
# hypothesis keeps its state (examples that failed before, which it would replay) in the
# temporary folder, so every run starts the same and nothing is written into the work tree.
status=0
HYPOTHESIS_STORAGE_DIRECTORY="$work/hypothesis" SCHEMATHESIS_HOOKS=scripts/schemathesis_hooks.py \
    "$venv/bin/schemathesis" \
    --config-file scripts/schemathesis.toml --no-color \
    run openapi.yaml --url "$url" --checks all --exclude-checks use_after_free --exclude-path /mcp --exclude-path-regex '^/app' \
    --max-examples "$examples" --seed "$seed" --generation-database none --workers "$workers" \
    --request-timeout 10 --report junit --report-junit-path "$work/junit.xml" \
    "${auth[@]}" "$@" || status=$?

if ! stop_server; then
    say "alertd did not exit 0 on SIGTERM"
    status=1
fi
trap - EXIT
# The closing line, counted per operation (and the stateful run) from the JUnit report.
tests=$(sed -n 's/^<testsuites.* tests="\([0-9]*\)".*$/\1/p' "$work/junit.xml" 2>/dev/null || true)
if [ -n "$tests" ]; then
    failed=$(grep -c '<failure\|<error' "$work/junit.xml" || true)
    echo "schemathesis: $((tests - failed)) passed, $failed failed"
fi
if [ $status -eq 0 ]; then
    rm -rf "$work"
else
    say "failed; the alertd log and a JUnit report are in $work"
fi
exit $status
