# Sourced by bench/run.sh (its settings, helpers and built tools): the rows of several alertd instances on one
# PostgreSQL (issue 13), against one alertd --data-dir measured in the same run. cluster_rows measures and fills R[];
# cluster_table prints the table. Every row is described in bench/README.md ("Cluster").
#
# PostgreSQL is Debian's, a fresh cluster made by scripts/scratch-postgres.sh under DATA_ROOT (on the disk, fsync on:
# its commits pay the flush as the journal's do). The three instances are reached directly, round-robin by wrk thread
# (bench/lua/spread_post.lua), not through nginx: on two shared cores nginx would take as much CPU as an instance,
# and the figure is meant to be alertd's and PostgreSQL's, with the load balancer on another machine.

CLUSTER_WAITERS=${BENCH_CLUSTER_WAITERS:-5000} # long-polls, and event streams, held on one instance
CLUSTER_WAKE_RUNS=3
CLUSTER_WRK="-t3 -c63" # both sides: one wrk thread (21 connections) per instance, the same for the single alertd
PG_DIR=""

# Stops the bench's PostgreSQL if it runs (also from cleanup, on any exit).
cluster_stop_postgres() {
    if [[ -n "$PG_DIR" && -f "$PG_DIR/data/postmaster.pid" ]]; then
        scripts/scratch-postgres.sh stop "$PG_DIR" >/dev/null 2>&1 || true
    fi
}

# The processes of the bench's PostgreSQL (the postmaster and its children: the backends of the instances'
# connections, the WAL writer, the checkpointer, …), comma-separated.
postgres_pids() {
    local postmaster
    postmaster=$(head -1 "$PG_DIR/data/postmaster.pid")
    { echo "$postmaster"; ps -o pid= --ppid "$postmaster"; } | tr -d ' ' | paste -sd, -
}

# A new alert on $1, $CLUSTER_WAITERS waiters on $2 (long-polls, or event streams with -e), answered on $1. Sets
# WAKE_LINE.
cluster_wake() { # answer-port wait-port label [swarm flags]
    local id
    id=$(new_alert "$1" || true)
    # shellcheck disable=SC2086
    WAKE_LINE=$(timeout 120 "$BIN/swarm" -p "$2" -A "$1" -i "${id:-none}" -n "$CLUSTER_WAITERS" -T 100 ${4:-} 2>&1 || true)
    echo "--- wake $3: $WAKE_LINE" >>"$LOG"
}

# kB of RSS a held waiter adds: $CLUSTER_WAITERS held on port $2 of process $3 (created on port $1).
held_kb() { # answer-port wait-port pid [swarm flags]
    local idle
    idle=$(rss_kb "$3")
    hold_rss "$2" "$3" "$(new_alert "$1")" "$CLUSTER_WAITERS" "${4:-}"
    HELD_N=$HOLD_READY
    HELD_KB=$(awk -v i="$idle" -v r="$HOLD_RSS" -v n="$HOLD_READY" 'BEGIN { if (n > 0) printf "%.2f", (r - i) / n; else print "n/a" }')
}

