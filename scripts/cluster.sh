#!/usr/bin/env bash
# make cluster: a fresh PostgreSQL in a scratch directory, three alertd instances on it and nginx in front
# (deploy/nginx-cluster.conf), in the foreground until Ctrl-C, which stops them all. Its five ports must be free (it
# says which is not, before starting anything). An instance that exits (kill it to try a failover) leaves the others
# serving; its pid is in CLUSTER_DIR/alertd-N.pid. Only nginx exiting stops the cluster.
#   CLUSTER_DIR   scratch directory (default .alertd-cluster; removed first: every run starts fresh)
#   CLUSTER_PORT  nginx's port on 127.0.0.1 (default 8080); the instances take the next three (8081-8083)
#   CLUSTER_PG_PORT  PostgreSQL's (default 5433)
#   ALERTD        the alertd binary (default .build/release/alertd)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
dir=$(realpath -m "${CLUSTER_DIR:-$root/.alertd-cluster}")
port=${CLUSTER_PORT:-8080}
pg_port=${CLUSTER_PG_PORT:-5433}
alertd=${ALERTD:-$root/.build/release/alertd}
nginx=$(command -v nginx || echo /usr/sbin/nginx)

# Something already listening on a port would answer the health checks in place of this cluster's process.
in_use() { # port: whether something accepts connections on 127.0.0.1:port
    (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null
}
for wanted in "$port:nginx (CLUSTER_PORT)" "$((port + 1)):alertd 1 (CLUSTER_PORT + 1)" \
    "$((port + 2)):alertd 2 (CLUSTER_PORT + 2)" "$((port + 3)):alertd 3 (CLUSTER_PORT + 3)" \
    "$pg_port:PostgreSQL (CLUSTER_PG_PORT)"; do
    if in_use "${wanted%%:*}"; then
        echo "cluster: port ${wanted%%:*} on 127.0.0.1, for ${wanted#*:}, is in use" \
            "(ss -ltnp 'sport = :${wanted%%:*}' shows by what); stop that, or choose other ports:" \
            "CLUSTER_PORT=9000 CLUSTER_PG_PORT=5434 make cluster" >&2
        exit 1
    fi
done

rm -rf "$dir"
mkdir -p "$dir/temp"
chmod 755 "$dir"
pids=()
stop() {
    trap - INT TERM EXIT
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
    wait 2>/dev/null || true
    "$root/scripts/scratch-postgres.sh" stop "$dir/pg" 2>/dev/null || true
    echo "cluster: stopped (files in $dir)"
    exit 0
}
trap stop INT TERM EXIT

url=$("$root/scripts/scratch-postgres.sh" start "$dir/pg" "$pg_port")
echo "cluster: PostgreSQL at $url (log $dir/pg/postgres.log)"
for n in 1 2 3; do
    "$alertd" --port "$((port + n))" --database "$url" --trusted-proxy 127.0.0.1 >"$dir/alertd-$n.log" 2>&1 &
    pids+=($!)
    echo $! >"$dir/alertd-$n.pid"
done
for n in 1 2 3; do
    for _ in $(seq 100); do
        curl -fsS "http://127.0.0.1:$((port + n))/healthz" >/dev/null 2>&1 && break
        sleep 0.1
    done
    curl -fsS "http://127.0.0.1:$((port + n))/healthz" >/dev/null || { echo "cluster: alertd $n did not start:" >&2; cat "$dir/alertd-$n.log" >&2; exit 1; }
done

sed -E -e "s/^(\s*listen )80;$/\1127.0.0.1:$port;/" -e "s/127\.0\.0\.1:8081/127.0.0.1:$((port + 1))/" \
    -e "s/127\.0\.0\.1:8082/127.0.0.1:$((port + 2))/" -e "s/127\.0\.0\.1:8083/127.0.0.1:$((port + 3))/" \
    "$root/deploy/nginx-cluster.conf" >"$dir/alertd-cluster.conf"
user=""
[ "$(id -u)" -eq 0 ] && user="user nobody nogroup;"
cat >"$dir/nginx.conf" <<CONF
$user
daemon off;
worker_processes 1;
pid $dir/nginx.pid;
error_log $dir/nginx-error.log;
events { worker_connections 1024; }
http {
    access_log $dir/nginx-access.log;
    client_body_temp_path $dir/temp/body;
    proxy_temp_path $dir/temp/proxy;
    fastcgi_temp_path $dir/temp/fastcgi;
    uwsgi_temp_path $dir/temp/uwsgi;
    scgi_temp_path $dir/temp/scgi;
    include $dir/alertd-cluster.conf;
}
CONF
"$nginx" -t -q -p "$dir" -c "$dir/nginx.conf" -e "$dir/nginx-error.log"
"$nginx" -p "$dir" -c "$dir/nginx.conf" -e "$dir/nginx-error.log" &
nginx_pid=$!
pids+=("$nginx_pid")
for _ in $(seq 100); do
    curl -fsS "http://127.0.0.1:$port/healthz" >/dev/null 2>&1 && break
    sleep 0.1
done
curl -fsS "http://127.0.0.1:$port/healthz" >/dev/null || { echo "cluster: nginx did not serve" >&2; exit 1; }
echo "cluster: three alertd instances (127.0.0.1:$((port + 1))-$((port + 3)), logs $dir/alertd-N.log) behind nginx"
echo "cluster: serving http://127.0.0.1:$port   (Ctrl-C stops everything)"
# An instance that exits leaves the others serving (nginx sends its requests to them); nginx exiting stops the
# cluster. PostgreSQL may be stopped and started meanwhile (the instances refuse writes while it is away).
running=("${pids[@]}")
while true; do
    exited=""
    wait -n -p exited "${running[@]}" || true
    if [[ -z "$exited" || "$exited" == "$nginx_pid" ]]; then
        echo "cluster: nginx exited (see $dir/nginx-error.log); stopping" >&2
        break
    fi
    for n in 1 2 3; do
        if [[ "${pids[$((n - 1))]}" == "$exited" ]]; then
            echo "cluster: alertd $n (127.0.0.1:$((port + n))) exited (see $dir/alertd-$n.log); the others go on" >&2
        fi
    done
    kept=()
    for pid in "${running[@]}"; do [[ "$pid" == "$exited" ]] || kept+=("$pid"); done
    running=("${kept[@]}")
done
