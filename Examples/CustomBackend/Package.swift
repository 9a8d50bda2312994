// swift-tools-version: 6.0
import PackageDescription

// A custom Stratus backend in a package of its own, as a backend author would write it: the
// library imports only `StratusBackend`; the tests add the conformance suite and, to show the
// whole path, the CloudKit API. See Sources/StratusBackend/StratusBackend.docc/ImplementingABackend.md at the root of the repository.
let package = Package(
    name: "CustomBackend",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "CustomBackend", targets: ["CustomBackend"])
    ],
    dependencies: [
        // Stratus itself, from the enclosing checkout. A backend published on its own would
        // depend on a released version instead, e.g. `.package(url: …, from: "1.0.0")`.
        .package(name: "Stratus", path: "../..")
    ],
    targets: [
        // The backend: `SortedArrayBackend`. Only the SPI module, nothing else of Stratus.
        .target(
            name: "CustomBackend",
            dependencies: [.product(name: "StratusBackend", package: "Stratus")],
            swiftSettings: [.enableUpcomingFeature("ExistentialAny")]
        ),
        // The conformance suite against it, and a CKContainer over it.
        .testTarget(
            name: "CustomBackendTests",
            dependencies: [
                "CustomBackend",
                .product(name: "StratusBackend", package: "Stratus"),
                .product(name: "StratusConformance", package: "Stratus"),
                .product(name: "Stratus", package: "Stratus"),
            ],
            swiftSettings: [.enableUpcomingFeature("ExistentialAny")]
        ),
    ]
)