cluster_rows() {
    local c1 c2 c3 pg_port url n pid scrape_before scrape_after out line run
    local -a pids=() single_last=() cluster_last=() single_sse=() cluster_sse=()
    c1=$(pick_port $((DPORT + 1)))
    c2=$(pick_port $((c1 + 1)))
    c3=$(pick_port $((c2 + 1)))
    pg_port=$(pick_port $((c3 + 1)))
    chmod 755 "$DATA_ROOT" # PostgreSQL runs as the postgres user when the bench runs as root
    PG_DIR=$DATA_ROOT/postgres
    url=$(scripts/scratch-postgres.sh start "$PG_DIR" "$pg_port")
    PG_VERSION_TEXT=$("$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)/postgres" --version)
    say "== cluster: alertd --data-dir on port $DPORT against three alertd --database on ports $c1 $c2 $c3, $PG_VERSION_TEXT on port $pg_port (data in $PG_DIR: $FS_TYPE on $FS_DEVICE)"
    start_server "$DPORT" "$ALERTD" "${DURABLE_ARGS[@]}" --data-dir "$(data_dir cluster-single)"
    SINGLE_PID=$SERVER_PID
    for n in "$c1" "$c2" "$c3"; do
        start_server "$n" "$ALERTD" --port "$n" "${ALERTD_ARGS[@]:2}" --database "$url"
        pids+=("$SERVER_PID")
    done
    run_wrk "alertd durable warm-up" "$SINGLE_PID" -d2s "http://127.0.0.1:$DPORT/healthz"
    run_wrk "cluster warm-up" "${pids[0]}" -d2s "http://127.0.0.1:$c1/healthz"
    # The cluster's CPU: the three instances and every PostgreSQL process (the single alertd's includes SQLite).
    CLUSTER_CPU_PIDS="$(IFS=,; echo "${pids[*]}"),$(postgres_pids)"
    echo "--- cluster processes (alertd instances, then PostgreSQL): $CLUSTER_CPU_PIDS" >>"$LOG"

    flush_probe "before the cluster's creates"
    scrape_before=$(scrape_histogram "$c1" alertd_cluster_commit_seconds; scrape_histogram "$c1" alertd_cluster_batch_size)
    export BENCH_SPREAD_PORTS="$c1,$c2,$c3"
    paired_servers ccreate req "POST /v1/alerts (login alert body, wrk $CLUSTER_WRK)" \
        durable "$SINGLE_PID" "$CLUSTER_WRK -s bench/lua/post_alert.lua http://127.0.0.1:$DPORT/v1/alerts" \
        cluster "$CLUSTER_CPU_PIDS" "$CLUSTER_WRK -s bench/lua/spread_post.lua http://127.0.0.1:$c1/v1/alerts"
    unset BENCH_SPREAD_PORTS
    scrape_after=$(scrape_histogram "$c1" alertd_cluster_commit_seconds; scrape_histogram "$c1" alertd_cluster_batch_size)
    { echo "--- /metrics of cluster instance 1 after the create rounds:"; echo "$scrape_after"; } >>"$LOG"
    out=$(histogram_delta "$scrape_before" "$scrape_after" alertd_cluster_commit_seconds 1000)
    R[ccommit_n]=$(field count "$out") R[ccommit_mean]=$(field mean "$out") R[ccommit_p50]=$(field p50 "$out")
    R[ccommit_p99]=$(field p99 "$out")
    out=$(histogram_delta "$scrape_before" "$scrape_after" alertd_cluster_batch_size 1)
    R[cbatch_mean]=$(field mean "$out") R[cbatch_p50]=$(field p50 "$out") R[cbatch_p99]=$(field p99 "$out")
    say "cluster creates, instance 1: ${R[ccommit_n]} transactions, BEGIN..on disk p50 ${R[ccommit_p50]} ms, p99 ${R[ccommit_p99]} ms, mean ${R[ccommit_mean]} ms; changes a transaction p50 ${R[cbatch_p50]}, p99 ${R[cbatch_p99]}, mean ${R[cbatch_mean]}"

    out=$(timeout 300 "$BIN/latency" -p "$c1" -P "$c2" -n "$LATENCY_ITERATIONS" 2>&1 || true)
    echo "--- latency cluster (answer on instance 1, waiter on instance 2): $out" >>"$LOG"
    R[xlat_p50]=$(field p50_ms "$out") R[xlat_p99]=$(field p99_ms "$out")
    say "cluster answer on instance 1 -> waiter on instance 2 ($LATENCY_ITERATIONS iterations): p50 ${R[xlat_p50]} ms, p99 ${R[xlat_p99]} ms, max $(field max_ms "$out") ms (errors $(field errors "$out"), early $(field early "$out"))"
    out=$(timeout 300 "$BIN/latency" -p "$DPORT" -n "$LATENCY_ITERATIONS" 2>&1 || true)
    echo "--- latency durable: $out" >>"$LOG"
    R[slat_p50]=$(field p50_ms "$out") R[slat_p99]=$(field p99_ms "$out")
    say "alertd --data-dir answer -> waiter ($LATENCY_ITERATIONS iterations): p50 ${R[slat_p50]} ms, p99 ${R[slat_p99]} ms"

    # Held waiters first (the RSS a waiter adds), then the wakes, alternating single and cluster.
    held_kb "$DPORT" "$DPORT" "$SINGLE_PID"
    R[s_poll_kb]=$HELD_KB R[s_poll_n]=$HELD_N
    held_kb "$c1" "$c2" "${pids[1]}"
    R[c_poll_kb]=$HELD_KB R[c_poll_n]=$HELD_N
    held_kb "$DPORT" "$DPORT" "$SINGLE_PID" -e
    R[s_sse_kb]=$HELD_KB R[s_sse_n]=$HELD_N
    held_kb "$c1" "$c2" "${pids[1]}" -e
    R[c_sse_kb]=$HELD_KB R[c_sse_n]=$HELD_N
    say "RSS a held waiter adds: long-poll ${R[s_poll_kb]} kB single (${R[s_poll_n]} held), ${R[c_poll_kb]} kB cluster instance (${R[c_poll_n]} held); event stream ${R[s_sse_kb]} kB single (${R[s_sse_n]}), ${R[c_sse_kb]} kB cluster instance (${R[c_sse_n]})"
    for run in $(seq "$CLUSTER_WAKE_RUNS"); do
        cluster_wake "$DPORT" "$DPORT" "single long-polls run $run"
        single_last+=("$(field last_ms "$WAKE_LINE")")
        cluster_wake "$c1" "$c2" "cluster long-polls run $run"
        cluster_last+=("$(field last_ms "$WAKE_LINE")")
        line=$WAKE_LINE
        cluster_wake "$DPORT" "$DPORT" "single event streams run $run" -e
        single_sse+=("$(field last_ms "$WAKE_LINE")")
        cluster_wake "$c1" "$c2" "cluster event streams run $run" -e
        cluster_sse+=("$(field last_ms "$WAKE_LINE")")
    done
    R[s_wake]=$(fmt "$(median "${single_last[@]}")" 1) R[c_wake]=$(fmt "$(median "${cluster_last[@]}")" 1)
    R[s_sse]=$(fmt "$(median "${single_sse[@]}")" 1) R[c_sse]=$(fmt "$(median "${cluster_sse[@]}")" 1)
    say "$CLUSTER_WAITERS long-polls, answer -> last woken: single ${R[s_wake]} ms (${single_last[*]}), cluster (answer on 1, waiters on 2) ${R[c_wake]} ms (${cluster_last[*]}; last run ok $(field ok "$line"))"
    say "$CLUSTER_WAITERS event streams, answer -> last event: single ${R[s_sse]} ms (${single_sse[*]}), cluster ${R[c_sse]} ms (${cluster_sse[*]}; last run ok $(field ok "$WAKE_LINE"))"

    R[cpolled]=0
    for n in "$c1" "$c2" "$c3"; do
        out=$(curl -sf "http://127.0.0.1:$n/metrics" | grep '^alertd_cluster_events_read_total' || true)
        echo "--- events read by instance on $n: $out" >>"$LOG"
        R[cpolled]=$((R[cpolled] + $(awk '/via="poll"/ { s += $2 } END { print s + 0 }' <<<"$out")))
    done
    for pid in "${pids[@]}"; do stop_server "$pid"; done
    stop_server "$SINGLE_PID"
    cluster_stop_postgres
    rm -rf "$PG_DIR" "$DATA_ROOT/cluster-single"
    PG_DIR=""
}

