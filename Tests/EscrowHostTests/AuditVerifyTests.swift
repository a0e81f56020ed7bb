import EscrowCore
@testable import EscrowHost
import EscrowStore
import EscrowTestSupport
import Foundation
import Logging
import Testing

/// Tampering with the audit log through SQLite directly, as someone with the file could.
@Suite struct AuditVerifyTests {
    let logger = Logger(label: "test")

    /// A home with five audited runs (one pending, four ok); returns the host.
    func homeWithFiveEntries(_ temporary: TemporaryHome) async throws -> EscrowHost {
        try temporary.seed()
        let host = try EscrowHost(home: temporary.home, logger: logger)
        for _ in 0..<4 {
            _ = try await host.runApproving(app: "a.b", purpose: "p", access: "SELECT givenName FROM Contact", compute: "identity")
        }
        #expect(try host.audit.verify() == .intact(entries: 5))
        return host
    }

    /// Opens the state file behind the escrow's back, with the append-only triggers dropped.
    func tamper(_ temporary: TemporaryHome, _ sql: String) throws {
        let database = try Database(path: temporary.home.stateDatabasePath, mode: .readWrite)
        try database.execute("""
            DROP TRIGGER IF EXISTS AuditEntry_append_only_update;
            DROP TRIGGER IF EXISTS AuditEntry_append_only_delete;
            DROP TRIGGER IF EXISTS AuditEntry_delete_through_checkpoint;
            \(sql)
            """)
    }

    @Test func theEscrowItselfCannotChangeOrDeleteEntries() async throws {
        try await TemporaryHome.with { temporary in
            _ = try await homeWithFiveEntries(temporary)
            let database = try Database(path: temporary.home.stateDatabasePath, mode: .readWrite)
            #expect(throws: StoreError.self) { try database.execute("UPDATE AuditEntry SET rowsRead = 0 WHERE seq = 2") }
            #expect(throws: StoreError.self) { try database.execute("DELETE FROM AuditEntry WHERE seq = 5") }
        }
    }

    @Test(arguments: [
        ("an edited field", "UPDATE AuditEntry SET rowsRead = 999 WHERE seq = 3", 3),
        ("an edited outcome", "UPDATE AuditEntry SET outcome = 'denied' WHERE seq = 2", 2),
        ("an edited hash to match nothing", "UPDATE AuditEntry SET hash = prevHash WHERE seq = 4", 4),
        ("a caller added", "UPDATE AuditEntry SET caller = 'uid 0 pid 1' WHERE seq = 3", 3),
        ("a server compute time added", "UPDATE AuditEntry SET serverComputeMs = 1.5 WHERE seq = 2", 2),
        ("a deleted entry", "DELETE FROM AuditEntry WHERE seq = 2", 2),
        ("two swapped entries", """
            UPDATE AuditEntry SET seq = -1 WHERE seq = 2;
            UPDATE AuditEntry SET seq = 2 WHERE seq = 3;
            UPDATE AuditEntry SET seq = 3 WHERE seq = -1;
            """, 2),
        ("a truncated tail", "DELETE FROM AuditEntry WHERE seq >= 4", 4),
        ("a truncated tail with the head rewritten", """
            DELETE FROM AuditEntry WHERE seq = 5;
            UPDATE AuditHead SET seq = 4;
            """, 4),
    ])
    func verifyFindsTheFirstBrokenEntry(name: String, sql: String, brokenAt: Int) async throws {
        try await TemporaryHome.with { temporary in
            let host = try await homeWithFiveEntries(temporary)
            try tamper(temporary, sql)
            guard case .broken(let seq, let reason) = try host.audit.verify() else {
                Issue.record("\(name) was not detected")
                return
            }
            #expect(seq == brokenAt, "\(name): \(reason)")
            #expect(!reason.isEmpty)
        }
    }

    @Test func entriesAfterAnAppendedForgeryAreDetected() async throws {
        try await TemporaryHome.with { temporary in
            let host = try await homeWithFiveEntries(temporary)
            try tamper(temporary, """
                INSERT INTO AuditEntry (seq, time, app, purpose, functionId, outcome, reads, rowsRead, bytesToCompute,
                    destination, bytesSent, bytesReceived, durationMs, prevHash, hash)
                SELECT 6, time, app, purpose, functionId, 'ok', reads, 0, 0, destination, 0, 0, 1, hash, hash
                FROM AuditEntry WHERE seq = 5;
                """)
            guard case .broken(let seq, _) = try host.audit.verify() else {
                Issue.record("a forged entry was not detected")
                return
            }
            #expect(seq == 6)
        }
    }

    @Test func filtersSelectEntries() async throws {
        try await TemporaryHome.with { temporary in
            let host = try await homeWithFiveEntries(temporary)
            #expect(try host.audit.entries(AuditFilter(outcome: .ok)).count == 4)
            #expect(try host.audit.entries(AuditFilter(app: "other")).isEmpty)
            #expect(try host.audit.entries(limit: 2).map(\.seq) == [4, 5])
            #expect(try host.audit.entries(AuditFilter(since: Date().timeIntervalSince1970 + 60)).isEmpty)
            #expect(try host.audit.entry(3)?.seq == 3)
            #expect(try host.audit.entry(99) == nil)
        }
    }
}
