import Foundation
import Testing

/// What the CLI adds to the escrow's errors: the host and the store state what happened, and the
/// CLI names the command to run next (the SDK's apps read the same errors without it).
@Suite("escrow: errors name the command to run next")
struct ErrorHintTests {
    @Test("hints for errors a user can make", arguments: [
        (["run", "--app", "org.example.cli-tests", "--purpose", "Test", "--sql", "SELECT secret FROM Contact", "--compute", "identity"],
         "escrow: access SQL is not valid: no such column: secret (at byte 7); Schemas/data lists the columns of each table (docs/ACCESS.md); so does `escrow schema`"),
        (["run", "--app", "org.example.cli-tests", "--purpose", "Test", "--sql", "SELECT givenName FROM Contact", "--compute", "identity",
          "--server", "compute-9"],
         "escrow: unknown compute server 'compute-9'; register it with `escrow servers add compute-9 --address HOST:PORT --ca FILE`"),
        (["audit", "witness", "remove", "compute-9"],
         "escrow: compute server compute-9 is not a witness of this audit log; `escrow audit witness list` lists them"),
        (["approve", "0000ffff"], "escrow: no dataflow '0000ffff'; list them with `escrow flows`"),
    ])
    func hints(_ arguments: [String], _ line: String) async throws {
        let home = try await RunErrorTests.homeWithContacts()
        defer { home.remove() }
        let outcome = try await EscrowProcess.run(["--home", home.path] + arguments)
        #expect(outcome.status == 1, "\(outcome)")
        #expect(outcome.standardError == line + "\n", "\(outcome)")
    }

    @Test("a pending flow: run names flows show, approve and deny; revoke names deny")
    func pendingFlowHints() async throws {
        let home = try await RunErrorTests.homeWithContacts()
        defer { home.remove() }
        let pending = try await home.run(sql: "SELECT givenName FROM Contact", compute: "identity")
        let flow = try #require(pending.pendingFlow, "\(pending)")
        #expect(pending.standardError == "escrow: dataflow \(flow) is awaiting approval; review it with `escrow flows show \(flow)`, "
                + "then run `escrow approve \(flow)` (or `escrow deny \(flow)`)\n", "\(pending)")
        let past = try await home.escrow("approve", flow, "--until", "2001-01-01T00:00:00Z")
        #expect(past.status == 1, "\(past)")
        #expect(past.standardError == "escrow: an approval until 2001-01-01T00:00:00.000Z would already have ended: "
                + "that time is in the past; give --until a later date\n", "\(past)")
        let revoke = try await home.escrow("revoke", flow)
        #expect(revoke.status == 1, "\(revoke)")
        #expect(revoke.standardError == "escrow: dataflow \(flow) is pending, not approved: there is nothing to revoke "
                + "(to refuse it, use `escrow deny \(flow)`)\n", "\(revoke)")
    }

    @Test("a stored reads value that is not JSON makes flows show and flows fail, naming the record and column",
          arguments: ["{not json", "[1, 2]", ""])
    func corruptReads(_ value: String) async throws {
        let home = try await RunErrorTests.homeWithContacts()
        defer { home.remove() }
        let flow = try #require(try await home.run(sql: "SELECT givenName FROM Contact", compute: "identity").pendingFlow)
        let database = home.url.appendingPathComponent("escrow.sqlite").path
        let quoted = value.replacingOccurrences(of: "'", with: "''")
        let altered = try await SQLiteShell.run(database, "UPDATE Flow SET reads = '\(quoted)' WHERE id = '\(flow)';")
        try #require(altered.status == 0, "sqlite3: \(altered.error)")

        for command in [["flows", "show", flow], ["flows"], ["flows", "--json"], ["approve", flow]] {
            let outcome = try await EscrowProcess.run(["--home", home.path] + command)
            #expect(outcome.status == 1, "\(command): \(outcome)")
            #expect(outcome.standardOutput.isEmpty, "\(command): \(outcome)")
            #expect(outcome.standardError.hasPrefix("escrow: the stored dataflow \(flow) cannot be read: its reads is not a JSON array of strings ("),
                    "\(command): \(outcome)")
            #expect(outcome.standardError.contains("escrow.sqlite was changed outside the escrow or is damaged: restore it from a backup"),
                    "\(command): \(outcome)")
        }
    }
}
