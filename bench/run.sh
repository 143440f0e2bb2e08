#!/usr/bin/env bash
# make bench: alertd side by side with the ceiling of its own stack (bench/baseline/baseline.c,
# libmicrohttpd with alertd's daemon flags), on loopback, bounded, stopping by itself.
#
# Builds alertd (release) and the C programs, runs every scenario of issues 6 and 12 (alertd --data-dir against
# alertd memory-only) and 13 (three alertd on one PostgreSQL against one alertd --data-dir, bench/cluster.sh),
# prints each figure as it is measured, then writes bench/results/<date>-<sha>.txt and the "Latest" and "Cluster"
# sections of docs/PERFORMANCE.md (the history of the figures is bench/results/HISTORY.md).
#
# Settings (environment):
#   BENCH_SCRATCH   swift build --scratch-path (default: .build, as `make release`)
#   BENCH_DURATION  seconds per wrk run, the same for baseline and alertd (default 5)
#   BENCH_ROUNDS    rounds of baseline-then-alertd runs per rate; the median of the rounds' ratios is
#                   reported (default 3)
#   BENCH_WAITERS   suspended waiters for the RSS figure (default 50000, lowered to fit RLIMIT_NOFILE)
#   BENCH_PENDING   pending alerts for the big-store figures (default 1000000)
#   BENCH_DATA_PARENT  where the durable runs' data dirs are made, and removed after the run (default .build): a
#                   disk, not a tmpfs, since the fsync is what is measured
#   BENCH_RESTARTS  timed restarts of a durable alertd with BENCH_PENDING pending (default 3)
#   BENCH_NO_DOCS=1 leave docs/PERFORMANCE.md alone
#   BENCH_ONLY=cluster  only the cluster rows (about 3 minutes): bench/results/<date>-<sha>-cluster.txt and the
#                   "Cluster" section of docs/PERFORMANCE.md
#   BENCH_ONLY=store  only the rows that go through the store's entry points (about 3 minutes): GET /v1/alerts/{id} and
#                   POST /v1/alerts against the baseline, and POST /v1/alerts durable against memory-only; printed and
#                   kept in bench/results/<date>-<sha>-store.txt, docs/PERFORMANCE.md left alone
#   BENCH_CLUSTER_WAITERS  long-polls, and event streams, held on one instance for the cluster rows (default 5000)
#   BENCH_ONLY=mcp  only the MCP rows (issue 25, bench/mcp.sh; about 2 minutes): bench/results/<date>-<sha>-mcp.txt
#                   and the "MCP" section of docs/PERFORMANCE.md
#   BENCH_MCP_CALLS, BENCH_MCP_RUNS  asks held waiting at once (default 1000), asks timed one by one (default 200)
#   BENCH_ONLY=phone  only the phone rows (issue 27, bench/phone.sh; about 2 minutes): /app with 10,000 pending
#                   against GET /v1/alerts?limit=50, creates with a slow or down --notify-webhook against none;
#                   bench/results/<date>-<sha>-phone.txt and the "Phone" section of docs/PERFORMANCE.md
#   BENCH_ONLY=scale  only the scale rows (issue 28; about 2 minutes): POST /v1/alerts with BENCH_SCALE_WAITERS
#                   long-polls held (default 5000) against none, memory-only and durable; printed and kept in
#                   bench/results/<date>-<sha>-scale.txt, docs/PERFORMANCE.md left alone
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
SCRATCH=${BENCH_SCRATCH:-.build}
DURATION=${BENCH_DURATION:-5}
ROUNDS=${BENCH_ROUNDS:-3}
if ! [[ "$ROUNDS" =~ ^[0-9]+$ ]] || ((ROUNDS % 2 == 0)); then
    echo "bench: BENCH_ROUNDS must be odd (1, 3, 5, …), for a median" >&2
    exit 2
fi
WAITERS_GOAL=50000
WAITERS_WANTED=${BENCH_WAITERS:-$WAITERS_GOAL}
PENDING_BIG=${BENCH_PENDING:-1000000}
PENDING_SMALL=10000
WAKE_WAITERS=10000
WAKE_RUNS=3
REUSED_WAITERS=5000 # waiters whose connection served a /healthz first (-k), for the reused-connection RSS
LATENCY_ITERATIONS=2000
STARTUP_RUNS=5
RESTARTS=${BENCH_RESTARTS:-3}
DURABLE_FILL_CONNECTIONS=256
if ! [[ "$RESTARTS" =~ ^[0-9]+$ ]] || ((RESTARTS < 1)); then
    echo "bench: BENCH_RESTARTS must be a positive number" >&2
    exit 2
fi
DATA_PARENT=${BENCH_DATA_PARENT:-$ROOT/.build}
ONLY=${BENCH_ONLY:-}
if [[ -n "$ONLY" && "$ONLY" != cluster && "$ONLY" != store && "$ONLY" != mcp && "$ONLY" != phone && "$ONLY" != scale ]]; then
    echo "bench: BENCH_ONLY must be empty (everything), cluster, store, mcp, phone or scale" >&2
    exit 2
fi
STARTED=$SECONDS

command -v swift >/dev/null 2>&1 || PATH=$PATH:/opt/swift/usr/bin
for tool in swift wrk cc curl pkg-config python3; do
    command -v "$tool" >/dev/null 2>&1 || { echo "bench: $tool not found (Debian: apt-get install wrk curl gcc pkg-config)" >&2; exit 1; }
done

WORK=$(mktemp -d /tmp/alertd-bench.XXXXXX)
BIN=$WORK/bin
LOG=$WORK/log.txt
mkdir -p "$BIN" "$DATA_PARENT"
# The durable alertd's data dirs (one per scenario, each removed once measured); on the disk of DATA_PARENT.
DATA_ROOT=$(mktemp -d "$DATA_PARENT/alertd-bench-data.XXXXXX")
PIDS=()

# PIDS holds the children started and not yet reaped, so that cleanup kills only our own processes.
cleanup() {
    local pid
    declare -F cluster_stop_postgres >/dev/null && cluster_stop_postgres
    for pid in "${PIDS[@]}"; do kill -KILL "$pid" 2>/dev/null || true; done
    for pid in "${PIDS[@]}"; do wait "$pid" 2>/dev/null || true; done
    rm -rf "$WORK" "$DATA_ROOT"
}
forget() { # pid: reaped, drop it from PIDS
    local pid kept=()
    for pid in "${PIDS[@]}"; do [[ "$pid" == "$1" ]] || kept+=("$pid"); done
    PIDS=("${kept[@]}")
}
trap cleanup EXIT
trap 'exit 130' INT TERM

say() { echo "$*" | tee -a "$LOG"; }
# The value of key=value in a line of tool output.
field() { sed -n "s/.*\<$1=\([^ ]*\).*/\1/p" <<<"$2" | head -1; }
fmt() { awk -v x="$1" -v d="${2:-0}" 'BEGIN { printf "%.*f", d, x }'; }
div() { awk -v a="$1" -v b="$2" -v d="${3:-2}" 'BEGIN { if (b == 0) print "n/a"; else printf "%.*f", d, a / b }'; }
# 1 when a <= b (numbers), else 0.
# A value that is not a number (n/a, empty) is never within a goal.
le() { awk -v a="$1" -v b="$2" 'BEGIN { n = "^[0-9.]+$"; print (a ~ n && b ~ n && a + 0 <= b + 0) ? 1 : 0 }'; }
rss_kb() { awk '/^VmRSS/ { print $2 }' "/proc/$1/status"; }
mb() { awk -v k="$1" 'BEGIN { printf "%.1f", k / 1024 }'; }

