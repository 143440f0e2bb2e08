#!/usr/bin/env bash
# The request fuzzer (make fuzz): builds Fuzz/AlertFuzz.swift with libFuzzer and AddressSanitizer,
# then runs it. Usage: scripts/fuzz.sh build | run SECONDS | replay FILE...
#
# libFuzzer brings its own `main`, so the target is not a SwiftPM product (`swift build` would link it
# as an executable). This script compiles, with swiftc, the modules the target needs (the same
# sources as Package.swift, listed below in dependency order) with `-sanitize=fuzzer,address
# -enable-testing` (the target uses internal API through `@testable import`), one object per module,
# into .build-fuzz, and links Fuzz/*.swift against them. A module is rebuilt when a source is newer
# than its object.
#
# `run` starts from the seeds in Fuzz/corpus and the crashers kept in Fuzz/crashers (docs/FUZZING.md),
# writes what it learns to .build-fuzz/corpus (scratch, not committed) and a failing input to
# .build-fuzz/artifacts/<time>/. Exit status: 0 clean, 1 a crash, leak or broken invariant was found.
# `replay` runs the target once over the given files (or Fuzz/corpus and Fuzz/crashers): the
# regression check for fixed crashers.
#
# Environment: SWIFT (swift; swiftc is taken from next to it), FUZZ_JOBS (1; more runs libFuzzer's
# -fork with that many processes), FUZZ_FLAGS (more libFuzzer flags).
set -euo pipefail
cd "$(dirname "$0")/.."

swift=${SWIFT:-swift}
swift_path=$(command -v "$swift" || true)
swiftc=swiftc
if [ -n "$swift_path" ] && [ -x "$(dirname "$swift_path")/swiftc" ]; then
    swiftc=$(dirname "$swift_path")/swiftc
fi
scratch=.build-fuzz
objects=$scratch/objects
binary=$scratch/alertd-fuzz

# Module: its dependencies among these, as in Package.swift.
modules=(Locking JSON BuildInfo SystemCalls AlertCore MicroHTTP AlertAPI)
flags=(-swift-version 6 -parse-as-library -O -g -enable-testing -sanitize=fuzzer,address -package-name alertd
       -I "$objects" -I Sources/CMicroHTTPD)
for flag in $(pkg-config --cflags libmicrohttpd); do flags+=(-Xcc "$flag"); done

# Newer than $1: any of the remaining files, or $1 missing.
stale() {
    local target=$1; shift
    [ -e "$target" ] || return 0
    [ -n "$(find "$@" -newer "$target" -print -quit)" ]
}

build() {
    mkdir -p "$objects"
    # AlertAPI embeds openapi.yaml through a SwiftPM build plugin; the fuzzer never serves it.
    local embedded=$objects/EmbeddedOpenAPI.swift
    [ -e "$embedded" ] || printf 'enum EmbeddedOpenAPI {\n    static let text = ""\n}\n' >"$embedded"
    local previous=() module sources
    for module in "${modules[@]}"; do
        mapfile -t sources < <(find "Sources/$module" -name '*.swift' | sort)
        [ "$module" = AlertAPI ] && sources+=("$embedded")
        if [ "$module" = BuildInfo ]; then
            scripts/build-info.sh . "$objects/BuildInfo"
            sources+=("$objects/BuildInfo/BuildInfo+Generated.swift")
        fi
        if stale "$objects/$module.o" "${sources[@]}" "${previous[@]}" scripts/fuzz.sh; then
            echo "fuzz: compiling $module"
            "$swiftc" "${flags[@]}" -module-name "$module" -wmo -c "${sources[@]}" \
                -emit-module -emit-module-path "$objects/$module.swiftmodule" -o "$objects/$module.o"
            touch "$objects/$module.o"  # swiftc leaves an unchanged object as it was
        fi
        previous+=("$objects/$module.o")
    done
    if stale "$binary" Fuzz/*.swift "${previous[@]}"; then
        echo "fuzz: linking $binary"
        "$swiftc" "${flags[@]}" -module-name AlertFuzz -use-ld=lld Fuzz/*.swift "${previous[@]}" -lmicrohttpd \
            -o "$binary"
    fi
}

# libFuzzer and ASan settings shared by run and replay: a broken invariant traps (a crash); inputs up
# to 70000 bytes cover the 64 KiB body limit with room for the target and headers; an input taking
# 10 s is a finding. Leaks: LeakSanitizer checks at exit. `run` turns off libFuzzer's check after each
# input (-detect_leaks=0): the long-lived store keeps memory from one input to the next, so nearly
# every input looked like a leak and had the whole heap scanned, which cut the rate 15-fold.
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:halt_on_error=1}
# Swift's own backtracer would race libFuzzer's crash handler (and trip ASan reading memory).
export SWIFT_BACKTRACE=${SWIFT_BACKTRACE:-enable=no}
common=(-max_len=70000 -timeout=10 -rss_limit_mb=2048 -print_final_stats=1)

case ${1:-} in
build)
    build
    ;;
run)
    seconds=${2:?usage: $0 run SECONDS}
    build
    artifacts=$scratch/artifacts/$(date +%Y%m%d-%H%M%S)
    mkdir -p "$scratch/corpus" "$artifacts"
    seeds=(Fuzz/corpus)
    [ -d Fuzz/crashers ] && seeds+=(Fuzz/crashers)
    parallel=()
    [ "${FUZZ_JOBS:-1}" -gt 1 ] && parallel=(-fork="$FUZZ_JOBS" -ignore_crashes=0)
    echo "fuzz: running $binary for $seconds s (corpus $scratch/corpus, findings to $artifacts/)"
    status=0
    # shellcheck disable=SC2086 # FUZZ_FLAGS is a list of flags
    "$binary" "${common[@]}" "${parallel[@]}" -max_total_time="$seconds" -detect_leaks=0 \
        -artifact_prefix="$artifacts/" -dict=Fuzz/alertd.dict ${FUZZ_FLAGS:-} "$scratch/corpus" "${seeds[@]}" \
        || status=$?
    if [ "$status" -ne 0 ] || [ -n "$(ls -A "$artifacts")" ]; then
        echo "fuzz: found a failing input (exit $status): $artifacts/ and the report above" >&2
        echo "fuzz: reproduce with $binary FILE (ALERTD_FUZZ_TRACE=1 shows how far it gets);" \
            "once fixed, keep it in Fuzz/crashers" >&2
        exit 1
    fi
    rmdir "$artifacts"
    echo "fuzz: no finding in $seconds s"
    ;;
replay)
    shift
    build
    files=("$@")
    if [ ${#files[@]} -eq 0 ]; then
        files=(Fuzz/corpus/*)
        [ -d Fuzz/crashers ] && files+=(Fuzz/crashers/*)
    fi
    "$binary" "${common[@]}" "${files[@]}"
    ;;
*)
    echo "usage: $0 build | run SECONDS | replay [FILE...]" >&2
    exit 2
    ;;
esac
