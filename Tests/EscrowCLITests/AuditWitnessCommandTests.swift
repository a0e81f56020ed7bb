import EscrowTestSupport
import Foundation
import Testing

/// `escrow audit verify` against a real witness (`escrow-compute --witness-store` on 127.0.0.1,
/// mutual TLS), after the log was tampered with the way anyone who can write the escrow home can:
/// with the `sqlite3` shell (triggers dropped) or the escrow's own library (chain recomputed).
@Suite("escrow audit witness, head and verify against a witness")
struct AuditWitnessCommandTests {
    /// A home with contacts, compute server `compute-1` registered as its witness, and three
    /// audit entries (pending, ok, ok), the last one countersigned (each `escrow run` sends the
    /// head as it exits; `escrow audit witness` then makes sure, with more time to spare).
    struct Witnessed {
        let home: ScratchHome
        let server: ComputeServerProcess
        let certificates: DevCertificates
        let store: URL

        var database: String { home.url.appendingPathComponent("escrow.sqlite").path }

        func remove() {
            server.kill()
            home.remove()
            certificates.remove()
            try? FileManager.default.removeItem(at: store)
        }
    }

    static func witnessed() async throws -> Witnessed {
        let certificates = try await DevCertificates.make()
        let store = FileManager.default.temporaryDirectory.appendingPathComponent("escrow-witness-\(UUID().uuidString)")
        let server: ComputeServerProcess
        do {
            server = try await ComputeServerProcess.start(certificates: certificates, extraArguments: ["--witness-store", store.path])
        } catch {
            certificates.remove()
            throw error
        }
        let home: ScratchHome
        do {
            home = try await RunErrorTests.homeWithContacts()
        } catch {
            server.kill()
            certificates.remove()
            throw error
        }
        let setup = Witnessed(home: home, server: server, certificates: certificates, store: store)
        do {
            let added = try await home.escrow("servers", "add", "compute-1", "--address", server.address, "--ca", certificates.path("ca.pem"),
                                              "--server-name", "compute-1", "--client-cert", certificates.path("client.pem"),
                                              "--client-key", certificates.path("client-key.pem"))
            let witness = try await home.escrow("audit", "witness", "add", "compute-1")
            guard added.succeeded, witness.succeeded,
                  try await home.runApproved(sql: FlowCycleTests.countSQL, compute: "identity").succeeded,
                  try await home.run(sql: FlowCycleTests.countSQL, compute: "identity").succeeded,
                  try await home.escrow("audit", "witness").succeeded
            else { throw RunErrorTests.SetupFailed() }
        } catch {
            setup.remove()
            throw error
        }
        return setup
    }

    @Test("each run sends the head; verify says how far the log is witnessed")
    func witnessedAfterRuns() async throws {
        let setup = try await Self.witnessed()
        defer { setup.remove() }
        let pushed = try await setup.home.escrow("audit", "witness")
        #expect(pushed.succeeded, "\(pushed)")
        #expect(pushed.standardOutput.contains("witness compute-1 countersigned entry 3 at "), "\(pushed)")

        let run = try await setup.home.run(sql: FlowCycleTests.countSQL, compute: "identity")
        #expect(run.succeeded, "\(run)")
        #expect(!run.standardError.contains("warning"), "\(run)")
        let verified = try await setup.home.escrow("audit", "verify")
        #expect(verified.succeeded, "\(verified)")
        #expect(verified.outputLines.first == "audit log intact: 4 entries", "\(verified)")
        #expect(verified.standardOutput.contains("witnessed up to entry 4 by compute-1 at "), "the run sent it: \(verified)")
        #expect(verified.standardOutput.contains("every entry is witnessed"), "\(verified)")

        let key = setup.home.url.appendingPathComponent("audit-key").path
        let mode = try FileManager.default.attributesOfItem(atPath: key)[.posixPermissions] as? NSNumber
        #expect(mode?.intValue == 0o600)

        let json = try #require(try await setup.home.escrow("audit", "verify", "--json").jsonObject)
        #expect(json["intact"] as? Bool == true)
        #expect(json["entries"] as? Int == 4)
        #expect((json["witnessed"] as? [String: Any])?["seq"] as? Int == 4)
        #expect((json["witnessed"] as? [String: Any])?["witness"] as? String == "compute-1")
        #expect(json["unwitnessedSince"] as? Int == 4)

        let listed = try await setup.home.escrow("audit", "witness", "list")
        #expect(listed.outputLines.count == 2, "\(listed)")
        #expect(listed.outputLines.last?.hasPrefix("compute-1") == true, "\(listed)")
        #expect(listed.standardOutput.contains("entry 4 at "), "\(listed)")
        #expect(!listed.standardOutput.contains("not yet"), "the witness's key was pinned: \(listed)")

        #expect(try await setup.home.escrow("audit", "witness", "remove", "compute-1").succeeded)
        let again = try await setup.home.escrow("audit", "witness", "remove", "compute-1")
        #expect(again.status == 1, "\(again)")
        #expect(again.standardError.contains("compute-1 is not a witness of this audit log; `escrow audit witness list` lists them"), "\(again)")
        let removed = try await setup.home.escrow("audit", "verify")
        #expect(removed.standardOutput.contains("witnessed up to entry 4 by compute-1"), "its countersignature still counts: \(removed)")
    }

