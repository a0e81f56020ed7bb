import EscrowReports
import Testing

@Suite struct AppComparisonTests {
    typealias Fixture = EgressFixture

    /// App a: six requests to six domains (d1 three times, so it leads); app b: one request;
    /// app c: two requests, both to a tracker.
    static let requests: [RecordedRequest] = {
        var requests = (1...5).map { Fixture.request(app: "a", host: "www.d\($0).com", time: Int64($0)) }
        requests += [
            Fixture.request(app: "a", host: "api.d1.com", time: 6), Fixture.request(app: "a", host: "d1.com", time: 7),
            Fixture.request(app: "a", host: "z.d6.com", time: 8),
            Fixture.request(app: "b", host: "d1.com", time: 9),
            Fixture.request(app: "c", host: "t.tracker.net", time: 10, tracker: "tracker.net"),
            Fixture.request(app: "c", host: "t.tracker.net", time: 11, tracker: "tracker.net"),
        ]
        return requests
    }()
    static let metrics = AppMetrics.compute(
        runs: [Fixture.run(app: "a", durationMs: 60_000), Fixture.run(app: "b", durationMs: 60_000),
               Fixture.run(app: "c", durationMs: 60_000)],
        requests: requests)

    @Test func putsValuesSideBySideInTheOrderAsked() throws {
        let comparison = try AppComparison.compare(["c", "a"], in: Self.metrics, requests: Self.requests)
        #expect(comparison.apps == ["c", "a"])
        #expect(comparison.metrics.map(\.app) == ["c", "a"])
        #expect(comparison.rows.map(\.metric) == AppMetrics.Metric.allCases)
        let requests = try #require(comparison.rows.first { $0.metric == .requests })
        #expect(requests.values == [2, 8])
        #expect(requests.ranks == [2, 1])
        #expect(requests.best == ["c"])
        let trackerShare = try #require(comparison.rows.first { $0.metric == .trackerShare })
        #expect(trackerShare.values == [1, 0])
        #expect(trackerShare.best == ["a"])
        let runs = try #require(comparison.rows.first { $0.metric == .runs })
        #expect(runs.best == ["c", "a"], "a tie names every app that shares the lowest value")
    }

    @Test func listsEachAppsTopFiveDomains() throws {
        let comparison = try AppComparison.compare(["a", "b", "c"], in: Self.metrics, requests: Self.requests)
        #expect(comparison.topDomains.count == 3)
        // d1.com three times, then d2…d6 once each, ties by name: d6.com falls off.
        #expect(comparison.topDomains[0].map(\.domain) == ["d1.com", "d2.com", "d3.com", "d4.com", "d5.com"])
        #expect(comparison.topDomains[0].map(\.requests) == [3, 1, 1, 1, 1])
        #expect(comparison.topDomains[1] == [.init(domain: "d1.com", requests: 1, tracker: false)])
        #expect(comparison.topDomains[2] == [.init(domain: "tracker.net", requests: 2, tracker: true)])
    }

    @Test(arguments: [
        ([], ReportError.tooFewApps([])),
        (["a"], .tooFewApps(["a"])),
        (["a", "b", "a"], .duplicateApp("a")),
        (["a", "com.example.missing"], .unknownApp("com.example.missing", known: ["a", "b", "c"])),
    ])
    func rejectsABadList(apps: [String], error: ReportError) {
        #expect(throws: error) { try AppComparison.compare(apps, in: Self.metrics, requests: Self.requests) }
    }

    @Test(arguments: [
        (ReportError.unknownApp("x", known: ["a", "b"]), ["'x'", "a, b", "escrow report apps"]),
        (.unknownApp("x", known: []), ["'x'", "no app has recorded"]),
        (.tooFewApps(["a"]), ["at least two", "'a'"]),
        (.duplicateApp("a"), ["'a'", "more than once"]),
    ])
    func errorsSayWhatToDo(error: ReportError, phrases: [String]) {
        for phrase in phrases {
            #expect(error.description.contains(phrase), "\(error.description)")
        }
    }
}
