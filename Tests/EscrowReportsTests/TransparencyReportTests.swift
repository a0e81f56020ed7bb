import EscrowCore
import EscrowEgress
@testable import EscrowReports
import EscrowTestSupport
import Testing

/// The HTML transparency report as text: hostile input escaped everywhere, nothing loaded from
/// outside, the empty report, the three charts, and a bounded size for 100,000 requests.
/// (ChromiumReportTests renders it in a browser.)
struct TransparencyReportTests {
    // MARK: - Hostile text

    @Test(arguments: TransparencyReportSamples.hostile)
    func hostileTextNeverReachesThePageAsMarkup(_ text: String) {
        let flow = FlowSummary(id: text, app: text, purpose: text, functionID: text, place: text, decision: text,
                               status: text, reads: [text, "Location.latitude"])
        let metrics = AppMetrics(app: text, runs: 1, requests: 2, computeSeconds: 1, requestsPerMinute: 120, domains: 1,
                                 subdomains: 1, trackerShare: 0.5, blocked: 0, sentData: 0, ranks: [.requests: 1])
        let requests = [
            Self.request(app: text, host: text, domain: text, tracker: text, time: Self.day0),
            Self.request(app: text, host: "api." + text, domain: text, tracker: nil, time: Self.day0 + 90_000),
        ]
        let html = TransparencyReport(generated: text, flows: [flow], apps: [metrics], requests: requests).html()

        #expect(!html.contains(text), "the hostile text appears as it is")
        let tags = Self.tags(in: html)
        #expect(Set(tags.map(\.name)).isSubset(of: Self.expectedElements), "unexpected elements: \(Set(tags.map(\.name)).subtracting(Self.expectedElements))")
        for tag in tags {
            #expect(tag.attributes.allSatisfy { !$0.hasPrefix("on") && $0 != "src" && $0 != "href" },
                    "an unexpected attribute in <\(tag.name) \(tag.attributes)>")
        }
        #expect(!html.unicodeScalars.contains { $0 != "\n" && DisplayText.isUnsafe($0) }, "a control or invisible character")
        #expect(html.ranges(of: "<svg ").count == 3)
    }

    @Test func hostileTextShowsAsTheCharactersItIs() {
        let html = TransparencyReportSamples.report().html()
        #expect(html.contains("&lt;script&gt;alert(1)&lt;/script&gt;"))
        #expect(html.contains("&quot;&gt;&lt;img src=x onerror=alert(1)&gt;"))
        #expect(html.contains("&#39;&gt;&lt;svg onload=alert(1)&gt;"))
        #expect(html.contains("evil\\u{202E}gnp.<wbr>exe"))
        #expect(!html.contains("\u{202E}"))
        #expect(!html.contains("<script"))
        #expect(!html.contains("<img"))
        #expect(!html.contains("<svg onload"))
    }

    @Test func aStatusOutsideTheKnownOnesGetsANeutralStyle() {
        let flow = FlowSummary(id: "f", app: "a", purpose: "p", functionID: "fn", place: "on this device",
                               decision: "odd", status: "approved\" onclick=\"x", reads: [])
        let html = TransparencyReport(generated: "now", flows: [flow], apps: [], requests: []).html()
        #expect(html.contains("<span class=\"status other\">odd</span>"))
        #expect(!html.contains("onclick=\"x"))
    }

    // MARK: - Self-contained

    @Test func thePageLoadsNothingFromOutside() {
        let html = TransparencyReportSamples.report().html()
        for reference in ["http://", "https://", "url(", "@import", "<script", "<link", "<img", "<iframe", "<object",
                          "<embed", "<base", "xlink:", "<foreignObject"] {
            #expect(!html.contains(reference), "the page holds \(reference)")
        }
        // (`src=` does occur, in the sample's hostile text shown as text: no element has the attribute.)
        let attributes = Set(Self.tags(in: html).flatMap(\.attributes))
        #expect(attributes.isDisjoint(with: ["src", "href", "srcset", "data", "action", "formaction", "poster", "background"]))
        #expect(html.hasPrefix("<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"))
        #expect(html.contains("<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
            + "style-src 'unsafe-inline'; img-src data:\">"))
        #expect(html.hasSuffix("</body>\n</html>\n"))
        #expect(Set(Self.tags(in: html).map(\.name)).isSubset(of: Self.expectedElements))
    }

    // MARK: - Content

    @Test func theSampleReportHasItsTablesAndTheThreeCharts() {
        let html = TransparencyReportSamples.report().html()
        #expect(html.ranges(of: "<svg ").count == 3)
        #expect(html.ranges(of: "role=\"img\"><title>").count == 3)
        #expect(html.contains("<title>Requests per day by app, 2026-11-10 to 2026-11-19</title>"))
        #expect(html.contains("<title>Tracker share per app</title>"))
        #expect(html.contains("<title>Most contacted domains</title>"))
        #expect(html.contains("Generated <time>2026-11-20 09:30 UTC</time>"))
        #expect(html.contains("<span class=\"status approved\">approved until 2026-12-31</span>"))
        #expect(html.contains("<span class=\"status pending\">pending</span>"))
        #expect(html.contains("<span class=\"status revoked\">revoked</span>"))
        #expect(html.contains("<td>com.<wbr>example.<wbr>weather</td>"))
        #expect(html.contains("<span class=\"rank\">#1</span>"))
        // A domain that is partly a tracker says so in words, not by colour alone.
        #expect(html.contains("· tracker: 12 of 22"))
        #expect(html.contains(">· tracker</text>"))
    }

    @Test func anEmptyReportSaysNothingWasRecorded() {
        let html = TransparencyReport(generated: "2026-11-20", flows: [], apps: [], requests: []).html()
        #expect(html.contains("No dataflows recorded yet."))
        #expect(html.contains("No app has run a dataflow yet."))
        #expect(html.contains("Nothing recorded yet: no compute function has contacted the network."))
        #expect(html.contains("No compute function has contacted the network yet."))
        #expect(!html.contains("<svg"))
        #expect(!html.contains("<table"))
        #expect(html.contains("<dt>Requests</dt><dd>0</dd>"))
    }

    @Test func appsThatMadeNoRequestsGetNoTrackerShareChart() {
        let idle = AppMetrics(app: "com.example.idle", runs: 3, requests: 0, computeSeconds: 2, requestsPerMinute: 0,
                              domains: 0, subdomains: 0, trackerShare: 0, blocked: 0, sentData: 0)
        let requests = [Self.request(app: "com.example.other", host: "a.example", domain: "a.example", tracker: nil, time: Self.day0)]
        let html = TransparencyReport(generated: "now", flows: [], apps: [idle], requests: requests).html()
        #expect(html.contains("No app&#39;s compute code has made a request yet."))
        #expect(html.ranges(of: "<svg ").count == 2)
    }

    @Test func aLongSpanIsShownPerWeek() {
        // 120 days from Wednesday 2026-01-07: 18 weeks, the first starting Monday 2026-01-05.
        let requests = (0..<120).map { day in
            Self.request(app: "com.example.app\(day % 3)", host: "api.example", domain: "api.example", tracker: nil,
                         time: Self.day0 + Int64(day) * 86_400 + 3_600)
        }
        let html = TransparencyReport(generated: "now", flows: [], apps: [], requests: requests).html()
        #expect(html.contains("Requests per week <span>by app, weeks from Monday to Sunday, UTC</span>"))
        #expect(html.contains("<title>Requests per week by app, 2026-01-05 to 2026-05-04</title>"))
        #expect(html.contains("week of 2026-01-05 to 2026-01-11"))
        let timeline = RequestTimeline(RequestTally(requests))
        #expect(timeline.unit == .week)
        #expect(timeline.buckets.count == 18)
        #expect(timeline.buckets.first?.total == 5)
        #expect(timeline.buckets.reduce(0) { $0 + $1.total } == 120)
    }

    // MARK: - Scale

    /// The page does not grow with the requests (speed: escrow-bench's egress group).
    @Test func oneHundredThousandRequestsKeepThePageBounded() {
        let many = Self.manyRequests(100_000)
        let apps = (0..<50).map { index in
            AppMetrics(app: "com.example.app\(index)", runs: 100, requests: 2_000, computeSeconds: 60, requestsPerMinute: 2_000,
                       domains: 400, subdomains: 800, trackerShare: Double(index) / 50, blocked: 0, sentData: 0)
        }
        let html = TransparencyReport(generated: "now", flows: [], apps: apps, requests: many).html()
        let fewer = TransparencyReport(generated: "now", flows: [], apps: apps, requests: Array(many.prefix(20_000))).html()
        #expect(html.utf8.count < 200_000, "the page has \(html.utf8.count) bytes")
        #expect(Double(html.utf8.count) < Double(fewer.utf8.count) * 1.1, "the page grows with the requests")
        #expect(html.ranges(of: "<svg ").count == 3)
    }


    // MARK: - Helpers

    /// 2026-01-07 00:00:00 UTC, a Wednesday.
    static let day0: Int64 = 1_767_744_000

    static func request(app: String, host: String, domain: String, tracker: String?, time: Int64) -> RecordedRequest {
        let observation = EgressObservation(time: time, host: host, method: "GET", bytesOut: 400, bytesIn: 2_000,
                                            status: 200, blocked: false, sentData: false)
        return RecordedRequest(app: app, flowID: "flow", run: 1,
                               record: EgressRecord(observation: observation, domain: domain, tracker: tracker))
    }

    /// `count` requests of 50 apps to 2,000 domains over a year, every tenth domain a tracker.
    static func manyRequests(_ count: Int) -> [RecordedRequest] {
        var random = SplitMix64(seed: 100_000)
        return (0..<count).map { _ in
            let domainIndex = Int(random.next() % 2_000)
            let domain = "site\(domainIndex).example"
            return request(app: "com.example.app\(random.next() % 50)", host: "www.\(domain)", domain: domain,
                           tracker: domainIndex % 10 == 0 ? domain : nil, time: day0 + Int64(random.next() % (365 * 86_400)))
        }
    }

    /// Every element the report writes.
    static let expectedElements: Set<String> = [
        "!doctype", "html", "head", "meta", "title", "style", "body", "header", "h1", "h2", "p", "time", "b", "dl", "div",
        "dt", "dd", "small", "main", "section", "table", "thead", "tbody", "tr", "th", "td", "code", "br", "wbr", "span",
        "figure", "figcaption", "svg", "desc", "rect", "line", "text", "footer",
    ]

    /// The opening tags of a page, each with its attribute names: a small scanner that skips quoted
    /// attribute values, enough for markup this report writes.
    static func tags(in html: String) -> [(name: String, attributes: [String])] {
        var tags: [(name: String, attributes: [String])] = []
        let characters = Array(html)
        var index = 0
        while index < characters.count {
            guard characters[index] == "<" else {
                index += 1
                continue
            }
            index += 1
            if index < characters.count, characters[index] == "/" {
                while index < characters.count, characters[index] != ">" { index += 1 }
                continue
            }
            var name = ""
            while index < characters.count, !characters[index].isWhitespace, characters[index] != ">", characters[index] != "/" {
                name.append(characters[index])
                index += 1
            }
            var attributes: [String] = []
            var word = ""
            while index < characters.count, characters[index] != ">" {
                let character = characters[index]
                if character == "\"" || character == "'" {
                    index += 1
                    while index < characters.count, characters[index] != character { index += 1 }
                } else if character == "=" {
                    attributes.append(word.lowercased())
                    word = ""
                } else if character.isWhitespace || character == "/" {
                    if !word.isEmpty, name != "!doctype" { attributes.append(word.lowercased()) }
                    word = ""
                } else {
                    word.append(character)
                }
                index += 1
            }
            tags.append((name.lowercased(), attributes))
        }
        return tags
    }
}
