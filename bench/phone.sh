# shellcheck shell=bash
# Phone rows of `make bench` (issue 27), sourced by bench/run.sh:
#   the responder's page with PENDING_SMALL (10,000) pending alerts: server CPU per `GET /app` (the pending list, at
#   most 50 shown) ÷ that of `GET /v1/alerts?limit=50` on the same alertd (memory only, no tokens, so the page needs
#   no sign-in); goal ≤ 2×;
#   creates (`POST /v1/alerts`, login alert body) on an alertd whose `--notify-webhook` target is slow (a loopback
#   listener that accepts and never answers) or down (a loopback port nothing listens on), against an alertd without
#   one; goal ≥ 0.90× the rate without, each.
# Each alertd is fresh, memory only, with the rate rows' flags.

# Holds accepted connections without ever answering: the slow notification target. Sets SLOW_PID.
phone_slow_target() { # port
    python3 -c '
import select, socket, sys
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", int(sys.argv[1]))); s.listen(1024)
held = []
while True:
    select.select([s], [], [])
    held.append(s.accept()[0])
' "$1" >>"$WORK/servers.log" 2>&1 &
    SLOW_PID=$!
    PIDS+=("$SLOW_PID")
    local i
    for i in $(seq 100); do port_free "$1" || return 0; sleep 0.05; done
    echo "bench: the slow notification target does not listen on port $1" >&2
    return 1
}

# Runs both figures; sets R[phone_*].
phone_rows() {
    local port slow_port down_port pid out slow_pid down_pid
    say "== phone: /app with $PENDING_SMALL pending against GET /v1/alerts?limit=50; creates with a slow or down --notify-webhook"
    start_server "$APORT" "$ALERTD" "${ALERTD_ARGS[@]}"
    pid=$SERVER_PID
    out=$(timeout 120 "$BIN/fill" -p "$APORT" -n "$PENDING_SMALL" -c 32 -f "$LOGIN" 2>&1 || true)
    echo "--- fill: $out" >>"$LOG"
    run_wrk "alertd warm-up" "$pid" -d2s "http://127.0.0.1:$APORT/app"
    paired_servers phone_page req "with $PENDING_SMALL pending" "GET /v1/alerts?limit=50" "$pid" \
        "http://127.0.0.1:$APORT/v1/alerts?limit=50" "GET /app" "$pid" "http://127.0.0.1:$APORT/app"
    R[phone_page_cpu_ratio]=$(div "${R[phone_page_cpu]}" "${R[base_phone_page_cpu]}")
    stop_server "$pid"

    start_server "$APORT" "$ALERTD" "${ALERTD_ARGS[@]}"
    pid=$SERVER_PID
    slow_port=$(pick_port $((DPORT + 1)))
    phone_slow_target "$slow_port"
    port=$(pick_port $((slow_port + 1)))
    start_server "$port" "$ALERTD" --port "$port" "${ALERTD_ARGS[@]:2}" \
        --notify-webhook "http://127.0.0.1:$slow_port/hook"
    slow_pid=$SERVER_PID
    down_port=$(pick_port $((port + 1)))
    PHONE_DOWN_PORT=$(pick_port $((down_port + 1)))
    start_server "$down_port" "$ALERTD" --port "$down_port" "${ALERTD_ARGS[@]:2}" \
        --notify-webhook "http://127.0.0.1:$PHONE_DOWN_PORT/hook"
    down_pid=$SERVER_PID
    for out in "$pid:$APORT" "$slow_pid:$port" "$down_pid:$down_port"; do
        run_wrk "alertd warm-up" "${out%%:*}" -d2s "http://127.0.0.1:${out##*:}/healthz"
    done
    paired_servers phone_slow req "POST /v1/alerts (login alert body)" \
        "no --notify" "$pid" "-s bench/lua/post_alert.lua http://127.0.0.1:$APORT/v1/alerts" \
        "slow --notify-webhook" "$slow_pid" "-s bench/lua/post_alert.lua http://127.0.0.1:$port/v1/alerts"
    paired_servers phone_down req "POST /v1/alerts (login alert body)" \
        "no --notify" "$pid" "-s bench/lua/post_alert.lua http://127.0.0.1:$APORT/v1/alerts" \
        "down --notify-webhook" "$down_pid" "-s bench/lua/post_alert.lua http://127.0.0.1:$down_port/v1/alerts"
    R[phone_notify_metrics]=$(curl -sf "http://127.0.0.1:$port/metrics" | grep -E '^alertd_notif' | paste -sd ' ' - || true)
    echo "--- slow target's alertd notification metrics: ${R[phone_notify_metrics]}" >>"$LOG"
    stop_server "$down_pid"
    stop_server "$slow_pid"
    stop_server "$pid"
    kill -TERM "$SLOW_PID" 2>/dev/null || true
    wait "$SLOW_PID" 2>/dev/null || true
    forget "$SLOW_PID"
}

# The phone table (markdown) on standard output.
phone_table() {
    echo "| figure | goal | measured | ratio / verdict |"
    echo "|---|---|---|---|"
    printf '| `GET /app` with %s pending: server CPU per page ÷ `GET /v1/alerts?limit=50`'"'"'s | ≤ 2 × | %s µs ÷ %s µs per request (%s page/s, %s list/s; medians of %s rounds) | %s: %s |\n' \
        "$PENDING_SMALL" "${R[phone_page_cpu]}" "${R[base_phone_page_cpu]}" "$(fmt "${R[phone_page]}")" \
        "$(fmt "${R[base_phone_page]}")" "$ROUNDS" "${R[phone_page_cpu_ratio]}" \
        "$(verdict "$(le "${R[phone_page_cpu_ratio]}" 2)")"
    row_rate 'POST /v1/alerts with a slow `--notify-webhook` (accepts, never answers)' 0.90 "${R[phone_slow]}" \
        "${R[base_phone_slow]}" "${R[phone_slow_cpu]}" "${R[base_phone_slow_cpu]}" "${R[phone_slow_ratio]}" \
        "${R[phone_slow_ratios]}" req "no --notify"
    row_rate 'POST /v1/alerts with a down `--notify-webhook` (connection refused)' 0.90 "${R[phone_down]}" \
        "${R[base_phone_down]}" "${R[phone_down_cpu]}" "${R[base_phone_down_cpu]}" "${R[phone_down_ratio]}" \
        "${R[phone_down_ratios]}" req "no --notify"
}

# Runs the phone rows, then writes their section to $WORK/phone.md.
run_phone_rows() { # command line to record
    local started=$SECONDS
    phone_rows
    {
        echo "Run of $(date -u +%Y-%m-%d), git \`$DESCRIBE\`, \`$1\`: the phone rows took $((SECONDS - started)) s."
        echo
        echo "Machine: $MACHINE; load average $(cut -d' ' -f1-3 /proc/loadavg) after the phone rows. Fresh alertds, memory only, no tokens; wrk \`-t2 -c64 -d${DURATION}s\`, $ROUNDS rounds of the reference then the figure (alternating), medians reported."
        echo
        phone_table
    } >"$WORK/phone.md"
}
