#!/usr/bin/env bash
# Generated-client conformance: generates a Python client from openapi.yaml with openapi-python-client
# (a warning fails the run), then drives a real alertd through that client alone, with openapi-core
# checking every request and response against openapi.yaml (scripts/generated_client_lifecycle.py says
# what is checked). Exits non-zero on any failure. `make test` runs it after schemathesis.
#
# openapi-python-client, openapi-core and what the generated code needs are pinned with hashes in
# scripts/generated-client-requirements.txt and installed into .venv-generated-client/ (reinstalled
# when that file changes).
#
# Usage: scripts/generated-client.sh
#   ALERTD_BIN                the alertd to test (default .build/debug/alertd; build it first)
#   GENERATED_CLIENT_VENV     where the virtualenv lives (default .venv-generated-client)
#   PYTHON                    the python3 to create the virtualenv with (default python3 on PATH)
set -euo pipefail
cd "$(dirname "$0")/.."

bin=${ALERTD_BIN:-.build/debug/alertd}
venv=${GENERATED_CLIENT_VENV:-.venv-generated-client}
requirements=scripts/generated-client-requirements.txt

say() { echo "generated-client: $*" >&2; }

[ -x "$bin" ] || { say "$bin not found; build it first (swift build), or set ALERTD_BIN"; exit 1; }

# The virtualenv, made or refreshed by scripts/pinned-venv.sh.
scripts/pinned-venv.sh "$venv" "$requirements" openapi-python-client

# The generated client, alertd's output and its log go to a scratch folder, kept when the run fails.
work=$(mktemp -d "${TMPDIR:-/tmp}/alertd-generated-client.XXXXXX")
status=0
"$venv/bin/python" scripts/generated_client_lifecycle.py "$(realpath "$bin")" openapi.yaml "$work" || status=$?
if [ $status -eq 0 ]; then
    rm -rf "$work"
else
    say "failed; the generated client and the alertd log are in $work"
fi
exit $status
