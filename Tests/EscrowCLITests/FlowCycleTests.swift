import Foundation
import Testing

@Suite("escrow flows, approve, deny, revoke: the individual decides")
struct FlowCycleTests {
    static let countSQL = "SELECT count(*) AS n FROM Contact"

    @Test("run → pending → flows → flows show → approve → run → audit → revoke → refused → verify")
    func fullCycle() async throws {
        let home = try await RunErrorTests.homeWithContacts()
        defer { home.remove() }
        let sql = "SELECT givenName, familyName, phoneNumbers FROM Contact"
        let app = "org.example.messenger"
        let purpose = "Find friends who use the app"

        let pending = try await home.run(sql: sql, compute: "contacts.tuples", app: app, purpose: purpose)
        #expect(pending.status == 2, "\(pending)")
        #expect(pending.standardOutput.isEmpty, "\(pending)")
        #expect(pending.errorLines.count == 1, "\(pending)")
        let flow = try #require(pending.pendingFlow, "\(pending)")
        #expect(pending.standardError.contains("escrow approve \(flow)"), "\(pending)")

        let listed = try await home.escrow("flows", "--status", "pending", "--json")
        #expect(listed.succeeded, "\(listed)")
        let flows = try #require(listed.jsonArray, "\(listed)")
        #expect(flows.count == 1)
        #expect(flows.first?["id"] as? String == flow)
        #expect(flows.first?["status"] as? String == "pending")
        #expect(flows.first?["app"] as? String == app)
        #expect(try await home.escrow("flows", "--status", "approved", "--json").jsonArray?.isEmpty == true)

        let table = try await home.escrow("flows")
        #expect(table.succeeded, "\(table)")
        #expect(table.outputLines.first?.split(separator: " ", omittingEmptySubsequences: true).prefix(6)
                == ["FLOW", "STATUS", "APP", "FUNCTION", "WHERE", "READS"], "\(table)")
        #expect(table.outputLines.dropFirst().first?.hasPrefix("\(flow)  pending  \(app)") == true, "\(table)")

        let digest = try #require(try await functionDigest("contacts.tuples"))
        let shown = try await home.escrow("flows", "show", flow)
        #expect(shown.succeeded, "\(shown)")
        for mention in [app, purpose, "Contact: familyName, givenName, phoneNumbers",
                        "  SELECT givenName, familyName, phoneNumbers\n  FROM Contact\n", digest, "contacts.tuples",
                        "on this device", "pending", "escrow approve \(flow)", "escrow deny \(flow)"] {
            #expect(shown.standardOutput.contains(mention), "\(mention) in \(shown)")
        }
        #expect(!shown.standardOutput.contains("\u{1B}["), "no colour when stdout is not a terminal")

        let approved = try await home.escrow("approve", flow)
        #expect(approved.succeeded, "\(approved)")
        #expect(approved.standardOutput.contains("approved \(flow): always, until you revoke it"), "\(approved)")

        let ran = try await home.run(sql: sql, compute: "contacts.tuples", app: app, purpose: purpose)
        #expect(ran.succeeded, "\(ran)")
        let frame = try #require(FrameJSON(ran.standardOutput), "\(ran)")
        #expect(frame.columns == ["givenName", "familyName", "phoneNumber"])
        #expect(frame.rows.count == (try SampleData.phoneNumberCount()))

        let audit = try await home.escrow("audit", "--json")
        #expect(audit.succeeded, "\(audit)")
        let entries = try #require(audit.jsonArray, "\(audit)")
        #expect(entries.map { $0["outcome"] as? String } == ["pending", "ok"])
        #expect(entries.allSatisfy { $0["flow"] as? String == flow && $0["app"] as? String == app })
        #expect(entries.map { $0["seq"] as? Int } == [1, 2])
        #expect(entries.last?["rowsRead"] as? Int == (try SampleData.contactCount()))
        #expect((entries.last?["outputSHA256"] as? String)?.count == 64)

        let revoked = try await home.escrow("revoke", flow)
        #expect(revoked.succeeded, "\(revoked)")
        let refused = try await home.run(sql: sql, compute: "contacts.tuples", app: app, purpose: purpose)
        #expect(refused.status == 3, "\(refused)")
        #expect(refused.standardOutput.isEmpty, "\(refused)")
        #expect(refused.standardError.contains("revoked"), "\(refused)")

