// swift-tools-version: 6.0
import PackageDescription

// The benchmark harness: a package of its own, so `swift test` at the root never builds or runs
// it. It depends on Stratus at the root of this checkout by path. Build and run it in release
// mode (see Docs/Performance.md at the root):
//
//     swift build -c release --package-path Benchmarks --scratch-path Benchmarks/.build-bench
//     Benchmarks/.build-bench/release/stratus-bench --backends sqlite,memory --out Benchmarks/results
let package = Package(
    name: "StratusBenchmarks",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "stratus-bench", targets: ["StratusBench"])
    ],
    dependencies: [
        .package(name: "Stratus", path: ".."),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
    ],
    targets: [
        // The C APIs of the raw baselines. The root's StratusCSQLite, StratusCLMDB and
        // StratusCLibPQ are not products, so the harness declares its own modules (prefixed, to
        // avoid colliding).
        .systemLibrary(
            name: "StratusBenchCSQLite",
            path: "Sources/StratusBenchCSQLite",
            pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"])]
        ),
        .systemLibrary(
            name: "StratusBenchCLMDB",
            path: "Sources/StratusBenchCLMDB",
            pkgConfig: "lmdb",
            providers: [.apt(["liblmdb-dev"])]
        ),
        .systemLibrary(
            name: "StratusBenchCLibPQ",
            path: "Sources/StratusBenchCLibPQ",
            pkgConfig: "libpq",
            providers: [.apt(["libpq-dev"])]
        ),
        .executableTarget(
            name: "StratusBench",
            dependencies: [
                "StratusBenchCSQLite",
                "StratusBenchCLMDB",
                "StratusBenchCLibPQ",
                .product(name: "Stratus", package: "Stratus"),
                .product(name: "StratusBackend", package: "Stratus"),
                .product(name: "StratusSQLite", package: "Stratus"),
                .product(name: "StratusInMemory", package: "Stratus"),
                .product(name: "StratusLMDB", package: "Stratus"),
                .product(name: "StratusPostgreSQL", package: "Stratus"),
                .product(name: "StratusServer", package: "Stratus"),
                .product(name: "StratusRemote", package: "Stratus"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: [.enableUpcomingFeature("ExistentialAny")]
        ),
    ]
)
