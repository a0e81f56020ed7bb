// swift-tools-version: 6.0
import PackageDescription

// The benchmarks live in their own package so the main package's test build stays small.
// Run: swift run -c release --package-path Benchmarks escrow-bench [--quick] [--json FILE]

let strictSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
]

let package = Package(
    name: "EscrowBenchmarks",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "escrow-bench", targets: ["EscrowBench"]),
    ],
    dependencies: [
        .package(name: "Escrow", path: ".."),
        .package(url: "https://github.com/apple/swift-argument-parser", exact: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", exact: "1.16.2"),
    ],
    targets: [
        .executableTarget(
            name: "EscrowBench",
            dependencies: [
                .product(name: "EscrowHost", package: "Escrow"),
                .product(name: "EscrowStore", package: "Escrow"),
                .product(name: "EscrowCore", package: "Escrow"),
                .product(name: "EscrowFunctions", package: "Escrow"),
                .product(name: "EscrowRPC", package: "Escrow"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strictSettings
        ),
    ]
)
