import EscrowCore
import EscrowTestSupport
import Foundation
import Testing

/// `escrow config set retention-days` deleting real entries, and the retention checkpoint edited
/// or forged in the database file with the sqlite3 shell, as anyone who can write the home can:
/// `escrow audit verify` must report each forgery, and pass after an honest deletion.
///
/// The old entries are written by the host with its clock set back (`PastRuns`): the `escrow`
/// binary reads the system clock.
@Suite("retention-days and the audit checkpoint")
struct RetentionCommandTests {
    typealias WeatherHome = EgressCommandTests.WeatherHome

    /// The weather flow `WeatherHome.run()` runs, as a request to the host.
    static func weatherRequest(_ weather: WeatherHome) -> DataflowRequest {
        DataflowRequest(app: EgressCommandTests.app, purpose: "Weather where you are", access: EgressCommandTests.sql,
                        compute: "weather.current",
                        parameters: ComputeParameters(["service": "http://\(EgressCommandTests.weatherHost):\(weather.platform.port)",
                                                       "analytics": "http://\(EgressCommandTests.analyticsHost):\(weather.platform.port)/collect"]))
    }

    /// Rows of `escrow export` (NDJSON), parsed.
    static func exported(_ outcome: EscrowProcess.Outcome) -> [[String: Any]] {
        outcome.outputLines.compactMap { (try? JSONSerialization.jsonObject(with: Data($0.utf8))) as? [String: Any] }
    }

    @Test func retentionDeletesOldEntriesAndTheirRequestsAndTheLogStillVerifies() async throws {
        let weather = try await WeatherHome.make()
        defer { weather.remove() }
        // Ten days ago: entry 1 (pending), 2 and 3, two requests each; now: entry 4.
        let past = try await PastRuns.run(Self.weatherRequest(weather), times: 2, daysAgo: 10, home: weather.home.url)
        #expect(past.map(\.seq) == [2, 3])
        #expect(past.allSatisfy { $0.requests == 2 })
        let now = try await weather.run()
        #expect(now.succeeded, "the CLI's run is the same, approved flow: \(now)")
        let before = Self.exported(try await weather.escrow("export"))
        #expect(before.compactMap { $0["hits"] as? Int }.reduce(0, +) == 6, "\(before)")
        #expect(Set(before.compactMap { $0["week"] as? String }).count == 2, "\(before)")

        let set = try await weather.escrow("config", "set", "retention-days", "5")
        #expect(set.succeeded, "\(set)")
        #expect(set.standardOutput.contains("deleted 3 audit entries older than that"), "\(set)")

        let verify = try await weather.escrow("audit", "verify")
        #expect(verify.succeeded, "\(verify)")
        #expect(verify.outputLines.first == "audit log intact: 1 entry", "\(verify)")
        #expect(verify.standardOutput.contains("entries 1…3 were deleted by the retention setting"), "\(verify)")
        let entries = try #require(try await weather.escrow("audit", "--json").jsonArray)
        #expect(entries.map { $0["seq"] as? Int } == [4])
        let after = Self.exported(try await weather.escrow("export"))
        #expect(after.count == 2 && after.allSatisfy { $0["hits"] as? Int == 1 }, "only today's two requests remain: \(after)")
        let flows = try #require(try await weather.escrow("flows", "--json").jsonArray)
        let flow = try #require(flows.first?["id"] as? String)
        let contacted = try #require(try await weather.escrow("flows", "show", flow, "--json").jsonObject?["contacted"] as? [[String: Any]])
        #expect(contacted.allSatisfy { $0["runs"] as? [Int] == [4] && $0["requests"] as? Int == 1 }, "\(contacted)")

        // Turning retention off afterwards, and running on, is no forgery.
        #expect(try await weather.escrow("config", "unset", "retention-days").succeeded)
        #expect(try await weather.run().succeeded)
        let later = try await weather.escrow("audit", "verify")
        #expect(later.succeeded, "\(later)")
        #expect(later.outputLines.first == "audit log intact: 2 entries", "\(later)")
    }

