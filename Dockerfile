# alertd image. Build: `make docker` (docker build -t alertd .). Run: docker run -p 8080:8080 alertd
# `make test` lints this file with hadolint and checks that its build stage follows what CI runs
# (scripts/docker-check.sh): the Swift version CI tests with, the packages scripts/deps.sh installs
# for a release build, and `make release`'s swift build command.

# ---- build: the steps of `make release` (scripts/deps.sh release, then swift build)
FROM swift:6.3.1-bookworm AS build
# Versions: the upstream releases alertd is tested with (Debian 12's), any Debian revision (security fixes).
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
      libmicrohttpd-dev=0.9.75-* libsqlite3-dev=3.40.1-* libpq-dev=15.* libncurses-dev=6.4-* pkg-config=1.8.1-* \
      libcurl4-openssl-dev=7.88.1-* \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /src
# Tests/ is needed too: SwiftPM refuses to load Package.swift when a declared test target's directory is missing.
COPY Package.swift openapi.yaml VERSION ./
COPY Plugins ./Plugins
COPY Sources ./Sources
COPY Tests ./Tests
COPY scripts/build-info.sh ./scripts/
# The context has no .git: `make docker` passes the revision for `--version` (else it reads "unknown").
ARG ALERTD_REVISION=
RUN swift build -c release --static-swift-stdlib \
 && bin="$(swift build -c release --static-swift-stdlib --show-bin-path)" \
 && install -D -m 0755 -t /out "$bin/alertd" "$bin/alertctl"

# ---- run: the two programs and the system libraries they load (libmicrohttpd, ncurses for the
# dashboard, libcurl for webhooks, SQLite for the journal, libpq for --database), curl for the health check
FROM debian:bookworm-slim
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
      libmicrohttpd12=0.9.75-* libsqlite3-0=3.40.1-* libpq5=15.* libncursesw6=6.4-* libcurl4=7.88.1-* \
      curl=7.88.1-* \
 && rm -rf /var/lib/apt/lists/* \
 && useradd --system --uid 10001 --user-group --no-create-home --home-dir /nonexistent \
      --shell /usr/sbin/nologin alertd \
 && install -d -o 10001 -g 10001 -m 0750 /var/lib/alertd
COPY --from=build /out/alertd /out/alertctl /usr/local/bin/
COPY deploy/docker-healthcheck.sh /usr/local/bin/alertd-healthcheck
ENV ALERTD_HOST=0.0.0.0 \
    ALERTD_PORT=8080 \
    ALERTD_DATA_DIR=/var/lib/alertd
VOLUME ["/var/lib/alertd"]
EXPOSE 8080
# Probes /healthz on the port alertd listens on: its --port when given, else ALERTD_PORT.
HEALTHCHECK --interval=30s --timeout=3s CMD ["alertd-healthcheck"]
# Numeric, so that Kubernetes' runAsNonRoot can verify it.
USER 10001:10001
ENTRYPOINT ["alertd"]
