// swift-tools-version: 6.0
import PackageDescription

let strictSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
]

let package = Package(
    name: "Escrow",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "escrow", targets: ["EscrowCLI"]),
        .executable(name: "escrow-compute", targets: ["EscrowComputeServer"]),
        .library(name: "Escrow", targets: ["Escrow"]),
        .library(name: "EscrowHost", targets: ["EscrowHost"]),
        .library(name: "EscrowFunctions", targets: ["EscrowFunctions"]),
        .library(name: "EscrowCore", targets: ["EscrowCore"]),
        .library(name: "EscrowStore", targets: ["EscrowStore"]),
        .library(name: "EscrowRPC", targets: ["EscrowRPC"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", exact: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", exact: "1.16.2"),
        .package(url: "https://github.com/apple/swift-crypto", exact: "3.12.3"),
        .package(url: "https://github.com/apple/swift-protobuf", exact: "1.39.0"),
        .package(url: "https://github.com/apple/swift-nio", exact: "2.101.3"),
        .package(url: "https://github.com/apple/swift-nio-ssl", exact: "2.37.6"),
    ],
    targets: [
        .systemLibrary(name: "CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
        .systemLibrary(name: "CExif", pkgConfig: "libexif", providers: [.apt(["libexif-dev"])]),
        .systemLibrary(name: "CTurboJPEG", pkgConfig: "libturbojpeg", providers: [.apt(["libturbojpeg0-dev"])]),
        .systemLibrary(name: "CPNG", pkgConfig: "libpng", providers: [.apt(["libpng-dev"])]),

        // Build-time code generation: function code digests and the embedded schema migrations.
        .executableTarget(name: "EscrowCodegen", dependencies: ["CSQLite"], path: "Sources/EscrowCodegen"),
        .plugin(name: "FunctionDigestsPlugin", capability: .buildTool(), dependencies: ["EscrowCodegen"]),
        .plugin(name: "SchemaEmbedPlugin", capability: .buildTool(), dependencies: ["EscrowCodegen"]),

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
        .target(
            name: "EscrowNetwork",
            dependencies: [
                "EscrowCore",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ],
            swiftSettings: strictSettings
        ),
        // mallopt(3) is not in Swift's Glibc module; two lines of C reach it (MemoryTuning.swift).
        .target(name: "CMallocTuning"),
        .target(
            name: "EscrowRPC",
            dependencies: [
                "EscrowCore", "EscrowNetwork", "CMallocTuning",
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
        .target(
            name: "EscrowFunctions",
            dependencies: ["EscrowCore", "CTurboJPEG", "CPNG", .product(name: "Crypto", package: "swift-crypto")],
            swiftSettings: strictSettings,
            plugins: ["FunctionDigestsPlugin"]
        ),
        .target(
            name: "EscrowHost",
            dependencies: [
                "CSQLite", "EscrowCore", "EscrowStore", "EscrowFunctions", "EscrowRPC", "EscrowNetwork",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            swiftSettings: strictSettings
        ),
        .target(
            name: "Escrow",
            dependencies: [
                "EscrowCore", "EscrowHost", "EscrowRPC", "EscrowStore",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            swiftSettings: strictSettings
        ),
        .executableTarget(
            name: "EscrowCLI",
            dependencies: [
                "EscrowHost", "EscrowStore", "EscrowCore", "EscrowFunctions", "EscrowRPC",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strictSettings
        ),

        .executableTarget(
            name: "EscrowComputeServer",
            dependencies: [
                "EscrowRPC", "EscrowFunctions", "EscrowCore",
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
            dependencies: ["Escrow", "EscrowCore", "EscrowFunctions"],
            path: "Examples/Weather",
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
            dependencies: ["EscrowCore", "EscrowStore", "EscrowHost", "EscrowRPC", "CTurboJPEG"],
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
            name: "EscrowRPCTests",
            dependencies: [
                "EscrowRPC", "EscrowCore", "EscrowFunctions", "EscrowTestSupport",
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
                "Escrow", "EscrowCore", "EscrowHost", "EscrowStore", "EscrowFunctions", "EscrowRPC", "EscrowTestSupport",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            swiftSettings: strictSettings
        ),
        .testTarget(name: "EscrowCoreTests", dependencies: ["EscrowCore", "EscrowTestSupport"], swiftSettings: strictSettings),
        .testTarget(
            name: "EscrowNetworkTests",
            dependencies: ["EscrowNetwork", "EscrowCore", "EscrowTestSupport"],
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
                "EscrowHost", "EscrowStore", "EscrowCore", "EscrowFunctions", "EscrowRPC", "EscrowTestSupport", "CSQLite",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "SwiftProtobuf", package: "swift-protobuf"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "EscrowCLITests",
            dependencies: ["EscrowTestSupport", "EscrowCore"],
            swiftSettings: strictSettings
        ),
    ]
)
