import Foundation
import Testing

@Suite("escrow run: errors a user can make")
struct RunErrorTests {
    /// A new, initialised home with the sample contacts.
    static func homeWithContacts() async throws -> ScratchHome {
        let home = ScratchHome()
        for step in [["init"], ["import", "contacts", SampleData.contacts]] {
            let outcome = try await EscrowProcess.run(["--home", home.path] + step)
            guard outcome.succeeded else {
                home.remove()
                throw SetupFailed(outcome: outcome)
            }
        }
        return home
    }

    struct SetupFailed: Error, CustomStringConvertible {
        /// The step that failed, when known.
        var outcome: EscrowProcess.Outcome?
        var description: String {
            "could not set up the test's escrow home" + (outcome.map { ": \($0)" } ?? "")
        }
    }

    static let hostileSQL = [
        "DELETE FROM Contact",
        "PRAGMA journal_mode",
        "SELECT * FROM sqlite_master",
        "DROP TABLE Contact",
        "ATTACH DATABASE '/tmp/x.db' AS x",
        "SELECT givenName FROM Contact; DELETE FROM Contact",
    ]

    @Test("hostile access SQL is refused and changes nothing", arguments: hostileSQL)
    func hostileSQLRefused(_ sql: String) async throws {
        let home = try await Self.homeWithContacts()
        defer { home.remove() }

        let outcome = try await home.run(sql: sql, compute: "identity")
        #expect(outcome.status != 0, "\(outcome)")
        #expect(outcome.standardOutput.isEmpty, "\(outcome)")
        #expect(outcome.standardError.hasPrefix("escrow: access SQL refused:"), "\(outcome)")

        let counted = try await home.runApproved(sql: "SELECT count(*) AS n FROM Contact", compute: "identity")
        let frame = try #require(FrameJSON(counted.standardOutput), "\(counted)")
        #expect(frame.onlyRow?["n"] as? Int == (try SampleData.contactCount()))
    }

    @Test("an unknown compute function: the error names the registered ones")
    func unknownFunction() async throws {
        let home = try await Self.homeWithContacts()
        defer { home.remove() }

        let outcome = try await home.run(sql: "SELECT givenName FROM Contact", compute: "contacts.everything")
        #expect(outcome.status != 0, "\(outcome)")
        #expect(outcome.standardOutput.isEmpty, "\(outcome)")
        #expect(outcome.standardError.contains("contacts.everything"), "\(outcome)")
        for function in ["articles.nearby", "contacts.discovery", "contacts.tuples", "identity", "location.region", "photos.labels", "photos.summary", "weather.current"] {
            #expect(outcome.standardError.contains(function), "\(outcome)")
        }
    }

    @Test("a parameter that is not a number is a clear error", arguments: [
        (["--param", "radius=abc"], ["radius", "abc"]),
        (["--param", "radius"], ["--param radius", "NAME=VALUE"]),
        (["--param", "radius=1000", "--param", "radius=2000"], ["--param radius", "more than once"]),
        (["--param", "radius=1000", "--param", "radius=1000"], ["--param radius", "more than once"]),
    ])
    func badParameter(_ extra: [String], _ mentions: [String]) async throws {
        let home = try await Self.homeWithContacts()
        defer { home.remove() }
        try #require(try await home.escrow("import", "locations", SampleData.track).succeeded)

        let outcome = try await home.run(sql: "SELECT longitude, latitude FROM Location ORDER BY timestamp DESC LIMIT 1",
                                   compute: "location.region", extra: extra)
        #expect(outcome.status != 0, "\(outcome)")
        #expect(outcome.standardOutput.isEmpty, "\(outcome)")
        #expect(outcome.errorLines.count == 1, "\(outcome)")
        for mention in mentions {
            #expect(outcome.standardError.contains(mention), "\(outcome)")
        }
    }

    @Test("commands before init say to run `escrow --home DIR init` and create nothing", arguments: [
        ["run", "--app", "org.example.cli-tests", "--purpose", "Test", "--sql", "SELECT givenName FROM Contact",
         "--compute", "identity"],
        ["import", "contacts", SampleData.contacts],
        ["schema"],
    ])
    func beforeInit(_ arguments: [String]) async throws {
        let home = ScratchHome()
        defer { home.remove() }

        let outcome = try await EscrowProcess.run(["--home", home.path] + arguments)
        #expect(outcome.status != 0, "\(outcome)")
        #expect(outcome.standardOutput.isEmpty, "\(outcome)")
        #expect(outcome.standardError.contains("escrow --home \(home.path) init"), "\(outcome)")
        #expect(!FileManager.default.fileExists(atPath: home.path), "a mistyped home is not created")
    }
}