    @Test("a log truncated with its head record reset is detected, also once the local copies are deleted")
    func truncation() async throws {
        let setup = try await Self.witnessed()
        defer { setup.remove() }
        let edit = try await SQLiteShell.run(setup.database, """
            DROP TRIGGER AuditEntry_delete_through_checkpoint;
            DELETE FROM AuditEntry WHERE seq = 3;
            UPDATE AuditHead SET seq = 2, hash = (SELECT hash FROM AuditEntry WHERE seq = 2);
            """)
        try #require(edit.status == 0, "sqlite3: \(edit.error)")

        let verified = try await setup.home.escrow("audit", "verify")
        #expect(verified.status == 1, "\(verified)")
        #expect(verified.standardOutput.isEmpty, "\(verified)")
        #expect(verified.standardError.contains("the log ends at entry 2 but witness compute-1 countersigned entry 3 at "), "\(verified)")
        #expect(verified.standardError.contains("copy this escrow home aside as evidence"), "\(verified)")
        let json = try await setup.home.escrow("audit", "verify", "--json")
        #expect(json.status == 1, "\(json)")
        #expect(json.jsonObject?["intact"] as? Bool == false, "\(json)")
        #expect((json.jsonObject?["problems"] as? [String])?.count == 1, "\(json)")

        let forget = try await SQLiteShell.run(setup.database, "DELETE FROM WitnessedHead")
        try #require(forget.status == 0, "sqlite3: \(forget.error)")
        let again = try await setup.home.escrow("audit", "verify")
        #expect(again.status == 1, "the witness's own answer: \(again)")
        #expect(again.standardError.contains("the log ends at entry 2 but witness compute-1 countersigned entry 3"), "\(again)")
    }

    @Test("a rewritten newest entry with its head record rewritten to match is detected")
    func rewrittenHead() async throws {
        let setup = try await Self.witnessed()
        defer { setup.remove() }
        try AuditTampering.rewrite(home: setup.home.url, entry: 3, reason: "nothing ran")

        let verified = try await setup.home.escrow("audit", "verify")
        #expect(verified.status == 1, "\(verified)")
        #expect(!verified.standardError.contains("audit log broken"), "the chain itself checks out: \(verified)")
        #expect(verified.standardError.contains("entry 3's hash differs from the head witness compute-1 countersigned at "), "\(verified)")
        #expect(verified.standardError.contains("the log was rewritten"), "\(verified)")
    }

    @Test("an old entry edited and the whole chain recomputed is detected, with the local copies deleted")
    func recomputedChain() async throws {
        let setup = try await Self.witnessed()
        defer { setup.remove() }
        try AuditTampering.rewrite(home: setup.home.url, entry: 1, reason: "the individual approved it")
        let forget = try await SQLiteShell.run(setup.database, "DELETE FROM WitnessedHead")
        try #require(forget.status == 0, "sqlite3: \(forget.error)")

        let verified = try await setup.home.escrow("audit", "verify")
        #expect(verified.status == 1, "\(verified)")
        #expect(!verified.standardError.contains("audit log broken"), "the chain itself checks out: \(verified)")
        #expect(verified.standardError.contains("entry 3's hash differs from the head witness compute-1 countersigned"), "\(verified)")

        // The rewritten log cannot be countersigned either: its entry 3 differs from the held one.
        let pushed = try await setup.home.escrow("audit", "witness")
        #expect(pushed.status == 1, "\(pushed)")
        #expect(pushed.standardError.contains("not sent: entry 3's hash differs"), "\(pushed)")
    }