    /// A change to the checkpoint made in the database file, and what `audit verify` must say.
    struct Forgery: Sendable, CustomStringConvertible {
        let description: String
        /// The retention-days set (deleting entries 1…3, ten days old) before the change; nil for none.
        let retention: String?
        let sql: String
        /// The entry the break is reported at, and a phrase of the reason.
        let brokenAt: Int
        let reason: String
    }

    /// Entries 1 (pending), 2 and 3 ten days old; 4 and 5 now.
    static let forgeries = [
        Forgery(description: "its hash edited", retention: "5",
                sql: "UPDATE AuditCheckpoint SET hash = (SELECT hash FROM AuditEntry WHERE seq = 5);",
                brokenAt: 4, reason: "does not follow entry 3"),
        Forgery(description: "its time edited", retention: "5",
                sql: "UPDATE AuditCheckpoint SET time = 'ten days ago';",
                brokenAt: 3, reason: "cannot be read"),
        Forgery(description: "moved forward over entries written today", retention: "5",
                sql: """
                    UPDATE AuditCheckpoint SET seq = 4, hash = (SELECT hash FROM AuditEntry WHERE seq = 4),
                        time = (SELECT time FROM AuditEntry WHERE seq = 4);
                    DELETE FROM AuditEntry WHERE seq <= 4;
                    """,
                brokenAt: 4, reason: "less than a day later"),
        Forgery(description: "made with no retention setting", retention: nil,
                sql: """
                    INSERT INTO AuditCheckpoint (id, seq, hash, time, deletedAt)
                        SELECT 1, seq, hash, time, strftime('%Y-%m-%dT%H:%M:%fZ', 'now') FROM AuditEntry WHERE seq = 3;
                    DELETE FROM AuditEntry WHERE seq <= 3;
                    """,
                brokenAt: 3, reason: "no retention setting is in force and none was ever turned off"),
        Forgery(description: "made over entries younger than the retention set", retention: "30",
                sql: """
                    INSERT INTO AuditCheckpoint (id, seq, hash, time, deletedAt)
                        SELECT 1, seq, hash, time, strftime('%Y-%m-%dT%H:%M:%fZ', 'now') FROM AuditEntry WHERE seq = 3;
                    DELETE FROM AuditEntry WHERE seq <= 3;
                    """,
                brokenAt: 3, reason: "younger than the 30 days"),
        Forgery(description: "deleted, its trigger dropped", retention: "5",
                sql: "DROP TRIGGER AuditCheckpoint_kept; DELETE FROM AuditCheckpoint;",
                brokenAt: 1, reason: "entry 1 is missing"),
        Forgery(description: "moved back, its trigger dropped", retention: "5",
                sql: "DROP TRIGGER AuditCheckpoint_forward_only; UPDATE AuditCheckpoint SET seq = 2;",
                brokenAt: 3, reason: "entry 3 is missing"),
    ]

    /// A home with contacts, entries 1 (pending), 2 and 3 written ten days ago and 4 and 5 now,
    /// and `retention` set.
    static func agedHome(retention: String?) async throws -> ScratchHome {
        let home = try await RunErrorTests.homeWithContacts()
        do {
            let request = DataflowRequest(app: "org.example.cli-tests", purpose: "End-to-end test", access: FlowCycleTests.countSQL,
                                          compute: "identity")
            try await PastRuns.run(request, times: 2, daysAgo: 10, home: home.url)
            for _ in 0..<2 {
                let run = try await home.run(sql: FlowCycleTests.countSQL, compute: "identity")
                guard run.succeeded else { throw EgressCommandTests.StepFailed(outcome: run) }
            }
            if let retention {
                let set = try await home.escrow("config", "set", "retention-days", retention)
                guard set.succeeded else { throw EgressCommandTests.StepFailed(outcome: set) }
            }
            let verify = try await home.escrow("audit", "verify")
            guard verify.succeeded else { throw EgressCommandTests.StepFailed(outcome: verify) }
        } catch {
            home.remove()
            throw error
        }
        return home
    }

