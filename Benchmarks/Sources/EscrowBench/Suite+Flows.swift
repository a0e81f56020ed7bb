import EscrowCore
import EscrowFunctions
import EscrowHost
import EscrowStore
import Foundation

// The paper's Figure 3: each of its three dataflows through run() against a baseline app that
// reads the same data itself and calls the same function.
extension Suite {
    static let contactsSQL = "SELECT givenName, familyName, phoneNumbers FROM Contact"
    /// The paper's photos access(): every picture, newest first.
    static let photosSQL = "SELECT asset FROM Photos WHERE mediaType = 'image' ORDER BY creationDate DESC"
    static let flowPhotoCount = 5000

    /// Contacts, location and photos, each through run() and directly.
    func flows() async throws -> [FigureResult] {
        var results = try await contactsFlow()
        results += try await locationFlow().map { $0.name == "run() overhead" ? $0.with(target: 100) : $0 }
        results += try await photosFlow()
        return results
    }

    /// Contacts: 5000 contacts, `SELECT givenName, familyName, phoneNumbers FROM Contact` and
    /// `contacts.tuples`, against the same query on a plain read-only connection, its rows put in
    /// a frame and `ContactsTuples` called directly.
    func contactsFlow() async throws -> [FigureResult] {
        let contacts = self.contacts
        return try await compareWithBaseline(
            flow: "contacts flow", unit: .milliseconds, calls: 20, ratioTarget: 1.05,
            request: DataflowRequest(app: "org.example.contacts", purpose: "show my contacts' numbers",
                                     access: Self.contactsSQL, compute: ContactsTuples.id),
            seed: { home in
                let added = try DataWriter(home: home).insertContacts(contacts, containerID: "local").added
                guard added == Self.contactCount else { throw BenchError("insertContacts added \(added) of \(Self.contactCount)") }
            },
            baseline: { statement, _ in
                defer { statement.reset() }
                var given = ColumnBuilder(name: "givenName", type: .string)
                var family = ColumnBuilder(name: "familyName", type: .string)
                var phones = ColumnBuilder(name: "phoneNumbers", type: .string)
                while try statement.step() {
                    if let value = statement.string(0) { given.append(value) } else { given.appendNull() }
                    if let value = statement.string(1) { family.append(value) } else { family.appendNull() }
                    if let value = statement.string(2) { phones.append(value) } else { phones.appendNull() }
                }
                let input = try Frame(columns: [given.build(), family.build(), phones.build()])
                return try ContactsTuples().compute(input, context: ComputeContext())
            },
            check: { output in
                guard output.rowCount >= Self.contactCount else {
                    throw BenchError("contacts.tuples gave \(output.rowCount) tuples for \(Self.contactCount) contacts")
                }
            })
    }

    /// Photos: 5000 pictures of 16 KB imported as real assets, the paper's query, and `identity`
    /// (the paper's f turns the photos into images in their original size: the app gets the
    /// pictures). Baseline: the same query on a plain connection, each asset id read from the
    /// asset store, the bytes in a frame, `Identity` called directly.
    func photosFlow() async throws -> [FigureResult] {
        let pictures = try PictureGenerator.folder(Self.flowPhotoCount)
        defer { try? FileManager.default.removeItem(at: pictures) }
        let logger = self.logger
        return try await compareWithBaseline(
            flow: "photos flow", unit: .milliseconds, calls: 4, ratioTarget: 1.1,
            request: DataflowRequest(app: "org.example.gallery", purpose: "show my pictures",
                                     access: Self.photosSQL, compute: Identity.id),
            seed: { home in
                let summary = try Importer(home: home, logger: logger).importPhotos(from: pictures)
                guard summary.added == Self.flowPhotoCount else {
                    throw BenchError("importPhotos added \(summary.added) of \(Self.flowPhotoCount) pictures")
                }
            },
            baseline: { statement, assets in try Identity().compute(Self.readPictures(statement, assets), context: ComputeContext()) },
            check: { output in
                let column = try output.column("asset")
                guard output.rowCount == Self.flowPhotoCount,
                      (0..<output.rowCount).allSatisfy({ column.bytes(at: $0)?.count == 16 * 1024 }) else {
                    throw BenchError("identity gave \(output.rowCount) rows, not \(Self.flowPhotoCount) pictures of 16 KB")
                }
            })
    }

