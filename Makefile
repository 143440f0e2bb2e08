# alertd: build, run and test. `make` alone lists the targets.

SHELL := /bin/bash

# Find swift: the one on PATH, else the toolchain in /opt/swift (CI may not have it on PATH).
ifeq ($(shell command -v swift 2>/dev/null),)
  ifneq ($(wildcard /opt/swift/usr/bin/swift),)
    export PATH := $(PATH):/opt/swift/usr/bin
  endif
endif

SWIFT ?= swift
IMAGE ?= alertd
# make install: where, and a staging root for packagers (make install DESTDIR=/tmp/pkg PREFIX=/usr).
PREFIX ?= /usr/local
DESTDIR ?=
INSTALL ?= install


.DEFAULT_GOAL := help
.PHONY: help deps test-deps build release run cluster install uninstall test crash tsan asan clean docker

help:
	@echo "alertd targets:"
	@echo "  make deps     install what building needs via apt-get if missing (scripts/deps.sh); check swift"
	@echo "  make build    debug build (.build/debug/alertd)"
	@echo "  make release  release build, Swift runtime linked statically (.build/release/alertd)"
	@echo "  make run      release build, then serve (127.0.0.1:8080, alerts kept in DATA_DIR=.alertd-data; ARGS=... adds flags)"
	@echo "  make cluster  release build, then PostgreSQL, three alertd on it and nginx in front (scripts/cluster.sh)"
	@echo "  make install  release build, then alertd and alertctl into \$$(DESTDIR)\$$(PREFIX)/bin (PREFIX=$(PREFIX))"
	@echo "  make uninstall  remove them again"
	@echo "  make test     build everything (alertd included), swift test, then nginx, Dockerfile, systemd unit, schema, generated-client and MCP checks"
	@echo "  make crash    the crash test alone with N kills of alertd under load (N=500)"
	@echo "  make tsan     make test under ThreadSanitizer, built in .build-tsan; any report fails it"
	@echo "  make asan     make test under AddressSanitizer, built in .build-asan; any report fails it"
	@echo "  make fuzz     libFuzzer over request parsing for FUZZ_SECONDS (60), built in .build-fuzz; a crash fails it"
	@echo "  make bench    release build + C baseline, then the benchmarks vs the baseline (~9 min; docs/PERFORMANCE.md)"
	@echo "  make clean    remove .build (and .build-tsan, .build-asan)"
	@echo "  make docker   docker build -t $(IMAGE) ."
	@echo "  make help     this list"

deps:
	@command -v $(SWIFT) >/dev/null 2>&1 || { \
	  echo "deps: swift not found on PATH or in /opt/swift/usr/bin; install Swift 6 (https://swift.org/install) or set SWIFT=/path/to/swift" >&2; \
	  exit 1; }
	@scripts/deps.sh build

# The dashboard tests drive alertctl through a real terminal: tmux.
test-deps: deps
	@scripts/deps.sh test

build: deps
	$(SWIFT) build

# Release builds link the Swift runtime and Foundation statically (as the Docker image does): the process then
# maps only the code it uses, so alertd idles in about 20 MB instead of 27 (bench/results/HISTORY.md). Linking
# FoundationNetworking statically needs libcurl's development files (scripts/deps.sh release).
release: deps
	@scripts/deps.sh release
	$(SWIFT) build -c release --static-swift-stdlib

# alertd reads ALERTD_HOST/ALERTD_PORT (and the other ALERTD_* settings) itself;
# ARGS passes flags: make run ARGS="--port 9000 --max-pending 1000".
# Alerts are journaled in DATA_DIR (.alertd-data), so they survive a restart; DATA_DIR= runs memory only.
DATA_DIR ?= .alertd-data
run: release
	.build/release/alertd $(if $(DATA_DIR),--data-dir $(DATA_DIR)) $(ARGS)

# Several instances on one PostgreSQL (docs/CLUSTER.md): a fresh PostgreSQL cluster in
# CLUSTER_DIR (.alertd-cluster, git-ignored), alertd on 8081-8083 and nginx on CLUSTER_PORT (8080), until Ctrl-C.
cluster: release
	@scripts/deps.sh cluster
	scripts/cluster.sh

# The two programs, nothing else: the Swift runtime is linked in (release), libmicrohttpd, ncurses and libcurl are
# the system's. `make install` as root, or with PREFIX=$$HOME/.local; DESTDIR stages for a package.
install: release
	$(INSTALL) -d "$(DESTDIR)$(PREFIX)/bin"
	$(INSTALL) -m 0755 .build/release/alertd .build/release/alertctl "$(DESTDIR)$(PREFIX)/bin/"

