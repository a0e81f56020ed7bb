import Foundation
import Testing

@Suite("escrow config")
struct ConfigCommandTests {
    @Test("audit.durability: process-crash by default, power-loss once set; runs still work")
    func durability() async throws {
        let home = try await RunErrorTests.homeWithContacts()
        defer { home.remove() }

        let initial = try await home.escrow("config", "get", "audit.durability")
        #expect(initial.succeeded, "\(initial)")
        #expect(initial.outputLines == ["process-crash"], "\(initial)")

        let set = try await home.escrow("config", "set", "audit.durability", "power-loss")
        #expect(set.succeeded, "\(set)")
        #expect(set.standardOutput.contains("fsync"), "\(set)")
        #expect(try await home.escrow("config", "get", "audit.durability").outputLines == ["power-loss"])

        #expect(try await home.runApproved(sql: FlowCycleTests.countSQL, compute: "identity").succeeded)
        #expect(try await home.escrow("audit", "verify").outputLines.first == "audit log intact: 2 entries")
    }

    @Test("an unknown setting or value is an error naming the allowed ones", arguments: [
        (["set", "audit.durability", "forever"], ["process-crash", "power-loss"]),
        (["set", "audit.speed", "fast"], ["audit.durability"]),
        (["get", "audit.speed"], ["audit.durability"]),
    ])
    func invalid(_ arguments: [String], _ mentions: [String]) async throws {
        let home = ScratchHome()
        defer { home.remove() }
        try #require(try await home.escrow("init").succeeded)

        let outcome = try await EscrowProcess.run(["--home", home.path, "config"] + arguments)
        #expect(outcome.status == 1, "\(outcome)")
        #expect(outcome.standardOutput.isEmpty, "\(outcome)")
        for mention in mentions {
            #expect(outcome.standardError.contains(mention), "\(outcome)")
        }
        #expect(try await home.escrow("config", "get", "audit.durability").outputLines == ["process-crash"])
    }
}
