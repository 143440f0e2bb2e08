#!/usr/bin/env bash
# Makes VENV a virtualenv holding exactly what REQUIREMENTS pins (with hashes, no dependencies resolved),
# and makes it again when REQUIREMENTS changes, when TOOL is missing from it, or when its python no
# longer runs. Quiet when the virtualenv is up to date. python3 and python3-venv: scripts/deps.sh schema.
# Usage: scripts/pinned-venv.sh VENV REQUIREMENTS TOOL     PYTHON: the python3 to use (default python3)
set -euo pipefail
venv=$1 requirements=$2 tool=$3
stamp="$venv/.requirements.sha256"
want=$(sha256sum "$requirements" | cut -d' ' -f1)
if [ -x "$venv/bin/$tool" ] && [ "$(cat "$stamp" 2>/dev/null)" = "$want" ] && "$venv/bin/python" -c '' 2>/dev/null
then
    exit 0
fi
echo "installing the pinned $tool into $venv" >&2
rm -rf "$venv"
"${PYTHON:-python3}" -m venv "$venv"
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check --no-input \
    --require-hashes --no-deps -r "$requirements"
echo "$want" >"$stamp"
