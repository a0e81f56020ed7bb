import EscrowCore
import EscrowEgress
import EscrowReports
import EscrowTestSupport
import Foundation
import Testing

@Suite struct MinimizedExportTests {
    typealias Fixture = EgressFixture

    /// 2025-11-24T08:00:00Z, a Monday (2025-W48).
    static let start: Int64 = 1_764_000_000 - 1_764_000_000 % 86_400 + 8 * 3_600
    static let requests = [
        Fixture.request(host: "api.weather.example", time: start + 5, bytesOut: 300, bytesIn: 2_000, flowID: "weather.current",
                        run: 987_654),
        Fixture.request(host: "api.weather.example", time: start + 65, sentData: true, bytesOut: 320, bytesIn: 1_800,
                        flowID: "weather.current", run: 987_655),
        Fixture.request(host: "stats.tracker.net", time: start + 6, tracker: "tracker.net", blocked: true, bytesIn: 0,
                        flowID: "stats.upload", run: 987_656),
        Fixture.request(app: "org.example.notes", host: "sync.notes.example", time: start + 9 * 86_400,
                        flowID: "notes.sync", run: 987_657),
    ]
    static let keys = ["type", "bundleID", "domain", "domainOwner", "context", "initiatedType", "hits", "firstTimeStamp",
                       "timeStamp", "week", "tracker", "blocked", "sentData", "bytesOut", "bytesIn"]

    @Test func oneRowPerAppHostAndWeekWithRelativeTimes() {
        let rows = MinimizedExport.rows(Self.requests)
        #expect(rows.map(\.domain) == ["api.weather.example", "stats.tracker.net", "sync.notes.example"])
        let weather = rows[0]
        #expect(weather.bundleID == "com.example.app")
        #expect(weather.context == "weather.example")
        #expect((weather.hits, weather.firstTimeStamp, weather.timeStamp) == (2, 0, 60))
        #expect((weather.sentData, weather.blocked, weather.bytesOut, weather.bytesIn) == (1, 0, 620, 3_800))
        #expect(weather.week.description == "2025-W48")
        #expect(!weather.tracker)
        #expect(weather.domainOwner == "")
        let tracker = rows[1]
        #expect((tracker.domainOwner, tracker.tracker, tracker.blocked, tracker.firstTimeStamp) == ("tracker.net", true, 1, 1))
        #expect(rows[2].firstTimeStamp == 9 * 86_400 - 5)
        #expect(rows[2].week.description == "2025-W49")
    }

    @Test func aRowNeverSpansTwoWeeks() {
        // Sunday 23:59:59 and Monday 00:00:00 of the next week.
        let sunday = Self.start - 8 * 3_600 - 1
        let rows = MinimizedExport.rows([Fixture.request(host: "a.com", time: sunday),
                                         Fixture.request(host: "a.com", time: sunday + 1)])
        #expect(rows.map(\.week.description) == ["2025-W47", "2025-W48"])
        #expect(rows.map(\.firstTimeStamp) == [0, 1])
    }

    /// No absolute time in any form: no epoch number, no date, no date-time of any input time;
    /// nor flow ids or run numbers.
    @Test(arguments: MinimizedExport.Format.allCases)
    func holdsNoAbsoluteTimeAndNoIdentifiers(format: MinimizedExport.Format) {
        let text = MinimizedExport.text(Self.requests, format: format)
        #expect(!text.isEmpty)
        #expect(!text.contains(/[0-9]{9,}/))
        #expect(!text.contains(/[0-9]{4}-[0-9]{2}-[0-9]{2}/))
        #expect(!text.contains(/[0-9]{2}:[0-9]{2}/))
        for request in Self.requests {
            let time = request.record.observation.time
            #expect(!text.contains(String(time)))
            #expect(!text.contains(Timestamp.format(secondsSince1970: Double(time)).prefix(10)))
            #expect(!text.contains(request.flowID))
            #expect(!text.contains(String(request.run)))
        }
    }

