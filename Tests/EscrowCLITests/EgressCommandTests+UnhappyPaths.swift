import EscrowTestSupport
import Foundation
import Testing

/// The paths of `escrow config set tracker-lists`, `escrow filter ignore` and `escrow report
/// compare` that go wrong or are taken less often, through the real `escrow` binary.
extension EgressCommandTests {
    /// The exported rows of the home, by host.
    static func exported(_ weather: WeatherHome) async throws -> [String: [String: Any]] {
        let export = try await weather.escrow("export")
        #expect(export.succeeded, "\(export)")
        var rows: [String: [String: Any]] = [:]
        for line in export.outputLines {
            let row = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "\(export)")
            if let host = row["domain"] as? String { rows[host] = row }
        }
        return rows
    }

    // MARK: Tracker lists

    @Test func aTrackerListOfTheIndividualsOwnFlagsARunsRequest() async throws {
        let weather = try await WeatherHome.make()
        defer { weather.remove() }
        let list = weather.home.url.appendingPathComponent("my-trackers.txt")
        try "! Title: my list\n||weather.example.com^\n||images.example^$image\n@@||weather.example.com^\n"
            .write(to: list, atomically: true, encoding: .utf8)

        let set = try await weather.escrow("config", "set", "tracker-lists", list.path)
        #expect(set.succeeded, "\(set)")
        #expect(set.standardOutput.contains("1 tracker domains from 1 list"), "the image-only rule is left out: \(set)")
        #expect(try await weather.escrow("config", "get", "tracker-lists").outputLines.first == list.path)

        try await weather.runApproved()
        let rows = try await Self.exported(weather)
        #expect(rows[Self.weatherHost]?["domainOwner"] as? String == "weather.example.com", "\(rows)")
        #expect(rows[Self.weatherHost]?["tracker"] as? Bool == true, "\(rows)")
    }

    @Test func aMissingTrackerListIsRefusedNamingThePathAndWhatToDo() async throws {
        let weather = try await WeatherHome.make()
        defer { weather.remove() }
        let missing = weather.home.url.appendingPathComponent("no-such-list.txt").path

        let set = try await weather.escrow("config", "set", "tracker-lists", "\(missing)")
        #expect(set.status == 1, "\(set)")
        #expect(set.standardOutput.isEmpty, "\(set)")
        #expect(set.standardError.contains(missing), "names the path: \(set)")
        #expect(set.standardError.contains("escrow config unset tracker-lists"), "says what to do: \(set)")
        #expect(!set.standardError.contains("apt-get"), "no package installs the individual's own file: \(set)")
        #expect(!(try await weather.escrow("config", "get", "tracker-lists").standardOutput.contains(missing)), "nothing was set")

        // The default lists still flag the analytics endpoint.
        try await weather.runApproved()
        let rows = try await Self.exported(weather)
        #expect(rows[Self.analyticsHost]?["domainOwner"] as? String == "google-analytics.com", "\(rows)")
    }

    @Test func aTrackerListGoneAfterItWasSetIsNamedWithWhatToDoOnTheRunThatNeedsIt() async throws {
        let weather = try await WeatherHome.make()
        defer { weather.remove() }
        let list = weather.home.url.appendingPathComponent("my-trackers.txt")
        try "||weather.example.com^\n".write(to: list, atomically: true, encoding: .utf8)
        try #require(try await weather.escrow("config", "set", "tracker-lists", list.path).succeeded)
        try FileManager.default.removeItem(at: list)

        // The run goes on (its requests are recorded, unflagged), and says so on standard error.
        let ran = try await weather.runApproved()
        #expect(ran.standardError.contains("cannot read a tracker list at \(list.path)"), "\(ran)")
        #expect(ran.standardError.contains("escrow config unset tracker-lists"), "says what to do: \(ran)")
        #expect(!ran.standardError.contains("apt-get"), "\(ran)")
        let rows = try await Self.exported(weather)
        #expect(rows[Self.weatherHost]?["tracker"] as? Bool == false, "\(rows)")
    }

    // MARK: escrow filter ignore

    @Test func anIgnoredDomainIsNotRecordedUntilItsFilterIsRemoved() async throws {
        let weather = try await WeatherHome.make()
        defer { weather.remove() }
        let ignore = try await weather.escrow("filter", "ignore", "Example.COM.")
        #expect(ignore.succeeded, "\(ignore)")
        #expect(ignore.standardOutput.hasPrefix("example.com ignored"), "\(ignore)")
        let list = try #require(try await weather.escrow("filter", "list", "--json").jsonArray)
        #expect(list.map { $0["domain"] as? String } == ["example.com"], "\(list)")
        #expect(list.map { $0["action"] as? String } == ["ignore"], "\(list)")

        // The run succeeds only if the weather came back: the ignored request went through.
        try await weather.runApproved()
        #expect(Set(try await Self.exported(weather).keys) == [Self.analyticsHost])

        try #require(try await weather.escrow("filter", "remove", "example.com").succeeded)
        #expect(try await weather.run().succeeded)
        let rows = try await Self.exported(weather)
        #expect(Set(rows.keys) == [Self.weatherHost, Self.analyticsHost], "\(rows)")
        #expect(rows[Self.weatherHost]?["hits"] as? Int == 1, "only the run after the removal: \(rows)")
        #expect(rows[Self.analyticsHost]?["hits"] as? Int == 2, "\(rows)")
    }

    // MARK: escrow report compare

    static let maps = "org.example.maps"

    /// A home where the weather app ran once (two requests) and the maps app once (none).
    static func twoApps() async throws -> WeatherHome {
        let weather = try await WeatherHome.make()
        do {
            try await weather.runApproved()
            let maps = try await weather.home.runApproved(sql: sql, compute: "identity", app: Self.maps)
            guard maps.succeeded else { throw StepFailed(outcome: maps) }
        } catch {
            weather.remove()
            throw error
        }
        return weather
    }

    @Test func reportCompareShowsTheAppsSideBySide() async throws {
        let weather = try await Self.twoApps()
        defer { weather.remove() }

        let text = try await weather.escrow("report", "compare", Self.app, Self.maps)
        #expect(text.succeeded, "\(text)")
        let lines = text.outputLines
        let header = try #require(lines.first, "\(text)")
        #expect(header.contains("METRIC") && header.contains(Self.app) && header.contains(Self.maps), "\(text)")
        let requests = try #require(lines.first { $0.hasPrefix("requests ") }, "\(text)")
        #expect(requests.hasSuffix(Self.maps), "the maps app made fewer requests: \(requests)")
        let weatherDomains = try #require(lines.firstIndex(of: "most contacted by \(Self.app):"), "\(text)")
        let listed = lines[(weatherDomains + 1)...].prefix { $0.hasPrefix("  ") }
        #expect(listed.contains { $0.contains("example.com") && !$0.contains("[tracker]") }, "\(text)")
        #expect(listed.contains { $0.contains("google-analytics.com") && $0.contains("[tracker]") }, "\(text)")
        let mapsDomains = try #require(lines.firstIndex(of: "most contacted by \(Self.maps):"), "\(text)")
        #expect(lines.dropFirst(mapsDomains + 1).first == "  nothing", "\(text)")

        let json = try await weather.escrow("report", "compare", Self.maps, Self.app, "--json")
        #expect(json.succeeded, "\(json)")
        let object = try #require(json.jsonObject, "\(json)")
        #expect(object["apps"] as? [String] == [Self.maps, Self.app], "in the order given: \(json)")
        let metrics = try #require(object["metrics"] as? [[String: Any]], "\(json)")
        #expect(metrics.map { $0["requests"] as? Int } == [0, 2], "\(json)")
        let least = try #require(object["leastExposed"] as? [String: Any], "\(json)")
        #expect(least["requests"] as? [String] == [Self.maps], "\(json)")
        #expect(least["runs"] as? [String] == [Self.maps, Self.app], "one run each: a tie names both: \(json)")
        let top = try #require(object["topDomains"] as? [[String: Any]], "\(json)")
        #expect(top.map { $0["app"] as? String } == [Self.maps, Self.app], "\(json)")
        #expect((top.first?["domains"] as? [Any])?.isEmpty == true, "\(json)")
        let domains = try #require(top.last?["domains"] as? [[String: Any]], "\(json)")
        #expect(Set(domains.compactMap { $0["domain"] as? String }) == ["example.com", "google-analytics.com"], "\(json)")
        #expect(domains.first { $0["domain"] as? String == "google-analytics.com" }?["tracker"] as? Bool == true, "\(json)")
    }

    @Test("escrow report compare refuses an unknown app, fewer than two and a repeated one, saying why", arguments: [
        ([Self.app, "org.example.mpas"], "unknown app 'org.example.mpas': apps with recorded runs or requests are org.example.maps, org.example.weather"),
        ([Self.app], "a comparison needs at least two apps, but only 'org.example.weather' was given"),
        ([], "a comparison needs at least two apps, but none was given"),
        ([Self.app, Self.maps, Self.app], "app 'org.example.weather' is named more than once"),
        ([Self.app, "org.example.\u{1B}[2Jmaps"], "unknown app 'org.example.\\u{1B}[2Jmaps'"),
    ])
    func reportCompareRefuses(_ apps: [String], _ message: String) async throws {
        let weather = try await Self.twoApps()
        defer { weather.remove() }
        for json in [[], ["--json"]] {
            let compare = try await EscrowProcess.run(["--home", weather.home.path, "report", "compare"] + apps + json)
            #expect(compare.status == 1, "\(compare)")
            #expect(compare.standardOutput.isEmpty, "\(compare)")
            #expect(compare.standardError.contains(message), "\(compare)")
            #expect(!compare.standardError.contains("\u{1B}"), "shown escaped: \(compare)")
        }
    }
}
