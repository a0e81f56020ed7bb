import EscrowCore
import EscrowFunctions
import EscrowHost
import EscrowStore

// Issue 15: what a location accuracy below exact costs a run — the location flow of Figure 3
// through run() at exact, at 1km and at city (masked tables kept from the run before), when
// every run must build the masked tables again (10,000 rows), and a k-anonymous run (k = 10);
// then masking one point (Suite+LocationMaskPoints) and run() as a function of k
// (Suite+LocationK).
extension Suite {
    private struct MaskFixture {
        let dense: ScratchHome
        let sparse: ScratchHome
        let host: EscrowHost
        let sparseHost: EscrowHost
    }

    private struct MaskSample {
        var exact = 0.0, radius = 0.0, city = 0.0, rebuild = 0.0, sparse = 0.0
    }

    /// Per repetition: a home with 10,000 location rows around Chicago (dense) and one with the
    /// same rows moved into the South Pacific (sparse), flows approved at each accuracy, and one
    /// untimed run of each. Then blocks of 20 runs of each kept-table path, alternated (each block
    /// starts with one untimed run, which builds that path's tables); 20 runs switching between
    /// 1km and city (every run builds its tables); 10 k-anonymous runs.
    func locationMask() async throws -> [FigureResult] {
        let clock = ContinuousClock()
        let logger = self.logger
        let dense = RecordGenerator.locations(Self.locationRows)
        let sparse = dense.map { record in
            var moved = record
            moved.latitude += -30 - 41.8781
            moved.longitude += -140 + 87.6298
            return moved
        }
        let samples = try await sampler.collect(
            setUp: { () throws -> MaskFixture in
                let denseHome = try ScratchHome.initialized()
                let sparseHome = try ScratchHome.initialized()
                _ = try DataWriter(home: denseHome.home).insertLocations(dense)
                _ = try DataWriter(home: sparseHome.home).insertLocations(sparse)
                let fixture = MaskFixture(dense: denseHome, sparse: sparseHome,
                                          host: try EscrowHost(home: denseHome.home, logger: logger),
                                          sparseHost: try EscrowHost(home: sparseHome.home, logger: logger))
                for accuracy in [LocationAccuracy.exact, .radius(meters: 1000), .city] {
                    try await Self.approve(fixture.host, accuracy)
                }
                try await Self.approve(fixture.sparseHost, .radius(meters: 1000))
                guard try await fixture.sparseHost.run(Self.maskRequest(.radius(meters: 1000))).auditEntry.facts.location?.runs == 10 else {
                    throw BenchError("the sparse home's run was not k-anonymous (10 runs)")
                }
                return fixture
            },
            body: { fixture -> MaskSample in
                var sample = MaskSample()
                let block = Self.callsPerBlock
                let paths: [(LocationAccuracy, WritableKeyPath<MaskSample, Double>)] = [
                    (.exact, \.exact), (.radius(meters: 1000), \.radius), (.city, \.city),
                ]
                for _ in 0..<(Self.callsPerRepetition / block) {
                    for (accuracy, path) in paths {
                        let request = Self.maskRequest(accuracy)
                        _ = try await fixture.host.run(request)
                        sample[keyPath: path] += try await clock.measure {
                            for _ in 0..<block { _ = try await fixture.host.run(request) }
                        }.seconds
                    }
                }
                for path in paths.map(\.1) { sample[keyPath: path] /= Double(Self.callsPerRepetition) }
                let switching = [Self.maskRequest(.radius(meters: 1000)), Self.maskRequest(.city)]
                sample.rebuild = try await clock.measure {
                    for index in 0..<block { _ = try await fixture.host.run(switching[index % 2]) }
                }.seconds / Double(block)
                let sparseRuns = 10
                sample.sparse = try await clock.measure {
                    for _ in 0..<sparseRuns { _ = try await fixture.sparseHost.run(Self.maskRequest(.radius(meters: 1000))) }
                }.seconds / Double(sparseRuns)
                return sample
            },
            tearDown: { fixture in
                fixture.dense.remove()
                fixture.sparse.remove()
            }
        )
        return [
            FigureResult(name: "run() location flow, exact", unit: .microseconds, seconds: samples.map(\.exact)),
            FigureResult(name: "run() location flow, 1km (tables kept)", unit: .microseconds, seconds: samples.map(\.radius)),
            FigureResult(name: "run() location flow, city (tables kept)", unit: .microseconds, seconds: samples.map(\.city)),
            FigureResult(name: "1km − exact", unit: .microseconds, seconds: samples.map { $0.radius - $0.exact }),
            FigureResult(name: "run() rebuilding masked tables (10,000 rows)", unit: .milliseconds, seconds: samples.map(\.rebuild)),
            FigureResult(name: "k-anonymous run (k = 10, 10,000 rows)", unit: .milliseconds, seconds: samples.map(\.sparse)),
        ] + (try await locationMaskPoints()) + (try await locationKSweep())
    }

    /// The location flow of Figure 3, one flow per accuracy (the purpose names it).
    private static func maskRequest(_ accuracy: LocationAccuracy) -> DataflowRequest {
        DataflowRequest(app: "org.wikipedia.nearby", purpose: "articles near me at \(accuracy)",
                        access: locationSQL, compute: LocationRegion.id)
    }

    /// The individual approves the flow (always) at `accuracy`.
    private static func approve(_ host: EscrowHost, _ accuracy: LocationAccuracy) async throws {
        do {
            _ = try await host.run(maskRequest(accuracy))
        } catch let DecisionError.awaitingApproval(flow) {
            try host.flows.approve(flow, .always, accuracy: accuracy)
        }
    }
}
