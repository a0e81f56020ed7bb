import EscrowReports
import Testing

@Suite struct AppMetricsComputeTests {
    typealias Fixture = EgressFixture

    /// App a: two runs of 30 s (one minute of compute), three requests to two domains and three
    /// hosts, one to a tracker, one blocked, one that carried data. App b: one run, one request.
    /// App c: requests but no runs.
    static let runs = [
        Fixture.run(app: "a", durationMs: 30_000), Fixture.run(app: "a", durationMs: 30_000, seq: 2),
        Fixture.run(app: "b", durationMs: 1_500),
    ]
    static let requests = [
        Fixture.request(app: "a", host: "x.t.com", time: 10, tracker: "t.com", sentData: true),
        Fixture.request(app: "a", host: "y.t.com", time: 11),
        Fixture.request(app: "a", host: "b.org", time: 12, blocked: true),
        Fixture.request(app: "b", host: "b.org", time: 13),
        Fixture.request(app: "c", host: "t.com", time: 14, tracker: "t.com"),
        Fixture.request(app: "c", host: "t.com", time: 15, tracker: "t.com"),
    ]

    @Test func countsEachAppsRunsAndRequests() throws {
        let metrics = AppMetrics.compute(runs: Self.runs, requests: Self.requests)
        #expect(metrics.map(\.app) == ["a", "b", "c"])
        let a = metrics[0]
        #expect(a.runs == 2)
        #expect(a.requests == 3)
        #expect(a.computeSeconds == 60)
        #expect(a.requestsPerMinute == 3)
        #expect(a.domains == 2)
        #expect(a.subdomains == 3)
        #expect(a.trackerShare == 1.0 / 3.0)
        #expect(a.blocked == 1)
        #expect(a.sentData == 1)

        let b = metrics[1]
        #expect((b.runs, b.requests, b.computeSeconds, b.requestsPerMinute) == (1, 1, 1.5, 40))
        #expect(b.trackerShare == 0)

        let c = metrics[2]
        #expect((c.runs, c.requests, c.computeSeconds, c.requestsPerMinute) == (0, 2, 0, 0))
        #expect((c.domains, c.subdomains, c.trackerShare) == (1, 1, 1))
    }

    /// Ranks: highest first, ties share a rank and skip the next.
    ///
    /// runs a 2, b 1, c 0 → 1, 2, 3; requests 3, 1, 2 → 1, 3, 2; per minute 3, 40, 0 → 2, 1, 3;
    /// domains 2, 1, 1 → 1, 2, 2; subdomains 3, 1, 1 → 1, 2, 2; tracker share ⅓, 0, 1 → 2, 3, 1.
    @Test(arguments: [
        (AppMetrics.Metric.runs, [1, 2, 3]), (.requests, [1, 3, 2]), (.requestsPerMinute, [2, 1, 3]),
        (.domains, [1, 2, 2]), (.subdomains, [1, 2, 2]), (.trackerShare, [2, 3, 1]),
    ])
    func ranksEveryMetric(metric: AppMetrics.Metric, ranks: [Int]) {
        let metrics = AppMetrics.compute(runs: Self.runs, requests: Self.requests)
        #expect(metrics.map { $0.ranks[metric] } == ranks)
    }

    /// Standard competition ranking over request counts: equal counts share a rank, the next is skipped.
    @Test(arguments: [
        ([5, 9, 9, 1], [3, 1, 1, 4]), ([2, 2, 2], [1, 1, 1]), ([1, 2, 3], [3, 2, 1]), ([2, 2, 1, 1, 4], [2, 2, 4, 4, 1]),
    ])
    func competitionRanking(counts: [Int], ranks: [Int]) {
        let requests = counts.enumerated().flatMap { app, count in
            (0..<count).map { Fixture.request(app: "app\(app)", host: "a.com", time: Int64($0)) }
        }
        let metrics = AppMetrics.compute(runs: [], requests: requests)
        #expect(metrics.map { $0.ranks[.requests] } == ranks)
    }

    @Test func noInputGivesNoApps() {
        #expect(AppMetrics.compute(runs: [], requests: []).isEmpty)
    }

    /// Every request is counted once at scale (speed: escrow-bench's egress group, docs/PERFORMANCE.md).
    @Test func hundredThousandRequestsAreEachCountedOnce() {
        let requests = Fixture.many(100_000)
        let runs = (0..<10_000).map { Fixture.run(app: "com.example.app\($0 % 50)", durationMs: 250, seq: $0) }
        let metrics = AppMetrics.compute(runs: runs, requests: requests)
        #expect(metrics.count == 50)
        #expect(metrics.map(\.requests).reduce(0, +) == 100_000)
        #expect(metrics.map(\.runs).reduce(0, +) == 10_000)
    }
}
