#!/usr/bin/env bash
# Instruction profiles (valgrind --tool=callgrind) of alertd per request, next to the C baseline.
# Not part of `make bench`: run it by hand, about 3 minutes. See bench/results/HISTORY.md,
# "Where the time goes".
#
#   bench/profile/callgrind.sh [scenario...]     scenarios: baseline baseline-post healthz get post
#                                                post-durable (default: all but post-durable)
#
# `post-durable` is `post` with a data dir; with PROFILE_CONFIGURATION=debug it counts the source
# files and modules a create runs code of (bench/profile/source_files.py; issue 24's measure):
#
#   PROFILE_CONFIGURATION=debug PROFILE_REQUESTS=200 bench/profile/callgrind.sh post-durable
#
# valgrind 3.19 (Debian 12) crashes on libdispatch's dispatch_main, which Swift's async main
# runs on the main thread. So this profiles a copy of the sources (in a temporary directory,
# never in the work tree) whose Sources/alertd/main.swift starts the same AlertdApp from plain
# top-level code and sleeps. Everything below main (transport, API, store) is the real code.
#
# Each scenario: start under callgrind with instrumentation off, warm up with PROFILE_REQUESTS
# requests, profile exactly PROFILE_REQUESTS more (default 2000; bench/profile/client.py, 4
# keep-alive connections, outside valgrind), then print bench/profile/callgrind_summary.py per
# request (totals by library and source file, the top functions by self and inclusive cost) and
# keep the callgrind files and the summaries in PROFILE_OUT (default /tmp/alertd-profile-out) for
# callgrind_annotate. A fixed count makes the figure repeatable under load, where rates are not.
#
#   PROFILE_SCRATCH  build directory (default /tmp/alertd-profile-build)
#   PROFILE_SRC      the profiling copy of the sources, kept between runs so that builds are
#                    incremental (default /tmp/alertd-profile-src)
#   PROFILE_PORT     port (default 18690)
#   PROFILE_CONFIGURATION  release (default) or debug
#
# Note that
# callgrind counts each byte of libmicrohttpd's 64 KiB `memset` per request as an instruction;
# the summary shows it apart. Ir is not time: kernel work (TCP, futex wake-ups, context switches)
# is invisible here; see the perf figures in bench/results/HISTORY.md for that.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
command -v swift >/dev/null 2>&1 || PATH=$PATH:/opt/swift/usr/bin
for tool in valgrind callgrind_control python3 curl cc; do
    command -v "$tool" >/dev/null 2>&1 || { echo "callgrind.sh: $tool not found" >&2; exit 1; }
