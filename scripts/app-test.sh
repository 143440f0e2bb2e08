#!/usr/bin/env bash
# The responder's page in headless Chromium (scripts/app_test.py), with Selenium and jsonschema pinned with
# hashes in scripts/app-test-requirements.txt and installed into .venv-app-test/ by scripts/pinned-venv.sh.
# Chromium and its driver are Debian's (chromium, chromium-driver: scripts/deps.sh test).
#   ALERTD_BIN     the alertd to test (default .build/debug/alertd; build it first)
#   APP_TEST_VENV  where the virtualenv lives (default .venv-app-test)
set -euo pipefail
cd "$(dirname "$0")/.."
venv=${APP_TEST_VENV:-.venv-app-test}
scripts/pinned-venv.sh "$venv" scripts/app-test-requirements.txt python
# Selenium Manager must not look for a browser or a driver on the network: both are given.
export SE_OFFLINE=true
exec "$venv/bin/python" scripts/app_test.py "$@"
