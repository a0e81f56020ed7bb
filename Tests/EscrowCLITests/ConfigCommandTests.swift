import Foundation
import Testing

@Suite("escrow config")
struct ConfigCommandTests {
    @Test("audit.durability: process-crash by default, power-loss once set; runs still work")
    func durability() throws {
        let home = try RunErrorTests.homeWithContacts()
        defer { home.remove() }

        let initial = try home.escrow("config", "get", "audit.durability")
        #expect(initial.succeeded, "\(initial)")
        #expect(initial.outputLines == ["process-crash"], "\(initial)")

        let set = try home.escrow("config", "set", "audit.durability", "power-loss")
        #expect(set.succeeded, "\(set)")
        #expect(set.standardOutput.contains("fsync"), "\(set)")
        #expect(try home.escrow("config", "get", "audit.durability").outputLines == ["power-loss"])

        #expect(try home.runApproved(sql: FlowCycleTests.countSQL, compute: "identity").succeeded)
        #expect(try home.escrow("audit", "verify").outputLines == ["audit log intact: 2 entries"])
    }

    @Test("an unknown setting or value is an error naming the allowed ones", arguments: [
        (["set", "audit.durability", "forever"], ["process-crash", "power-loss"]),
        (["set", "audit.speed", "fast"], ["audit.durability"]),
        (["get", "audit.speed"], ["audit.durability"]),
    ])
    func invalid(_ arguments: [String], _ mentions: [String]) throws {
        let home = ScratchHome()
        defer { home.remove() }
        try #require(try home.escrow("init").succeeded)

        let outcome = try EscrowProcess.run(["--home", home.path, "config"] + arguments)
        #expect(outcome.status == 1, "\(outcome)")
        #expect(outcome.standardOutput.isEmpty, "\(outcome)")
        for mention in mentions {
            #expect(outcome.standardError.contains(mention), "\(outcome)")
        }
        #expect(try home.escrow("config", "get", "audit.durability").outputLines == ["process-crash"])
    }
}