cluster_table() {
    echo "| figure | goal | measured | ratio / verdict |"
    echo "|---|---|---|---|"
    row_rate "cluster POST /v1/alerts (three instances, round-robin by wrk thread)" 0.50 "${R[ccreate]}" \
        "${R[base_ccreate]}" "${R[ccreate_cpu]}" "${R[base_ccreate_cpu]}" "${R[ccreate_ratio]}" "${R[ccreate_ratios]}" \
        req "one alertd --data-dir"
    printf '| cluster transactions under the creates (instance 1) | (information) | %s transactions; BEGIN → on disk p50 %s ms, p99 %s ms, mean %s ms; changes a transaction p50 %s, p99 %s, mean %s | from `/metrics` (p50/p99 interpolated within buckets); %s events read by polling on the three instances (lost or late NOTIFYs) |\n' \
        "${R[ccommit_n]}" "${R[ccommit_p50]}" "${R[ccommit_p99]}" "${R[ccommit_mean]}" "${R[cbatch_p50]}" \
        "${R[cbatch_p99]}" "${R[cbatch_mean]}" "${R[cpolled]}"
    row_goal 'answer on instance 1 → waiter on instance 2, p50' '< 2 ms' \
        "${R[xlat_p50]} ms (one alertd --data-dir, answer and waiter on it: ${R[slat_p50]} ms)" "${R[xlat_p50]}" 2
    row_goal 'answer on instance 1 → waiter on instance 2, p99' '< 10 ms' \
        "${R[xlat_p99]} ms (one alertd --data-dir: ${R[slat_p99]} ms)" "${R[xlat_p99]}" 10
    printf '| %s long-polls on instance 2, answer on instance 1 → last woken | < 100 ms (as one alertd) | %s ms (one alertd --data-dir, answered on itself: %s ms), median of %s | %s × one alertd; %s |\n' \
        "$CLUSTER_WAITERS" "${R[c_wake]}" "${R[s_wake]}" "$CLUSTER_WAKE_RUNS" "$(div "${R[c_wake]}" "${R[s_wake]}")" \
        "$(verdict "$(le "${R[c_wake]}" 100)")"
    printf '| %s event streams on instance 2, answer on instance 1 → last event | < 100 ms (as one alertd) | %s ms (one alertd --data-dir: %s ms), median of %s | %s × one alertd; %s |\n' \
        "$CLUSTER_WAITERS" "${R[c_sse]}" "${R[s_sse]}" "$CLUSTER_WAKE_RUNS" "$(div "${R[c_sse]}" "${R[s_sse]}")" \
        "$(verdict "$(le "${R[c_sse]}" 100)")"
    row_goal "RSS a held long-poll adds on a cluster instance (${R[c_poll_n]} held)" '< 10 kB (500 MB / 50,000)' \
        "${R[c_poll_kb]} kB (one alertd --data-dir: ${R[s_poll_kb]} kB, ${R[s_poll_n]} held)" "${R[c_poll_kb]}" 10
    # Event streams have no RSS goal of their own (issue 6's is for long-polls): the cluster's is held to one alertd's.
    local ratio
    ratio=$(div "${R[c_sse_kb]}" "${R[s_sse_kb]}")
    printf '| RSS a held event stream adds on a cluster instance (%s held) | at most 10%% over one alertd | %s kB (one alertd --data-dir: %s kB, %s held) | %s × one alertd: %s |\n' \
        "${R[c_sse_n]}" "${R[c_sse_kb]}" "${R[s_sse_kb]}" "${R[s_sse_n]}" "$ratio" "$(verdict "$(le "$ratio" 1.10)")"
}
