// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "alertd",
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "alertd", targets: ["alertd"]),
        .executable(name: "alertctl", targets: ["alertctl"]),
        .library(name: "AlertClient", targets: ["AlertClient"]),
        .library(name: "AlertCore", targets: ["AlertCore"]),
        .library(name: "AlertJournal", targets: ["AlertJournal"]),
        .library(name: "MicroHTTP", targets: ["MicroHTTP"]),
        .library(name: "AlertCluster", targets: ["AlertCluster"]),
    ],
    targets: [
        // C: libmicrohttpd from the system (Debian: libmicrohttpd-dev).
        .systemLibrary(
            name: "CMicroHTTPD",
            pkgConfig: "libmicrohttpd",
            providers: [.apt(["libmicrohttpd-dev"])]
        ),
        // C: SQLite from the system (Debian: libsqlite3-dev), for the journal.
        .systemLibrary(
            name: "CSQLite",
            pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"])]
        ),
        // C: libpq from the system (Debian: libpq-dev), for several instances on one PostgreSQL.
        .systemLibrary(
            name: "CLibPQ",
            pkgConfig: "libpq",
            providers: [.apt(["libpq-dev"])]
        ),
        // `Synchronization.Mutex`, or a mutex ThreadSanitizer can see in a `make tsan` build (Lock.swift).
        .target(name: "Locking"),
        // JSON: a byte-level parser and a streaming writer, shared by the API, the journal and alertctl.
        .target(name: "JSON"),
        // The one command-line parser of alertd and alertctl: options declared once (help, default, variable), --help
        // rendered from them, durations with units and did-you-mean suggestions.
        .target(name: "CommandLineText"),
        // The version (VERSION) and the git revision, fixed at build time for --version and the webhook User-Agent.
        .target(name: "BuildInfo", plugins: ["EmbedBuildInfo"]),
        // System calls made again when a signal interrupts them, their errno a typed error, for every module that
        // calls POSIX itself (the transport, the log sink, the webhook client). No dependencies: anything may use it.
        .target(name: "SystemCalls"),
        // Transport only: knows HTTP and libmicrohttpd, nothing of alerts.
        .target(name: "MicroHTTP", dependencies: ["CMicroHTTPD", "Locking", "SystemCalls"]),
        // The alerts and their store, knowing nothing of HTTP, JSON or SQL. Model/: alerts, buttons, fields, drafts,
        // answers and results, ids, and the rules a draft must pass (limits, validation, who may answer); Store/: the
        // AlertStore actor with its table, waiting, resolution, the timer, the journal and authority interfaces.
        .target(name: "AlertCore", dependencies: ["Locking"]),
        // Alerts, drafts and results as stored JSON, and stored times: one codec for the journal and the cluster.
        .target(name: "AlertCodec", dependencies: ["AlertCore", "JSON"]),
        // The store's journal in SQLite: group commit on a writer thread, and the image a restart restores.
        .target(
            name: "AlertJournal", dependencies: ["AlertCodec", "AlertCore", "CSQLite", "JSON", "Locking"]
        ),
        // Routes: HTTP <-> store, JSON shapes, problem+json errors; webhook deliveries. Knows the store's interface,
        // not SQLite or PostgreSQL.
        .target(
            name: "AlertAPI",
            dependencies: [
                "MicroHTTP", "AlertCore", "AlertMCP", "BuildInfo", "JSON", "Locking", "SystemCalls",
            ],
            exclude: ["App/app.css"],
            plugins: ["EmbedResource"]
        ),
        // Several instances on one PostgreSQL: the database decides every change, each instance's store is a cache.
        .target(name: "AlertCluster", dependencies: ["AlertCodec", "AlertCore", "CLibPQ", "Locking"]),
        // The composition root: the configuration and its command line; builds the log sink, the journal or the
        // cluster, the store, the webhook sender, the API and the HTTP server (`AlertdApp`), for alertd and the tests.
        .target(
            name: "AlertServer",
            dependencies: [
                "AlertAPI", "AlertCluster", "AlertCore", "AlertJournal", "BuildInfo", "CommandLineText",
                "Locking", "MicroHTTP",
            ]
        ),
        .executableTarget(name: "alertd", dependencies: ["AlertJournal", "AlertServer", "CommandLineText", "MicroHTTP"]),

        // MCP for agents: JSON-RPC 2.0, the MCP server and its tools over an `AlertBackend`, for any transport (stdio in
        // alertctl, Streamable HTTP in alertd). Knows no alert model, no HTTP and no store.
        .target(name: "AlertMCP", dependencies: ["JSON", "Locking"]),

        // The seeds' AlertController API over HTTP; no server types, only JSON.
        .target(name: "AlertClient", dependencies: ["Locking"]),
        // C: ncurses with wide characters (Debian: libncurses-dev), for the dashboard. No pkgConfig:
        // ncursesw's .pc adds feature macros SwiftPM refuses; the header path is the standard one.
        .systemLibrary(name: "CNCurses"),
        .executableTarget(
            name: "alertctl",
            dependencies: ["AlertClient", "AlertMCP", "BuildInfo", "CNCurses", "CommandLineText", "JSON", "Locking", "SystemCalls"]
        ),

        // Build tool: embeds the top-level openapi.yaml into AlertAPI so the server serves the spec it ships with.
        .executableTarget(name: "embed-resource", path: "Sources/embed-resource"),
        .plugin(name: "EmbedResource", capability: .buildTool(), dependencies: ["embed-resource"]),
        // Build tool: runs scripts/build-info.sh before each build (the git revision has no input file to watch).
        .plugin(name: "EmbedBuildInfo", capability: .buildTool()),

        // Test support: a raw HTTP/1.1 client over POSIX sockets, shared by the test targets.
        .target(name: "HTTPTestSupport", dependencies: ["JSON", "Locking"], path: "Tests/HTTPTestSupport"),
        // Test support: a live alertd in the test process, shared by the integration test targets.
        .target(
            name: "AlertdTestSupport", dependencies: ["AlertJournal", "AlertServer", "HTTPTestSupport", "MicroHTTP"],
            path: "Tests/AlertdTestSupport"
        ),
        .testTarget(name: "MicroHTTPTests", dependencies: ["MicroHTTP", "HTTPTestSupport", "SystemCalls"]),
        .testTarget(name: "AlertMCPTests", dependencies: ["AlertMCP", "JSON", "Locking"]),
        .testTarget(name: "AlertCoreTests", dependencies: ["AlertCore", "HTTPTestSupport", "Locking"]),
        .testTarget(
            name: "AlertJournalTests",
            dependencies: ["AlertJournal", "AlertCore", "CSQLite", "HTTPTestSupport", "Locking"]
        ),
        .testTarget(name: "AlertAPITests", dependencies: ["AlertAPI", "AlertServer", "AlertCore", "BuildInfo", "JSON", "MicroHTTP", "HTTPTestSupport", "AlertdTestSupport", "Locking"]),
        .testTarget(name: "AlertClientTests", dependencies: ["AlertClient", "AlertAPI", "AlertServer", "HTTPTestSupport", "AlertdTestSupport", "Locking"]),
        .testTarget(
            name: "ClusterTests",
            dependencies: ["AlertCluster", "AlertCore", "HTTPTestSupport", "JSON", "Locking"]
        ),
        .testTarget(name: "AlertctlTests", dependencies: ["AlertAPI", "AlertServer", "HTTPTestSupport", "AlertdTestSupport", "Locking"]),
        // Durability (issue 12): the real alertd on a data dir, SIGKILLed under load and restarted; its refusals.
        .testTarget(name: "DurabilityTests", dependencies: ["HTTPTestSupport", "JSON", "Locking"]),
    ],
    swiftLanguageModes: [.v6]
)
