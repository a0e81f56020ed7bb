import EscrowTestSupport
import Foundation
import Testing

@Suite("escrow audit: list, show, verify")
struct AuditCommandTests {
    /// A home with contacts and three audit entries: pending, ok, ok.
    static func homeWithEntries() async throws -> ScratchHome {
        let home = try await RunErrorTests.homeWithContacts()
        guard try await home.runApproved(sql: FlowCycleTests.countSQL, compute: "identity").succeeded,
              try await home.run(sql: FlowCycleTests.countSQL, compute: "identity").succeeded
        else {
            home.remove()
            throw RunErrorTests.SetupFailed()
        }
        return home
    }

    @Test("the table has one row per attempt; filters narrow it")
    func list() async throws {
        let home = try await Self.homeWithEntries()
        defer { home.remove() }

        let table = try await home.escrow("audit")
        #expect(table.succeeded, "\(table)")
        #expect(table.outputLines.first?.split(separator: " ", omittingEmptySubsequences: true)
                == ["SEQ", "TIME", "(UTC)", "FLOW", "APP", "FUNCTION", "OUTCOME", "ROWS", "BYTES", "MS"], "\(table)")
        #expect(table.outputLines.count == 4, "\(table)")

        let ok = try #require(try await home.escrow("audit", "--outcome", "ok", "--json").jsonArray)
        #expect(ok.map { $0["seq"] as? Int } == [2, 3])
        let limited = try #require(try await home.escrow("audit", "--limit", "1", "--json").jsonArray)
        #expect(limited.map { $0["seq"] as? Int } == [3])
        let flow = try #require(ok.first?["flow"] as? String)
        #expect(try await home.escrow("audit", "--flow", String(flow.prefix(4)), "--json").jsonArray?.count == 3)
        #expect(try await home.escrow("audit", "--app", "org.example.other", "--json").jsonArray?.isEmpty == true)
        #expect(try await home.escrow("audit", "--since", "2999-01-01", "--json").jsonArray?.isEmpty == true)
        #expect(try await home.escrow("audit", "list", "--since", "2001-01-01T00:00:00Z", "--json").jsonArray?.count == 3)

        let badOutcome = try await home.escrow("audit", "--outcome", "great")
        #expect(badOutcome.status != 0, "\(badOutcome)")
        #expect(badOutcome.standardError.contains("pending"), "\(badOutcome)")
    }

    @Test("audit show N: every field, in words and as JSON")
    func show() async throws {
        let home = try await Self.homeWithEntries()
        defer { home.remove() }
        let entry = try #require(try await home.escrow("audit", "show", "2", "--json").jsonObject)
        #expect(entry["seq"] as? Int == 2)
        #expect(entry["outcome"] as? String == "ok")
        #expect(entry["reads"] as? [String] == ["Contact.*"])
        for field in ["time", "flow", "app", "caller", "purpose", "serverComputeMs", "function", "outcome", "reason", "reads", "rowsRead",
                      "bytesToCompute", "destination", "bytesSent", "bytesReceived", "serverLatencyMs", "durationMs",
                      "outputSHA256", "prevHash", "hash"] {
            #expect(entry.keys.contains(field), "\(field) in \(entry)")
        }

        let shown = try await home.escrow("audit", "show", "2")
        #expect(shown.succeeded, "\(shown)")
        for mention in ["Audit entry 2", "org.example.cli-tests", "End-to-end test", "identity", "Contact: the whole table",
                        "on this device", try #require(entry["outputSHA256"] as? String),
                        try #require(entry["prevHash"] as? String), try #require(entry["hash"] as? String)] {
            #expect(shown.standardOutput.contains(mention), "\(mention) in \(shown)")
        }

        let pending = try await home.escrow("audit", "show", "1")
        #expect(pending.standardOutput.contains("is awaiting approval"), "the reason: \(pending)")
        let missing = try await home.escrow("audit", "show", "99")
        #expect(missing.status == 1, "\(missing)")
        #expect(missing.standardError.contains("no audit entry 99"), "\(missing)")
    }

    @Test("audit verify names the entry whose field was edited in the database file")
    func tampered() async throws {
        let home = try await Self.homeWithEntries()
        defer { home.remove() }
        #expect(try await home.escrow("audit", "verify").outputLines.first == "audit log intact: 3 entries")

        let database = home.url.appendingPathComponent("escrow.sqlite").path
        let edit = try await SQLiteShell.run(database, """
            DROP TRIGGER AuditEntry_append_only_update;
            UPDATE AuditEntry SET rowsRead = 999 WHERE seq = 2;
            """)
        try #require(edit.status == 0, "sqlite3: \(edit.error)")

        let verified = try await home.escrow("audit", "verify")
        #expect(verified.status == 1, "\(verified)")
        #expect(verified.standardOutput.isEmpty, "\(verified)")
        #expect(verified.standardError.contains("audit log broken at entry 2:"), "\(verified)")
    }
}

/// The `sqlite3` command-line shell (Debian package sqlite3), for tampering with a database file
/// the way an attacker with file access would.
enum SQLiteShell {
    static func run(_ database: String, _ sql: String) async throws -> (status: Int32, error: String) {
        let outcome = try await ChildProcess.runOffPool(URL(fileURLWithPath: "/usr/bin/env"), ["sqlite3", database, sql])
        return (outcome.status, outcome.errors)
    }
}
