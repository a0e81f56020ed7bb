import EscrowCore
import EscrowEgress
import EscrowHost
import EscrowNetwork
import EscrowStore
import EscrowTestSupport
import EscrowWire
import Foundation
import Logging
import Testing

/// Every request a compute function makes through the escrow's network client is recorded with
/// its run's audit entry, classified, filtered, covered by the entry's hash and kept as long as
/// the retention setting says: `weather.current` asking the platform service for the weather
/// (a first party, under example.com) and telling its analytics endpoint (a tracker, under
/// google-analytics.com), both names resolved to 127.0.0.1 by the escrow's own resolver.
@Suite struct EgressRecordingTests {
    let logger = Logger(label: "test")
    static let app = "org.example.weather"
    static let lastLocation = "SELECT longitude, latitude FROM Location ORDER BY timestamp DESC LIMIT 1"
    static let weatherHost = "api.weather.example.com"
    static let analyticsHost = "ssl.google-analytics.com"
    static let resolve = ["\(weatherHost)=127.0.0.1", "\(analyticsHost)=127.0.0.1"]

    /// A recorded request, as the individual reads it in the audit (no bytes or time).
    struct Seen: Equatable, CustomStringConvertible {
        var host: String
        var domain: String
        var tracker: String?
        var method: String
        var status: Int?
        var blocked = false
        var sentData = false

        init(host: String, domain: String, tracker: String? = nil, method: String, status: Int?,
             blocked: Bool = false, sentData: Bool = false) {
            self.host = host
            self.domain = domain
            self.tracker = tracker
            self.method = method
            self.status = status
            self.blocked = blocked
            self.sentData = sentData
        }

        init(_ record: EgressRecord) {
            self.init(host: record.observation.host, domain: record.domain, tracker: record.tracker,
                      method: record.observation.method, status: record.observation.status,
                      blocked: record.observation.blocked, sentData: record.observation.sentData)
        }

        var description: String {
            "\(method) \(host) (\(domain)) tracker \(tracker ?? "-") status \(status.map(String.init) ?? "-")"
                + (blocked ? " blocked" : "") + (sentData ? " sentData" : "")
        }
    }

    /// The weather request: the location goes to the app's own service.
    static func weather(status: Int? = 200, blocked: Bool = false, tracker: String? = nil) -> Seen {
        Seen(host: weatherHost, domain: "example.com", tracker: tracker, method: "GET", status: status, blocked: blocked, sentData: true)
    }

    /// The analytics event: no location, to a tracker.
    static func analytics(status: Int? = 200, blocked: Bool = false) -> Seen {
        Seen(host: analyticsHost, domain: "google-analytics.com", tracker: "google-analytics.com", method: "POST",
             status: status, blocked: blocked)
    }

    /// The escrow's HTTP client reaching the test's host names on 127.0.0.1.
    static func network() throws -> HTTPNetworkClient {
        HTTPNetworkClient(resolve: try HostResolution(parsing: resolve))
    }

    /// `service` and `analytics` on the platform service, under the test's host names.
    static func parameters(_ platform: PlatformServiceProcess, analyticsPath: String = "/collect") -> ComputeParameters {
        ComputeParameters(["service": "http://\(weatherHost):\(platform.port)",
                           "analytics": "http://\(analyticsHost):\(platform.port)\(analyticsPath)"])
    }

    /// The platform service, a compute server that reaches its hosts by the test's names, and a
    /// host of a new home registered with it as `compute-1`.
    func withServerReachingThePlatform(_ body: (EscrowHost, PlatformServiceProcess) async throws -> Void) async throws {
        let platform = try await PlatformServiceProcess.start()
        defer { platform.stop() }
        let resolve = Self.resolve.flatMap { ["--resolve", $0] }
        try await ComputeServerProcess.with(extraArguments: resolve) { server, certificates in
            try await TemporaryHome.with { temporary in
                let host = try host(temporary)
                try host.register(server, certificates)
                try await body(host, platform)
            }
        }
    }

