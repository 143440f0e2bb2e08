#!/usr/bin/env bash
# Installs, with apt-get, whatever this machine lacks to build (and, with `test` or
# `bench`, to test or benchmark; with `python` (or its older name `schema`), to make the
# virtualenvs of scripts/pinned-venv.sh) alertd.
# Quiet when nothing is missing.
# Usage: scripts/deps.sh build|test|release|bench|schema|python|cluster
set -euo pipefail
purpose=${1:-build}

missing=()
need() { # need <package> <check command...>
    local package=$1; shift
    "$@" >/dev/null 2>&1 || missing+=("$package")
}

need pkg-config command -v pkg-config
need libmicrohttpd-dev sh -c 'pkg-config --exists libmicrohttpd || test -f /usr/include/microhttpd.h'
need libncurses-dev test -f /usr/include/ncursesw/curses.h
need libsqlite3-dev sh -c 'pkg-config --exists sqlite3 || test -f /usr/include/sqlite3.h'
need libpq-dev sh -c 'pkg-config --exists libpq || test -f /usr/include/postgresql/libpq-fe.h'
# The cluster tests and make cluster start a scratch PostgreSQL server (initdb, pg_ctl).
need_postgres() { need postgresql sh -c 'ls /usr/lib/postgresql/*/bin/initdb'; }
# A release build links FoundationNetworking statically, which needs libcurl to link against.
need_curl_dev() { need libcurl4-openssl-dev sh -c 'pkg-config --exists libcurl || test -f /usr/include/x86_64-linux-gnu/curl/curl.h'; }
case $purpose in
    # nginx and curl: scripts/nginx-test.py and scripts/docker-check.sh (Debian puts nginx in /usr/sbin); sqlite3:
    # DurabilityTests (a newer schema, a full disk); systemd-analyze: scripts/systemd-check.sh.
    test) need tmux command -v tmux; need systemd command -v systemd-analyze; need nginx sh -c 'command -v nginx || test -x /usr/sbin/nginx'
        need curl command -v curl; need sqlite3 command -v sqlite3; need python3 command -v "${PYTHON:-python3}"
        need chromium command -v chromium; need chromium-driver command -v chromedriver
        need_postgres ;;
    cluster) need nginx sh -c 'command -v nginx || test -x /usr/sbin/nginx'; need curl command -v curl; need_postgres ;;
    release) need_curl_dev ;;
    bench) need wrk command -v wrk; need gcc command -v cc; need curl command -v curl; need_curl_dev ;;
    schema|python) need python3 command -v "${PYTHON:-python3}"
        need python3-venv "${PYTHON:-python3}" -c 'import ensurepip, venv' ;;
esac

[ ${#missing[@]} -eq 0 ] && exit 0
echo "deps: installing ${missing[*]} with apt-get"
if ! command -v apt-get >/dev/null 2>&1; then
    echo "deps: apt-get not found; install ${missing[*]} (or their equivalents) yourself" >&2
    exit 1
fi
if [ "$(id -u)" -eq 0 ]; then
    sudo=()
elif command -v sudo >/dev/null 2>&1; then
    sudo=(sudo)
else
    echo "deps: not root and no sudo; as root run: apt-get install ${missing[*]}" >&2
    exit 1
fi
"${sudo[@]}" apt-get update -qq >/dev/null
"${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
pkg-config --exists libmicrohttpd || { echo "deps: pkg-config still cannot find libmicrohttpd" >&2; exit 1; }
pkg-config --exists sqlite3 || { echo "deps: pkg-config still cannot find sqlite3" >&2; exit 1; }
