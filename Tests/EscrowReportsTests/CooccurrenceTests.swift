import EscrowReports
import Testing

@Suite struct CooccurrenceTests {
    typealias Fixture = EgressFixture

    /// The chosen domain x.com is contacted at t = 100 and t = 110.
    /// - a.com at 101, 102, 109: nearest distances 1, 2, 1, so N = 3 and Δt = 4/3;
    /// - b.com twice at 100: distances 0, 0, so N = 2 and Δt = 0;
    /// - c.com at 120: distance 10, outside a 5 s window, inside a 15 s one (N = 1, Δt = 10).
    ///
    /// T = 5:  a.com (16/9 + 2.5 + 1)/3 ≈ 1.7593, b.com (0 + 2.5 + 1)/2 = 1.75 → b.com, a.com.
    /// T = 15: a.com (16/9 + 7.5 + 1)/3 ≈ 3.4259, b.com (0 + 7.5 + 1)/2 = 4.25,
    ///         c.com (100 + 7.5 + 1)/1 = 108.5 → a.com, b.com, c.com.
    static let requests = [
        Fixture.request(host: "x.com", time: 100), Fixture.request(host: "x.com", time: 110),
        Fixture.request(host: "a.com", time: 101), Fixture.request(host: "a.com", time: 102),
        Fixture.request(host: "a.com", time: 109),
        Fixture.request(app: "com.example.other", host: "ads.b.com", time: 100, tracker: "b.com"),
        Fixture.request(host: "b.com", time: 100),
        Fixture.request(host: "c.com", time: 120),
    ]
    static let a = ((4.0 / 3.0) * (4.0 / 3.0) + 2.5 + 1) / 3

    @Test func ranksTheHandComputedExampleWithAFiveSecondWindow() throws {
        let scores = try Cooccurrence.rank(domain: "x.com", window: 5, requests: Self.requests)
        #expect(scores.map(\.domain) == ["b.com", "a.com"])
        #expect(scores[0].score == 1.75)
        #expect(scores[0].occurrences == 2)
        #expect(scores[0].meanDistance == 0)
        #expect(scores[1].score == Self.a)
        #expect(abs(scores[1].score - 1.759_259_259) < 1e-9)
        #expect(scores[1].occurrences == 3)
        #expect(scores[1].meanDistance == 4.0 / 3.0)
    }

    @Test func aWiderWindowReachesFartherAndReordersTheRanking() throws {
        let scores = try Cooccurrence.rank(domain: "x.com", window: 15, requests: Self.requests)
        #expect(scores.map(\.domain) == ["a.com", "b.com", "c.com"])
        #expect(scores.map(\.score) == [((4.0 / 3.0) * (4.0 / 3.0) + 7.5 + 1) / 3, 4.25, 108.5])
        #expect(scores.map(\.occurrences) == [3, 2, 1])
    }

    @Test func flagsTrackersAndNamesTheAppsAndHosts() throws {
        let scores = try Cooccurrence.rank(domain: "x.com", window: 5, requests: Self.requests)
        #expect(scores[0].tracker)
        #expect(scores[0].hosts == ["ads.b.com", "b.com"])
        #expect(scores[0].apps == ["com.example.app", "com.example.other"])
        #expect(!scores[1].tracker)
        #expect(scores[1].apps == ["com.example.app"])
    }

    @Test func anAppFilterLeavesOtherAppsOut() throws {
        let scores = try Cooccurrence.rank(domain: "x.com", window: 5, requests: Self.requests, app: "com.example.app")
        // b.com keeps only its own app's request at t = 100: N = 1, (0 + 3.5)/1.
        #expect(scores.map(\.domain) == ["a.com", "b.com"])
        #expect(scores.map(\.score) == [Self.a, 3.5])
    }