    @Test("audit verify --head with a head kept before retention deleted its entry: not called a truncation")
    func aHeadOlderThanTheRetentionIsNoTruncation() async throws {
        let home = try await RunErrorTests.homeWithContacts()
        defer { home.remove() }
        let request = DataflowRequest(app: "org.example.cli-tests", purpose: "End-to-end test", access: FlowCycleTests.countSQL,
                                      compute: "identity")
        // Entries 1…3 ten days ago, and the head the individual kept then (entry 3); 4 and 5 now.
        try await PastRuns.run(request, times: 2, daysAgo: 10, home: home.url)
        let old = try await home.escrow("audit", "head", "--json")
        #expect(old.jsonObject?["seq"] as? Int == 3, "\(old)")
        for _ in 0..<2 {
            let run = try await home.run(sql: FlowCycleTests.countSQL, compute: "identity")
            #expect(run.succeeded, "\(run)")
        }
        #expect(try await home.escrow("audit", "verify", "--head", old.standardOutput).succeeded)

        // Retention deletes entries 1…3: the kept head names the checkpoint's entry.
        let set = try await home.escrow("config", "set", "retention-days", "5")
        #expect(set.succeeded, "\(set)")
        let verify = try await home.escrow("audit", "verify", "--head", old.standardOutput)
        #expect(verify.succeeded, "\(verify)")
        #expect(verify.standardOutput.contains("names an entry the retention setting deleted"), "\(verify)")

        // The checkpoint's hash edited (its trigger dropped): the kept head tells.
        let edit = try await SQLiteShell.run(home.url.appendingPathComponent("escrow.sqlite").path, """
            DROP TRIGGER AuditCheckpoint_forward_only;
            UPDATE AuditCheckpoint SET hash = '0000000000000000000000000000000000000000000000000000000000000000';
            """)
        try #require(edit.status == 0, "sqlite3: \(edit.error)")
        let tampered = try await home.escrow("audit", "verify", "--head", old.standardOutput)
        #expect(tampered.status == 1, "\(tampered)")
    }

    @Test("audit verify reports a retention checkpoint edited or forged in the database file", arguments: forgeries)
    func forged(_ forgery: Forgery) async throws {
        let home = try await Self.agedHome(retention: forgery.retention)
        defer { home.remove() }
        let honest = try await home.escrow("audit", "verify")
        #expect(honest.outputLines.first == "audit log intact: \(forgery.retention == "5" ? 2 : 5) entries", "\(honest)")

        let edit = try await SQLiteShell.run(home.url.appendingPathComponent("escrow.sqlite").path, forgery.sql)
        try #require(edit.status == 0, "sqlite3: \(edit.error)")

        let verify = try await home.escrow("audit", "verify")
        #expect(verify.status == 1, "\(verify)")
        #expect(verify.standardOutput.isEmpty, "\(verify)")
        #expect(verify.standardError.contains("audit log broken at entry \(forgery.brokenAt):"), "\(verify)")
        #expect(verify.standardError.contains(forgery.reason), "\(verify)")
        let json = try await home.escrow("audit", "verify", "--json")
        #expect(json.status == 1, "\(json)")
        #expect(json.jsonObject?["intact"] as? Bool == false, "\(json)")
    }

    @Test("the checkpoint's triggers refuse to move it back or delete it, and the log still verifies", arguments: [
        ("UPDATE AuditCheckpoint SET seq = seq - 1;", "the audit checkpoint only moves forward"),
        ("DELETE FROM AuditCheckpoint;", "the audit checkpoint cannot be deleted"),
        ("DELETE FROM AuditEntry WHERE seq = 4;", "only entries up to the retention checkpoint may be deleted"),
    ])
    func triggers(_ sql: String, _ refusal: String) async throws {
        let home = try await Self.agedHome(retention: "5")
        defer { home.remove() }
        let edit = try await SQLiteShell.run(home.url.appendingPathComponent("escrow.sqlite").path, sql)
        #expect(edit.status != 0, "sqlite3 ran \(sql)")
        #expect(edit.error.contains(refusal), "\(edit.error)")

        let verify = try await home.escrow("audit", "verify")
        #expect(verify.succeeded, "\(verify)")
        #expect(verify.outputLines.first == "audit log intact: 2 entries", "\(verify)")
    }
}

extension RetentionCommandTests.Forgery: CustomTestStringConvertible {
    var testDescription: String { description }
}
