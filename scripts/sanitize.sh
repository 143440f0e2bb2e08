#!/usr/bin/env bash
# The test targets under a sanitizer: scripts/sanitize.sh thread|address (make tsan, make asan).
#
# Builds everything, the alertd and alertctl that the tests spawn included, with the sanitizer into a
# scratch path of its own (.build-tsan, .build-asan), so the debug build in .build stays as it is; the
# tests find the spawned executables next to their own bundle, so those are the sanitized ones too.
# Then runs each test target in its own `swift test`, as `make test` does, and its tests one at a time
# (--no-parallel): instrumented and in parallel on two cores, they starved each other past every time bound.
#
# Every instrumented process (the test runner and each alertd and alertctl it spawns, tmux windows
# included) stops at its first report with exit status 66 and writes the report to a file in
# <scratch>/sanitizer-reports. A report fails the run even when no test noticed the process stop.
# ALERTD_TEST_TIME_SCALE (default: 4 for thread, 2 for address) stretches the tests' time bounds (TestTime).
# Each target's `swift test` is also bounded as a whole (SANITIZE_TARGET_SECONDS, default 1200): a run that hangs
# fails with the target's name instead of holding the machine. ClusterTests start PostgreSQL themselves
# (scripts/scratch-postgres.sh; PostgreSQL is not instrumented, only the alertd they spawn is).
#
# Environment: SWIFT (swift), TEST_TARGETS (the Makefile's list), ALERTD_TEST_TIME_SCALE, SANITIZE_TARGET_SECONDS.
set -euo pipefail
cd "$(dirname "$0")/.."

swift=${SWIFT:-swift}
targets=${TEST_TARGETS:?TEST_TARGETS: the test targets to run}
case ${1:-} in
thread)
    scratch=.build-tsan
    flags=(--sanitize=thread -Xswiftc -DTHREAD_SANITIZER)  # THREAD_SANITIZER: see Sources/Locking/Lock.swift
    options_variable=TSAN_OPTIONS
    options="halt_on_error=1 exitcode=66"
    leaks=()
    scale=4
    ;;
address)
    scratch=.build-asan
    flags=(--sanitize=address)
    options_variable=ASAN_OPTIONS
    options="halt_on_error=1 exitcode=66 detect_leaks=1"
    leaks=("LSAN_OPTIONS=suppressions=$PWD/.lsan-suppressions print_suppressions=0")  # leaks in toolchain libraries, each explained
    scale=2
    ;;
*)
    echo "usage: $0 thread|address" >&2
    exit 2
    ;;
esac
export ALERTD_TEST_TIME_SCALE=${ALERTD_TEST_TIME_SCALE:-$scale}
limit=${SANITIZE_TARGET_SECONDS:-1200}
reports=$PWD/$scratch/sanitizer-reports

"$swift" build --build-tests --scratch-path "$scratch" "${flags[@]}"
for target in $targets; do
    echo "== $target ($1 sanitizer, time bounds x$ALERTD_TEST_TIME_SCALE)"
    rm -rf "$reports"
    mkdir -p "$reports"
    status=0
    started=$SECONDS
    env "$options_variable=$options log_path=$reports/report" "${leaks[@]}" \
        timeout --kill-after=30 "$limit" \
        "$swift" test --skip-build --no-parallel --scratch-path "$scratch" "${flags[@]}" --filter "^$target\." \
        || status=$?
    echo "== $target: exit $status after $((SECONDS - started)) s"
    if grep -l -q -e 'ERROR: ' -e 'WARNING: ThreadSanitizer' "$reports"/report.* 2>/dev/null; then
        cat "$reports"/report.*
        echo "sanitize: $1 sanitizer reports in $target (above; files in $reports)" >&2
        exit 1
    fi
    if [ "$status" -eq 124 ] || [ "$status" -eq 137 ]; then
        echo "sanitize: $target did not finish within $limit s (SANITIZE_TARGET_SECONDS)" >&2
    fi
    if [ "$status" -ne 0 ]; then
        exit "$status"
    fi
done
echo "sanitize: $1 sanitizer clean: $targets"
