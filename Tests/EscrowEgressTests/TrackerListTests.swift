import EscrowEgress
import Testing

@Suite struct TrackerListTests {
    static let lists = Result { () throws(EgressListError) in try TrackerList(filterLists: TrackerList.debianPaths) }

    func host(_ text: String) throws -> HostName { try #require(HostName(text)) }

    /// A list of hand-written rules, for the matching rules themselves.
    func handList() -> TrackerList {
        var list = TrackerList()
        list.addFilterList("""
            ! a comment
            ||a.com^
            ||metrics.example.org^$third-party
            ||ads.example.net^$script
            ||xhr.example.net^$script,third-party,xmlhttprequest
            ||notxhr.example.net^$~xmlhttprequest
            ||page.example.net^$domain=news.example
            ||first.example.net^$~third-party
            ||*.wild.com^
            ||paths.com/pixel^
            @@||allowed.com^
            ||192.0.2.7^
            example.biz##.banner
            """)
        return list
    }

    @Test(arguments: [
        ("a.com", "a.com"), ("x.a.com", "a.com"), ("x.y.z.a.com", "a.com"), ("A.COM.", "a.com"),
        ("metrics.example.org", "metrics.example.org"), ("deep.metrics.example.org", "metrics.example.org"),
        ("192.0.2.7", "192.0.2.7"), ("api.xhr.example.net", "xhr.example.net"),
    ])
    func matchesADomainAndEveryNameUnderIt(raw: String, rule: String) throws {
        #expect(handList().match(try host(raw)) == rule)
    }

    @Test(arguments: ["x-a.com", "a.com.evil.org", "com", "example.org", "ads.example.net", "x.wild.com", "paths.com",
                      "allowed.com", "example.biz", "notxhr.example.net", "page.example.net", "first.example.net", "2.7", "10.192.0.2.7", "0.2.7"])
    func doesNotMatchAcrossLabelsOrOtherRules(raw: String) throws {
        #expect(handList().match(try host(raw)) == nil)
    }

    @Test func anIPAddressMatchesOnlyItsOwnRule() throws {
        var list = TrackerList()
        list.insert(try host("2.7"))
        #expect(list.match(try host("192.0.2.7")) == nil)
    }

    @Test func internationalizedRulesAndHostsMeetInOneForm() throws {
        var list = TrackerList()
        list.insert(try host("bücher.example"))
        #expect(list.match(try host("cdn.xn--bcher-kva.example")) == "xn--bcher-kva.example")
    }

    @Test func readsEasyListAndEasyPrivacy() throws {
        let lists = try Self.lists.get()
        #expect(lists.count > 50_000)
        #expect(lists.match(try host("www.google-analytics.com")) == "google-analytics.com")
        #expect(lists.match(try host("ssl.google-analytics.com")) == "google-analytics.com")
        #expect(lists.match(try host("example.com")) == nil)
        #expect(lists.match(try host("wikipedia.org")) == nil)
    }

    @Test func aListWithoutDomainRulesIsRefused() throws {
        #expect(throws: EgressListError.self) { try TrackerList(filterLists: ["/nonexistent/easylist.txt"]) }
    }
}
