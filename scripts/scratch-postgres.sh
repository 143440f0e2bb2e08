#!/usr/bin/env bash
# A throwaway PostgreSQL cluster in a directory of its own, for make cluster and the cluster tests.
#   scripts/scratch-postgres.sh start DIR PORT   initdb (once) and start it on 127.0.0.1:PORT; prints the URL
#   scripts/scratch-postgres.sh stop DIR         stop it (fast: connections are cut, nothing committed is lost)
#   scripts/scratch-postgres.sh crash DIR        stop it as a crash would: pg_ctl stop -m immediate (no flush, no
#                                                checkpoint; the next start replays the WAL)
#   scripts/scratch-postgres.sh kill DIR         SIGKILL of the postmaster; its processes follow it (those still
#                                                there after 10 s are killed too), as after a crash of the machine
#   scripts/scratch-postgres.sh init DIR         initdb only (a template: tests copy DIR/data instead of running initdb)
# PostgreSQL refuses to run as root: as root, the cluster belongs to the `postgres` user (Debian's package makes it).
# PG_OPTIONS adds server settings (the tests pass "-c fsync=off": they test alertd, not the disk). Statements are
# logged without their parameters (alerts' JSON, secure values included), whatever else logs them.
set -euo pipefail
bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)
[ -x "$bin/initdb" ] || { echo "scratch-postgres: no /usr/lib/postgresql/*/bin/initdb; apt-get install postgresql" >&2; exit 1; }
as_owner() {
    if [ "$(id -u)" -eq 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}
usage="usage: scratch-postgres.sh start DIR PORT | stop DIR | crash DIR | kill DIR | init DIR"
command=${1:?$usage}
dir=${2:?$usage}
initialize() {
    mkdir -p "$dir"
    if [ "$(id -u)" -eq 0 ]; then chown postgres "$dir"; fi
    if [ ! -f "$dir/data/PG_VERSION" ]; then
        as_owner "$bin/initdb" -D "$dir/data" -U alertd --auth=trust -E UTF8 >"$dir/initdb.log" 2>&1 \
            || { cat "$dir/initdb.log" >&2; exit 1; }
    fi
}
case $command in
    init) initialize ;;
    start)
        port=${3:?$usage}
        initialize
        as_owner "$bin/pg_ctl" -D "$dir/data" -l "$dir/postgres.log" -w -t 30 \
            -o "-p $port -k $dir -c listen_addresses=127.0.0.1 -c log_parameter_max_length=0 \
                -c log_parameter_max_length_on_error=0 ${PG_OPTIONS:-}" start >/dev/null \
            || { tail -20 "$dir/postgres.log" >&2; exit 1; }
        echo "postgresql://alertd@127.0.0.1:$port/postgres"
        ;;
    stop)
        as_owner "$bin/pg_ctl" -D "$dir/data" -m fast -w -t 30 stop >/dev/null
        ;;
    crash)
        as_owner "$bin/pg_ctl" -D "$dir/data" -m immediate -w -t 30 stop >/dev/null
        ;;
    kill)
        postmaster=$(head -1 "$dir/data/postmaster.pid")
        read -ra processes <<<"$postmaster $(ps -o pid= --ppid "$postmaster" | paste -sd ' ' -)"
        alive() { # whether one of the processes still runs (a zombie does not)
            local pid
            for pid in "${processes[@]}"; do
                grep -qs '^State:[[:space:]]*[^Z]' "/proc/$pid/status" && return 0
            done
            return 1
        }
        kill -KILL "$postmaster"
        for _ in $(seq 100); do alive || break; sleep 0.1; done
        kill -KILL "${processes[@]}" 2>/dev/null || true
        for _ in $(seq 100); do alive || break; sleep 0.1; done
        ;;
    *) echo "scratch-postgres: unknown command $command" >&2; exit 64 ;;
esac