    /// T = 0 counts only requests in the very same second as one of x.com's (100 or 110):
    /// e.com three times at 110 → N = 3, score 1/3; d.com at 100 (and 101, not counted) → 1/1.
    @Test func aZeroWindowCountsTheExactSecondOnly() throws {
        let requests = [
            Fixture.request(host: "x.com", time: 100), Fixture.request(host: "x.com", time: 110),
            Fixture.request(host: "d.com", time: 100), Fixture.request(host: "d.com", time: 101),
            Fixture.request(host: "e.com", time: 110), Fixture.request(host: "e.com", time: 110),
            Fixture.request(host: "e.com", time: 110), Fixture.request(host: "f.com", time: 99),
        ]
        let scores = try Cooccurrence.rank(domain: "x.com", window: 0, requests: requests)
        #expect(scores.map(\.domain) == ["e.com", "d.com"])
        #expect(scores.map(\.score) == [1.0 / 3.0, 1])
        #expect(scores.map(\.meanDistance) == [0, 0])
    }

    /// A registrable domain selects all its hosts; a host selects itself only, and the other
    /// hosts of its domain then rank under the domain. The name is compared normalized.
    @Test(arguments: [
        ("x.com", ["a.com"]), ("X.COM.", ["a.com"]), ("api.x.com", ["x.com", "a.com"]),
    ])
    func selectsByRegistrableDomainOrExactHost(domain: String, ranked: [String]) throws {
        let requests = [
            Fixture.request(host: "api.x.com", time: 100), Fixture.request(host: "cdn.x.com", time: 100),
            Fixture.request(host: "a.com", time: 101),
        ]
        let scores = try Cooccurrence.rank(domain: domain, window: 5, requests: requests)
        #expect(scores.map(\.domain) == ranked)
    }

    @Test func equalScoresAreOrderedByDomain() throws {
        let requests = [
            Fixture.request(host: "x.com", time: 100), Fixture.request(host: "z.com", time: 101),
            Fixture.request(host: "m.com", time: 99), Fixture.request(host: "b.com", time: 101),
        ]
        let scores = try Cooccurrence.rank(domain: "x.com", window: 30, requests: requests)
        #expect(scores.map(\.domain) == ["b.com", "m.com", "z.com"])
    }

    @Test(arguments: [-1, 1, 4, 10, 31, 60])
    func rejectsAWindowAppChkDoesNotDefine(window: Int) {
        #expect(throws: ReportError.invalidWindow(window)) {
            try Cooccurrence.rank(domain: "x.com", window: window, requests: Self.requests)
        }
        #expect(ReportError.invalidWindow(window).description.contains("0, 5, 15, 30"))
    }

    /// A domain nobody contacted is an error, so a misspelling is not mistaken for "no neighbours".
    @Test(arguments: [
        ("nope.com", nil, ReportError.unknownDomain("nope.com", app: nil)),
        ("X.com", "com.example.missing", .unknownDomain("x.com", app: "com.example.missing")),
    ] as [(String, String?, ReportError)])
    func anUnknownDomainIsAnError(domain: String, app: String?, error: ReportError) {
        #expect(throws: error) { try Cooccurrence.rank(domain: domain, window: 5, requests: Self.requests, app: app) }
        #expect(error.description.contains("escrow export"))
    }

    @Test func aDomainWithoutNeighboursRanksNothing() throws {
        let requests = [Fixture.request(host: "x.com", time: 100), Fixture.request(host: "a.com", time: 200)]
        #expect(try Cooccurrence.rank(domain: "x.com", window: 30, requests: requests).isEmpty)
    }

    /// Ranks at scale (speed: escrow-bench's egress group, docs/PERFORMANCE.md).
    @Test func hundredThousandRequestsRankEveryNeighbour() throws {
        var requests = Fixture.many(90_000)
        requests += (0..<10_000).map { Fixture.request(host: "chosen.example", time: 1_764_000_000 + Int64($0) * 8) }
        let scores = try Cooccurrence.rank(domain: "chosen.example", window: 5, requests: requests)
        #expect(scores.count == 500)
        #expect(scores.map(\.score) == scores.map(\.score).sorted())
    }
}