    /// Runs a photo query on a plain connection and reads each asset's bytes from the store into
    /// an `asset` bytes column, as the guarded reader does.
    static func readPictures(_ statement: Statement, _ assets: AssetStore) throws -> Frame {
        defer { statement.reset() }
        var column = ColumnBuilder(name: "asset", type: .bytes)
        while try statement.step() {
            guard let id = statement.string(0) else { throw BenchError("a picture without an asset id") }
            column.append(bytes: try assets.bytes(of: id))
        }
        return try Frame(columns: [column.build()])
    }

    private struct BaselineFixture {
        let scratch: ScratchHome
        let host: EscrowHost
        let database: Database
        let assets: AssetStore
    }

    /// One Figure 3 flow. Per repetition: a fresh home seeded by `seed`, the host opened and the
    /// flow approved (always), a plain read-only connection to the data database; untimed, each
    /// path once with their outputs compared. Then `calls` times each path, alternating which
    /// goes first. Reports the mean per call of run() and of the baseline, and their ratio.
    private func compareWithBaseline(
        flow: String, unit: FigureResult.Unit, calls: Int, ratioTarget: Double, request: DataflowRequest,
        seed: @escaping (EscrowHome) throws -> Void,
        baseline: @escaping (Statement, AssetStore) throws -> Frame,
        check: @escaping (Frame) throws -> Void
    ) async throws -> [FigureResult] {
        let clock = ContinuousClock()
        let logger = self.logger
        let samples = try await sampler.collect(
            setUp: { () async throws -> BaselineFixture in
                let scratch = try ScratchHome.initialized()
                try seed(scratch.home)
                let host = try EscrowHost(home: scratch.home, logger: logger)
                try await Self.approveAlways(host, request)
                return BaselineFixture(scratch: scratch, host: host,
                                       database: try Database(path: scratch.home.dataDatabasePath, mode: .readOnly),
                                       assets: AssetStore(root: scratch.home.assetsURL))
            },
            body: { fixture -> (run: Double, baseline: Double) in
                let statement = try fixture.database.prepare(request.access)
                let expected = try baseline(statement, fixture.assets)
                try check(expected)
                guard try await fixture.host.run(request).output == expected else {
                    throw BenchError("\(flow): run() and the baseline disagree")
                }
                var viaRun = Duration.zero
                var direct = Duration.zero
                for call in 0..<calls {
                    if call % 2 == 0 {
                        direct += try clock.measure { _ = try baseline(statement, fixture.assets) }
                    }
                    viaRun += try await clock.measure { _ = try await fixture.host.run(request) }
                    if call % 2 == 1 {
                        direct += try clock.measure { _ = try baseline(statement, fixture.assets) }
                    }
                }
                return (viaRun.seconds / Double(calls), direct.seconds / Double(calls))
            },
            tearDown: { fixture in fixture.scratch.remove() }
        )
        return [
            FigureResult(name: "run() \(flow)", unit: unit, seconds: samples.map(\.run)),
            FigureResult(name: "baseline \(flow) (query + compute)", unit: unit, seconds: samples.map(\.baseline)),
            FigureResult(name: "run() / baseline, \(flow)", unit: .ratio, values: samples.map { $0.run / $0.baseline },
                         target: ratioTarget),
        ]
    }

    /// Runs `request` once so the host records its flow, then approves the flow (always), as the
    /// individual does before an app's runs are measured.
    static func approveAlways(_ host: EscrowHost, _ request: DataflowRequest) async throws {
        do {
            _ = try await host.run(request)
            throw BenchError("a new flow ran before it was approved")
        } catch let DecisionError.awaitingApproval(flow) {
            try host.flows.approve(flow, .always)
        }
    }
}

extension FigureResult {
    /// The same figure with `target` (same unit, a ceiling).
    func with(target: Double) -> FigureResult {
        FigureResult(copying: self, target: target)
    }

    private init(copying other: FigureResult, target: Double) {
        name = other.name
        unit = other.unit
        median = other.median
        min = other.min
        max = other.max
        repetitions = other.repetitions
        paper = other.paper
        self.target = target
        higherIsBetter = other.higherIsBetter
    }
}
