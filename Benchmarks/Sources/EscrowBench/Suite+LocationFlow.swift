import EscrowCore
import EscrowFunctions
import EscrowHost
import EscrowStore

// A first look at the paper's Figure 3: the location dataflow through run() against the same
// query and function called directly.
extension Suite {
    static let locationRows = 10_000
    /// Calls timed per repetition; the figure is the mean of one call.
    static let callsPerRepetition = 200
    static let callsPerBlock = 20
    static let locationSQL = "SELECT longitude, latitude FROM Location ORDER BY timestamp DESC LIMIT 1"

    private struct FlowFixture {
        let scratch: ScratchHome
        let host: EscrowHost
        let database: Database
    }

    /// Per repetition: a fresh home with 10,000 location rows, the host and a plain read-only
    /// connection opened (untimed), ten unmeasured calls of each path, then 200 calls of each
    /// path timed, alternating in blocks of 20. Reports the mean per call of each path and their
    /// difference (the overhead of run(): request checks, the statement-cache lookup and lineage,
    /// the approval check, the guarded frame reader, the catalog's async call, the durable audit
    /// append, the result).
    func locationFlow() async throws -> [FigureResult] {
        let clock = ContinuousClock()
        let locations = RecordGenerator.locations(Self.locationRows)
        let logger = self.logger
        let calls = Self.callsPerRepetition
        let samples = try await sampler.collect(
            setUp: { () throws -> FlowFixture in
                let scratch = try ScratchHome.initialized()
                let summary = try DataWriter(home: scratch.home).insertLocations(locations)
                guard summary.added == Self.locationRows else {
                    throw BenchError("insertLocations added \(summary.added) of \(Self.locationRows) rows")
                }
                let host = try EscrowHost(home: scratch.home, logger: logger)
                try await Self.approve(host)
                return FlowFixture(scratch: scratch, host: host,
                                   database: try Database(path: scratch.home.dataDatabasePath, mode: .readOnly))
            },
            body: { fixture -> (run: Double, direct: Double) in
                let statement = try fixture.database.prepare(Self.locationSQL)
                let expected = try Self.direct(statement)
                for _ in 0..<10 {
                    guard try await Self.viaRun(fixture.host) == expected, try Self.direct(statement) == expected else {
                        throw BenchError("run() and the direct query disagree on the region")
                    }
                }
                // Alternate the two paths in blocks so drift (frequency, caches) hits both alike.
                var direct = Duration.zero
                var viaRun = Duration.zero
                for _ in 0..<(calls / Self.callsPerBlock) {
                    direct += try clock.measure {
                        for _ in 0..<Self.callsPerBlock { _ = try Self.direct(statement) }
                    }
                    viaRun += try await clock.measure {
                        for _ in 0..<Self.callsPerBlock { _ = try await Self.viaRun(fixture.host) }
                    }
                }
                return (viaRun.seconds / Double(calls), direct.seconds / Double(calls))
            },
            tearDown: { fixture in fixture.scratch.remove() }
        )
        let paperOverhead = 100_000.0
        return [
            FigureResult(name: "run() location flow", unit: .microseconds, seconds: samples.map(\.run)),
            FigureResult(name: "direct query + compute", unit: .microseconds, seconds: samples.map(\.direct)),
            FigureResult(name: "run() overhead", unit: .microseconds, seconds: samples.map { $0.run - $0.direct },
                         paper: paperOverhead),
        ]
    }

    /// The individual approves the location flow (always), as before the paper's measurements.
    static func approve(_ host: EscrowHost) async throws {
        do {
            _ = try await viaRun(host)
        } catch let DecisionError.awaitingApproval(flow) {
            try host.flows.approve(flow, .always)
        }
    }

    /// The dataflow through the host: identify, decide, guarded access, compute, audit.
    private static func viaRun(_ host: EscrowHost) async throws -> Frame {
        try await host.run(app: "org.wikipedia.nearby", purpose: "show articles near me",
                           access: locationSQL, compute: LocationRegion.id).output
    }

    /// The same query on a plain connection, its result put in a frame, and the function called
    /// directly. The statement is compiled once and reset after each call, as run()'s statement
    /// cache does for a repeated access SQL.
    private static func direct(_ statement: Statement) throws -> Frame {
        defer { statement.reset() }
        var longitudes = ColumnBuilder(name: "longitude", type: .double)
        var latitudes = ColumnBuilder(name: "latitude", type: .double)
        while try statement.step() {
            longitudes.append(statement.double(0))
            latitudes.append(statement.double(1))
        }
        let input = try Frame(columns: [longitudes.build(), latitudes.build()])
        return try LocationRegion().compute(input, context: ComputeContext())
    }
}
