// swift-tools-version: 6.0
// libFuzzer harnesses for Escrow's parsers and decoders (docs/RELIABILITY.md).
//
// Built only with the fuzzer sanitizer, which supplies `main` (scripts/fuzz.sh):
//   swift build --package-path Fuzz -c release -Xswiftc -sanitize=fuzzer,address
// Each harness is an executable target whose `main` hands libFuzzer's driver its test function.
import PackageDescription

let strictSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
]

let package = Package(
    name: "EscrowFuzz",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "Escrow", path: ".."),
        // The versions the main package pins: the harnesses import these modules themselves.
        .package(url: "https://github.com/apple/swift-protobuf", exact: "1.39.0"),
        .package(url: "https://github.com/apple/swift-nio", exact: "2.101.3"),
    ],
    targets: [
        .executableTarget(
            name: "fuzz-envelope",
            dependencies: [
                .product(name: "EscrowWire", package: "Escrow"),
                .product(name: "EscrowCore", package: "Escrow"),
                .product(name: "SwiftProtobuf", package: "swift-protobuf"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                "FuzzSupport",
            ],
            path: "Sources/fuzz-envelope",
            swiftSettings: strictSettings
        ),
        .executableTarget(
            name: "fuzz-frame",
            dependencies: [
                .product(name: "EscrowWire", package: "Escrow"),
                .product(name: "EscrowCore", package: "Escrow"),
                .product(name: "SwiftProtobuf", package: "swift-protobuf"),
                "FuzzSupport",
            ],
            path: "Sources/fuzz-frame",
            swiftSettings: strictSettings
        ),
        .executableTarget(
            name: "fuzz-vcard",
            dependencies: [.product(name: "EscrowStore", package: "Escrow"), "FuzzSupport"],
            path: "Sources/fuzz-vcard",
            swiftSettings: strictSettings
        ),
        .executableTarget(
            name: "fuzz-gpx",
            dependencies: [.product(name: "EscrowStore", package: "Escrow"), "FuzzSupport"],
            path: "Sources/fuzz-gpx",
            swiftSettings: strictSettings
        ),
        .executableTarget(
            name: "fuzz-geojson",
            dependencies: [.product(name: "EscrowStore", package: "Escrow"), "FuzzSupport"],
            path: "Sources/fuzz-geojson",
            swiftSettings: strictSettings
        ),
        .executableTarget(
            name: "fuzz-csv",
            dependencies: [.product(name: "EscrowStore", package: "Escrow"), "FuzzSupport"],
            path: "Sources/fuzz-csv",
            swiftSettings: strictSettings
        ),
        .executableTarget(
            name: "fuzz-sql",
            dependencies: [.product(name: "EscrowHost", package: "Escrow"), .product(name: "EscrowCore", package: "Escrow"), "FuzzSupport"],
            path: "Sources/fuzz-sql",
            swiftSettings: strictSettings
        ),
        // What every harness needs: the input as bytes, and a check that stops the fuzzer on a broken invariant.
        .target(
            name: "FuzzSupport",
            dependencies: [.product(name: "EscrowStore", package: "Escrow"), "CLibFuzzer"],
            path: "Sources/FuzzSupport",
            swiftSettings: strictSettings
        ),
        .target(name: "CLibFuzzer", path: "Sources/CLibFuzzer"),
    ]
)