        let verified = try await home.escrow("audit", "verify")
        #expect(verified.status == 0, "\(verified)")
        #expect(verified.outputLines.first == "audit log intact: 3 entries", "\(verified)")
    }

    @Test("deny --reason: the run is refused with the reason, exit status 3")
    func denyWithReason() async throws {
        let home = try await RunErrorTests.homeWithContacts()
        defer { home.remove() }
        let flow = try #require(try await home.run(sql: Self.countSQL, compute: "identity").pendingFlow)

        let denied = try await home.escrow("deny", flow, "--reason", "not for this app")
        #expect(denied.succeeded, "\(denied)")
        let refused = try await home.run(sql: Self.countSQL, compute: "identity")
        #expect(refused.status == 3, "\(refused)")
        #expect(refused.standardOutput.isEmpty, "\(refused)")
        #expect(refused.standardError.contains("denied"), "\(refused)")
        #expect(refused.standardError.contains("not for this app"), "\(refused)")

        let shown = try await home.escrow("flows", "show", flow, "--json")
        let object = try #require(shown.jsonObject, "\(shown)")
        #expect(object["status"] as? String == "denied")
        #expect(object["reason"] as? String == "not for this app")
        #expect((object["history"] as? [[String: Any]])?.compactMap { $0["decision"] as? String } == ["new: pending", "deny"])
        #expect((object["runs"] as? [[String: Any]])?.compactMap { $0["outcome"] as? String } == ["pending", "denied"])
    }

    @Test("approve --once: one run, then the flow is pending again")
    func approveOnce() async throws {
        let home = try await RunErrorTests.homeWithContacts()
        defer { home.remove() }
        let flow = try #require(try await home.run(sql: Self.countSQL, compute: "identity").pendingFlow)

        let approved = try await home.escrow("approve", flow, "--once")
        #expect(approved.succeeded, "\(approved)")
        #expect(approved.standardOutput.contains("once"), "\(approved)")
        let ran = try await home.run(sql: Self.countSQL, compute: "identity")
        #expect(ran.succeeded, "\(ran)")
        #expect(FrameJSON(ran.standardOutput)?.onlyRow?["n"] as? Int == (try SampleData.contactCount()))
        let again = try await home.run(sql: Self.countSQL, compute: "identity")
        #expect(again.status == 2, "\(again)")
        #expect(again.pendingFlow == flow, "\(again)")
    }

    @Test("approve --until: a future date works, a past date is an error, flags exclude each other")
    func approveUntil() async throws {
        let home = try await RunErrorTests.homeWithContacts()
        defer { home.remove() }
        let flow = try #require(try await home.run(sql: Self.countSQL, compute: "identity").pendingFlow)

        let past = try await home.escrow("approve", flow, "--until", "2001-01-01")
        #expect(past.status == 1, "\(past)")
        #expect(past.standardError.contains("past"), "\(past)")
        #expect(try await home.run(sql: Self.countSQL, compute: "identity").status == 2)

        let malformed = try await home.escrow("approve", flow, "--until", "next week")
        #expect(malformed.status != 0, "\(malformed)")
        #expect(malformed.standardError.contains("ISO 8601"), "\(malformed)")

        let both = try await home.escrow("approve", flow, "--once", "--until", "2999-01-01")
        #expect(both.status != 0, "\(both)")
        #expect(both.standardError.contains("--once, --always and --until"), "\(both)")

        let future = try await home.escrow("approve", flow, "--until", "2999-12-31")
        #expect(future.succeeded, "\(future)")
        #expect(future.standardOutput.contains("until 3000-01-01 00:00:00 UTC"), "end of that day: \(future)")
        let object = try #require(try await home.escrow("flows", "show", flow, "--json").jsonObject)
        #expect(object["approval"] as? String == "until")
        #expect(object["approvedUntil"] as? String == "3000-01-01T00:00:00.000Z")
        #expect(try await home.run(sql: Self.countSQL, compute: "identity").succeeded)
    }

    @Test("a flow id prefix works; an unknown id is a clear error")
    func idPrefix() async throws {
        let home = try await RunErrorTests.homeWithContacts()
        defer { home.remove() }
        let flow = try #require(try await home.run(sql: Self.countSQL, compute: "identity").pendingFlow)

        let shown = try await home.escrow("flows", "show", String(flow.prefix(4)))
        #expect(shown.succeeded, "\(shown)")
        #expect(shown.standardOutput.contains("Dataflow \(flow)"), "\(shown)")
        let approved = try await home.escrow("approve", String(flow.prefix(5)), "--always")
        #expect(approved.succeeded, "\(approved)")
        #expect(approved.standardOutput.hasPrefix("approved \(flow): always"), "\(approved)")

        let unknownID = flow.hasPrefix("0") ? "ffffffff" : "00000000"
        for command in [["flows", "show"], ["approve"], ["deny"], ["revoke"]] {
            let unknown = try await EscrowProcess.run(["--home", home.path] + command + [unknownID])
            #expect(unknown.status == 1, "\(unknown)")
            #expect(unknown.standardOutput.isEmpty, "\(unknown)")
            #expect(unknown.standardError.contains("no dataflow '\(unknownID)'"), "\(unknown)")
        }
        let revokePending = try await home.run(sql: "SELECT givenName FROM Contact", compute: "identity")
        let pendingFlow = try #require(revokePending.pendingFlow)
        let revoke = try await home.escrow("revoke", pendingFlow)
        #expect(revoke.status == 1, "\(revoke)")
        #expect(revoke.standardError.contains("not approved"), "\(revoke)")
    }

    @Test("changed SQL is a new pending flow; the same SQL spaced or commented differently is not")
    func changedSQL() async throws {
        let home = try await RunErrorTests.homeWithContacts()
        defer { home.remove() }
        let sql = "SELECT givenName FROM Contact WHERE familyName = 'Rivera'"
        let first = try await home.runApproved(sql: sql, compute: "identity")
        #expect(first.succeeded, "\(first)")

        let respaced = """
            -- the same query, laid out differently
            SELECT  givenName
              FROM Contact   /* everyone */
             WHERE familyName = 'Rivera'
            """
        let same = try await home.run(sql: respaced, compute: "identity")
        #expect(same.succeeded, "\(same)")
        #expect(same.standardOutput == first.standardOutput)

        let changed = try await home.run(sql: "SELECT givenName FROM Contact WHERE familyName = 'Chen'", compute: "identity")
        #expect(changed.status == 2, "\(changed)")
        let pending = try #require(try await home.escrow("flows", "--status", "pending", "--json").jsonArray)
        #expect(pending.count == 1)
        #expect(pending.first?["id"] as? String == changed.pendingFlow)
        #expect(try await home.escrow("flows", "--json").jsonArray?.count == 2)
    }

    /// The code digest `escrow functions` lists for a function (its first 16 characters).
    func functionDigest(_ function: String) async throws -> String? {
        let listed = try await EscrowProcess.run(["functions"])
        let line = listed.outputLines.first { $0.hasPrefix(function + " ") }
        return line?.split(separator: " ", omittingEmptySubsequences: true).dropFirst(2).first.map(String.init)
    }
}