    func host(_ temporary: TemporaryHome, clock: any WallClock = .system) throws -> EscrowHost {
        try temporary.seed()
        return try EscrowHost(home: temporary.home, network: try Self.network(), clock: clock, logger: logger)
    }

    @discardableResult
    func runWeather(_ host: EscrowHost, _ platform: PlatformServiceProcess, on destination: Destination = .device,
                    analyticsPath: String = "/collect") async throws -> RunResult {
        try await host.runApproving(app: Self.app, purpose: "Weather where you are", access: Self.lastLocation,
                                    compute: "weather.current", on: destination,
                                    parameters: Self.parameters(platform, analyticsPath: analyticsPath))
    }

    /// The records stored with the newest audit entry, and that entry's outcome.
    func newestEntry(_ host: EscrowHost) throws -> (outcome: AuditOutcome?, seen: [Seen], records: [EgressRecord]) {
        let entry = try host.audit.entries().last
        let records = entry?.facts.egress ?? []
        return (entry?.facts.outcome, records.map(Seen.init), records)
    }

    // MARK: Recording

    @Test func aRunOnTheDeviceRecordsTheFirstPartyAndTheTracker() async throws {
        let platform = try await PlatformServiceProcess.start()
        defer { platform.stop() }
        try await TemporaryHome.with { temporary in
            let host = try host(temporary)
            let result = try await runWeather(host, platform)
            #expect(result.output.rowCount == 1)
            // As stored, not only as returned: read the entry back from the log.
            let stored = try #require(try host.audit.entry(result.auditEntry.seq))
            #expect(stored.facts.outcome == .ok)
            #expect(stored.facts.egress.map(Seen.init) == [Self.weather(), Self.analytics()])
            #expect(stored.facts.egress == result.auditEntry.facts.egress)
            for record in stored.facts.egress {
                #expect(record.observation.bytesOut > 0, "\(record)")
                #expect(record.observation.bytesIn > 0, "\(record)")
            }
            #expect(try host.audit.verify() == .intact(entries: 2))
        }
    }

