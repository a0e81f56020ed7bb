import EscrowCore
@testable import EscrowHost
import EscrowStore
import EscrowTestSupport
import Foundation
import Logging
import Testing

/// A home made by an older escrow is upgraded when a newer one opens it: no extra step.
@Suite struct HomeUpgradeTests {
    let logger = Logger(label: "test")

    @Test func aHomeFromBeforeTheCallerColumnIsUpgradedWhenOpenedAndItsLogStillVerifies() async throws {
        try await TemporaryHome.with { temporary in
            try temporary.seed()
            let old = try EscrowHost(home: temporary.home, logger: logger)
            _ = try await old.runApproving(app: "a.b", purpose: "p", access: "SELECT givenName FROM Contact", compute: "identity")
            // Turn the state file back into schema version 3, as escrow made it before the caller column.
            let state = try Database(path: temporary.home.stateDatabasePath, mode: .readWrite)
            try state.execute("""
                DROP TABLE EgressRequest; DROP TABLE EgressFilter; DROP TABLE AuditCheckpoint;
                DROP TRIGGER AuditEntry_delete_through_checkpoint;
                CREATE TRIGGER AuditEntry_append_only_delete BEFORE DELETE ON AuditEntry
                BEGIN SELECT RAISE(ABORT, 'the audit log is append-only'); END;
                ALTER TABLE Flow DROP COLUMN programDigest; ALTER TABLE Flow DROP COLUMN programPath;
                DROP TABLE WitnessedHead; DROP TABLE AuditWitness;
                ALTER TABLE AuditEntry DROP COLUMN serverComputeMs; ALTER TABLE AuditEntry DROP COLUMN caller;
                ALTER TABLE Flow DROP COLUMN requestedAccuracy; ALTER TABLE Flow DROP COLUMN locationAccuracy;
                ALTER TABLE AuditEntry DROP COLUMN locationAccuracy; ALTER TABLE AuditEntry DROP COLUMN locationRadius;
                ALTER TABLE AuditEntry DROP COLUMN locationK; ALTER TABLE AuditEntry DROP COLUMN locationRuns;
                ALTER TABLE Flow DROP COLUMN moduleBytes; ALTER TABLE AuditEntry DROP COLUMN moduleSHA256;
                DROP TABLE ServerAddressState; ALTER TABLE AuditEntry DROP COLUMN attempts;
                PRAGMA user_version = 3
                """)
            #expect(try state.scalarInt("PRAGMA user_version") == 3)

            let upgraded = try EscrowHost(home: temporary.home, logger: logger)
            #expect(try state.scalarInt("PRAGMA user_version") == Int64(Migrations.latestVersion(.state)))
            _ = try await upgraded.runApproving(app: "a.b", purpose: "p", access: "SELECT givenName FROM Contact",
                                                compute: "identity")
            #expect(try upgraded.audit.verify() == .intact(entries: 3))
            // The upgraded home gets its audit key the first time it signs its head.
            #expect(!FileManager.default.fileExists(atPath: upgraded.audit.signingKeyPath))
            #expect(try upgraded.audit.signedHead() != nil)
            #expect(FileManager.default.fileExists(atPath: upgraded.audit.signingKeyPath))
        }
    }

    @Test func aHomeFromANewerEscrowIsRefusedAndLeftAlone() async throws {
        try await TemporaryHome.with { temporary in
            try temporary.seed()
            let state = try Database(path: temporary.home.stateDatabasePath, mode: .readWrite)
            try state.execute("PRAGMA user_version = 99")
            #expect {
                try EscrowHost(home: temporary.home, logger: logger)
            } throws: { error in
                "\(error)".contains("newer than this escrow understands")
            }
            #expect(try state.scalarInt("PRAGMA user_version") == 99)
        }
    }
}