port_free() { ! (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
pick_port() { # first free port from $1 on
    local port=$1
    while ! port_free "$port"; do port=$((port + 1)); done
    echo "$port"
}

wait_ready() { # port; READY_SECONDS (default 10) bounds the wait
    local i
    for i in $(seq $((${READY_SECONDS:-10} * 20))); do
        curl -sf -o /dev/null "http://127.0.0.1:$1/healthz" && return 0
        sleep 0.05
    done
    echo "bench: nothing answers /healthz on port $1" >&2
    return 1
}

# Starts a server in the background; sets SERVER_PID.
start_server() { # port command...
    local port=$1
    shift
    "$@" >>"$WORK/servers.log" 2>&1 &
    SERVER_PID=$!
    PIDS+=("$SERVER_PID")
    wait_ready "$port"
}

stop_server() { # pid
    local i
    kill -TERM "$1" 2>/dev/null || true
    for i in $(seq 150); do
        kill -0 "$1" 2>/dev/null || break
        sleep 0.1
    done
    kill -KILL "$1" 2>/dev/null || true
    wait "$1" 2>/dev/null || true
    forget "$1"
}

TICK_US=$((1000000 / $(getconf CLK_TCK)))
# utime + stime of processes (all threads), summed; $1 is a pid or pids separated by commas.
cpu_ticks() {
    local pid total=0
    for pid in ${1//,/ }; do
        total=$((total + $(awk '{ print $14 + $15 }' "/proc/$pid/stat" 2>/dev/null || echo 0)))
    done
    echo "$total"
}

# wrk, bounded; sets WRK_RATE (requests/s), WRK_CPU (the server's CPU time per request, µs: user + system,
# from /proc/PID/stat; steadier than rates when other work shares the machine), WRK_ERRORS and WRK_OUT.
run_wrk() { # label server-pid wrk-args...
    local label=$1 pid=$2 before after requests
    shift 2
    before=$(cpu_ticks "$pid")
    WRK_OUT=$(timeout $((DURATION + 60)) wrk -t2 -c64 -d"${DURATION}s" "$@" 2>&1) || true
    after=$(cpu_ticks "$pid")
    requests=$(awk '/requests in/ { print $1 }' <<<"$WRK_OUT")
    WRK_CPU=$(awk -v t=$((after - before)) -v n="${requests:-0}" -v us="$TICK_US" 'BEGIN { if (n > 0) printf "%.1f", t * us / n; else print 0 }')
    { echo "--- wrk $label: wrk -t2 -c64 -d${DURATION}s $*"; echo "$WRK_OUT"; } >>"$LOG"
    WRK_ERRORS=$(grep -E 'Non-2xx|Socket errors' <<<"$WRK_OUT" | tr -s ' ' | paste -sd ';' - || true)
    WRK_RATE=$(awk '/Requests\/sec/ { print $2 }' <<<"$WRK_OUT")
    WRK_RATE=${WRK_RATE:-0}
}

cycles_per_second() { # wrk output of cycle.lua
    awk '/^CYCLES/ { if ($3 > 0) printf "%.0f", $2 / $3; else print 0 }' <<<"$1"
}

# One rate: run_wrk, then RATE (req/s, or cycles/s for cycle.lua) and CPU (µs of server CPU a request).
measure() { # req|cycles label server-pid wrk-args...
    local kind=$1
    shift
    run_wrk "$@"
    if [[ "$kind" == cycles ]]; then RATE=$(cycles_per_second "$WRK_OUT"); else RATE=$WRK_RATE; fi
    CPU=$WRK_CPU
}

# GET /v1/alerts?limit=50 on alertd, $ROUNDS runs; sets R[<key>] and R[<key>_cpu] (medians), R[<key>_cpus].
list_rounds() { # key pending
    local round
    local -a rates=() cpus=()
    for round in $(seq "$ROUNDS"); do
        measure req "alertd list, $2 pending, round $round" "$ALERTD_PID" "http://127.0.0.1:$APORT/v1/alerts?limit=50"
        rates+=("$RATE") cpus+=("$CPU")
    done
    R[$1]=$(median "${rates[@]}") R[${1}_cpu]=$(median "${cpus[@]}") R[${1}_cpus]="${cpus[*]}"
}

new_alert() { # port -> id of a new two-button alert
    curl -sf -H 'Content-Type: application/json' -d '{"title":"Bench","message":"waiters","buttons":["Cancel","OK"]}' \
        "http://127.0.0.1:$1/v1/alerts" | sed -n 's/.*"id":"\([^"]*\)".*/\1/p'
}

# Durable runs: a data dir of its own for each scenario, under DATA_ROOT; disk bytes of a data dir.
data_dir() { # name -> a new, empty path
    rm -rf "${DATA_ROOT:?}/$1"
    echo "$DATA_ROOT/$1"
}
dir_bytes() { du -sb "$1" | awk '{ print $1 }'; }
# The disk's floor for a commit at this moment (bench/tools/flush.c: 4 KiB + fdatasync, FLUSH_WRITES times, in
# DATA_ROOT); appends "label p50/p99 ms" to R[flush].
FLUSH_WRITES=500
flush_probe() { # label
    local out
    out=$(timeout 120 "$BIN/flush" -d "$DATA_ROOT" -n "$FLUSH_WRITES" 2>&1 || true)
    echo "--- flush $1: $out" >>"$LOG"
    say "disk floor, $1: write 4 KiB + fdatasync p50 $(field p50_ms "$out") ms, p99 $(field p99_ms "$out") ms ($FLUSH_WRITES writes)"
    R[flush]="${R[flush]:+${R[flush]}; }$1: p50 $(field p50_ms "$out") ms, p99 $(field p99_ms "$out") ms"
}

# The lines of a histogram family from a server's /metrics.
scrape_histogram() { # port family
    curl -sf "http://127.0.0.1:$1/metrics" | grep "^$2_" || true
}

# Quantiles of what a histogram gained between two scrapes, interpolated within buckets as Prometheus'
# histogram_quantile does (a quantile in the +Inf bucket reports the last finite bound, with ">"). Prints
# "count=N mean=M p50=A p99=B" with values × scale.
histogram_delta() { # before-lines after-lines family scale
    awk -v family="$3" -v scale="$4" '
        FNR == 1 { file++ }
        {
            value = $NF
            if ($1 ~ ("^" family "_bucket")) {
                le = $1; sub(/.*le="/, "", le); sub(/".*/, "", le)
                if (file == 1) before[le] = value; else { after[le] = value; if (!(le in seen)) { order[++n] = le; seen[le] = 1 } }
            } else if ($1 == family "_sum") { if (file == 1) sum0 = value; else sum1 = value }
            else if ($1 == family "_count") { if (file == 1) count0 = value; else count1 = value }
        }
        function quantile(q,   rank, i, lower, cumulative, previous, bound) {
            rank = q * total; lower = 0; previous = 0
            for (i = 1; i <= n; i++) {
                cumulative = after[order[i]] - before[order[i]]
                if (cumulative >= rank) {
                    if (order[i] == "+Inf") return sprintf(">%.3g", lower * scale)
                    bound = order[i] + 0
                    if (cumulative == previous) return sprintf("%.3g", bound * scale)
                    return sprintf("%.3g", (lower + (bound - lower) * (rank - previous) / (cumulative - previous)) * scale)
                }
                if (order[i] != "+Inf") lower = order[i] + 0
                previous = cumulative
            }
            return "n/a"
        }
        END {
            total = count1 - count0
            if (total <= 0) { print "count=0 mean=n/a p50=n/a p99=n/a"; exit }
            printf "count=%d mean=%.3g p50=%s p99=%s\n", total, (sum1 - sum0) / total * scale, quantile(0.5), quantile(0.99)
        }' <(printf '%s\n' "$1") <(printf '%s\n' "$2")
}

verdict() { [[ "$1" == 1 ]] && echo "met" || echo "**not met**"; }
# req/s row: figure, goal ratio (or empty), alertd rate, reference rate, alertd CPU, reference CPU, ratio
# (empty: alertd rate / reference rate), rounds' ratios (or empty) [, unit [, reference (default baseline)]]
row_rate() {
    local ratio=${7:-$(div "$3" "$4")} rounds=${8:-} unit=${9:-req} ref=${10:-baseline} measured cpu
    measured="$(fmt "$3") $unit/s ($ref $(fmt "$4")); server CPU $5 µs/request ($ref $6)"
    [[ -n "$rounds" ]] && measured="$measured; medians of $ROUNDS rounds, ratios $rounds"
    cpu="server CPU/request $(div "$5" "$6" 1) × the $ref's"
    if [[ -n "$2" ]]; then
        printf '| %s | ≥ %s × %s | %s | %s × %s: %s (%s) |\n' "$1" "$2" "$ref" "$measured" "$(fmt "$ratio" 2)" "$ref" "$(verdict "$(le "$2" "$ratio")")" "$cpu"
    else
        printf '| %s | (reference) | %s | %s × %s (%s) |\n' "$1" "$measured" "$(fmt "$ratio" 2)" "$ref" "$cpu"
    fi
}
# absolute row against an upper bound: figure, goal text, measured text, value, bound
row_goal() {
    printf '| %s | %s | %s | %s of goal: %s |\n' "$1" "$2" "$3" "$(div "$4" "$5")" "$(verdict "$(le "$4" "$5")")"
}

# docs/PERFORMANCE.md: replaces what stands between <!-- bench:NAME:start --> and <!-- bench:NAME:end --> with a file.
DOC=docs/PERFORMANCE.md
replace_block() { # name file
    awk -v name="$1" -v file="$2" '
        $0 == "<!-- bench:" name ":start -->" { print; while ((getline line < file) > 0) print line; skip = 1; next }
        $0 == "<!-- bench:" name ":end -->" { skip = 0 }
        !skip { print }' "$DOC" >"$DOC.tmp" && mv "$DOC.tmp" "$DOC"
}

# Each rate is $ROUNDS rounds of a reference run and a run of the server measured, back to back (the order alternates):
# the ratio of each round compares runs seconds apart, and the median of the rounds' ratios is the figure. Rates and
# CPU per request are the medians of the rounds too. Sets R[<key>], R[<key>_cpu], R[<key>_ratio], R[<key>_ratios],
# and the reference's R[base_<key>] and R[base_<key>_cpu].
paired_servers() { # key req|cycles "what" ref-name ref-pid "ref wrk-args" name pid "wrk-args"
    local key=$1 kind=$2 what=$3 ref=$4 ref_pid=$5 name=$7 pid=$8 round side ref_rate rate
    local -a ref_args args rates=() cpus=() ref_rates=() ref_cpus=() ratios=()
    read -r -a ref_args <<<"$6"
    read -r -a args <<<"$9"
    for round in $(seq "$ROUNDS"); do
        # Odd rounds run the reference first, even rounds the other, so a drift in outside load within a round
        # does not always favour the same side.
        for side in $( ((round % 2 == 1)) && echo "ref measured" || echo "measured ref"); do
            if [[ "$side" == ref ]]; then
                measure "$kind" "$ref $what, round $round" "$ref_pid" "${ref_args[@]}"
                ref_rate=$RATE ref_rates+=("$RATE") ref_cpus+=("$CPU")
                say "round $round: $ref $what $(fmt "$RATE") $kind/s [server CPU $CPU us/request] $WRK_ERRORS"
            else
                measure "$kind" "$name $what, round $round" "$pid" "${args[@]}"
                rate=$RATE rates+=("$RATE") cpus+=("$CPU")
                say "round $round: $name $what $(fmt "$RATE") $kind/s [server CPU $CPU us/request] $WRK_ERRORS"
            fi
        done
        ratios+=("$(div "$rate" "$ref_rate" 3)")
        say "round $round: $name $what = ${ratios[-1]} x $ref"
    done
    R[base_$key]=$(median "${ref_rates[@]}") R[base_${key}_cpu]=$(median "${ref_cpus[@]}")
    R[$key]=$(median "${rates[@]}") R[${key}_cpu]=$(median "${cpus[@]}")
    R[${key}_ratio]=$(median "${ratios[@]}") R[${key}_ratios]="${ratios[*]}"
    say "$name $what: median ${R[${key}_ratio]} x $ref (rounds ${ratios[*]})"
}

# Median of numbers given as arguments.
median() { printf '%s\n' "$@" | sort -g | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }

# Holds waiters on one alert with as many swarm processes as RLIMIT_NOFILE needs, and returns once all are held
# (or two minutes passed). hold_release lets them go. Sets HOLD_READY (waiters held).
HOLD_SWARMS=() HOLD_OUTS=()
hold_start() { # port id count [swarm flags]
    local port=$1 id=$2 left=$3 flags=${4:-} block=0 count i ready out
    HOLD_SWARMS=() HOLD_OUTS=()
    while ((left > 0)); do
        count=$((left < PER_SWARM ? left : PER_SWARM))
        # The file of an earlier hold may still say READY until the new swarm's redirection truncates it.
        rm -f "$WORK/hold.$block"
        # shellcheck disable=SC2086
        timeout 180 "$BIN/swarm" -p "$port" -i "$id" -n "$count" -m hold -b "$block" -w 120 -T 150 $flags \
            >"$WORK/hold.$block" 2>&1 &
        HOLD_SWARMS+=("$!")
        PIDS+=("$!")
        HOLD_OUTS+=("$WORK/hold.$block")
        left=$((left - count))
        block=$((block + 1))
    done
    for i in $(seq 1200); do
        ready=0
        for out in "${HOLD_OUTS[@]}"; do grep -q READY "$out" && ready=$((ready + 1)); done
        ((ready == ${#HOLD_OUTS[@]})) && break
        sleep 0.1
    done
    HOLD_READY=$(cat "${HOLD_OUTS[@]}" | awk '/^READY/ { for (i = 1; i <= NF; i++) if ($i ~ /^waiters=/) { split($i, kv, "="); s += kv[2] } } END { print s + 0 }')
}

hold_release() {
    local i out
    for i in "${HOLD_SWARMS[@]}"; do kill -TERM "$i" 2>/dev/null || true; done
    for i in "${HOLD_SWARMS[@]}"; do wait "$i" 2>/dev/null || true; forget "$i"; done
    for out in "${HOLD_OUTS[@]}"; do cat "$out" >>"$LOG"; done
    HOLD_SWARMS=() HOLD_OUTS=()
}

# Holds $WAITERS waiters (or count) on one alert, reads the server's RSS, releases them. Sets HOLD_RSS (kB) and
# HOLD_READY (waiters held).
hold_rss() { # port pid id [count [swarm flags]]
    hold_start "$1" "$3" "${4:-$WAITERS}" "${5:-}"
    sleep 1
    HOLD_RSS=$(rss_kb "$2")
    hold_release
}

# The scale rows (issue 28): POST /v1/alerts on one server with $SCALE_WAITERS long-polls held on another alert,
# against the same server with none, $ROUNDS rounds, the order alternating as in paired_servers. Sets R[<key>],
# R[base_<key>] (the rate with none), their CPU, R[<key>_ratio], R[<key>_ratios] and R[<key>_held].
SCALE_WAITERS=${BENCH_SCALE_WAITERS:-5000}
paired_held() { # key name pid port
    local key=$1 name=$2 pid=$3 port=$4 round side rate ref_rate held=()
    local -a rates=() cpus=() ref_rates=() ref_cpus=() ratios=()
    for round in $(seq "$ROUNDS"); do
        for side in $( ((round % 2 == 1)) && echo "none held" || echo "held none"); do
            if [[ "$side" == held ]]; then
                hold_start "$port" "$(new_alert "$port")" "$SCALE_WAITERS"
                held+=("$HOLD_READY")
                measure req "$name POST with $HOLD_READY held, round $round" "$pid" \
                    -s bench/lua/post_alert.lua "http://127.0.0.1:$port/v1/alerts"
                hold_release
                rate=$RATE rates+=("$RATE") cpus+=("$CPU")
                say "round $round: $name POST /v1/alerts with ${held[-1]} long-polls held $(fmt "$RATE") req/s [server CPU $CPU us/request] $WRK_ERRORS"
            else
                measure req "$name POST with none held, round $round" "$pid" \
                    -s bench/lua/post_alert.lua "http://127.0.0.1:$port/v1/alerts"
                ref_rate=$RATE ref_rates+=("$RATE") ref_cpus+=("$CPU")
                say "round $round: $name POST /v1/alerts with none held $(fmt "$RATE") req/s [server CPU $CPU us/request] $WRK_ERRORS"
            fi
        done
        ratios+=("$(div "$rate" "$ref_rate" 3)")
        say "round $round: $name POST with long-polls held = ${ratios[-1]} x none held"
    done
    R[base_$key]=$(median "${ref_rates[@]}") R[base_${key}_cpu]=$(median "${ref_cpus[@]}")
    R[$key]=$(median "${rates[@]}") R[${key}_cpu]=$(median "${cpus[@]}")
    R[${key}_ratio]=$(median "${ratios[@]}") R[${key}_ratios]="${ratios[*]}" R[${key}_held]=$(median "${held[@]}")
    say "$name POST with long-polls held: median ${R[${key}_ratio]} x none held (rounds ${ratios[*]})"
}

# Runs the scale rows on a memory-only alertd and on one with a data dir, then writes their table to $WORK/scale.md.
run_scale_rows() {
    say "== scale: POST /v1/alerts with $SCALE_WAITERS long-polls held, against none held; alertd memory-only on port $APORT, --data-dir on port $DPORT"
    start_server "$APORT" "$ALERTD" "${ALERTD_ARGS[@]}"
    local memory=$SERVER_PID
    run_wrk "alertd memory-only warm-up" "$memory" -d2s "http://127.0.0.1:$APORT/healthz"
    paired_held held "memory-only" "$memory" "$APORT"
    stop_server "$memory"
    start_server "$DPORT" "$ALERTD" "${DURABLE_ARGS[@]}" --data-dir "$(data_dir scale)"
    local durable=$SERVER_PID
    run_wrk "alertd durable warm-up" "$durable" -d2s "http://127.0.0.1:$DPORT/healthz"
    paired_held dheld "durable" "$durable" "$DPORT"
    stop_server "$durable"
    rm -rf "$DATA_ROOT/scale"
    {
        echo "| figure | goal | measured | ratio / verdict |"
        echo "|---|---|---|---|"
        row_rate "POST /v1/alerts with ${R[held_held]} long-polls held, memory-only" 0.85 "${R[held]}" "${R[base_held]}" \
            "${R[held_cpu]}" "${R[base_held_cpu]}" "${R[held_ratio]}" "${R[held_ratios]}" req "none held"
        row_rate "POST /v1/alerts with ${R[dheld_held]} long-polls held, durable" 0.85 "${R[dheld]}" "${R[base_dheld]}" \
            "${R[dheld_cpu]}" "${R[base_dheld_cpu]}" "${R[dheld_ratio]}" "${R[dheld_ratios]}" req "none held"
    } >"$WORK/scale.md"
}

# RSS at WAITERS_GOAL waiters, linear from idle and a measurement with fewer.
extrapolate() { # idle-kB measured-kB waiters-held
    awk -v i="$1" -v r="$2" -v n="$3" -v g=$WAITERS_GOAL 'BEGIN { if (n > 0) printf "%.0f", i + (r - i) * g / n; else print 0 }'
}

# A new alert, $WAKE_WAITERS waiters on it, answer (the baseline and the floor ignore the id). Sets WAKE_LINE.
wake_once() { # port label run
    local id
    id=$(new_alert "$1" || true)
    WAKE_LINE=$(timeout 120 "$BIN/swarm" -p "$1" -i "${id:-none}" -n "$WAKE_WAITERS" -T 100 2>&1 || true)
    echo "--- wake $2 run $3: $WAKE_LINE" >>"$LOG"
}

###############################################################################
say "== alertd benchmark: $(date -u '+%Y-%m-%d %H:%M:%S UTC')"
SHA=$(git rev-parse --short HEAD 2>/dev/null || echo nogit)
DESCRIBE=$(git describe --always --dirty 2>/dev/null || echo "$SHA")
CPU_MODEL=$(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo)
MACHINE="$(nproc) cores ($CPU_MODEL), kernel $(uname -r), $(awk '/MemTotal/ { printf "%.0f GiB", $2 / 1048576 }' /proc/meminfo) RAM"
HARD_FILES=$(ulimit -Hn)
[[ "$HARD_FILES" == unlimited ]] && HARD_FILES=1048576
MHD_VERSION=$(pkg-config --modversion libmicrohttpd)
SWIFT_VERSION=$( (swift --version 2>/dev/null || true) | head -1 | sed 's/ (.*//')
WRK_VERSION=$( (wrk --version 2>&1 || true) | head -1 | awk '{ print $2 }')
LOAD_START=$(cut -d' ' -f1-3 /proc/loadavg)
say "machine: $MACHINE; RLIMIT_NOFILE hard $HARD_FILES; load $LOAD_START"
say "software: $SWIFT_VERSION, libmicrohttpd $MHD_VERSION, wrk $WRK_VERSION; git $DESCRIBE"

say "== build"
swift build -c release --static-swift-stdlib --product alertd --scratch-path "$SCRATCH" 2>&1 | tail -1 | tee -a "$LOG"
ALERTD="$(swift build -c release --static-swift-stdlib --product alertd --scratch-path "$SCRATCH" --show-bin-path)/alertd"
[[ -x "$ALERTD" ]] || { echo "bench: $ALERTD was not built" >&2; exit 1; }
# shellcheck disable=SC2046
cc -O2 -Wall -o "$BIN/baseline" bench/baseline/baseline.c $(pkg-config --cflags --libs libmicrohttpd) -lpthread
# shellcheck disable=SC2046
cc -O2 -Wall -o "$BIN/durable" bench/baseline/durable.c $(pkg-config --cflags --libs libmicrohttpd) -lpthread
for tool in swarm latency fill startup flush; do cc -O2 -Wall -o "$BIN/$tool" "bench/tools/$tool.c"; done
cc -O2 -Wall -o "$BIN/floor" bench/tools/floor.c -lpthread
say "built $ALERTD and bench/baseline (baseline, durable), bench/tools in $((SECONDS - STARTED)) s"

# Waiters the file limit allows: alertd keeps 64 descriptors spare, each swarm needs ~16.
WAITERS=$WAITERS_WANTED
((WAITERS > HARD_FILES - 1000)) && WAITERS=$((HARD_FILES - 1000))
PER_SWARM=$((HARD_FILES - 100))
CONNECTION_LIMIT=60000
LOGIN=$WORK/login.json
printf '%s' '{"title":"Login","message":"Enter your credentials","buttons":["Cancel","Log in"],"fields":[{"placeholder":"Username"},{"placeholder":"Password","secure":true,"keyboard":"asciiCapable"}]}' >"$LOGIN"
BPORT=$(pick_port 18400)
APORT=$(pick_port $((BPORT + 1)))
FPORT=$(pick_port $((APORT + 1))) # bench/tools/floor.c, for the 10k wake only
DPORT=$(pick_port $((FPORT + 1))) # alertd --data-dir, beside the memory-only alertd on APORT
CPORT=$(pick_port $((DPORT + 1))) # bench/baseline/durable.c, the durable ceiling, beside alertd --data-dir
# The load generators are a handful of loopback addresses: the per-client limits (meant for abusive clients)
# would refuse most of the swarm's waiters, so they are off here, as behind a reverse proxy.
ALERTD_ARGS=(--port "$APORT" --max-pending 5000000 --connection-limit "$CONNECTION_LIMIT" --shutdown-grace 2
             --client-connection-limit 0 --client-wait-limit 0)
# The same alertd with a data dir, on DPORT: add --data-dir DIR.
DURABLE_ARGS=(--port "$DPORT" "${ALERTD_ARGS[@]:2}")
declare -A R # results
FS_TYPE=$(stat -f -c %T "$DATA_ROOT")
FS_DEVICE=$(df --output=source "$DATA_ROOT" | tail -1)
[[ "$FS_TYPE" == tmpfs || "$FS_TYPE" == ramfs ]] &&
    echo "bench: warning: the data dirs are on $FS_TYPE ($DATA_ROOT): no fsync cost is measured; set BENCH_DATA_PARENT" >&2

###############################################################################
# Several instances on one PostgreSQL (issue 13): bench/cluster.sh. Alone with BENCH_ONLY=cluster, else after the
# other rows.
# shellcheck source=bench/cluster.sh
source bench/cluster.sh

# Runs the cluster rows, then writes their section (the table, with when and how it was measured) to $WORK/cluster.md.
run_cluster_rows() { # command line to record
    local started=$SECONDS
    cluster_rows
    {
        echo "Run of $(date -u +%Y-%m-%d), git \`$DESCRIBE\`, \`$1\`: the cluster rows took $((SECONDS - started)) s."
        echo
        echo "Machine: $MACHINE; load average $LOAD_START at the start of the run, $(cut -d' ' -f1-3 /proc/loadavg) after the cluster rows."
        echo "Software: $SWIFT_VERSION, $PG_VERSION_TEXT (Debian's, fresh cluster, default settings, fsync on), wrk $WRK_VERSION. Creates: wrk \`$CLUSTER_WRK -d${DURATION}s\` on both sides, $ROUNDS rounds of one alertd --data-dir then the cluster, medians reported; data on $FS_TYPE ($FS_DEVICE)."
        echo
        cluster_table
    } >"$WORK/cluster.md"
}

# The end of a BENCH_ONLY run: print its rows ($WORK/<key>.md), keep them with the log in
# bench/results/<date>-<sha>-<key>.txt, write docs/PERFORMANCE.md's <key> block when a section is named (unless
# BENCH_NO_DOCS=1), and exit. finish_selected <key> <label> [<section>]
finish_selected() {
    local key=$1 label=$2 section=${3:-}
    echo
    cat "$WORK/$key.md"
    mkdir -p bench/results
    RESULT=bench/results/$(date -u +%Y-%m-%d)-$SHA-$key.txt
    local n=2
    while [[ -e "$RESULT" ]]; do RESULT=bench/results/$(date -u +%Y-%m-%d)-$SHA-$key-$n.txt; n=$((n + 1)); done
    { cat "$WORK/$key.md"; echo; echo "== log"; cat "$LOG"; } >"$RESULT"
    echo "results: $RESULT"
    if [[ -n "$section" && "${BENCH_NO_DOCS:-0}" != 1 ]]; then
        replace_block "$key" "$WORK/$key.md"
        echo "docs: wrote the $section section of $DOC"
    fi
    echo "bench ($label rows only): done in $((SECONDS - STARTED)) s"
    exit 0
}

if [[ "$ONLY" == cluster ]]; then
    run_cluster_rows "BENCH_ONLY=cluster bench/run.sh"
    finish_selected cluster cluster Cluster
fi

if [[ "$ONLY" == scale ]]; then
    run_scale_rows
    { echo "Run of $(date -u +%Y-%m-%d), git \`$DESCRIBE\`, \`BENCH_ONLY=scale bench/run.sh\`, $ROUNDS rounds of ${DURATION} s."
      echo "Machine: $MACHINE; load average $LOAD_START at the start, $(cut -d' ' -f1-3 /proc/loadavg) at the end."
      echo; cat "$WORK/scale.md"; } >"$WORK/scale-only.md"
    mv "$WORK/scale-only.md" "$WORK/scale.md"
    finish_selected scale scale
fi

###############################################################################
# MCP (issue 25): bench/mcp.sh. Alone with BENCH_ONLY=mcp, else after the cluster rows.
# shellcheck source=bench/mcp.sh
source bench/mcp.sh

if [[ "$ONLY" == mcp ]]; then
    run_mcp_rows "BENCH_ONLY=mcp bench/run.sh"
    finish_selected mcp MCP MCP
fi

###############################################################################
# The responder's page and --notify (issue 27): bench/phone.sh. Alone with BENCH_ONLY=phone, else after the MCP rows.
# shellcheck source=bench/phone.sh
source bench/phone.sh

if [[ "$ONLY" == phone ]]; then
    run_phone_rows "BENCH_ONLY=phone bench/run.sh"
    finish_selected phone phone Phone
fi

###############################################################################
# Rates: the baseline and alertd run side by side, each alertd figure right after its baseline
# figure, so that load from elsewhere on the machine hits both alike.
say "== rates: baseline (C, libmicrohttpd $MHD_VERSION, same flags, 2 threads) on port $BPORT, alertd on port $APORT"
say "   alertd ${ALERTD_ARGS[*]}"
start_server "$BPORT" "$BIN/baseline" "$BPORT" "$CONNECTION_LIMIT" 2
BASELINE_PID=$SERVER_PID
R[base_idle_kb]=$(rss_kb "$BASELINE_PID")
start_server "$APORT" "$ALERTD" "${ALERTD_ARGS[@]}"
ALERTD_PID=$SERVER_PID
sleep 1
R[idle_kb]=$(rss_kb "$ALERTD_PID")
say "alertd idle RSS: $(mb "${R[idle_kb]}") MB (baseline $(mb "${R[base_idle_kb]}") MB)"
ID=$(new_alert "$APORT")
run_wrk "baseline warm-up" "$BASELINE_PID" -d2s "http://127.0.0.1:$BPORT/healthz"
run_wrk "alertd warm-up" "$ALERTD_PID" -d2s "http://127.0.0.1:$APORT/healthz"

# alertd against the baseline.
paired() { # key req|cycles "what" "baseline wrk-args" "alertd wrk-args"
    paired_servers "$1" "$2" "$3" baseline "$BASELINE_PID" "$4" alertd "$ALERTD_PID" "$5"
}

paired get req "GET /v1/alerts/{id}" "http://127.0.0.1:$BPORT/v1/alerts/x" "http://127.0.0.1:$APORT/v1/alerts/$ID"
[[ "$ONLY" == store ]] || paired healthz req "GET /healthz" "http://127.0.0.1:$BPORT/healthz" "http://127.0.0.1:$APORT/healthz"
paired post req "POST /v1/alerts (login alert body)" "-s bench/lua/post_alert.lua http://127.0.0.1:$BPORT/v1/alerts" \
    "-s bench/lua/post_alert.lua http://127.0.0.1:$APORT/v1/alerts"
stop_server "$ALERTD_PID"

# BENCH_ONLY=store: the GET and POST rows above, then the durable POST against memory-only, and stop.
if [[ "$ONLY" == store ]]; then
    stop_server "$BASELINE_PID"
    start_server "$APORT" "$ALERTD" "${ALERTD_ARGS[@]}"
    ALERTD_PID=$SERVER_PID
    start_server "$DPORT" "$ALERTD" "${DURABLE_ARGS[@]}" --data-dir "$(data_dir post)"
    DURABLE_PID=$SERVER_PID
    run_wrk "alertd durable warm-up" "$DURABLE_PID" -d2s "http://127.0.0.1:$DPORT/healthz"
    paired_servers dpost req "POST /v1/alerts (login alert body)" \
        memory-only "$ALERTD_PID" "-s bench/lua/post_alert.lua http://127.0.0.1:$APORT/v1/alerts" \
        durable "$DURABLE_PID" "-s bench/lua/post_alert.lua http://127.0.0.1:$DPORT/v1/alerts"
    stop_server "$DURABLE_PID"
    stop_server "$ALERTD_PID"
    {
        echo "Run of $(date -u +%Y-%m-%d), git \`$DESCRIBE\`, \`BENCH_ONLY=store bench/run.sh\`, $ROUNDS rounds of ${DURATION} s."
        echo "Machine: $MACHINE; load average $LOAD_START at the start, $(cut -d' ' -f1-3 /proc/loadavg) at the end."
        echo
        echo "| figure | goal | measured | ratio / verdict |"
        echo "|---|---|---|---|"
        row_rate 'GET /v1/alerts/{id}' 0.75 "${R[get]}" "${R[base_get]}" "${R[get_cpu]}" "${R[base_get_cpu]}" \
            "${R[get_ratio]}" "${R[get_ratios]}"
        row_rate 'POST /v1/alerts (login alert)' 0.45 "${R[post]}" "${R[base_post]}" "${R[post_cpu]}" \
            "${R[base_post_cpu]}" "${R[post_ratio]}" "${R[post_ratios]}"
        row_rate 'durable POST /v1/alerts (login alert), against memory-only' '' "${R[dpost]}" "${R[base_dpost]}" "${R[dpost_cpu]}" \
            "${R[base_dpost_cpu]}" "${R[dpost_ratio]}" "${R[dpost_ratios]}" req memory-only
    } >"$WORK/store.md"
    finish_selected store store
fi

start_server "$APORT" "$ALERTD" "${ALERTD_ARGS[@]}" # a fresh store for the cycles
ALERTD_PID=$SERVER_PID
paired cycles cycles "create+answer cycles (cycle.lua)" "-s bench/lua/cycle.lua http://127.0.0.1:$BPORT/" \
    "-s bench/lua/cycle.lua http://127.0.0.1:$APORT/"
stop_server "$ALERTD_PID"
stop_server "$BASELINE_PID"

###############################################################################
# Durability: alertd with a data dir against the durable ceiling of its stack (bench/baseline/durable.c: the same
# libmicrohttpd, one writer thread, fdatasync per batch, in a data dir beside alertd's; issue 28), and against the
# same alertd memory-only (issue 12, information), side by side as above.
say "== durable: C durable ceiling on port $CPORT and alertd memory-only on port $APORT against alertd --data-dir on port $DPORT (data dirs under $DATA_ROOT: $FS_TYPE on $FS_DEVICE)"
start_server "$CPORT" "$BIN/durable" -d "$(mkdir -p "$DATA_ROOT/ceiling" && echo "$DATA_ROOT/ceiling")" "$CPORT" "$CONNECTION_LIMIT" 2
CEILING_PID=$SERVER_PID
start_server "$APORT" "$ALERTD" "${ALERTD_ARGS[@]}"
ALERTD_PID=$SERVER_PID
start_server "$DPORT" "$ALERTD" "${DURABLE_ARGS[@]}" --data-dir "$(data_dir post)"
DURABLE_PID=$SERVER_PID
run_wrk "alertd memory-only warm-up" "$ALERTD_PID" -d2s "http://127.0.0.1:$APORT/healthz"
run_wrk "alertd durable warm-up" "$DURABLE_PID" -d2s "http://127.0.0.1:$DPORT/healthz"
run_wrk "C durable warm-up" "$CEILING_PID" -d2s "http://127.0.0.1:$CPORT/healthz"
flush_probe "before the POST rounds"
COMMITS_BEFORE=$(scrape_histogram "$DPORT" alertd_journal_commit_seconds)
BATCHES_BEFORE=$(scrape_histogram "$DPORT" alertd_journal_batch_size)
paired_servers dceil req "POST /v1/alerts (login alert body)" \
    "C durable" "$CEILING_PID" "-s bench/lua/post_alert.lua http://127.0.0.1:$CPORT/v1/alerts" \
    durable "$DURABLE_PID" "-s bench/lua/post_alert.lua http://127.0.0.1:$DPORT/v1/alerts"
paired_servers dpost req "POST /v1/alerts (login alert body)" \
    memory-only "$ALERTD_PID" "-s bench/lua/post_alert.lua http://127.0.0.1:$APORT/v1/alerts" \
    durable "$DURABLE_PID" "-s bench/lua/post_alert.lua http://127.0.0.1:$DPORT/v1/alerts"
COMMITS_AFTER=$(scrape_histogram "$DPORT" alertd_journal_commit_seconds)
BATCHES_AFTER=$(scrape_histogram "$DPORT" alertd_journal_batch_size)
flush_probe "after the POST rounds"
{ echo "--- /metrics of the durable alertd after the POST rounds:"; echo "$COMMITS_AFTER"; echo "$BATCHES_AFTER"; } >>"$LOG"
OUT=$(histogram_delta "$COMMITS_BEFORE" "$COMMITS_AFTER" alertd_journal_commit_seconds 1000)
R[commit_n]=$(field count "$OUT") R[commit_mean]=$(field mean "$OUT") R[commit_p50]=$(field p50 "$OUT") R[commit_p99]=$(field p99 "$OUT")
OUT=$(histogram_delta "$BATCHES_BEFORE" "$BATCHES_AFTER" alertd_journal_batch_size 1)
R[batch_mean]=$(field mean "$OUT") R[batch_p50]=$(field p50 "$OUT") R[batch_p99]=$(field p99 "$OUT")
say "durable POST load: ${R[commit_n]} commits, commit p50 ${R[commit_p50]} ms, p99 ${R[commit_p99]} ms, mean ${R[commit_mean]} ms; batch size (store turns a commit) p50 ${R[batch_p50]}, p99 ${R[batch_p99]}, mean ${R[batch_mean]}"
stop_server "$DURABLE_PID"
stop_server "$ALERTD_PID"
stop_server "$CEILING_PID"
rm -rf "$DATA_ROOT/post" "$DATA_ROOT/ceiling"
run_scale_rows # the scale rows join the durability table below

start_server "$APORT" "$ALERTD" "${ALERTD_ARGS[@]}"
ALERTD_PID=$SERVER_PID
start_server "$DPORT" "$ALERTD" "${DURABLE_ARGS[@]}" --data-dir "$(data_dir cycles)"
DURABLE_PID=$SERVER_PID
paired_servers dcycles cycles "create+answer cycles (cycle.lua)" \
    memory-only "$ALERTD_PID" "-s bench/lua/cycle.lua http://127.0.0.1:$APORT/" \
    durable "$DURABLE_PID" "-s bench/lua/cycle.lua http://127.0.0.1:$DPORT/"
stop_server "$DURABLE_PID"
stop_server "$ALERTD_PID"
rm -rf "$DATA_ROOT/cycles"
flush_probe "after the cycles"

###############################################################################
say "== waiters: baseline -w (held long-polls) on port $BPORT, floor (plain epoll, 2 threads) on port $FPORT, alertd on port $APORT"
start_server "$BPORT" "$BIN/baseline" -w "$BPORT" "$CONNECTION_LIMIT" 2
BASELINE_PID=$SERVER_PID
start_server "$FPORT" "$BIN/floor" "$FPORT" "$CONNECTION_LIMIT" 2
FLOOR_PID=$SERVER_PID
start_server "$APORT" "$ALERTD" "${ALERTD_ARGS[@]}"
ALERTD_PID=$SERVER_PID
OUT=$(timeout 120 "$BIN/latency" -p "$APORT" -n "$LATENCY_ITERATIONS" 2>&1 || true)
echo "--- latency: $OUT" >>"$LOG"
R[lat_p50]=$(field p50_ms "$OUT")
R[lat_p99]=$(field p99_ms "$OUT")
say "alertd answer -> waiter (1 waiter, $LATENCY_ITERATIONS iterations): p50 ${R[lat_p50]} ms, p99 ${R[lat_p99]} ms, max $(field max_ms "$OUT") ms (errors $(field errors "$OUT"), early $(field early "$OUT"))"
start_server "$DPORT" "$ALERTD" "${DURABLE_ARGS[@]}" --data-dir "$(data_dir latency)"
DURABLE_PID=$SERVER_PID
OUT=$(timeout 120 "$BIN/latency" -p "$DPORT" -n "$LATENCY_ITERATIONS" 2>&1 || true)
echo "--- latency durable: $OUT" >>"$LOG"
flush_probe "after the durable latency"
R[dlat_p50]=$(field p50_ms "$OUT")
R[dlat_p99]=$(field p99_ms "$OUT")
say "alertd --data-dir answer -> waiter (1 waiter, $LATENCY_ITERATIONS iterations): p50 ${R[dlat_p50]} ms, p99 ${R[dlat_p99]} ms, max $(field max_ms "$OUT") ms (errors $(field errors "$OUT"), early $(field early "$OUT"))"
stop_server "$DURABLE_PID"
rm -rf "$DATA_ROOT/latency"
BASE_LAST=()
FLOOR_LAST=()
ALERTD_LAST=()
for run in $(seq "$WAKE_RUNS"); do
    wake_once "$BPORT" baseline "$run"
    BASE_LAST+=("$(field last_ms "$WAKE_LINE")")
    wake_once "$FPORT" floor "$run"
    FLOOR_LAST+=("$(field last_ms "$WAKE_LINE")")
    wake_once "$APORT" alertd "$run"
    ALERTD_LAST+=("$(field last_ms "$WAKE_LINE")")
    ALERTD_WAKE_LINE=$WAKE_LINE
done
R[base_wake]=$(fmt "$(median "${BASE_LAST[@]}")" 1)
R[floor_wake]=$(fmt "$(median "${FLOOR_LAST[@]}")" 1)
R[wake]=$(fmt "$(median "${ALERTD_LAST[@]}")" 1)
say "baseline -w: $WAKE_WAITERS held long-polls resumed, answer -> last response: median ${R[base_wake]} ms of $WAKE_RUNS (${BASE_LAST[*]})"
say "floor (plain epoll, 2 threads): $WAKE_WAITERS held long-polls answered, answer -> last response: median ${R[floor_wake]} ms of $WAKE_RUNS (${FLOOR_LAST[*]})"
say "alertd $WAKE_WAITERS waiters on one alert, answer -> last woken: median ${R[wake]} ms of $WAKE_RUNS (${ALERTD_LAST[*]}; last run: first $(field first_ms "$ALERTD_WAKE_LINE") ms, p50 $(field p50_ms "$ALERTD_WAKE_LINE") ms, ok $(field ok "$ALERTD_WAKE_LINE"))"
stop_server "$ALERTD_PID"
stop_server "$FLOOR_PID"
stop_server "$BASELINE_PID"

start_server "$BPORT" "$BIN/baseline" -w "$BPORT" "$CONNECTION_LIMIT" 2
R[base_hold_idle_kb]=$(rss_kb "$SERVER_PID")
hold_rss "$BPORT" "$SERVER_PID" x
R[base_hold_kb]=$HOLD_RSS
R[base_hold_n]=$HOLD_READY
say "baseline -w: RSS with ${R[base_hold_n]} held connections $(mb "${R[base_hold_kb]}") MB (idle $(mb "${R[base_hold_idle_kb]}") MB)"
stop_server "$SERVER_PID"
start_server "$BPORT" "$BIN/baseline" -w "$BPORT" "$CONNECTION_LIMIT" 2
R[base_reused_idle_kb]=$(rss_kb "$SERVER_PID")
hold_rss "$BPORT" "$SERVER_PID" x "$REUSED_WAITERS" -k
R[base_reused_kb]=$HOLD_RSS
R[base_reused_n]=$HOLD_READY
say "baseline -w: RSS with ${R[base_reused_n]} held connections that served a request first $(mb "${R[base_reused_kb]}") MB"
stop_server "$SERVER_PID"

start_server "$APORT" "$ALERTD" "${ALERTD_ARGS[@]}"
sleep 0.5
R[hold_idle_kb]=$(rss_kb "$SERVER_PID")
hold_rss "$APORT" "$SERVER_PID" "$(new_alert "$APORT")"
R[hold_kb]=$HOLD_RSS
R[hold_n]=$HOLD_READY
R[hold_50k_kb]=$(extrapolate "${R[hold_idle_kb]}" "${R[hold_kb]}" "${R[hold_n]}")
R[base_hold_50k_kb]=$(extrapolate "${R[base_hold_idle_kb]}" "${R[base_hold_kb]}" "${R[base_hold_n]}")
say "alertd RSS with ${R[hold_n]} suspended waiters: $(mb "${R[hold_kb]}") MB ($(awk -v i="${R[hold_idle_kb]}" -v r="${R[hold_kb]}" -v n="${R[hold_n]}" 'BEGIN { printf "%.1f", (r - i) / n }') kB per waiter); at $WAITERS_GOAL: $(mb "${R[hold_50k_kb]}") MB (baseline -w $(mb "${R[base_hold_50k_kb]}") MB)"
stop_server "$SERVER_PID"

start_server "$APORT" "$ALERTD" "${ALERTD_ARGS[@]}"
sleep 0.5
R[reused_idle_kb]=$(rss_kb "$SERVER_PID")
hold_rss "$APORT" "$SERVER_PID" "$(new_alert "$APORT")" "$REUSED_WAITERS" -k
R[reused_kb]=$HOLD_RSS
R[reused_n]=$HOLD_READY
R[reused_50k_kb]=$(extrapolate "${R[reused_idle_kb]}" "${R[reused_kb]}" "${R[reused_n]}")
R[base_reused_50k_kb]=$(extrapolate "${R[base_reused_idle_kb]}" "${R[base_reused_kb]}" "${R[base_reused_n]}")
say "alertd RSS with ${R[reused_n]} waiters on connections that served a request first: $(mb "${R[reused_kb]}") MB; at $WAITERS_GOAL: $(mb "${R[reused_50k_kb]}") MB (baseline -w $(mb "${R[base_reused_50k_kb]}") MB)"
stop_server "$SERVER_PID"

start_server "$APORT" "$ALERTD" "${ALERTD_ARGS[@]}"
ALERTD_PID=$SERVER_PID
OUT=$(timeout 120 "$BIN/fill" -p "$APORT" -n "$PENDING_SMALL" -c 32 -f "$LOGIN" 2>&1 || true)
echo "--- fill: $OUT" >>"$LOG"
list_rounds list_small "$PENDING_SMALL"
say "alertd GET /v1/alerts?limit=50, $PENDING_SMALL pending: $(fmt "${R[list_small]}") req/s = $(div "${R[list_small]}" "${R[base_get]}") x baseline [server CPU ${R[list_small_cpu]} us/request] (median of $ROUNDS runs: ${R[list_small_cpus]} us) $WRK_ERRORS"
OUT=$(timeout 400 "$BIN/fill" -p "$APORT" -n $((PENDING_BIG - PENDING_SMALL)) -c 32 -f "$LOGIN" 2>&1 || true)
echo "--- fill: $OUT" >>"$LOG"
R[fill_secs]=$(field secs "$OUT")
R[fill_rate]=$(field rate "$OUT")
say "alertd filled to $PENDING_BIG pending: $((PENDING_BIG - PENDING_SMALL)) creates in ${R[fill_secs]} s (${R[fill_rate]}/s, 32 connections, failed $(field failed "$OUT"))"
sleep 1
R[big_kb]=$(rss_kb "$SERVER_PID")
say "alertd RSS with $PENDING_BIG pending: $(mb "${R[big_kb]}") MB"
list_rounds list_big "$PENDING_BIG"
say "alertd GET /v1/alerts?limit=50, $PENDING_BIG pending: $(fmt "${R[list_big]}") req/s = $(div "${R[list_big]}" "${R[base_get]}") x baseline, $(div "${R[list_big]}" "${R[list_small]}") x the $PENDING_SMALL figure [server CPU ${R[list_big_cpu]} us/request] (median of $ROUNDS runs: ${R[list_big_cpus]} us) $WRK_ERRORS"
stop_server "$SERVER_PID"

OUT=$(timeout 120 "$BIN/startup" -p "$APORT" -r "$STARTUP_RUNS" -- "$ALERTD" --port "$APORT" 2>&1 || true)
echo "--- startup alertd: $OUT" >>"$LOG"
R[startup]=$(field median_ms "$(grep STARTUP <<<"$OUT")")
OUT=$(timeout 120 "$BIN/startup" -p "$BPORT" -r "$STARTUP_RUNS" -- "$BIN/baseline" "$BPORT" 2>&1 || true)
echo "--- startup baseline: $OUT" >>"$LOG"
R[base_startup]=$(field median_ms "$(grep STARTUP <<<"$OUT")")
say "start-up to first /healthz (median of $STARTUP_RUNS): alertd ${R[startup]} ms, baseline ${R[base_startup]} ms"

# A data dir with $PENDING_BIG pending alerts, filled over HTTP as above but over more connections (larger group
# commits, a shorter fill: the fill is not a figure); then alertd restarts from it.
BIG_DIR=$(data_dir big)
start_server "$DPORT" "$ALERTD" "${DURABLE_ARGS[@]}" --data-dir "$BIG_DIR"
DURABLE_PID=$SERVER_PID
OUT=$(timeout 900 "$BIN/fill" -p "$DPORT" -n "$PENDING_BIG" -c "$DURABLE_FILL_CONNECTIONS" -f "$LOGIN" 2>&1 || true)
echo "--- fill durable: $OUT" >>"$LOG"
R[dfill_secs]=$(field secs "$OUT")
R[dfill_rate]=$(field rate "$OUT")
say "alertd --data-dir filled to $PENDING_BIG pending: ${R[dfill_secs]} s (${R[dfill_rate]}/s, $DURABLE_FILL_CONNECTIONS connections, failed $(field failed "$OUT"))"
R[dfilled_kb]=$(rss_kb "$DURABLE_PID")
stop_server "$DURABLE_PID"
R[disk_bytes]=$(dir_bytes "$BIG_DIR")
ls -l "$BIG_DIR" >>"$LOG"
say "data dir with $PENDING_BIG pending, after a clean stop: ${R[disk_bytes]} bytes, $(div "${R[disk_bytes]}" "$PENDING_BIG" 0) bytes a pending alert (RSS before the stop $(mb "${R[dfilled_kb]}") MB)"
OUT=$(timeout $((RESTARTS * 130 + 30)) "$BIN/startup" -p "$DPORT" -r "$RESTARTS" -t 120000 -i 1000 -- \
    "$ALERTD" "${DURABLE_ARGS[@]}" --data-dir "$BIG_DIR" 2>&1 || true)
echo "--- restart durable, $PENDING_BIG pending: $OUT" >>"$LOG"
R[restart]=$(field median_ms "$(grep STARTUP <<<"$OUT")")
say "alertd --data-dir restart with $PENDING_BIG pending, exec -> first /healthz 200 (median of $RESTARTS): ${R[restart]} ms ($(grep '^run' <<<"$OUT" | tr '\n' ' '))"
READY_SECONDS=120 start_server "$DPORT" "$ALERTD" "${DURABLE_ARGS[@]}" --data-dir "$BIG_DIR"
DURABLE_PID=$SERVER_PID
sleep 1
R[restart_kb]=$(rss_kb "$DURABLE_PID")
say "alertd --data-dir RSS after a restart with $PENDING_BIG pending: $(mb "${R[restart_kb]}") MB = $(div "${R[restart_kb]}" "${R[big_kb]}") x memory-only with $PENDING_BIG pending ($(mb "${R[big_kb]}") MB)"
stop_server "$DURABLE_PID"
rm -rf "$BIG_DIR"

run_cluster_rows "make bench"
run_mcp_rows "make bench"
run_phone_rows "make bench"

###############################################################################
ELAPSED=$((SECONDS - STARTED))
DATE=$(date -u +%Y-%m-%d)
LOAD_END=$(cut -d' ' -f1-3 /proc/loadavg)

TABLE=$WORK/table.md
{
    echo "| figure | goal | measured | ratio / verdict |"
    echo "|---|---|---|---|"
    row_rate 'GET /healthz' 0.85 "${R[healthz]}" "${R[base_healthz]}" "${R[healthz_cpu]}" "${R[base_healthz_cpu]}" "${R[healthz_ratio]}" "${R[healthz_ratios]}"
    row_rate 'GET /v1/alerts/{id}' 0.75 "${R[get]}" "${R[base_get]}" "${R[get_cpu]}" "${R[base_get_cpu]}" "${R[get_ratio]}" "${R[get_ratios]}"
    row_rate 'POST /v1/alerts (login alert)' 0.45 "${R[post]}" "${R[base_post]}" "${R[post_cpu]}" "${R[base_post_cpu]}" "${R[post_ratio]}" "${R[post_ratios]}"
    row_rate 'create+answer cycles' 0.20 "${R[cycles]}" "${R[base_cycles]}" "${R[cycles_cpu]}" "${R[base_cycles_cpu]}" "${R[cycles_ratio]}" "${R[cycles_ratios]}" cycles
    row_rate "GET /v1/alerts?limit=50, $PENDING_SMALL pending" '' "${R[list_small]}" "${R[base_get]}" "${R[list_small_cpu]}" "${R[base_get_cpu]}"
    CPU_RATIO=$(div "${R[list_big_cpu]}" "${R[list_small_cpu]}")
    printf '| GET /v1/alerts?limit=50, %s pending | same cost as with %s (server CPU/request within 10%%) | %s req/s (baseline GET %s); server CPU %s µs/request | %s × baseline; CPU %s × and rate %s × the %s figure: %s |\n' \
        "$PENDING_BIG" "$PENDING_SMALL" "$(fmt "${R[list_big]}")" "$(fmt "${R[base_get]}")" "${R[list_big_cpu]}" \
        "$(div "${R[list_big]}" "${R[base_get]}")" "$CPU_RATIO" "$(div "${R[list_big]}" "${R[list_small]}")" "$PENDING_SMALL" \
        "$(verdict "$(le "$CPU_RATIO" 1.10)")"
    printf '| filling %s pending (POST, 32 connections) | (information) | %s s, %s creates/s | |\n' "$PENDING_BIG" "${R[fill_secs]}" "${R[fill_rate]}"
    row_goal 'answer → waiter, 1 waiter, p50' '< 1 ms' "${R[lat_p50]} ms" "${R[lat_p50]}" 1
    row_goal 'answer → waiter, 1 waiter, p99' '< 5 ms' "${R[lat_p99]} ms" "${R[lat_p99]}" 5
    printf '| %s waiters on one alert, answer → last woken | < 100 ms | %s ms (baseline -w %s ms, floor %s ms), median of %s | %s of goal: %s; %s × baseline time, %s × floor time |\n' \
        "$WAKE_WAITERS" "${R[wake]}" "${R[base_wake]}" "${R[floor_wake]}" "$WAKE_RUNS" "$(div "${R[wake]}" 100)" "$(verdict "$(le "${R[wake]}" 100)")" \
        "$(div "${R[wake]}" "${R[base_wake]}")" "$(div "${R[wake]}" "${R[floor_wake]}")"
    if ((R[hold_n] >= WAITERS_GOAL)); then
        row_goal "RSS, $WAITERS_GOAL suspended waiters" '< 500 MB' "$(mb "${R[hold_kb]}") MB (baseline -w $(mb "${R[base_hold_kb]}") MB)" "$(mb "${R[hold_kb]}")" 500
    else
        if ((WAITERS < WAITERS_WANTED)); then WHY="the hard RLIMIT_NOFILE ($HARD_FILES) caps one process"; else WHY="BENCH_WAITERS=$WAITERS_WANTED"; fi
        printf '| RSS, %s suspended waiters (measured) | | %s MB (baseline -w %s MB) | %s |\n' \
            "${R[hold_n]}" "$(mb "${R[hold_kb]}")" "$(mb "${R[base_hold_kb]}")" "$WHY"
        row_goal "RSS, $WAITERS_GOAL suspended waiters (extrapolated)" '< 500 MB' \
            "$(mb "${R[hold_50k_kb]}") MB (baseline -w $(mb "${R[base_hold_50k_kb]}") MB)" "$(mb "${R[hold_50k_kb]}")" 500
    fi
    row_goal "RSS, $WAITERS_GOAL waiters on reused keep-alive connections (extrapolated from $REUSED_WAITERS)" '< 500 MB' \
        "$(mb "${R[reused_50k_kb]}") MB (baseline -w $(mb "${R[base_reused_50k_kb]}") MB)" "$(mb "${R[reused_50k_kb]}")" 500
    row_goal "RSS, $PENDING_BIG pending alerts" '< 1024 MB' "$(mb "${R[big_kb]}") MB" "$(mb "${R[big_kb]}")" 1024
    row_goal 'RSS, idle' '< 25 MB' "$(mb "${R[idle_kb]}") MB (baseline $(mb "${R[base_idle_kb]}") MB)" "$(mb "${R[idle_kb]}")" 25
    row_goal 'start-up to first /healthz' '< 100 ms' "${R[startup]} ms (baseline ${R[base_startup]} ms), median of $STARTUP_RUNS" "${R[startup]}" 100
} >"$TABLE"

# Durability (issue 12): alertd --data-dir against the same alertd memory-only, in the same run.
DURABLE_TABLE=$WORK/durable.md
{
    echo "| figure | goal | measured | ratio / verdict |"
    echo "|---|---|---|---|"
    printf '| disk floor: write 4 KiB + fdatasync (bench/tools/flush.c, %s each) | (information) | %s | what one commit must wait for at least |\n' \
        "$FLUSH_WRITES" "${R[flush]}"
    row_rate 'durable POST /v1/alerts (login alert), against the C durable ceiling' 0.80 "${R[dceil]}" "${R[base_dceil]}" \
        "${R[dceil_cpu]}" "${R[base_dceil_cpu]}" "${R[dceil_ratio]}" "${R[dceil_ratios]}" req "C durable"
    row_rate 'durable POST /v1/alerts (login alert), against memory-only' '' "${R[dpost]}" "${R[base_dpost]}" "${R[dpost_cpu]}" \
        "${R[base_dpost_cpu]}" "${R[dpost_ratio]}" "${R[dpost_ratios]}" req memory-only
    printf '| journal commits under the durable POST load | (information) | %s commits; commit p50 %s ms, p99 %s ms, mean %s ms; batch (store turns a commit) p50 %s, p99 %s, mean %s | from the /metrics histograms (p50/p99 interpolated within buckets) |\n' \
        "${R[commit_n]}" "${R[commit_p50]}" "${R[commit_p99]}" "${R[commit_mean]}" "${R[batch_p50]}" "${R[batch_p99]}" "${R[batch_mean]}"
    row_rate 'durable create+answer cycles' 0.60 "${R[dcycles]}" "${R[base_dcycles]}" "${R[dcycles_cpu]}" "${R[base_dcycles_cpu]}" \
        "${R[dcycles_ratio]}" "${R[dcycles_ratios]}" cycles memory-only
    tail -n +3 "$WORK/scale.md"
    printf '| answer → waiter, 1 waiter, durable, p50 | (information) | %s ms (memory-only %s ms) | |\n' "${R[dlat_p50]}" "${R[lat_p50]}"
    row_goal 'answer → waiter, 1 waiter, durable, p99' '< 5 ms' "${R[dlat_p99]} ms (memory-only ${R[lat_p99]} ms)" "${R[dlat_p99]}" 5
    printf '| filling %s pending, durable (POST, %s connections) | (information) | %s s, %s creates/s (memory-only, 32 connections: %s creates/s) | |\n' \
        "$PENDING_BIG" "$DURABLE_FILL_CONNECTIONS" "${R[dfill_secs]}" "${R[dfill_rate]}" "${R[fill_rate]}"
    printf '| disk per pending alert | (information) | %s bytes (data dir %s MB with %s pending, after a clean stop) | |\n' \
        "$(div "${R[disk_bytes]}" "$PENDING_BIG" 0)" "$(mb "$(div "${R[disk_bytes]}" 1024 0)")" "$PENDING_BIG"
    row_goal "restart with $PENDING_BIG pending: exec → first 200 from /healthz" '< 3 s' \
        "$(fmt "$(div "${R[restart]}" 1000 3)" 2) s, median of $RESTARTS" "$(div "${R[restart]}" 1000 3)" 3
    RSS_RATIO=$(div "${R[restart_kb]}" "${R[big_kb]}")
    printf '| RSS after a restart with %s pending | at most 10%% over memory-only with %s pending | %s MB (memory-only, filled over HTTP: %s MB) | %s × memory-only: %s |\n' \
        "$PENDING_BIG" "$PENDING_BIG" "$(mb "${R[restart_kb]}")" "$(mb "${R[big_kb]}")" "$RSS_RATIO" \
        "$(verdict "$(awk -v r="$RSS_RATIO" 'BEGIN { print (r ~ /^[0-9.]+$/ && r <= 1.10) ? 1 : 0 }')")"
} >"$DURABLE_TABLE"

SECTION=$WORK/section.md
{
    echo "Run of $DATE, git \`$DESCRIBE\`, \`make bench\` took ${ELAPSED} s."
    echo
    echo "Machine: $MACHINE; RLIMIT_NOFILE hard limit $HARD_FILES; load average $LOAD_START at the start, $LOAD_END at the end."
    echo "Software: $SWIFT_VERSION, libmicrohttpd $MHD_VERSION, wrk $WRK_VERSION. wrk: \`-t2 -c64 -d${DURATION}s\` on every rate; GET, POST and cycles in $ROUNDS rounds of baseline then alertd, medians reported."
    echo
    cat "$TABLE"
    echo
    echo "Durability: alertd --data-dir (data dirs on $FS_TYPE, $FS_DEVICE) against the C durable ceiling (bench/baseline/durable.c: libmicrohttpd with alertd's flags, one writer thread, fdatasync per batch, its file beside alertd's data dir) and against the same alertd memory-only; POST and cycles in $ROUNDS rounds of the reference then durable (the order alternating), medians reported."
    echo
    cat "$DURABLE_TABLE"
} >"$SECTION"

echo
cat "$TABLE"
echo
cat "$DURABLE_TABLE"
echo
cat "$WORK/cluster.md"
echo
cat "$WORK/mcp.md"
echo
cat "$WORK/phone.md"
echo

mkdir -p bench/results
RESULT=bench/results/$DATE-$SHA.txt
n=2
while [[ -e "$RESULT" ]]; do RESULT=bench/results/$DATE-$SHA-$n.txt; n=$((n + 1)); done
{
    cat "$SECTION"
    echo
    echo "Cluster: three alertd on one PostgreSQL against one alertd --data-dir."
    echo
    cat "$WORK/cluster.md"
    echo
    echo "MCP: ask over stdio and over /mcp; 1,000 waiting asks against 1,000 long-polls."
    echo
    cat "$WORK/mcp.md"
    echo
    echo "Phone: /app with 10,000 pending against GET /v1/alerts?limit=50; creates with a slow or down --notify-webhook."
    echo
    cat "$WORK/phone.md"
    echo
    echo "== log"
    cat "$LOG"
} >"$RESULT"
echo "results: $RESULT"

# docs/PERFORMANCE.md: replace "Latest" every run (the history is bench/results/HISTORY.md and the results files).
if [[ "${BENCH_NO_DOCS:-0}" != 1 ]]; then
    if [[ ! -f "$DOC" ]]; then
        cat >"$DOC" <<'EOF'
# Performance

`make bench` measures alertd side by side with the ceiling of its own stack; see bench/README.md
for the method. `make bench` rewrites "Latest".

## Latest

<!-- bench:latest:start -->
<!-- bench:latest:end -->
EOF
    fi
    grep -q '<!-- bench:latest:start -->' "$DOC" || echo "docs: $DOC has no <!-- bench:latest:start/end --> markers; not updated" >&2
    replace_block latest "$SECTION"
    replace_block cluster "$WORK/cluster.md"
    replace_block mcp "$WORK/mcp.md"
    replace_block phone "$WORK/phone.md"
    echo "docs: wrote the Latest, Cluster, MCP and Phone sections of $DOC"
fi
echo "make bench: done in $((SECONDS - STARTED)) s"