    @Test func aRunOnTheComputeServerReportsItsRequestsBack() async throws {
        try await withServerReachingThePlatform { host, platform in
            let remote = try await runWeather(host, platform, on: .server("compute-1"))
            let stored = try #require(try host.audit.entry(remote.auditEntry.seq))
            #expect(stored.facts.destination == "server:compute-1")
            #expect(stored.facts.egress.map(Seen.init) == [Self.weather(), Self.analytics()])
            #expect(stored.facts.egress.allSatisfy { $0.observation.bytesOut > 0 })

            // The server applies the individual's blocks and reports what was tried. The analytics
            // event is best effort: blocked, the weather still comes back.
            try host.filters.set(.block, for: "google-analytics.com")
            let blocked = try await runWeather(host, platform, on: .server("compute-1"))
            #expect(blocked.output == remote.output)
            #expect(try newestEntry(host).seen == [Self.weather(), Self.analytics(status: nil, blocked: true)])

            // The weather service blocked: the function fails on the server, the error comes over
            // the wire, and the refused request is still recorded.
            try host.filters.set(.block, for: "example.com")
            await #expect {
                try await runWeather(host, platform, on: .server("compute-1"))
            } throws: { error in
                guard case .remote(.functionFailed, let message)? = error as? RPCError else { return false }
                return message == "\(ComputeError.blocked(host: Self.weatherHost, domain: "example.com"))"
            }
            let failed = try newestEntry(host)
            #expect(failed.outcome == .failed)
            #expect(failed.seen == [Self.weather(status: nil, blocked: true)])
            #expect(try host.audit.verify() == .intact(entries: 4))
        }
    }

    @Test func aFunctionThatFailsAfterContactingAServiceStillHasItsRequestRecorded() async throws {
        let platform = try await PlatformServiceProcess.start()
        defer { platform.stop() }
        try await TemporaryHome.with { temporary in
            let host = try host(temporary)
            // A service path the platform does not serve: it answers 404 and the function gives up.
            let parameters = ComputeParameters(["service": "http://\(Self.weatherHost):\(platform.port)/retired"])
            await #expect {
                try await host.runApproving(app: Self.app, purpose: "Weather", access: Self.lastLocation,
                                            compute: "weather.current", parameters: parameters)
            } throws: { error in
                guard case .computeFailed(_, let underlying)? = error as? RunError else { return false }
                return underlying as? ComputeError == .serviceFailed("the weather service answered 404")
            }
            let entry = try newestEntry(host)
            #expect(entry.outcome == .failed)
            #expect(entry.seen == [Self.weather(status: 404)])
            #expect(entry.records.first?.observation.bytesIn ?? 0 > 0, "the 404's body came back")
            #expect(try host.audit.verify() == .intact(entries: 2))
        }
    }

    @Test func anAnalyticsEndpointThatFailsIsRecordedWithItsStatusAndTheWeatherStillAnswered() async throws {
        let platform = try await PlatformServiceProcess.start()
        defer { platform.stop() }
        try await TemporaryHome.with { temporary in
            let host = try host(temporary)
            let result = try await runWeather(host, platform, analyticsPath: "/retired")
            #expect(result.output.rowCount == 1)
            let entry = try newestEntry(host)
            #expect(entry.outcome == .ok)
            #expect(entry.seen == [Self.weather(), Self.analytics(status: 404)])
        }
    }

    // MARK: Filters

    @Test("a blocked domain's request fails inside the function and is recorded as blocked", arguments: [
        // The weather host itself: the function stops there and never tells the analytics endpoint.
        ("example.com", ComputeError.blocked(host: Self.weatherHost, domain: "example.com"),
         [Self.weather(status: nil, blocked: true)]),
        ("API.Weather.Example.COM.", ComputeError.blocked(host: Self.weatherHost, domain: Self.weatherHost),
         [Self.weather(status: nil, blocked: true)]),
        // The analytics event is best effort: the function goes on and the app gets the weather.
        ("google-analytics.com", nil, [Self.weather(), Self.analytics(status: nil, blocked: true)]),
    ])
    func blockOnTheDevice(_ domain: String, _ expected: ComputeError?, _ records: [Seen]) async throws {
        let platform = try await PlatformServiceProcess.start()
        defer { platform.stop() }
        try await TemporaryHome.with { temporary in
            let host = try host(temporary)
            try host.filters.set(.block, for: domain)
            if let expected {
                await #expect {
                    try await runWeather(host, platform)
                } throws: { error in
                    guard case .computeFailed(let function, let underlying)? = error as? RunError else { return false }
                    return function == "weather.current" && underlying as? ComputeError == expected
                }
                #expect(try host.audit.entries().last?.facts.reason
                        == "\(RunError.computeFailed(function: "weather.current", underlying: expected))")
            } else {
                #expect(try await runWeather(host, platform).output.rowCount == 1)
            }
            let entry = try newestEntry(host)
            #expect(entry.outcome == (expected == nil ? .ok : .failed))
            #expect(entry.seen == records)
            // Refused before anything was sent: nothing came back.
            #expect(entry.records.filter(\.observation.blocked).allSatisfy { $0.observation.bytesIn == 0 })

            try host.filters.remove(domain)
            try await runWeather(host, platform)
            #expect(try newestEntry(host).seen == [Self.weather(), Self.analytics()])
        }
    }

    @Test func anIgnoredDomainIsNotRecordedUntilTheFilterIsRemoved() async throws {
        let platform = try await PlatformServiceProcess.start()
        defer { platform.stop() }
        try await TemporaryHome.with { temporary in
            let host = try host(temporary)
            try host.filters.set(.ignore, for: "example.com")
            let ignored = try await runWeather(host, platform)
            // The request still went through: the weather came back.
            #expect(ignored.output.rowCount == 1)
            #expect(try newestEntry(host).seen == [Self.analytics()])

            try host.filters.remove("example.com")
            try await runWeather(host, platform)
            #expect(try newestEntry(host).seen == [Self.weather(), Self.analytics()])
            #expect(try host.audit.verify() == .intact(entries: 3))
        }
    }

    @Test func aDomainIgnoredIsNotRecordedFromARunOnTheComputeServer() async throws {
        try await withServerReachingThePlatform { host, platform in
            try host.filters.set(.ignore, for: "Google-Analytics.COM")
            let ignored = try await runWeather(host, platform, on: .server("compute-1"))
            #expect(ignored.output.rowCount == 1)
            #expect(try newestEntry(host).seen == [Self.weather()], "the server reported it; the host left it out")

            try host.filters.remove("google-analytics.com")
            try await runWeather(host, platform, on: .server("compute-1"))
            #expect(try newestEntry(host).seen == [Self.weather(), Self.analytics()])
            #expect(try host.audit.verify() == .intact(entries: 3))
        }
    }

    @Test func theIndividualsTrackerFilterFlagsAFirstPartyHost() async throws {
        let platform = try await PlatformServiceProcess.start()
        defer { platform.stop() }
        try await TemporaryHome.with { temporary in
            let host = try host(temporary)
            try host.filters.set(.tracker, for: "example.com")
            try await runWeather(host, platform)
            #expect(try newestEntry(host).seen == [Self.weather(tracker: "example.com"), Self.analytics()])
        }
    }

    // MARK: The hash covers the requests

    @Test("an edited, deleted or added request breaks its entry's hash", arguments: [
        ("a host renamed", "UPDATE EgressRequest SET host = 'api.weather.example.org' WHERE auditSeq = 2 AND position = 0"),
        ("a domain renamed", "UPDATE EgressRequest SET domain = 'example.org' WHERE auditSeq = 2 AND position = 0"),
        ("a tracker flag cleared", "UPDATE EgressRequest SET tracker = NULL WHERE auditSeq = 2 AND position = 1"),
        ("the sent-data flag cleared", "UPDATE EgressRequest SET sentData = 0 WHERE auditSeq = 2 AND position = 0"),
        ("a request marked blocked", "UPDATE EgressRequest SET blocked = 1, status = NULL WHERE auditSeq = 2 AND position = 1"),
        ("bytes out lowered", "UPDATE EgressRequest SET bytesOut = 1 WHERE auditSeq = 2 AND position = 0"),
        ("a request deleted", "DELETE FROM EgressRequest WHERE auditSeq = 2 AND position = 1"),
        ("a request added", """
            INSERT INTO EgressRequest (auditSeq, position, time, host, domain, method, bytesOut, bytesIn, status, blocked,
                tracker, sentData)
            SELECT auditSeq, 2, time, 'cdn.example.net', 'example.net', 'GET', 10, 10, 200, 0, NULL, 0
            FROM EgressRequest WHERE auditSeq = 2 AND position = 0
            """),
    ])
    func tamperingWithRecordedRequests(_ change: String, _ sql: String) async throws {
        let platform = try await PlatformServiceProcess.start()
        defer { platform.stop() }
        try await TemporaryHome.with { temporary in
            let host = try host(temporary)
            // Entries: 1 pending, 2 and 3 ok with two requests each.
            #expect(try await runWeather(host, platform).auditEntry.seq == 2)
            try await runWeather(host, platform)
            #expect(try host.audit.verify() == .intact(entries: 3))

            // Behind the escrow's back, its append-only triggers dropped first.
            let attacker = try Database(path: temporary.home.stateDatabasePath, mode: .readWrite)
            try attacker.execute("""
                DROP TRIGGER EgressRequest_append_only_update;
                DROP TRIGGER EgressRequest_delete_through_checkpoint;
                \(sql)
                """)
            guard case .broken(let seq, let reason) = try host.audit.verify() else {
                Issue.record("\(change) went unnoticed")
                return
            }
            #expect(seq == 2, "\(change): \(reason)")
            #expect(reason.contains("altered"), "\(change): \(reason)")
        }
    }

    // MARK: Retention

    @Test func retentionDeletesOldEntriesWithTheirRequestsAndTheLogStillVerifies() async throws {
        let platform = try await PlatformServiceProcess.start()
        defer { platform.stop() }
        try await TemporaryHome.with { temporary in
            let clock = try SettableClock(at: "2026-03-02T09:00:00Z")
            let host = try host(temporary, clock: clock)
            let state = host.flows.state
            // Day 0: entries 1 (pending) and 2; day 10: entry 3; day 20: entry 4.
            try await runWeather(host, platform)
            clock.advance(by: .seconds(10 * 86_400))
            try await runWeather(host, platform)
            clock.advance(by: .seconds(10 * 86_400))
            try await runWeather(host, platform)
            let before = try host.audit.entries()
            #expect(before.map(\.seq) == [1, 2, 3, 4])
            #expect(try requestRows(state) == [2: 2, 3: 2, 4: 2])

            // Without a setting nothing goes, however old.
            clock.advance(by: .seconds(4 * 86_400))
            #expect(host.applyRetention() == 0)

            // Day 24, 15 days: day 0 is older than that, day 10 is not.
            try state.setSetting(AuditRetention.settingName, to: "15")
            #expect(host.applyRetention() == 2)
            #expect(try host.audit.entries().map(\.seq) == [3, 4])
            #expect(try requestRows(state) == [3: 2, 4: 2])
            #expect(try host.audit.verify() == .intact(entries: 2))
            let checkpoint = try #require(try host.audit.checkpoint())
            #expect(checkpoint.seq == 2)
            #expect(checkpoint.hash == before[1].hash)
            // Applying it again deletes nothing more.
            #expect(host.applyRetention() == 0)

            // The log goes on from there.
            let later = try await runWeather(host, platform)
            #expect(later.auditEntry.seq == 5)
            #expect(try host.audit.verify() == .intact(entries: 3))

            // An entry newer than the checkpoint cannot be deleted by hand, nor its requests
            // deleted or edited.
            let other = try Database(path: temporary.home.stateDatabasePath, mode: .readWrite)
            #expect(throws: StoreError.self) { try other.execute("DELETE FROM AuditEntry WHERE seq = 3") }
            #expect(throws: StoreError.self) { try other.execute("DELETE FROM EgressRequest WHERE auditSeq = 3") }
            #expect(throws: StoreError.self) { try other.execute("UPDATE EgressRequest SET tracker = NULL WHERE auditSeq = 3") }
            #expect(try host.audit.verify() == .intact(entries: 3))

            // A setting that makes every entry old keeps the newest as the head of the chain.
            try state.setSetting(AuditRetention.settingName, to: "1")
            clock.advance(by: .seconds(100 * 86_400))
            #expect(host.applyRetention() == 2)
            #expect(try host.audit.entries().map(\.seq) == [5])
            #expect(try requestRows(state) == [5: 2])
            #expect(try host.audit.checkpoint()?.seq == 4)
            #expect(try host.audit.verify() == .intact(entries: 1))
            try await runWeather(host, platform)
            #expect(try host.audit.verify() == .intact(entries: 2))
        }
    }

    /// Rows of `EgressRequest` per audit entry, as stored (whether or not their entry remains).
    func requestRows(_ state: StateDatabase) throws -> [Int: Int] {
        try state.read { database in
            let query = try database.prepare("SELECT auditSeq, count(*) FROM EgressRequest GROUP BY auditSeq")
            var rows: [Int: Int] = [:]
            while try query.step() { rows[Int(query.int64(0))] = Int(query.int64(1)) }
            return rows
        }
    }
}
