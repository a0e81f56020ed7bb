// swift-tools-version: 6.0
import PackageDescription

let strictSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
]

// C shims are held to the same bar as the Swift targets: every warning is an error.
let strictCSettings: [CSetting] = [
    .unsafeFlags(["-Wall", "-Wextra", "-Wpedantic", "-Werror", "-std=c11"]),
]

let package = Package(
    name: "Escrow",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "escrow", targets: ["EscrowCLI"]),
        .executable(name: "escrow-compute", targets: ["EscrowComputeServer"]),
        // The SDK an app links: a client of the escrow daemon, no host inside.
        .library(name: "Escrow", targets: ["Escrow", "EscrowCore"]),
        // The host in the app's own process (`Escrow.embedded`), for tools that choose to link it.
        .library(name: "EscrowEmbedded", targets: ["EscrowEmbedded"]),
        .library(name: "EscrowHost", targets: ["EscrowHost"]),
        .library(name: "EscrowDaemon", targets: ["EscrowDaemon"]),
        .library(name: "EscrowComputeRuntime", targets: ["EscrowComputeRuntime"]),
        .library(name: "EscrowFunctions", targets: ["EscrowFunctions"]),
        .library(name: "EscrowCore", targets: ["EscrowCore"]),
        .library(name: "EscrowStore", targets: ["EscrowStore"]),
        .library(name: "EscrowWire", targets: ["EscrowWire"]),
        .library(name: "EscrowEgress", targets: ["EscrowEgress"]),
        // The compute functions' HTTP client, a product for escrow-bench's client comparison.
        .library(name: "EscrowNetwork", targets: ["EscrowNetwork"]),
        .library(name: "EscrowReports", targets: ["EscrowReports"]),
        .library(name: "EscrowLocation", targets: ["EscrowLocation"]),
        .library(name: "EscrowModules", targets: ["EscrowModules"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", exact: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", exact: "1.16.2"),
        .package(url: "https://github.com/apple/swift-crypto", exact: "3.12.3"),
        .package(url: "https://github.com/apple/swift-protobuf", exact: "1.39.0"),
        .package(url: "https://github.com/apple/swift-nio", exact: "2.101.3"),
        .package(url: "https://github.com/apple/swift-nio-ssl", exact: "2.37.6"),
        .package(url: "https://github.com/swiftwasm/WasmKit", exact: "0.4.2"),
        .package(url: "https://github.com/apple/swift-metrics", exact: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", exact: "2.4.1"),
    ],
    targets: [
        .systemLibrary(name: "CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
        .systemLibrary(name: "CExif", pkgConfig: "libexif", providers: [.apt(["libexif-dev"])]),
        .systemLibrary(name: "CTurboJPEG", pkgConfig: "libturbojpeg", providers: [.apt(["libturbojpeg0-dev"])]),
        .systemLibrary(name: "CPNG", pkgConfig: "libpng", providers: [.apt(["libpng-dev"])]),

        // Build-time code generation: function code digests, the embedded schema migrations, the
        // embedded place table.
        .executableTarget(name: "EscrowCodegen", dependencies: ["CSQLite"], path: "Sources/EscrowCodegen",
                          swiftSettings: strictSettings),
        .plugin(name: "FunctionDigestsPlugin", capability: .buildTool(), dependencies: ["EscrowCodegen"]),
        .plugin(name: "SchemaEmbedPlugin", capability: .buildTool(), dependencies: ["EscrowCodegen"]),
        .plugin(name: "PlacesEmbedPlugin", capability: .buildTool(), dependencies: ["EscrowCodegen"]),

        .target(name: "EscrowCore", swiftSettings: strictSettings),
        .target(
            name: "EscrowStore",
            dependencies: [
                "CSQLite", "CExif", "EscrowCore",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: strictSettings,
            plugins: ["SchemaEmbedPlugin"]
        ),
        // Socket helpers both network sides share: connecting to IP literals, socket errors in words.
        .target(
            name: "EscrowSockets",
            dependencies: [
                "EscrowCore",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            swiftSettings: strictSettings
        ),
        .target(
            name: "EscrowNetwork",
            dependencies: [
                "EscrowCore", "EscrowSockets", "EscrowEgress",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ],
            swiftSettings: strictSettings
        ),
        // What leaves through compute code, by domain: host names, the Public Suffix List, tracker lists.
        .target(name: "EscrowEgress", dependencies: ["EscrowCore"], swiftSettings: strictSettings),
        // The egress reports over recorded requests: per-app metrics and ranks, co-occurrence, the
        // minimized export, the HTML transparency report. Plain values in, text out.
        .target(name: "EscrowReports", dependencies: ["EscrowCore", "EscrowEgress"], swiftSettings: strictSettings),
        // Location privacy's geometry (issue 15): points, great-circle distances and destinations,
        // the donut masked points are drawn from, the bundled GeoNames place table (embedded by
        // PlacesEmbedPlugin from Places/places.bin). Plain values, no storage.
        .target(name: "EscrowLocation", dependencies: [.product(name: "Crypto", package: "swift-crypto")],
                exclude: ["Places"], swiftSettings: strictSettings, plugins: ["PlacesEmbedPlugin"]),
        // mallopt(3) is not in Swift's Glibc module; two lines of C reach it (MemoryTuning.swift).
        .target(name: "CMallocTuning", cSettings: strictCSettings),
        .target(
            name: "EscrowWire",
            dependencies: [
                "EscrowCore", "EscrowSockets", "CMallocTuning",
                .product(name: "SwiftProtobuf", package: "swift-protobuf"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOTLS", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strictSettings
        ),
        // Compute modules (issue 16): WebAssembly an app brings, checked when added and run in
        // WasmKit's interpreter with the escrow's functions as its only imports, under limits.
        .target(
            name: "EscrowModules",
            dependencies: [
                "EscrowCore", "EscrowWire",
                .product(name: "WasmKit", package: "WasmKit"),
                .product(name: "WasmParser", package: "WasmKit"),
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: strictSettings
        ),
        .target(
            name: "EscrowComputeRuntime",
            dependencies: [
                "EscrowCore", "EscrowWire", "EscrowSockets", "EscrowNetwork", "EscrowEgress", "EscrowModules",
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "SwiftProtobuf", package: "swift-protobuf"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strictSettings
        ),
        .target(
            name: "EscrowFunctions",
            dependencies: ["EscrowCore", "CTurboJPEG", "CPNG", .product(name: "Crypto", package: "swift-crypto")],
            swiftSettings: strictSettings,
            plugins: ["FunctionDigestsPlugin"]
        ),
        .target(
            name: "EscrowHost",
            dependencies: [
                "CSQLite", "EscrowCore", "EscrowStore", "EscrowFunctions", "EscrowWire", "EscrowNetwork", "EscrowEgress",
                "EscrowReports", "EscrowLocation", "EscrowModules",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            swiftSettings: strictSettings
        ),
        .target(
            name: "EscrowDaemon",
            dependencies: [
                "EscrowCore", "EscrowStore", "EscrowHost", "EscrowWire",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "SwiftProtobuf", package: "swift-protobuf"),
            ],
            swiftSettings: strictSettings
        ),
        .target(
            name: "Escrow",
            dependencies: [
                "EscrowCore", "EscrowWire",
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            swiftSettings: strictSettings
        ),
        .target(
            name: "EscrowEmbedded",
            dependencies: [
                "Escrow", "EscrowCore", "EscrowHost", "EscrowStore",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strictSettings
        ),
        .executableTarget(
            name: "EscrowCLI",
            dependencies: [
                "EscrowHost", "EscrowDaemon", "EscrowStore", "EscrowCore", "EscrowFunctions", "EscrowWire",
                "EscrowEgress", "EscrowReports", "EscrowNetwork", "EscrowModules",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strictSettings
        ),

        .executableTarget(
            name: "EscrowComputeServer",
            dependencies: [
                "EscrowComputeRuntime", "EscrowWire", "EscrowFunctions", "EscrowCore", "EscrowNetwork", "EscrowModules",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strictSettings
        ),
        .executableTarget(
            name: "EscrowPlatform",
            dependencies: [
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            path: "Examples/Platform",
            swiftSettings: strictSettings
        ),
        .executableTarget(
            name: "EscrowWeatherApp",
            // The SDK alone: an app that links no host, no SQLite, no photo libraries.
            dependencies: ["Escrow", "EscrowCore"],
            path: "Examples/Weather",
            swiftSettings: strictSettings
        ),
        .executableTarget(
            name: "EscrowAreaApp",
            // An app that brings its own compute (a module), on the SDK alone.
            dependencies: ["Escrow", "EscrowCore"],
            path: "Examples/Area",
            swiftSettings: strictSettings
        ),
        .executableTarget(
            name: "EscrowContactDiscoveryApp",
            dependencies: ["Escrow", "EscrowCore", "EscrowFunctions"],
            path: "Examples/ContactDiscovery",
            swiftSettings: strictSettings
        ),
        .executableTarget(
            name: "EscrowNearbyArticlesApp",
            dependencies: ["Escrow", "EscrowCore", "EscrowFunctions"],
            path: "Examples/NearbyArticles",
            swiftSettings: strictSettings
        ),
        .executableTarget(
            name: "EscrowPhotoLabelsApp",
            dependencies: ["Escrow", "EscrowCore", "EscrowFunctions"],
            path: "Examples/PhotoLabels",
            swiftSettings: strictSettings
        ),
        .target(
            name: "EscrowTestSupport",
            dependencies: ["EscrowCore", "EscrowStore", "EscrowHost", "EscrowWire", "EscrowModules", "CTurboJPEG",
                           .product(name: "Logging", package: "swift-log")],
            path: "Tests/EscrowTestSupport",
            swiftSettings: strictSettings
        ),
        .executableTarget(
            name: "EscrowCrashProbe",
            dependencies: ["EscrowHost", "EscrowStore", .product(name: "Logging", package: "swift-log")],
            path: "Tests/EscrowCrashProbe",
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "EscrowWireTests",
            dependencies: [
                "EscrowWire", "EscrowCore", "EscrowTestSupport",
                .product(name: "SwiftProtobuf", package: "swift-protobuf"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "EscrowComputeRuntimeTests",
            dependencies: [
                "EscrowComputeRuntime", "EscrowWire", "EscrowSockets", "EscrowCore", "EscrowFunctions", "EscrowTestSupport",
                "EscrowModules",
                .product(name: "WAT", package: "WasmKit"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "SwiftProtobuf", package: "swift-protobuf"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "EscrowTests",
            dependencies: [
                "Escrow", "EscrowEmbedded", "EscrowCore", "EscrowHost", "EscrowDaemon", "EscrowStore", "EscrowFunctions",
                "EscrowWire", "EscrowTestSupport", "EscrowModules",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "EscrowModulesTests",
            dependencies: [
                "EscrowModules", "EscrowCore", "EscrowWire", "EscrowNetwork", "EscrowFunctions", "EscrowTestSupport",
                .product(name: "WAT", package: "WasmKit"),
            ],
            swiftSettings: strictSettings
        ),
        .testTarget(name: "EscrowEgressTests", dependencies: ["EscrowEgress", "EscrowCore"], swiftSettings: strictSettings),
        .testTarget(name: "EscrowLocationTests", dependencies: ["EscrowLocation", "EscrowTestSupport"], swiftSettings: strictSettings),
        .testTarget(name: "EscrowReportsTests", dependencies: ["EscrowReports", "EscrowEgress", "EscrowCore", "EscrowTestSupport"],
                    swiftSettings: strictSettings),
        .testTarget(name: "EscrowCoreTests", dependencies: ["EscrowCore", "EscrowTestSupport"], swiftSettings: strictSettings),
        .testTarget(
            name: "EscrowNetworkTests",
            dependencies: ["EscrowNetwork", "EscrowEgress", "EscrowCore", "EscrowTestSupport"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "EscrowStoreTests",
            dependencies: [
                "EscrowStore", "EscrowCore", "EscrowTestSupport", "CSQLite",
                .product(name: "Logging", package: "swift-log"),
            ],
            exclude: ["Fixtures"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "EscrowFunctionsTests",
            dependencies: ["EscrowFunctions", "EscrowCore", "EscrowTestSupport", .product(name: "Crypto", package: "swift-crypto")],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "EscrowHostTests",
            dependencies: [
                "EscrowHost", "EscrowDaemon", "EscrowStore", "EscrowCore", "EscrowFunctions", "EscrowWire",
                "EscrowEgress", "EscrowNetwork", "EscrowTestSupport", "CSQLite", "EscrowModules",
                .product(name: "WAT", package: "WasmKit"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "SwiftProtobuf", package: "swift-protobuf"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "EscrowCLITests",
            dependencies: [
                "EscrowTestSupport", "EscrowCore",
                .product(name: "WAT", package: "WasmKit"),
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: strictSettings
        ),
    ]
)