    @Test("an audit key replaced in the home is detected: the witnessed heads were signed by the old one")
    func replacedKey() async throws {
        let setup = try await Self.witnessed()
        defer { setup.remove() }
        let key = setup.home.url.appendingPathComponent("audit-key")
        try Data((String(repeating: "5a", count: 32) + "\n").utf8).write(to: key)

        let verified = try await setup.home.escrow("audit", "verify")
        #expect(verified.status == 1, "\(verified)")
        #expect(verified.standardError.contains("witness compute-1 countersigned entry 3 signed by audit key"), "\(verified)")
        #expect(verified.standardError.contains("the audit key was replaced"), "\(verified)")
        let pushed = try await setup.home.escrow("audit", "witness")
        #expect(pushed.status == 1, "\(pushed)")
        #expect(pushed.standardError.contains("another host key"), "the witness refuses it too: \(pushed)")
    }

    @Test("with the witness down, flows still run and verify says since which entry the log is unwitnessed")
    func witnessDown() async throws {
        let setup = try await Self.witnessed()
        defer { setup.remove() }
        setup.server.kill()

        let run = try await setup.home.run(sql: FlowCycleTests.countSQL, compute: "identity")
        #expect(run.succeeded, "\(run)")
        #expect(run.standardError.contains("warning: audit witness compute-1 did not countersign"), "\(run)")
        #expect(run.standardError.contains("the audit log is unwitnessed by it since entry 3"), "\(run)")

        let verified = try await setup.home.escrow("audit", "verify", "--timeout", "5")
        #expect(verified.succeeded, "\(verified)")
        #expect(verified.outputLines.first == "audit log intact: 4 entries", "\(verified)")
        #expect(verified.standardOutput.contains(
            "witnessed up to entry 3 by compute-1 at "), "\(verified)")
        #expect(verified.standardOutput.contains("unwitnessed since entry 3: entry 4 is not witnessed yet"), "\(verified)")
        #expect(verified.standardOutput.contains("witness compute-1 could not be asked"), "\(verified)")
        let json = try #require(try await setup.home.escrow("audit", "verify", "--json", "--timeout", "5").jsonObject)
        #expect(json["intact"] as? Bool == true)
        #expect(json["unwitnessedSince"] as? Int == 3)
        #expect((json["unreachable"] as? [[String: Any]])?.first?["witness"] as? String == "compute-1")
    }

    @Test("without a witness, verify says what it cannot detect; a head kept elsewhere catches a truncation")
    func keptHead() async throws {
        let home = try await AuditCommandTests.homeWithEntries()
        defer { home.remove() }
        let plain = try await home.escrow("audit", "verify")
        #expect(plain.succeeded, "\(plain)")
        #expect(plain.outputLines.first == "audit log intact: 3 entries", "\(plain)")
        #expect(plain.standardOutput.contains("no witness: this check detects"), "\(plain)")
        #expect(plain.standardOutput.contains("nor entries edited with the whole chain recomputed"), "\(plain)")
        #expect(!FileManager.default.fileExists(atPath: home.url.appendingPathComponent("audit-key").path),
                "verify alone makes no audit key")

        let head = try await home.escrow("audit", "head", "--json")
        let object = try #require(head.jsonObject, "\(head)")
        #expect(object["seq"] as? Int == 3)
        let shown = try await home.escrow("audit", "head")
        #expect(shown.standardOutput.contains(try #require(object["hash"] as? String)), "\(shown)")

        let matching = try await home.escrow("audit", "verify", "--head", head.standardOutput)
        #expect(matching.succeeded, "\(matching)")
        #expect(matching.standardOutput.contains("matches the head kept elsewhere: entry 3"), "\(matching)")

        let edit = try await SQLiteShell.run(home.url.appendingPathComponent("escrow.sqlite").path, """
            DROP TRIGGER AuditEntry_delete_through_checkpoint;
            DELETE FROM AuditEntry WHERE seq = 3;
            UPDATE AuditHead SET seq = 2, hash = (SELECT hash FROM AuditEntry WHERE seq = 2);
            """)
        try #require(edit.status == 0, "sqlite3: \(edit.error)")
        #expect(try await home.escrow("audit", "verify").succeeded, "alone, the chain cannot tell")
        let truncated = try await home.escrow("audit", "verify", "--head", head.standardOutput)
        #expect(truncated.status == 1, "\(truncated)")
        #expect(truncated.standardError.contains("the log ends at entry 2 but the head signed at"), "\(truncated)")

        var forged = object
        forged["seq"] = 2
        let forgedText = String(decoding: try JSONSerialization.data(withJSONObject: forged), as: UTF8.self)
        let refused = try await home.escrow("audit", "verify", "--head", forgedText)
        #expect(refused.status == 1, "\(refused)")
        #expect(refused.standardError.contains("signature does not verify"), "\(refused)")
    }
}