    @Test(arguments: [
        ("a.com", ["ba.com", "x-a.com", "a.com.evil.org", "192.0.2.7"]),
        ("A.COM.", ["ba.com", "x-a.com", "a.com.evil.org", "192.0.2.7"]),
        ("x.a.com", ["a.com", "ba.com", "x-a.com", "a.com.evil.org", "192.0.2.7"]),
        ("com", ["a.com.evil.org", "192.0.2.7"]),
        ("2.7", ["a.com", "x.a.com", "deep.x.a.com", "ba.com", "x-a.com", "a.com.evil.org", "192.0.2.7"]),
        ("192.0.2.7", ["a.com", "x.a.com", "deep.x.a.com", "ba.com", "x-a.com", "a.com.evil.org"]),
    ])
    func excludesADomainAndTheHostsUnderItLabelWise(excluded: String, kept: [String]) throws {
        let hosts = ["a.com", "x.a.com", "deep.x.a.com", "ba.com", "x-a.com", "a.com.evil.org", "192.0.2.7"]
        let requests = hosts.enumerated().map { index, host in
            Fixture.request(host: host, domain: host, time: Self.start + Int64(index))
        }
        let domain = try #require(HostName(excluded))
        #expect(MinimizedExport.rows(requests, excluding: [domain]).map(\.domain) == kept)
        #expect(MinimizedExport.unmatched([domain], in: requests).isEmpty == (kept.count < hosts.count),
                "an exclusion is unmatched exactly when it leaves nothing out")
    }

    @Test("exclusions normalize domains and IP addresses", arguments: [
        ("Example.COM.", "example.com"), ("  www.example.com\t", "www.example.com"), ("bücher.example", "xn--bcher-kva.example"),
        ("192.0.2.7", "192.0.2.7"), ("2001:DB8::1", "2001:db8::1"), ("[::1]", "::1"), ("com", "com"),
    ])
    func exclusionsNormalize(text: String, domain: String) throws {
        #expect(try MinimizedExport.exclusions([text]).map(\.text) == [domain])
    }

    @Test("exclusions refuse what is no domain, saying what is accepted", arguments: [
        "", " ", "https://tracker.example/", "tracker.example/path", "*.tracker.example", "tracker..example",
        "-tracker.example", "tracker example", "2.7", "999.1.1.1", "1.2.3.4.5", "tracker.example:443", "a\u{0}b.example",
        "a\u{1B}[2Kb.example", String(repeating: "a", count: 64) + ".example",
    ])
    func exclusionsRefuse(text: String) {
        #expect(throws: ReportError.notADomain(text)) { try MinimizedExport.exclusions(["example.com", text]) }
        let message = ReportError.notADomain(text).description
        #expect(message.contains("example.com, www.example.com"), "\(message)")
        #expect(message.contains("IP addresses"), "\(message)")
        #expect(!message.unicodeScalars.contains { $0.value < 0x20 }, "shown escaped: \(message)")
    }

    @Test func timesStartAtTheFirstExportedRequest() throws {
        let rows = MinimizedExport.rows(Self.requests, excluding: [try #require(HostName("weather.example"))])
        #expect(rows.map(\.domain) == ["stats.tracker.net", "sync.notes.example"])
        #expect(rows.map(\.firstTimeStamp) == [0, 9 * 86_400 - 6])
    }

    @Test(arguments: [
        ("com.example.app", ["api.weather.example", "stats.tracker.net"]), ("org.example.notes", ["sync.notes.example"]),
        ("com.example.none", []),
    ])
    func anAppFilterKeepsThatAppOnly(app: String, hosts: [String]) {
        let rows = MinimizedExport.rows(Self.requests, app: app)
        #expect(rows.map(\.domain) == hosts)
        #expect(rows.allSatisfy { $0.bundleID == app })
        #expect(rows.first?.firstTimeStamp ?? 0 == 0)
    }

    @Test func jsonParsesWithItsEnvelopeAndEveryField() throws {
        let text = MinimizedExport.json(Self.requests)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        #expect(object["format"] as? String == "escrow-egress-export")
        #expect(object["version"] as? Int == 1)
        let rows = try #require(object["requests"] as? [[String: Any]])
        #expect(rows.count == 3)
        for row in rows {
            #expect(Set(row.keys) == Set(Self.keys))
            #expect(row["type"] as? String == "networkActivity")
            #expect(row["initiatedType"] as? String == "AppInitiated")
        }
        #expect(rows[1]["domainOwner"] as? String == "tracker.net")
        #expect(rows[1]["tracker"] as? Bool == true)
        #expect(rows[0]["timeStamp"] as? Int == 60)
        #expect(text.hasPrefix(#"{"format":"escrow-egress-export","version":1,"requests":[{"type":"networkActivity","#))
    }

    @Test func everyNDJSONLineParsesWithItsKeysInOneOrder() throws {
        let text = MinimizedExport.ndjson(Self.requests)
        #expect(text.hasSuffix("}\n"))
        let lines = text.split(separator: "\n")
        #expect(lines.count == 3)
        for line in lines {
            let row = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            #expect(Set(row.keys) == Set(Self.keys))
            let order = Self.keys.compactMap { line.range(of: "\"\($0)\":")?.lowerBound }
            #expect(order == order.sorted() && order.count == Self.keys.count)
        }
        #expect(lines[0] == #"{"type":"networkActivity","bundleID":"com.example.app","domain":"api.weather.example","#
            + #""domainOwner":"","context":"weather.example","initiatedType":"AppInitiated","hits":2,"firstTimeStamp":0,"#
            + #""timeStamp":60,"week":"2025-W48","tracker":false,"blocked":0,"sentData":1,"bytesOut":620,"bytesIn":3800}"#)
    }

    @Test func escapesWhatAnAppIDHolds() throws {
        let app = "com.example.\"quoted\"\\\n\u{1}"
        let text = MinimizedExport.ndjson([Fixture.request(app: app, host: "a.com", time: Self.start)])
        #expect(text.split(separator: "\n").count == 1)
        let row = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        #expect(row["bundleID"] as? String == app)
    }

    @Test func theSameRequestsInAnyOrderGiveTheSameBytes() {
        var generator = SplitMix64(seed: 48)
        let requests = Fixture.many(2_000)
        #expect(MinimizedExport.ndjson(requests.shuffled(using: &generator)) == MinimizedExport.ndjson(requests))
        #expect(MinimizedExport.json(requests.reversed()) == MinimizedExport.json(requests))
    }

    @Test func nothingToExportIsAnEmptyList() throws {
        #expect(MinimizedExport.ndjson([]) == "")
        #expect(MinimizedExport.json([]) == "{\"format\":\"escrow-egress-export\",\"version\":1,\"requests\":[]}\n")
    }
}