uninstall:
	rm -f "$(DESTDIR)$(PREFIX)/bin/alertd" "$(DESTDIR)$(PREFIX)/bin/alertctl"

# `swift build --build-tests` builds every product, alertd and alertctl included: the
# integration tests spawn .build/debug/alertd and alertctl, which `swift test` does not build.
# Then one `swift test` per test target, one after another. Plain `swift test` (every target at
# once, as a contributor types it) passes too: the tests wait on what they can observe and bound their
# times against the fault they guard (Tests/HTTPTestSupport/TestTime.swift). One target at a time keeps
# the crash test's and the cluster's spawned servers from crowding the others on two cores.
TEST_TARGETS := AlertCoreTests AlertMCPTests AlertJournalTests MicroHTTPTests AlertAPITests AlertClientTests AlertctlTests DurabilityTests ClusterTests

test: test-deps
	$(SWIFT) build --build-tests
	@for target in $(TEST_TARGETS); do \
	  echo "== $$target"; \
	  $(SWIFT) test --skip-build --filter "^$$target\." || exit 1; \
	done
	@echo "== nginx (deploy/nginx.conf in front of alertd)"
	scripts/nginx-test.py
	@echo "== Dockerfile and install steps (hadolint, the steps CI runs, the health check, docs/OPERATIONS.md install lines, ignore files)"
	SWIFT="$(SWIFT)" scripts/docker-check.sh
	@echo "== systemd unit (deploy/alertd.service: systemd-analyze verify and security, its ExecStart)"
	scripts/systemd-check.sh
	@echo "== schemathesis (openapi.yaml against the live alertd)"
	scripts/schemathesis.sh
	@echo "== generated client (openapi-python-client from openapi.yaml, checked by openapi-core)"
	scripts/generated-client.sh
	@echo "== MCP (the MCP Python SDK against alertctl mcp and alertctl hook claude-code, with a real alertd)"
	scripts/mcp-test.sh
	@echo "== responder's page in headless Chromium (scripts/app_test.py: sign-in, answers, links, --notify)"
	scripts/app-test.sh

# The crash test of DurabilityTests alone, longer: alertd SIGKILLed N times under load (make test does 20).
N ?= 500
crash: test-deps
	$(SWIFT) build --build-tests
	ALERTD_CRASH_KILLS=$(N) $(SWIFT) test --skip-build --filter '^DurabilityTests\.CrashTests'

# The same test targets under ThreadSanitizer or AddressSanitizer, each built into a scratch path of its own
# (the spawned alertd and alertctl included); scripts/sanitize.sh says how reports fail the run.
tsan: test-deps
	SWIFT="$(SWIFT)" TEST_TARGETS="$(TEST_TARGETS)" scripts/sanitize.sh thread

asan: test-deps
	SWIFT="$(SWIFT)" TEST_TARGETS="$(TEST_TARGETS)" scripts/sanitize.sh address

clean:
	rm -rf .build .build-tsan .build-asan

# The build context has no .git: the revision goes in as a build argument (alertd --version shows it).
docker:
	docker build --build-arg ALERTD_REVISION="$$(git rev-parse --short=10 HEAD 2>/dev/null)" -t $(IMAGE) .

# The benchmarks of docs/PERFORMANCE.md: alertd vs a C libmicrohttpd baseline, on loopback.
# BENCH_SCRATCH=dir builds elsewhere than .build; BENCH_DURATION=s sets each wrk run (5); the other settings are at
# the top of bench/run.sh (BENCH_DATA_PARENT: where the durable runs' data dirs go; BENCH_ONLY=cluster: only the rows of
# three alertd on one PostgreSQL, bench/cluster.sh, about 3 minutes; BENCH_ONLY=store: the GET, POST and durable POST rows).
.PHONY: bench
bench: deps
	@scripts/deps.sh bench
	bench/run.sh

# The request fuzzer (docs/FUZZING.md): libFuzzer + AddressSanitizer over routing, query parameters, JSON,
# decoding, the create rules, answers and JSON writing. Built by scripts/fuzz.sh into .build-fuzz.
# make fuzz FUZZ_SECONDS=600 fuzzes longer; FUZZ_JOBS=2 runs two processes.
FUZZ_SECONDS ?= 60
.PHONY: fuzz
fuzz: deps
	SWIFT="$(SWIFT)" scripts/fuzz.sh run $(FUZZ_SECONDS)
