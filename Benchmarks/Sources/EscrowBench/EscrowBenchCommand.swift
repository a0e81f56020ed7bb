import ArgumentParser
import Foundation
import EscrowWire
import Logging

/// `escrow-bench`: measures the paper's evaluation (Table 2, Figures 3 and 4) and the
/// comparisons with gRPC Swift 2 on this implementation, prints a table and optionally writes
/// JSON (docs/PERFORMANCE.md).
@main
struct EscrowBenchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "escrow-bench",
        abstract: "Measure Escrow against the paper's Table 2 and Figures 3 and 4, and against gRPC Swift 2.",
        discussion: "Build in release mode: swift run -c release --package-path Benchmarks escrow-bench"
    )

    @Flag(help: "Five repetitions per figure instead of fifteen.")
    var quick = false

    @Option(help: "Measured repetitions per figure (default 15, or 5 with --quick).")
    var repetitions: Int?

    @Option(help: "Write the figures as a JSON array to this file.")
    var json: String?

    @Option(help: "Run only this group of figures (\(Suite.groups.joined(separator: ", "))); repeatable. flood runs only when named.")
    var only: [String] = []

    /// The child side of the flood group (FloodClient): the compute server's port on 127.0.0.1.
    @Option(name: .customLong("flood-client"), help: .hidden)
    var floodClientPort: Int?

    @Option(name: .customLong("flood-connections"), help: .hidden)
    var floodConnections = Suite.floodConnectionsPerClient

    @Option(name: .customLong("flood-seconds"), help: .hidden)
    var floodSeconds = Suite.floodSeconds

    func validate() throws {
        if let repetitions, repetitions < 1 {
            throw ValidationError("--repetitions must be at least 1")
        }
        if let unknown = only.first(where: { !Suite.groups.contains($0) }) {
            throw ValidationError("unknown group '\(unknown)'; choose from \(Suite.groups.joined(separator: ", "))")
        }
        if let json, let problem = Self.problem(writing: json) {
            // Said now, not after minutes of measuring.
            throw ValidationError("cannot write --json \(json): \(problem)")
        }
    }

    /// Why `path` cannot take the JSON output, or nil when it can.
    static func problem(writing path: String) -> String? {
        let files = FileManager.default
        var isFolder: ObjCBool = false
        if files.fileExists(atPath: path, isDirectory: &isFolder) {
            if isFolder.boolValue { return "it is a folder; give a file name" }
            return files.isWritableFile(atPath: path) ? nil : "the file is not writable"
        }
        let folder = URL(fileURLWithPath: path).deletingLastPathComponent().path
        guard files.fileExists(atPath: folder, isDirectory: &isFolder), isFolder.boolValue else {
            return "the folder \(folder) does not exist; create it or choose another path"
        }
        // Create it to know: permissions alone do not tell (a read-only mount, /proc).
        guard files.createFile(atPath: path, contents: nil) else { return "a file cannot be created in \(folder)" }
        try? files.removeItem(atPath: path)
        return nil
    }

    func run() async throws {
        if let floodClientPort {
            FloodClient.run(port: floodClientPort, connections: floodConnections, seconds: floodSeconds)
            return
        }
        // The process hosts both ends of the RPC, so it allocates as escrow-compute and
        // escrow serve do (EscrowWire's MemoryTuning).
        MemoryTuning.reuseFreedMemoryForLargeFrames()
        var logger = Logger(label: "escrow-bench")
        logger.logLevel = .warning
        let sampler = Sampler(repetitions: repetitions ?? (quick ? 5 : 15), warmUps: 1)
        #if DEBUG
        print("warning: this is a debug build; pass -c release for figures worth reporting")
        #endif
        let suite = try Suite(sampler: sampler, logger: logger)
        let results = try await suite.run(only: Set(only))
        print(ResultTable.text(results))
        if let json {
            do {
                try ResultTable.json(results).write(to: URL(fileURLWithPath: json))
            } catch {
                throw ValidationError("cannot write --json \(json) (\(error.localizedDescription)); the figures are in the table above")
            }
            print("wrote \(json)")
        }
    }
}