done
SCENARIOS=("$@")
((${#SCENARIOS[@]})) || SCENARIOS=(baseline baseline-post healthz get post)
WORK=$(mktemp -d /tmp/alertd-profile.XXXXXX)
CONFIGURATION=${PROFILE_CONFIGURATION:-release}
SCRATCH=${PROFILE_SCRATCH:-/tmp/alertd-profile-build}
SRC=${PROFILE_SRC:-/tmp/alertd-profile-src}
OUT=${PROFILE_OUT:-/tmp/alertd-profile-out}
PORT=${PROFILE_PORT:-18690}
REQUESTS=${PROFILE_REQUESTS:-2000}
mkdir -p "$OUT"
VALGRIND_PID=
cleanup() {
    [[ -n "$VALGRIND_PID" ]] && kill -KILL "$VALGRIND_PID" 2>/dev/null
    rm -rf "$WORK"
}
trap cleanup EXIT

echo "== copying the sources to $SRC and building (scratch $SCRATCH)"
mkdir -p "$SRC"
# cp -u rewrites only what changed, in place, so that the build stays incremental; what the work tree no longer has
# goes from the copy too (a moved type would be defined twice).
for entry in "$ROOT"/*; do [[ "$(basename "$entry")" == bench ]] || cp -a -u "$entry" "$SRC/"; done
while IFS= read -r -d '' file; do
    [[ -e "$ROOT/${file#"$SRC"/}" ]] || rm -f "$file"
done < <(find "$SRC" -type f -print0)
cat >"$WORK/main.swift" <<'EOF'
import AlertServer
import Foundation

// Profiling copy of alertd's main: no async main (valgrind 3.19 crashes on dispatch_main).
signal(SIGPIPE, SIG_IGN)
let command = try AlertdConfiguration.command(
    arguments: Array(CommandLine.arguments.dropFirst()), environment: ProcessInfo.processInfo.environment)
guard case .run(let configuration) = command else { exit(0) }
let app = try AlertdApp(configuration: configuration)
print("alertd listening on \(app.url)")
fflush(nil)
while true { sleep(3600) }
EOF
cmp -s "$WORK/main.swift" "$SRC/Sources/alertd/main.swift" || cp "$WORK/main.swift" "$SRC/Sources/alertd/main.swift"
(cd "$SRC" && swift build -c "$CONFIGURATION" --product alertd --scratch-path "$SCRATCH" -Xswiftc -g 2>&1 | tail -1)
ALERTD="$(cd "$SRC" && swift build -c "$CONFIGURATION" --product alertd --scratch-path "$SCRATCH" --show-bin-path)/alertd"
# shellcheck disable=SC2046
cc -O2 -g -o "$WORK/baseline" "$ROOT/bench/baseline/baseline.c" $(pkg-config --cflags --libs libmicrohttpd) -lpthread
LOGIN='{"title":"Login","message":"Enter your credentials","buttons":["Cancel","Log in"],"fields":[{"placeholder":"Username"},{"placeholder":"Password","secure":true,"keyboard":"asciiCapable"}]}'

PATTERNS='^ServerCore\.(access|dispatch|perform|queue|resume)|^APIHandler\.(handle|alert|create|instrument)|^specialized Route\.init|^Route\.init|^JSONWriter\.write\(_:redacting|^AccessLog\.request|^Metrics\.request|^static APIHandler\.(parse|requestID)|^specialized static APIHandler\.(parse|requestID)|AlertDraft\.init\(json|^AlertDraft\.(normalized|checkLimits)|^AlertStore\.(alert|create)\(|AlertID\.random|^swift_task_create$|^MHD_(suspend|resume|queue_response|create_response|add_response_header|get_connection_values)'

profile() { # name url-path [client args...]
    local name=$1 path=$2 server id
    shift 2
    if [[ "$name" == baseline* ]]; then server=("$WORK/baseline" "$PORT"); else server=("$ALERTD" --port "$PORT" --max-pending 5000000); fi
    [[ "$name" == *-durable ]] && server+=(--data-dir "$WORK/data-$name")
    valgrind --tool=callgrind --instr-atstart=no --compress-strings=no --compress-pos=no \
        --callgrind-out-file="$WORK/cg.$name.out" "${server[@]}" >"$WORK/$name.log" 2>&1 &
    VALGRIND_PID=$!
    for _ in $(seq 150); do curl -sf -o /dev/null "http://127.0.0.1:$PORT/healthz" && break; sleep 0.2; done
    id=$(curl -s -H 'Content-Type: application/json' -d "$LOGIN" "http://127.0.0.1:$PORT/v1/alerts" | sed -n 's/.*"id":"\([^"]*\)".*/\1/p')
    path=${path//\{id\}/$id}
    python3 "$ROOT/bench/profile/client.py" -n "$REQUESTS" "$@" "http://127.0.0.1:$PORT$path" >/dev/null
    callgrind_control -i on "$VALGRIND_PID" >/dev/null
    python3 "$ROOT/bench/profile/client.py" -n "$REQUESTS" "$@" "http://127.0.0.1:$PORT$path"
    callgrind_control -i off "$VALGRIND_PID" >/dev/null
    callgrind_control -d "$VALGRIND_PID" >/dev/null
    sleep 1
    kill "$VALGRIND_PID" 2>/dev/null || true
    wait "$VALGRIND_PID" 2>/dev/null || true
    VALGRIND_PID=
    cp "$WORK/cg.$name.out.1" "$OUT/callgrind.$name.out"
    echo
    echo "== $name: $path ($REQUESTS requests profiled; $OUT/callgrind.$name.out)"
    python3 "$ROOT/bench/profile/callgrind_summary.py" "$OUT/callgrind.$name.out" "$REQUESTS" "$PATTERNS" |
        tee "$OUT/summary.$name.txt"
    if [[ "$name" == *-durable ]]; then
        echo "== $name: the source files it ran code of ($CONFIGURATION build)"
        python3 "$ROOT/bench/profile/source_files.py" "$OUT/callgrind.$name.out" "$REQUESTS" | tee "$OUT/files.$name.txt"
    fi
}

printf '%s' "$LOGIN" >"$WORK/login.json"
for scenario in "${SCENARIOS[@]}"; do
    case $scenario in
        baseline) profile baseline /v1/alerts/x ;;
        healthz) profile healthz /healthz ;;
        get) profile get '/v1/alerts/{id}' ;;
        baseline-post) profile baseline-post /v1/alerts -b "$WORK/login.json" ;;
        post) profile post /v1/alerts -b "$WORK/login.json" ;;
        post-durable) profile post-durable /v1/alerts -b "$WORK/login.json" ;;
        *) echo "callgrind.sh: unknown scenario $scenario" >&2; exit 64 ;;
    esac
done
