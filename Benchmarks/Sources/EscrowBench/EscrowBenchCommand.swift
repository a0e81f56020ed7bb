import ArgumentParser
import Foundation
import EscrowRPC
import Logging

/// `escrow-bench`: measures the paper's Table 2 figures (and a first look at the location
/// dataflow) on this implementation, prints a table and optionally writes JSON.
@main
struct EscrowBenchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "escrow-bench",
        abstract: "Measure Escrow against the paper's Table 2 figures.",
        discussion: "Build in release mode: swift run -c release --package-path Benchmarks escrow-bench"
    )

    @Flag(help: "Five repetitions per figure instead of fifteen.")
    var quick = false

    @Option(help: "Measured repetitions per figure (default 15, or 5 with --quick).")
    var repetitions: Int?

    @Option(help: "Write the figures as a JSON array to this file.")
    var json: String?

    @Option(help: "Run only this group of figures (\(Suite.groups.joined(separator: ", "))); repeatable.")
    var only: [String] = []

    func validate() throws {
        if let repetitions, repetitions < 1 {
            throw ValidationError("--repetitions must be at least 1")
        }
        if let unknown = only.first(where: { !Suite.groups.contains($0) }) {
            throw ValidationError("unknown group '\(unknown)'; choose from \(Suite.groups.joined(separator: ", "))")
        }
    }

    func run() async throws {
        // The process hosts both ends of the RPC, so it allocates as escrow-compute and
        // escrow serve do (EscrowRPC's MemoryTuning).
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
            try ResultTable.json(results).write(to: URL(fileURLWithPath: json))
            print("wrote \(json)")
        }
    }
}
