import EscrowCore
import EscrowHost
import EscrowStore

// Issue 15, beside the Location Privacy Framework thesis's Table 2 (the time of a location-based
// service request as a function of k, in a place with nobody else within the accuracy): run() of
// the weather flow at 1km from a sparse place, location.k = 1…10, each run sending k requests to
// a local HTTP server (the real one and k−1 on dummy locations, concurrently).
extension Suite {
    /// The homes' sizes: a day of fixes a few minutes apart, and the Figure 3 home.
    static let kSweepRows = [100, 10_000]
    /// The largest k measured, the thesis's.
    static let kSweepLargest = 10

    private struct KFixture {
        let scratch: ScratchHome
        let host: EscrowHost
    }

    /// Per home size and repetition: a home whose fixes (RecordGenerator's walk around Chicago,
    /// moved onto the Bolivian altiplano, where 1 km holds nobody and the nearest place is 83 km
    /// away) are its only data, the weather flow approved at 1km. For each k: the setting changed,
    /// one untimed run (which checks that k runs were made and k requests sent), then timed runs.
    func locationKSweep() async throws -> [FigureResult] {
        let clock = ContinuousClock()
        let logger = self.logger
        let server = try await LocalHTTPServer.start()
        let request = DataflowRequest(app: "org.example.weather", purpose: "Weather where you are", access: Self.locationSQL,
                                      compute: "weather.current",
                                      parameters: ComputeParameters(["service": "http://127.0.0.1:\(server.port)"]))
        var results: [FigureResult] = []
        do {
            for rows in Self.kSweepRows {
                let sparse = RecordGenerator.locations(rows).map { record in
                    var moved = record
                    moved.latitude += -19.0 - 41.8781
                    moved.longitude += -67.9 + 87.6298
                    return moved
                }
                // Timed runs per k: enough for the small home, one for the large (about 46 ms per input).
                let timedRuns = rows <= 1_000 ? 10 : 1
                let samples = try await sampler.collect(
                    setUp: { () throws -> KFixture in
                        let scratch = try ScratchHome.initialized()
                        _ = try DataWriter(home: scratch.home).insertLocations(sparse)
                        let host = try EscrowHost(home: scratch.home, logger: logger)
                        do {
                            _ = try await host.run(request)
                        } catch let DecisionError.awaitingApproval(flow) {
                            try host.flows.approve(flow, .always, accuracy: .radius(meters: 1000))
                        }
                        return KFixture(scratch: scratch, host: host)
                    },
                    body: { fixture -> [Double] in
                        var perK: [Double] = []
                        for k in 1...Self.kSweepLargest {
                            try fixture.host.flows.state.setSetting(LocationSettings.kName, to: String(k))
                            let before = server.counts.requests
                            let first = try await fixture.host.run(request)
                            let sent = server.counts.requests - before
                            guard first.auditEntry.facts.location?.runs == k, sent == k else {
                                throw BenchError("k = \(k): \(first.auditEntry.facts.location?.runs ?? 0) runs, \(sent) requests")
                            }
                            perK.append(try await clock.measure {
                                for _ in 0..<timedRuns { _ = try await fixture.host.run(request) }
                            }.seconds / Double(timedRuns))
                        }
                        return perK
                    },
                    tearDown: { fixture in fixture.scratch.remove() }
                )
                results += (1...Self.kSweepLargest).map { k in
                    FigureResult(name: "run() weather at 1km, sparse, k = \(k) (\(rows) rows)", unit: .milliseconds,
                                 seconds: samples.map { $0[k - 1] })
                }
            }
        } catch {
            try await server.stop()
            throw error
        }
        try await server.stop()
        return results
    }
}
