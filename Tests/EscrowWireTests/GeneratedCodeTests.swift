import EscrowTestSupport
import Foundation
import Testing

/// The committed `Sources/EscrowWire/Generated/escrow.pb.swift` must be exactly what
/// `Proto/generate.sh` produces from `Proto/escrow.proto`.
///
/// Needs Debian's `protoc` (`apt-get install protobuf-compiler`; CI installs it): without it the
/// test fails rather than skipping, so a stale generated file cannot slip through. The first run
/// builds `protoc-gen-swift` (about 30 s) under the temporary directory; later runs reuse it, and
/// `PROTOC_GEN_SWIFT` can point at a prebuilt one.
@Suite("Generated protobuf code")
struct GeneratedCodeTests {
    /// The package root, three levels above this file (Tests/EscrowComputeRuntimeTests/<file>).
    static let packageRoot = URL(filePath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    @Test("the committed escrow.pb.swift equals a fresh generation", .timeLimit(.minutes(10)))
    func generatedCodeIsCurrent() async throws {
        guard Self.findOnPath("protoc") != nil else {
            Issue.record("""
                protoc is not installed, so the generated protobuf code cannot be checked: \
                install it with `apt-get install protobuf-compiler` (CI installs it)
                """)
            return
        }
        let output = FileManager.default.temporaryDirectory.appending(path: "escrow-generated-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: output) }

        let run = try await offPool { try Self.runGenerate(arguments: [output.path]) }
        try #require(run.status == 0, "Proto/generate.sh failed (exit \(run.status)):\n\(run.output)")

        let fresh = try Data(contentsOf: output.appending(path: "escrow.pb.swift"))
        let committed = try Data(contentsOf: Self.packageRoot.appending(path: "Sources/EscrowWire/Generated/escrow.pb.swift"))
        #expect(fresh == committed, """
            Sources/EscrowWire/Generated/escrow.pb.swift differs from what Proto/escrow.proto generates: \
            run Proto/generate.sh and commit the result
            """)
    }

    @Test("generate.sh says how to install protoc when it is missing")
    func missingProtoc() async throws {
        // A PATH holding only the tools the script needs before it looks for protoc.
        let bin = FileManager.default.temporaryDirectory.appending(path: "escrow-no-protoc-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: bin) }
        try FileManager.default.createDirectory(at: bin, withIntermediateDirectories: true)
        for tool in ["dirname", "mkdir"] {
            let target = try #require(Self.findOnPath(tool), "\(tool) not found")
            try FileManager.default.createSymbolicLink(at: bin.appending(path: tool), withDestinationURL: target)
        }
        let out = bin.appending(path: "out").path, path = bin.path
        let run = try await offPool { try Self.runGenerate(arguments: [out], path: path) }
        #expect(run.status != 0)
        #expect(run.output.contains("apt-get install protobuf-compiler"), "output was: \(run.output)")
    }

    /// Runs `bash Proto/generate.sh arguments`, with `PATH` replaced when `path` is given.
    static func runGenerate(arguments: [String], path: String? = nil) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(filePath: "/bin/bash")
        process.arguments = [packageRoot.appending(path: "Proto/generate.sh").path] + arguments
        process.currentDirectoryURL = packageRoot
        if let path {
            var environment = ProcessInfo.processInfo.environment
            environment["PATH"] = path
            process.environment = environment
        }
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let output = PipeRead.toEnd(pipe.fileHandleForReading)
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: output, as: UTF8.self))
    }

    /// The executable called `name` in a directory of `PATH`.
    static func findOnPath(_ name: String) -> URL? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
        for directory in path.split(separator: ":") {
            let candidate = URL(filePath: String(directory)).appending(path: name)
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
        }
        return nil
    }
}
