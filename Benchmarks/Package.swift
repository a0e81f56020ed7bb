// swift-tools-version: 6.1
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
        // gRPC Swift 2, only for the side-by-side comparison with our compute RPC (group "grpc").
        // Its packages need swift-tools-version 6.1.
        .package(url: "https://github.com/grpc/grpc-swift-2", exact: "2.4.3"),
        .package(url: "https://github.com/grpc/grpc-swift-nio-transport", exact: "2.9.2"),
        .package(url: "https://github.com/grpc/grpc-swift-protobuf", exact: "2.4.1"),
        .package(url: "https://github.com/apple/swift-protobuf", exact: "1.39.0"),
        // The versions the main package pins: the benchmarks import these modules themselves.
        .package(url: "https://github.com/apple/swift-nio", exact: "2.101.3"),
        .package(url: "https://github.com/apple/swift-nio-ssl", exact: "2.37.6"),
        // AsyncHTTPClient, only for the side-by-side comparison with our compute functions' HTTP
        // client (group "egress"); never a dependency of the main package.
        .package(url: "https://github.com/swift-server/async-http-client", exact: "1.37.0"),
    ],
    targets: [
        .executableTarget(
            name: "EscrowBench",
            dependencies: [
                .product(name: "EscrowHost", package: "Escrow"),
                .product(name: "EscrowStore", package: "Escrow"),
                .product(name: "EscrowCore", package: "Escrow"),
                .product(name: "EscrowEgress", package: "Escrow"),
                .product(name: "EscrowNetwork", package: "Escrow"),
                .product(name: "EscrowReports", package: "Escrow"),
                .product(name: "EscrowFunctions", package: "Escrow"),
                .product(name: "EscrowWire", package: "Escrow"),
                .product(name: "EscrowComputeRuntime", package: "Escrow"),
                .product(name: "EscrowLocation", package: "Escrow"),
                .product(name: "EscrowModules", package: "Escrow"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "GRPCCore", package: "grpc-swift-2"),
                .product(name: "GRPCNIOTransportHTTP2Posix", package: "grpc-swift-nio-transport"),
                .product(name: "GRPCProtobuf", package: "grpc-swift-protobuf"),
                .product(name: "SwiftProtobuf", package: "swift-protobuf"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOTLS", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
            ],
            swiftSettings: strictSettings
        ),
    ]
)
