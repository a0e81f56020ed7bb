import EscrowTestSupport
import Foundation
import Testing

/// `escrow filter`, `flows show`'s "What leaves the device", `escrow report`, `escrow export` and
/// the retention setting, through the real `escrow` binary and the real platform service: the
/// weather app's function asks api.weather.example.com for the weather and tells
/// ssl.google-analytics.com about it, both names resolved to 127.0.0.1 by `network.resolve`.
@Suite("escrow filter, report, export and what leaves the device")
struct EgressCommandTests {
    static let weatherHost = "api.weather.example.com"
    static let analyticsHost = "ssl.google-analytics.com"
    static let sql = "SELECT latitude, longitude FROM Location ORDER BY timestamp DESC LIMIT 1"
    static let app = "org.example.weather"

    /// An escrow home with the sample track imported and the test hosts resolved to 127.0.0.1.
    struct WeatherHome {
        let home: ScratchHome
        let platform: PlatformServiceProcess

        static func make() async throws -> WeatherHome {
            let platform = try await PlatformServiceProcess.start()
            let home = ScratchHome()
            let weather = WeatherHome(home: home, platform: platform)
            for step in [["init"], ["import", "locations", SampleData.track],
                         ["config", "set", "network.resolve", "\(weatherHost)=127.0.0.1 \(analyticsHost)=127.0.0.1"]] {
                let outcome = try await EscrowProcess.run(["--home", home.path] + step)
                guard outcome.succeeded else {
                    weather.remove()
                    throw StepFailed(outcome: outcome)
                }
            }
            return weather
        }

        func remove() {
            platform.stop()
            home.remove()
        }

        var parameters: [String] {
            ["--param", "service=http://\(weatherHost):\(platform.port)",
             "--param", "analytics=http://\(analyticsHost):\(platform.port)/collect"]
        }

        /// One run of the weather flow (awaiting approval the first time).
        func run() async throws -> EscrowProcess.Outcome {
            try await home.run(sql: sql, compute: "weather.current", extra: parameters, app: app, purpose: "Weather where you are")
        }

        /// Runs the flow, approving it first.
        @discardableResult
        func runApproved() async throws -> EscrowProcess.Outcome {
            let outcome = try await home.runApproved(sql: sql, compute: "weather.current", extra: parameters, app: app,
                                                     purpose: "Weather where you are")
            guard outcome.succeeded else { throw StepFailed(outcome: outcome) }
            return outcome
        }

        func escrow(_ arguments: String...) async throws -> EscrowProcess.Outcome {
            try await EscrowProcess.run(["--home", home.path] + arguments)
        }
    }

    struct StepFailed: Error, CustomStringConvertible {
        let outcome: EscrowProcess.Outcome
        var description: String { "a step of the test's setup failed: \(outcome)" }
    }

    /// The lines of a `flows show` section, up to the blank line that ends it.
    static func section(_ title: String, of text: String) -> [String] {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        guard let start = lines.firstIndex(of: title) else { return [] }
        return Array(lines[(start + 1)...].prefix { !$0.isEmpty })
    }

    // MARK: escrow filter

    @Test("escrow filter block normalizes a domain or refuses text that is none", arguments: [
        ("Google-Analytics.COM.", "google-analytics.com"),
        ("EXAMPLE.co.uk", "example.co.uk"),
        ("bücher.example", "xn--bcher-kva.example"),
        ("192.0.2.7", "192.0.2.7"),
        ("  example.com ", "example.com"),
        ("", nil),
        ("http://x.com/", nil),
        ("not a domain!", nil),
        ("a b.com", nil),
        ("x..com", nil),
    ] as [(String, String?)])
    func blockNormalizes(_ input: String, _ stored: String?) async throws {
        let home = ScratchHome()
        defer { home.remove() }
        try #require(try await home.escrow("init").succeeded)

        let block = try await home.escrow("filter", "block", input)
        let list = try await home.escrow("filter", "list", "--json")
        #expect(list.succeeded, "\(list)")
        let domains = list.jsonArray?.compactMap { $0["domain"] as? String }
        if let stored {
            #expect(block.succeeded, "\(block)")
            #expect(block.standardOutput.hasPrefix("\(stored) blocked"), "\(block)")
            #expect(domains == [stored], "\(list)")
            #expect(list.jsonArray?.first?["action"] as? String == "block", "\(list)")
        } else {
            #expect(block.status == 1, "\(block)")
            #expect(block.standardError.contains("is not a domain name"), "\(block)")
            #expect(domains == [], "nothing was stored: \(list)")
        }
    }

