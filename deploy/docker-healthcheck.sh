#!/bin/sh
# The Docker image's HEALTHCHECK: GET /healthz on the port alertd really listens on. That is the
# `--port` on alertd's command line when given (flags win, as in alertd), else ALERTD_PORT, else
# 8080; the same for the host (`--host`, ALERTD_HOST; any-address binds are probed on loopback).
# alertd is found by name in /proc (ALERTD_HEALTHCHECK_PID names it instead, for tests).
# Exit 0: healthy; 1: not (no answer, or not 200).
set -u
port=${ALERTD_PORT:-8080}
host=${ALERTD_HOST:-127.0.0.1}
pid=${ALERTD_HEALTHCHECK_PID:-}
if [ -z "$pid" ]; then
    for dir in /proc/[0-9]*; do
        if [ "$(cat "$dir/comm" 2>/dev/null)" = alertd ]; then
            pid=${dir#/proc/}
            break
        fi
    done
fi
if [ -n "$pid" ] && [ -r "/proc/$pid/cmdline" ]; then
    # One argument a line; a value after `--port` / `--host`, or after `=`.
    next=
    while IFS= read -r argument; do
        case $next in
            port) port=$argument ;;
            host) host=$argument ;;
        esac
        next=
        case $argument in
            --port) next=port ;;
            --host) next=host ;;
            --port=*) port=${argument#--port=} ;;
            --host=*) host=${argument#--host=} ;;
        esac
    done <<ARGUMENTS
$(tr '\0' '\n' <"/proc/$pid/cmdline")
ARGUMENTS
fi
case $host in
    0.0.0.0 | "") host=127.0.0.1 ;;
    :: | "[::]") host=[::1] ;;
    \[*) ;;
    *:*) host=[$host] ;;
esac
curl -fsS --max-time 2 -o /dev/null "http://$host:$port/healthz" || exit 1
