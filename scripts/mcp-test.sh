#!/usr/bin/env bash
# MCP conformance: the real MCP Python SDK (`mcp` on PyPI) as the client of `alertctl mcp` (stdio) and of alertd's
# own `POST /mcp` (Streamable HTTP), against a real alertd with tokens and a data dir; jsonschema checks the tools'
# schemas and every structuredContent.
# scripts/mcp_test.py says what is checked. Exits non-zero on any failure. `make test` runs it after the
# generated-client step.
#
# The SDK and jsonschema are pinned with hashes in scripts/mcp-requirements.txt and installed into .venv-mcp/
# (reinstalled when that file changes).
#
# Usage: scripts/mcp-test.sh
#   ALERTD_BIN    the alertd to test (default .build/debug/alertd; build it first)
#   ALERTCTL_BIN  the alertctl to test (default .build/debug/alertctl)
#   MCP_VENV      where the virtualenv lives (default .venv-mcp)
#   PYTHON        the python3 to create the virtualenv with (default python3 on PATH)
set -euo pipefail
cd "$(dirname "$0")/.."

alertd=${ALERTD_BIN:-.build/debug/alertd}
alertctl=${ALERTCTL_BIN:-.build/debug/alertctl}
venv=${MCP_VENV:-.venv-mcp}

say() { echo "mcp-test: $*" >&2; }

for bin in "$alertd" "$alertctl"; do
    [ -x "$bin" ] || { say "$bin not found; build it first (swift build), or set ALERTD_BIN / ALERTCTL_BIN"; exit 1; }
done

scripts/pinned-venv.sh "$venv" scripts/mcp-requirements.txt python

# alertd's output, logs and data dir go to a scratch folder, kept when the run fails.
work=$(mktemp -d "${TMPDIR:-/tmp}/alertd-mcp.XXXXXX")
status=0
"$venv/bin/python" scripts/mcp_test.py "$(realpath "$alertd")" "$(realpath "$alertctl")" "$work" || status=$?
if [ $status -eq 0 ]; then
    rm -rf "$work"
else
    say "failed; alertd's logs and data dir are in $work"
fi
exit $status
