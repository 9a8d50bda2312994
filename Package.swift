// swift-tools-version: 6.0
import PackageDescription

/// One settings list for every target: Swift 6 language mode (the tools-version default),
/// strict concurrency, and explicit `any` for existentials.
let strictSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny")
]

let package = Package(
    name: "Stratus",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "Stratus", targets: ["Stratus"]),
        .library(name: "StratusBackend", targets: ["StratusBackend"]),
        .library(name: "StratusConformance", targets: ["StratusConformance"]),
        .library(name: "StratusSQLite", targets: ["StratusSQLite"]),
        .library(name: "StratusLMDB", targets: ["StratusLMDB"]),
        .library(name: "StratusInMemory", targets: ["StratusInMemory"]),
        .library(name: "StratusPostgreSQL", targets: ["StratusPostgreSQL"]),
        .library(name: "StratusConfiguration", targets: ["StratusConfiguration"]),
        .executable(name: "stratus", targets: ["StratusCLI"]),
        .library(name: "StratusWebServices", targets: ["StratusWebServices"]),
        .library(name: "StratusServer", targets: ["StratusServer"]),
        .executable(name: "stratusd", targets: ["stratusd"]),
        .library(name: "StratusRemote", targets: ["StratusRemote"]),
        .library(name: "StratusSchema", targets: ["StratusSchema"]),
    ],
    dependencies: [
        // Configuration files and environment overrides (JSON provider: the default trait only).
        .package(url: "https://github.com/apple/swift-configuration", from: "1.4.0"),
        .package(url: "https://github.com/apple/swift-system", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        // Structured logging: libraries take a `Logger`; only the `stratus` tool bootstraps.
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        // `swift package generate-documentation`: the DocC catalogs (scripts/docs.sh).
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
        // stratusd's HTTP server (graceful shutdown through swift-service-lifecycle).
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        // Graceful shutdown reaching stratusd's waiting long-polls and event streams (0014).
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        // SHA-256 of stored credentials (decision 0013), never hand-written cryptography.
        .package(url: "https://github.com/apple/swift-crypto", "3.12.3"..<"5.0.0"),
        // stratusd's metrics (decision 0013.7): the API, and the Prometheus text the daemon serves.
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        // Remote containers' HTTP client (decision 0016.3): pooling, keep-alive, TLS, timeouts.
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        // Its futures, buffers and errors, which a remote call waits on and maps.
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        // The trust roots of a remote container's TLS (a private CA or a self-signed stratusd).
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.37.6"),
    ],
    targets: [
        // The SPI: the only module a backend imports.
        .target(
            name: "StratusBackend",
            dependencies: [.product(name: "Logging", package: "swift-log")],
            swiftSettings: strictSettings
        ),
        // NSPredicate(format:) / NSSortDescriptor(key:ascending:) for Linux, and the predicate AST.
        .target(name: "StratusPredicate", swiftSettings: strictSettings),
        // The CloudKit Schema Language: the schema model, its parser and printer, and the
        // production rules (Docs/SchemaLanguage.md). No dependency on the engine.
        .target(name: "StratusSchema", swiftSettings: strictSettings),
        // The CloudKit API and the operation engine.
        .target(
            name: "Stratus",
            dependencies: ["StratusBackend", "StratusPredicate", "StratusSchema"],
            swiftSettings: strictSettings
        ),
        // The conformance suite, as a library: no XCTest, no Swift Testing.
        .target(
            name: "StratusConformance",
            dependencies: ["Stratus", "StratusBackend", "StratusSchema"],
            swiftSettings: strictSettings
        ),
        // Backends.
        .target(
            name: "StratusInMemory",
            dependencies: ["StratusBackend"],
            path: "Backends/InMemory/StratusInMemory",
            swiftSettings: strictSettings
        ),
        .systemLibrary(
            name: "StratusCSQLite",
            path: "Backends/SQLite/StratusCSQLite",
            pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"])]
        ),
        .target(
            name: "StratusSQLite",
            dependencies: ["StratusBackend", "StratusCSQLite"],
            path: "Backends/SQLite/StratusSQLite",
            swiftSettings: strictSettings
        ),
        .systemLibrary(
            name: "StratusCLMDB",
            path: "Backends/LMDB/StratusCLMDB",
            pkgConfig: "lmdb",
            providers: [.apt(["liblmdb-dev"])]
        ),
        .target(
            name: "StratusLMDB",
            dependencies: ["StratusBackend", "StratusCLMDB"],
            path: "Backends/LMDB/StratusLMDB",
            swiftSettings: strictSettings
        ),
        .systemLibrary(
            name: "StratusCLibPQ",
            path: "Backends/PostgreSQL/StratusCLibPQ",
            pkgConfig: "libpq",
            providers: [.apt(["libpq-dev"])]
        ),
        .target(
            name: "StratusPostgreSQL",
            dependencies: ["StratusBackend", "StratusCLibPQ"],
            path: "Backends/PostgreSQL/StratusPostgreSQL",
            swiftSettings: strictSettings
        ),
        // Choosing a backend in configuration: a file plus STRATUS_* environment overrides.
        .target(
            name: "StratusConfiguration",
            dependencies: [
                "Stratus", "StratusBackend", "StratusSQLite", "StratusInMemory", "StratusLMDB",
                // A remote default container when `server` is configured (decision 0016.4).
                "StratusRemote",
                .product(name: "Configuration", package: "swift-configuration"),
                .product(name: "SystemPackage", package: "swift-system"),
            ],
            swiftSettings: strictSettings
        ),
        // The `stratus` command-line tool.
        .executableTarget(
            name: "StratusCLI",
            dependencies: [
                "Stratus", "StratusBackend", "StratusConfiguration", "StratusConformance", "StratusSQLite",
                "StratusWebServices", "StratusRemote",
                "StratusInMemory", "StratusPostgreSQL", "StratusSchema",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: strictSettings
        ),
        // CloudKit Web Services JSON both ways (decision 0016.2): the server's requests and answers,
        // and a client's. No HTTP library: the server and a client bring their own.
        .target(
            name: "StratusWebServices",
            dependencies: ["Stratus"],
            swiftSettings: strictSettings
        ),
        // glibc's mallopt, for stratusd's allocator settings.
        .systemLibrary(name: "StratusCMalloc", path: "Sources/StratusCMalloc"),
        // stratusd: CloudKit Web Services over the engine (decision 0012), and its executable.
        .target(
            name: "StratusServer",
            dependencies: [
                "Stratus", "StratusBackend", "StratusWebServices", "StratusCMalloc", "StratusSchema",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTLS", package: "hummingbird"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Metrics", package: "swift-metrics"),
            ],
            swiftSettings: strictSettings
        ),
        .executableTarget(
            name: "stratusd",
            dependencies: [
                "StratusServer", "Stratus", "StratusBackend", "StratusConfiguration", "StratusPostgreSQL",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
            ],
            swiftSettings: strictSettings
        ),
        // Remote containers: the CloudKit API against a stratusd (decision 0016).
        .target(
            name: "StratusRemote",
            dependencies: [
                "Stratus", "StratusBackend", "StratusWebServices",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ],
            swiftSettings: strictSettings
        ),
        // Tests.
        .target(
            name: "StratusTestSupport",
            dependencies: [
                "Stratus", "StratusBackend", "StratusInMemory", "StratusConformance", "StratusConfiguration",
                "StratusPostgreSQL",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "InMemoryLogging", package: "swift-log"),
            ],
            path: "Tests/StratusTestSupport",
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "StratusBackendTests",
            dependencies: ["StratusBackend"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "StratusConfigurationTests",
            dependencies: [
                "StratusConfiguration", "StratusBackend", "StratusSQLite", "StratusInMemory",
                // A remote default container against a stratusd on loopback.
                "Stratus", "StratusRemote", "StratusTestSupport", "stratusd",
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: strictSettings
        ),
        // Runs the built `stratus` executable against temporary stores, and against a `stratusd`
        // on loopback with --server.
        .testTarget(
            name: "StratusCLITests",
            dependencies: [
                "StratusCLI", "Stratus", "StratusConformance", "StratusSQLite", "StratusTestSupport", "stratusd",
                // The schema verbs through stratusd sign with a server-to-server key.
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "StratusSchemaTests",
            dependencies: ["StratusSchema"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "StratusPredicateTests",
            dependencies: ["StratusPredicate"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "StratusTests",
            dependencies: ["Stratus", "StratusInMemory", "StratusTestSupport", "StratusSchema"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "StratusConformanceTests",
            dependencies: ["StratusConformance", "StratusInMemory", "StratusBackend", "StratusTestSupport"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "StratusInMemoryTests",
            dependencies: ["StratusInMemory", "StratusConformance", "StratusTestSupport"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "StratusSQLiteTests",
            dependencies: [
                "Stratus", "StratusSQLite", "StratusConformance", "StratusTestSupport", "StratusTestProbe",
                // NamespaceTests run on every backend.
                "StratusLMDB", "StratusPostgreSQL", "StratusSchema",
            ],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "StratusLMDBTests",
            dependencies: ["Stratus", "StratusLMDB", "StratusConformance", "StratusTestSupport", "StratusTestProbe"],
            swiftSettings: strictSettings
        ),
        // Needs a PostgreSQL server: STRATUS_TEST_POSTGRES_URL (scripts/test.sh starts one).
        .testTarget(
            name: "StratusPostgreSQLTests",
            dependencies: [
                "Stratus", "StratusPostgreSQL", "StratusBackend", "StratusConformance", "StratusTestSupport",
            ],
            swiftSettings: strictSettings
        ),
        // Client code written for Apple's CloudKit, compiled in Swift 6 mode with warnings as
        // errors (scripts/test.sh) and run on every backend: what real apps need to compile.
        .testTarget(
            name: "StratusClientPatternsTests",
            dependencies: ["Stratus", "StratusBackend", "StratusTestSupport"],
            swiftSettings: strictSettings
        ),
        // Starts the built `stratusd` on loopback and talks HTTP to it.
        .testTarget(
            name: "StratusServerTests",
            dependencies: [
                "stratusd", "StratusServer", "StratusWebServices", "Stratus", "StratusInMemory", "StratusSQLite",
                "StratusTestSupport",
                // Two stratusd on one PostgreSQL (notification tests, decision 0014.6).
                "StratusPostgreSQL",
                // Signing keys for the server-to-server tests (decision 0013.5).
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "MetricsTestKit", package: "swift-metrics"),
            ],
            swiftSettings: strictSettings
        ),
        // Remote containers against a stratusd started on loopback.
        .testTarget(
            name: "StratusRemoteTests",
            dependencies: [
                "stratusd", "StratusRemote", "Stratus", "StratusServer", "StratusConformance", "StratusInMemory",
                "StratusWebServices",
                "StratusSQLite", "StratusLMDB", "StratusPostgreSQL", "StratusTestSupport", "StratusTestProbe",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: strictSettings
        ),
        // CKSyncEngine: two devices on one store, on every backend (PostgreSQL through
        // STRATUS_TEST_POSTGRES_URL), and the engine's event order and bookkeeping.
        .testTarget(
            name: "StratusSyncEngineTests",
            dependencies: [
                "Stratus", "StratusBackend", "StratusConfiguration", "StratusPostgreSQL", "StratusTestSupport",
                // A device process killed in the middle of a send (sync-engine-device).
                "StratusTestProbe",
                // The engine over remote containers, against a stratusd on loopback.
                "StratusRemote", "stratusd",
            ],
            swiftSettings: strictSettings
        ),
        // The API check: Stratus's symbol graph against Apple's declarations (Tests/APICheck).
        // The JSON layer and the record translators, without a server.
        .testTarget(
            name: "StratusWebServicesTests",
            dependencies: ["StratusWebServices", "Stratus", "StratusInMemory"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "StratusAPICheckTests",
            dependencies: ["Stratus", "StratusTestSupport"],
            swiftSettings: strictSettings
        ),
        // A helper program the tests launch as separate processes (two writers on one store, a
        // writer killed mid-batch).
        .executableTarget(
            name: "StratusTestProbe",
            dependencies: [
                "Stratus", "StratusSQLite", "StratusLMDB", "StratusBackend", "StratusTestSupport", "StratusRemote",
            ],
            swiftSettings: strictSettings
        ),
    ]
)