    @Test("escrow filter remove of a domain without a filter fails and says why", arguments: [
        ([], "example.com", "example.com has no filter"),
        (["google-analytics.com"], "SSL.google-analytics.com", "it falls under google-analytics.com"),
    ])
    func removeUnfiltered(_ blocked: [String], _ domain: String, _ message: String) async throws {
        let home = ScratchHome()
        defer { home.remove() }
        try #require(try await home.escrow("init").succeeded)
        for domain in blocked { try #require(try await home.escrow("filter", "block", domain).succeeded) }

        let remove = try await home.escrow("filter", "remove", domain)
        #expect(remove.status == 1, "\(remove)")
        #expect(remove.standardOutput.isEmpty, "\(remove)")
        #expect(remove.standardError.contains(message), "\(remove)")
        let list = try await home.escrow("filter", "list", "--json")
        #expect(list.jsonArray?.compactMap { $0["domain"] as? String } == blocked, "the filters are unchanged: \(list)")

        // The domain as the list shows it is removed, in any spelling.
        for domain in blocked {
            let removed = try await home.escrow("filter", "remove", domain.uppercased() + ".")
            #expect(removed.succeeded, "\(removed)")
        }
        #expect(try await home.escrow("filter", "list", "--json").jsonArray?.isEmpty == true)
    }

    // MARK: What leaves the device

    @Test func flowsShowNamesTheServicesBeforeTheFirstRunAndTheContactedHostsAfter() async throws {
        let weather = try await WeatherHome.make()
        defer { weather.remove() }

        let pending = try await weather.run()
        let flow = try #require(pending.pendingFlow, "\(pending)")
        let before = try await weather.escrow("flows", "show", flow)
        #expect(before.succeeded, "\(before)")
        let announced = Self.section("What leaves the device", of: before.standardOutput)
        #expect(announced.contains { $0.contains(Self.weatherHost) }, "\(before)")
        #expect(announced.contains { $0.contains(Self.analyticsHost) }, "\(before)")
        #expect(announced.contains { $0.contains("contacted so far: nothing") }, "\(before)")

        try #require(try await weather.escrow("approve", flow).succeeded)
        let ran = try await weather.run()
        #expect(ran.succeeded, "\(ran)")
        let after = try await weather.escrow("flows", "show", flow)
        let leaves = Self.section("What leaves the device", of: after.standardOutput)
        // The hosts contacted are listed after the services the parameters name.
        let contacted = try #require(leaves.firstIndex { $0.contains("contacted so far (2 requests)") }, "\(after)")
        let hostLines = leaves[contacted...]
        let weatherLine = try #require(hostLines.first { $0.trimmingCharacters(in: .whitespaces).hasPrefix(Self.weatherHost) },
                                       "\(after)")
        let analyticsLine = try #require(hostLines.first { $0.trimmingCharacters(in: .whitespaces).hasPrefix(Self.analyticsHost) },
                                         "\(after)")
        #expect(weatherLine.contains("sent values of your data"), "\(weatherLine)")
        #expect(!weatherLine.contains("tracker"), "\(weatherLine)")
        #expect(analyticsLine.contains("tracker (google-analytics.com)"), "\(analyticsLine)")
        #expect(!analyticsLine.contains("sent values of your data"), "\(analyticsLine)")
        #expect(!leaves.contains { $0.contains("contacted so far: nothing") }, "\(after)")
    }

    @Test func flowsShowJSONListsTheServicesAndEveryHostContacted() async throws {
        let weather = try await WeatherHome.make()
        defer { weather.remove() }
        let flow = try #require(try await weather.run().pendingFlow)

        let before = try #require(try await weather.escrow("flows", "show", flow, "--json").jsonObject)
        let services = try #require(before["services"] as? [[String: Any]], "\(before)")
        #expect(services.map { $0["parameter"] as? String } == ["service", "analytics"], "\(services)")
        #expect(services.map { $0["host"] as? String } == [Self.weatherHost, Self.analyticsHost], "\(services)")
        #expect(services.allSatisfy { ($0["summary"] as? String)?.isEmpty == false }, "\(services)")
        #expect((before["contacted"] as? [Any])?.isEmpty == true, "nothing contacted before the first run: \(before)")

        // Runs 2 and 3; then the tracker blocked, run 4.
        try #require(try await weather.escrow("approve", flow).succeeded)
        #expect(try await weather.run().succeeded)
        #expect(try await weather.run().succeeded)
        try #require(try await weather.escrow("filter", "block", "google-analytics.com").succeeded)
        #expect(try await weather.run().succeeded, "the analytics call is best effort: the weather still comes")

        let after = try #require(try await weather.escrow("flows", "show", flow, "--json").jsonObject)
        #expect((after["services"] as? [[String: Any]])?.count == 2, "\(after)")
        let contacted = try #require(after["contacted"] as? [[String: Any]], "\(after)")
        #expect(contacted.count == 2, "\(contacted)")
        let weatherHost = try #require(contacted.first { $0["host"] as? String == Self.weatherHost }, "\(contacted)")
        #expect(weatherHost["domain"] as? String == "example.com")
        #expect(weatherHost["tracker"] is NSNull, "\(weatherHost)")
        #expect(weatherHost["requests"] as? Int == 3)
        #expect(weatherHost["blocked"] as? Int == 0)
        #expect(weatherHost["sentData"] as? Int == 3, "each request carried the location: \(weatherHost)")
        #expect(weatherHost["runs"] as? [Int] == [2, 3, 4])
        let analytics = try #require(contacted.first { $0["host"] as? String == Self.analyticsHost }, "\(contacted)")
        #expect(analytics["domain"] as? String == "google-analytics.com")
        #expect(analytics["tracker"] as? String == "google-analytics.com")
        #expect(analytics["requests"] as? Int == 3)
        #expect(analytics["blocked"] as? Int == 1, "the run after the block: \(analytics)")
        #expect(analytics["sentData"] as? Int == 0)
        #expect(analytics["runs"] as? [Int] == [2, 3, 4])
    }

    @Test("flows show says what leaves for a function that takes no service", arguments: [
        ("location.region", ["the output of location.region goes to the app",
                             "its code takes no service to contact: nothing else leaves the device"]),
        ("identity", ["the data the query selects goes to the app itself, unchanged",
                      "(the identity function passes it through: approve only if you would hand it over)"]),
    ])
    func flowsShowAFunctionThatContactsNothing(_ function: String, _ lines: [String]) async throws {
        let home = ScratchHome()
        defer { home.remove() }
        try #require(try await home.escrow("init").succeeded)
        try #require(try await home.escrow("import", "locations", SampleData.track).succeeded)
        let flow = try #require(try await home.run(sql: Self.sql, compute: function).pendingFlow)
        try #require(try await home.escrow("approve", flow).succeeded)
        let ran = try await home.run(sql: Self.sql, compute: function)
        #expect(ran.succeeded, "\(ran)")

        let shown = try await home.escrow("flows", "show", flow)
        let leaves = Self.section("What leaves the device", of: shown.standardOutput).map { $0.trimmingCharacters(in: .whitespaces) }
        #expect(leaves == lines, "\(shown)")
        let json = try #require(try await home.escrow("flows", "show", flow, "--json").jsonObject)
        #expect((json["services"] as? [Any])?.isEmpty == true, "\(json)")
        #expect((json["contacted"] as? [Any])?.isEmpty == true, "\(json)")
    }

    // MARK: Reports and export

    @Test func reportAppsCountsTheRequestsAndTheTrackerShare() async throws {
        let weather = try await WeatherHome.make()
        defer { weather.remove() }
        try await weather.runApproved()

        let report = try await weather.escrow("report", "apps", "--json")
        #expect(report.succeeded, "\(report)")
        let apps = try #require(report.jsonArray, "\(report)")
        #expect(apps.count == 1, "\(report)")
        let metrics = try #require(apps.first)
        #expect(metrics["app"] as? String == Self.app)
        #expect(metrics["runs"] as? Int == 1, "the pending attempt is no run: \(report)")
        #expect(metrics["requests"] as? Int == 2, "\(report)")
        #expect(metrics["domains"] as? Int == 2, "\(report)")
        #expect(metrics["trackerShare"] as? Double == 0.5, "\(report)")
        #expect(metrics["sentData"] as? Int == 1, "\(report)")
    }

    @Test func theExportHoldsNoAbsoluteTime() async throws {
        let weather = try await WeatherHome.make()
        defer { weather.remove() }
        try await weather.runApproved()

        let export = try await weather.escrow("export")
        #expect(export.succeeded, "\(export)")
        let rows = export.outputLines.map { (try? JSONSerialization.jsonObject(with: Data($0.utf8))) as? [String: Any] }
        #expect(rows.count == 2, "\(export)")
        #expect(rows.allSatisfy { $0 != nil }, "every line is a JSON object: \(export)")
        #expect(Set(rows.compactMap { $0?["domain"] as? String }) == [Self.weatherHost, Self.analyticsHost], "\(export)")
        #expect(rows.compactMap { $0?["firstTimeStamp"] as? Int }.min() == 0, "times count from the first request: \(export)")
        #expect(export.standardOutput.firstMatch(of: /\d{4}-\d{2}-\d{2}T\d{2}:\d{2}/) == nil, "\(export)")
        #expect(export.standardOutput.firstMatch(of: /\d{10}/) == nil, "no ten-digit number (seconds since 1970): \(export)")
    }

    @Test func cooccurrenceRanksTheFirstPartyNextToTheTracker() async throws {
        let weather = try await WeatherHome.make()
        defer { weather.remove() }
        // Two runs: with a window of 0 s, one run's two requests straddling a second boundary
        // would otherwise leave nothing to rank.
        try await weather.runApproved()
        #expect(try await weather.run().succeeded)

        let ranking = try await weather.escrow("report", "cooccurrence", "google-analytics.com", "--window", "0", "--json")
        #expect(ranking.succeeded, "\(ranking)")
        let scores = try #require(ranking.jsonArray, "\(ranking)")
        #expect(scores.first?["domain"] as? String == "example.com", "\(ranking)")
        #expect(scores.first?["hosts"] as? [String] == [Self.weatherHost], "\(ranking)")
        #expect(scores.first?["tracker"] as? Bool == false, "\(ranking)")
    }

    @Test func reportHTMLWritesOnePageWithThreeCharts() async throws {
        let weather = try await WeatherHome.make()
        defer { weather.remove() }
        try await weather.runApproved()

        let file = weather.home.url.appendingPathComponent("report.html")
        let written = try await weather.escrow("report", "html", "--out", file.path)
        #expect(written.succeeded, "\(written)")
        let page = try String(contentsOf: file, encoding: .utf8)
        #expect(page.matches(of: /<svg/).count == 3, "requests over time, tracker share, most contacted domains")
        #expect(page.contains(Self.analyticsHost) || page.contains("google-analytics.com"))
        #expect(!page.contains("<script"), "readable without JavaScript")
    }

    @Test("escrow export refuses an --exclude that is no domain, saying what it takes, and exports nothing", arguments: [
        "", " ", "https://doubleclick.net/", "doubleclick.net/ads", "*.doubleclick.net", "double click.net", "doubleclick..net",
        "-doubleclick.net", "doubleclick.net-", "2.7", "999.1.1.1", "doubleclick.net:443", "\u{1B}[2Kdoubleclick.net", "--json",
        String(repeating: "x", count: 64) + ".net",
    ])
    func exportRefusesAnExcludeThatIsNoDomain(_ value: String) async throws {
        let home = ScratchHome()
        defer { home.remove() }
        try #require(try await home.escrow("init").succeeded)

        // `--exclude=VALUE` for a value starting with '-', so that it reaches the escrow's own check.
        let exclude = value.hasPrefix("-") ? ["--exclude=\(value)"] : ["--exclude", value]
        for arguments in [["export"] + exclude, ["export", "--exclude", "example.com"] + exclude + ["--format", "json"]] {
            let export = try await EscrowProcess.run(["--home", home.path] + arguments)
            #expect(export.status == 1, "\(export)")
            #expect(export.standardOutput.isEmpty, "nothing is exported: \(export)")
            #expect(export.standardError.contains("cannot leave out"), "\(export)")
            #expect(export.standardError.contains("(example.com, www.example.com, bücher.example)"), "\(export)")
            #expect(export.standardError.contains("IP addresses"), "\(export)")
            #expect(!export.standardError.contains("\u{1B}"), "shown escaped: \(export)")
        }
    }

    @Test func exportSaysWhenAnAppOrAnExclusionSelectsNothing() async throws {
        let weather = try await WeatherHome.make()
        defer { weather.remove() }
        try await weather.runApproved()
        let maps = try await weather.home.runApproved(sql: Self.sql, compute: "identity", app: "org.example.maps")
        try #require(maps.succeeded, "\(maps)")

        let unknown = try await weather.escrow("export", "--app", "org.example.mpas")
        #expect(unknown.status == 1, "an app that never ran is a mistake: \(unknown)")
        #expect(unknown.standardOutput.isEmpty, "\(unknown)")
        #expect(unknown.standardError.contains("unknown app 'org.example.mpas'"), "\(unknown)")
        #expect(unknown.standardError.contains("org.example.maps, org.example.weather"), "names the apps that ran: \(unknown)")

        for format in ["ndjson", "json"] {
            let quiet = try await weather.escrow("export", "--app", "org.example.maps", "--format", format)
            #expect(quiet.succeeded, "an app that ran without contacting anything: \(quiet)")
            #expect(quiet.standardError.contains("note: org.example.maps made no request in the runs the audit log holds"), "\(quiet)")
            if format == "json" {
                #expect((quiet.jsonObject?["requests"] as? [Any])?.isEmpty == true, "\(quiet)")
            } else {
                #expect(quiet.standardOutput.isEmpty, "\(quiet)")
            }
        }

        let misspelled = try await weather.escrow("export", "--exclude", "google-analytcs.com")
        #expect(misspelled.succeeded, "\(misspelled)")
        #expect(misspelled.outputLines.count == 2, "\(misspelled)")
        #expect(misspelled.standardError.contains("--exclude google-analytcs.com left nothing out"), "\(misspelled)")

        let excluded = try await weather.escrow("export", "--exclude", "Google-Analytics.COM.")
        #expect(excluded.succeeded, "\(excluded)")
        #expect(excluded.standardError.isEmpty, "\(excluded)")
        #expect(excluded.outputLines.count == 1 && excluded.standardOutput.contains(Self.weatherHost), "\(excluded)")
        #expect(!excluded.standardOutput.contains("google-analytics"), "\(excluded)")

        let both = try await weather.escrow("export", "--app", Self.app, "--exclude", "example.com", "google-analytics.com")
        #expect(both.succeeded && both.outputLines.isEmpty && both.standardError.isEmpty, "\(both)")
    }

    // MARK: Retention

    @Test("escrow config set retention-days refuses what is not a number of days", arguments: ["0", "abc", "36501", "1.5", ""])
    func retentionRefused(_ value: String) async throws {
        let home = ScratchHome()
        defer { home.remove() }
        let initialised = try await home.escrow("init")
        try #require(initialised.succeeded, "\(initialised)")

        let set = try await home.escrow("config", "set", "retention-days", value)
        #expect(set.status == 1, "\(set)")
        #expect(set.standardError.contains("from 1 to 36500"), "\(set)")
        let current = try await home.escrow("config", "get", "retention-days")
        #expect(current.standardOutput.hasPrefix("none"), "nothing was set: \(current)")
    }

    @Test func auditVerifyPassesAfterSettingRetention() async throws {
        let weather = try await WeatherHome.make()
        defer { weather.remove() }
        try await weather.runApproved()

        let set = try await weather.escrow("config", "set", "retention-days", "1")
        #expect(set.succeeded, "\(set)")
        #expect(!set.standardOutput.contains("older than that"), "nothing is a day old yet: \(set)")
        #expect(try await weather.escrow("config", "get", "retention-days").outputLines == ["1"])
        let verify = try await weather.escrow("audit", "verify")
        #expect(verify.succeeded, "\(verify)")
        #expect(verify.outputLines.first == "audit log intact: 2 entries", "\(verify)")
        let export = try await weather.escrow("export")
        #expect(export.outputLines.count == 2, "the requests are kept: \(export)")
    }
}
