import EscrowStore
import Foundation

// The paper's Table 2 (load and init) and the end-to-end contact import.
extension Suite {
    /// `DataWriter.insertContacts` of the 5000 parsed cards into an empty Contact table. Timed:
    /// the insert only (one transaction); the writer's connection is opened before.
    func loadContacts() async throws -> FigureResult {
        try await load(name: "load 5000 contacts", paper: 1250, expected: Self.contactCount) { writer in
            try writer.insertContacts(contacts, containerID: "local").added
        }
    }

    /// `DataWriter.insertPhotos` of 5000 rows into an empty Photos table. Timed: the insert only.
    func loadPhotos() async throws -> FigureResult {
        try await load(name: "load 5000 photo records", paper: 830, expected: Self.photoCount) { writer in
            try writer.insertPhotos(photos).added
        }
    }

    /// One Table 2 load figure: `insert` into a fresh home's writer, timed alone; it returns the
    /// rows added, which must be `expected`.
    private func load(name: String, paper: Double, expected: Int,
                      _ insert: @escaping (DataWriter) throws -> Int) async throws -> FigureResult {
        let clock = ContinuousClock()
        let samples = try await sampler.collect(
            setUp: { () throws -> (ScratchHome, DataWriter) in
                let scratch = try ScratchHome.initialized()
                return (scratch, try DataWriter(home: scratch.home))
            },
            body: { scratch, writer in
                var added = 0
                let elapsed = try clock.measure { added = try insert(writer) }
                guard added == expected else { throw BenchError("\(name): added \(added) rows of \(expected)") }
                return elapsed.seconds
            },
            tearDown: { scratch, _ in scratch.remove() }
        )
        return FigureResult(name: name, unit: .milliseconds, seconds: samples, paper: paper, target: 10)
    }

    /// `EscrowHome.initialize()` on a folder that does not exist yet: create the folder and the
    /// asset folder, create both databases (WAL) and apply every migration. This is the step that
    /// makes an empty Location table ready for use (the paper's "init Location").
    func initializeHome() async throws -> FigureResult {
        let clock = ContinuousClock()
        let samples = try await sampler.collect(
            setUp: { ScratchHome() },
            body: { scratch in
                try clock.measure { try scratch.home.initialize() }.seconds
            },
            tearDown: { scratch in scratch.remove() }
        )
        return FigureResult(name: "init home (Location ready)", unit: .milliseconds, seconds: samples,
                            paper: 2.4, target: 1)
    }

    /// `Importer.importContacts(from:)` of the generated file: read, parse, open the writer,
    /// insert, and record the import in the escrow's own database.
    func importContacts() async throws -> FigureResult {
        let folder = FileManager.default.temporaryDirectory
            .appendingPathComponent("escrow-bench-input-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("contacts.vcf")
        try vCard.write(to: file)
        let clock = ContinuousClock()
        let logger = self.logger
        let samples = try await sampler.collect(
            setUp: { try ScratchHome.initialized() },
            body: { scratch in
                let importer = Importer(home: scratch.home, logger: logger)
                var summary = ImportSummary()
                let elapsed = try clock.measure {
                    summary = try importer.importContacts(from: file)
                }
                guard summary.added == Self.contactCount else {
                    throw BenchError("importContacts added \(summary.added) of \(Self.contactCount) contacts")
                }
                return elapsed.seconds
            },
            tearDown: { scratch in scratch.remove() }
        )
        return FigureResult(name: "import 5000-contact vCard end to end", unit: .milliseconds, seconds: samples)
    }
}
