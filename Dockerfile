# alertd image. Build: `make docker` (docker build -t alertd .). Run: docker run -p 8080:8080 alertd

# ---- build: same steps as the README (libmicrohttpd and SQLite via apt, then swift build -c release)
FROM swift:6.1-bookworm AS build
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends libmicrohttpd-dev libncurses-dev libsqlite3-dev pkg-config \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /src
# Tests/ is needed too: SwiftPM refuses to load Package.swift when a declared test target's directory is missing.
COPY Package.swift openapi.yaml ./
COPY Plugins ./Plugins
COPY Sources ./Sources
COPY Tests ./Tests
RUN swift build -c release --static-swift-stdlib --product alertd \
 && swift build -c release --static-swift-stdlib --product alertctl \
 && install -D -m 0755 "$(swift build -c release --show-bin-path)/alertd" /out/alertd \
 && install -D -m 0755 "$(swift build -c release --show-bin-path)/alertctl" /out/alertctl

# ---- run: the binary, libmicrohttpd's and SQLite's runtime libraries, curl for the health check
FROM debian:bookworm-slim
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends libmicrohttpd12 libncursesw6 libsqlite3-0 curl \
 && rm -rf /var/lib/apt/lists/* \
 && useradd --system --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin alertd
COPY --from=build /out/alertd /out/alertctl /usr/local/bin/
ENV ALERTD_HOST=0.0.0.0 \
    ALERTD_PORT=8080
EXPOSE 8080
HEALTHCHECK --interval=30s --timeout=3s CMD curl -fsS "http://127.0.0.1:${ALERTD_PORT:-8080}/healthz" || exit 1
USER alertd
ENTRYPOINT ["alertd"]
