# shellcheck shell=bash
# MCP rows of `make bench` (issue 25), sourced by bench/run.sh: `ask` answer -> tool result over stdio
# (bench/mcp_latency.py, through `alertctl mcp`) and over alertd's `POST /mcp`, and 1,000 asks waiting at once
# through /mcp against as many plain long-polls (bench/mcp_load.py: server RSS per waiting call, answer -> result
# of the last). Each script starts its own alertd (memory only) on a free loopback port.
#
#   BENCH_MCP_CALLS  waiting calls held at once (default 1000)
#   BENCH_MCP_RUNS   asks timed one at a time, on each transport (default 200)

MCP_CALLS=${BENCH_MCP_CALLS:-1000}
MCP_RUNS=${BENCH_MCP_RUNS:-200}

# Builds alertctl (stdio's side), runs both scripts and sets R[mcp_*].
mcp_rows() {
    local out
    say "== MCP: ask over stdio and over /mcp, $MCP_CALLS waiting asks against $MCP_CALLS long-polls"
    swift build -c release --static-swift-stdlib --product alertctl --scratch-path "$SCRATCH" 2>&1 | tail -1 >>"$LOG"
    ALERTCTL="$(dirname "$ALERTD")/alertctl"
    [[ -x "$ALERTCTL" ]] || { echo "bench: $ALERTCTL was not built" >&2; exit 1; }
    out=$(timeout 600 python3 bench/mcp_latency.py "$ALERTD" "$ALERTCTL" --asks "$MCP_RUNS" 2>&1 || true)
    echo "--- mcp_latency.py: $out" >>"$LOG"
    out=$(grep '^MCP_STDIO' <<<"$out" || true)
    R[mcp_stdio_p50]=$(field p50 "$out")
    R[mcp_stdio_p99]=$(field p99 "$out")
    say "ask over stdio, answer -> tool result: p50 ${R[mcp_stdio_p50]} ms, p99 ${R[mcp_stdio_p99]} ms ($MCP_RUNS asks)"
    out=$(timeout 1200 python3 bench/mcp_load.py --alertd "$ALERTD" --calls "$MCP_CALLS" --runs "$MCP_RUNS" 2>&1 || true)
    echo "--- mcp_load.py: $out" >>"$LOG"
    out=$(grep '^MCP_LOAD' <<<"$out" || true)
    local key
    for key in ask_kb longpoll_kb ratio ask_last_ms longpoll_last_ms ask_p50 ask_p99 longpoll_p50 longpoll_p99; do
        R[mcp_$key]=$(field "$key" "$out")
    done
    say "ask over /mcp, answer -> tool result: p50 ${R[mcp_ask_p50]} ms, p99 ${R[mcp_ask_p99]} ms (long-poll p50 ${R[mcp_longpoll_p50]} ms, p99 ${R[mcp_longpoll_p99]} ms)"
    say "$MCP_CALLS waiting asks over /mcp: ${R[mcp_ask_kb]} kB each, ${R[mcp_ratio]} x a long-poll's ${R[mcp_longpoll_kb]} kB; answer -> last result ${R[mcp_ask_last_ms]} ms (long-polls ${R[mcp_longpoll_last_ms]} ms)"
}

# The MCP table (markdown) on standard output.
mcp_table() {
    echo "| figure | goal | measured | ratio / verdict |"
    echo "|---|---|---|---|"
    printf '| ask over stdio (`alertctl mcp`), answer → tool result, p50 | (information) | %s ms, %s asks | |\n' \
        "${R[mcp_stdio_p50]}" "$MCP_RUNS"
    row_goal 'ask over stdio (`alertctl mcp`), answer → tool result, p99' '< 10 ms' "${R[mcp_stdio_p99]} ms" \
        "${R[mcp_stdio_p99]}" 10
    printf '| ask over `POST /mcp`, answer → tool result, p50 | (information) | %s ms, %s asks (long-poll %s ms) | |\n' \
        "${R[mcp_ask_p50]}" "$MCP_RUNS" "${R[mcp_longpoll_p50]}"
    row_goal 'ask over `POST /mcp`, answer → tool result, p99' '< 10 ms' \
        "${R[mcp_ask_p99]} ms (long-poll ${R[mcp_longpoll_p99]} ms)" "${R[mcp_ask_p99]}" 10
    printf '| %s asks waiting over /mcp: server memory per waiting call ÷ a long-poll'"'"'s | ≤ 2 | %s kB ÷ %s kB = %s | %s |\n' \
        "$MCP_CALLS" "${R[mcp_ask_kb]}" "${R[mcp_longpoll_kb]}" "${R[mcp_ratio]}" "$(verdict "$(le "${R[mcp_ratio]}" 2)")"
    row_goal "$MCP_CALLS asks waiting over /mcp: answer → result of the last" '< 1000 ms' \
        "${R[mcp_ask_last_ms]} ms (long-polls ${R[mcp_longpoll_last_ms]} ms)" "${R[mcp_ask_last_ms]}" 1000
}

# Runs the MCP rows, then writes their section to $WORK/mcp.md.
run_mcp_rows() { # command line to record
    local started=$SECONDS
    mcp_rows
    {
        echo "Run of $(date -u +%Y-%m-%d), git \`$DESCRIBE\`, \`$1\`: the MCP rows took $((SECONDS - started)) s."
        echo
        echo "Machine: $MACHINE; load average $(cut -d' ' -f1-3 /proc/loadavg) after the MCP rows. Each figure on a fresh alertd (memory only, tokens for /mcp); the asks send a progressToken and wait on an event stream."
        echo
        mcp_table
    } >"$WORK/mcp.md"
}
