#!/usr/bin/env bash
# Makes the virtualenv VENV hold exactly the pinned, hashed REQUIREMENTS (pip --require-hashes --no-deps),
# remaking it when that file changes (a stamp in VENV records its hash), when PROGRAM is missing from
# VENV/bin, or when its python no longer runs. Quiet when the virtualenv is up to date. python3 with venv
# and pip come from scripts/deps.sh (apt-get) when missing.
# Usage: scripts/pinned-venv.sh VENV REQUIREMENTS PROGRAM
#   PYTHON  the python3 to create the virtualenv with (default python3 on PATH)
set -euo pipefail
venv=$1
requirements=$2
program=$3

"$(dirname "$0")/deps.sh" python
python=${PYTHON:-python3}
stamp="$venv/.requirements.sha256"
want=$(sha256sum "$requirements" | cut -d' ' -f1)
if [ ! -x "$venv/bin/$program" ] || [ "$(cat "$stamp" 2>/dev/null)" != "$want" ] \
    || ! "$venv/bin/python" -c '' 2>/dev/null; then
    echo "installing $requirements into $venv" >&2
    rm -rf "$venv"
    "$python" -m venv "$venv"
    "$venv/bin/python" -m pip install --quiet --disable-pip-version-check --no-input \
        --require-hashes --no-deps -r "$requirements"
    echo "$want" >"$stamp"
fi
