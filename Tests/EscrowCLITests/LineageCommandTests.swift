import Foundation
import Testing

@Suite("escrow lineage")
struct LineageCommandTests {
    static let cases: [(sql: String, reads: [String])] = [
        ("SELECT givenName, count(*) FROM Contact c JOIN Location l ON 1", ["Contact.givenName", "Location.*"]),
        ("SELECT count(*) FROM Photos", ["Photos.*"]),
        ("SELECT givenName, familyName, phoneNumbers FROM Contact",
         ["Contact.familyName", "Contact.givenName", "Contact.phoneNumbers"]),
        ("SELECT longitude, latitude FROM Location ORDER BY timestamp DESC LIMIT 1",
         ["Location.latitude", "Location.longitude", "Location.timestamp"]),
        ("SELECT asset FROM Photos WHERE mediaType = 'image' ORDER BY creationDate DESC",
         ["Photos.asset", "Photos.creationDate", "Photos.mediaType"]),
    ]

    @Test("one Table.column per line, sorted", arguments: cases)
    func lineage(_ sql: String, _ reads: [String]) async throws {
        let home = ScratchHome()
        defer { home.remove() }
        try #require(try await home.escrow("init").succeeded)

        let outcome = try await home.escrow("lineage", "--sql", sql)
        #expect(outcome.succeeded, "\(outcome)")
        #expect(outcome.standardError.isEmpty, "\(outcome)")
        let lines = outcome.outputLines
        #expect(lines == lines.sorted())
        #expect(lines.allSatisfy { $0.wholeMatch(of: /(Contact|Location|Photos)\.(\*|\w+)/) != nil }, "\(outcome)")
        #expect(lines == reads)
    }

    @Test("lineage refuses hostile SQL too", arguments: ["DELETE FROM Contact", "PRAGMA journal_mode",
                                                         "SELECT * FROM sqlite_master"])
    func hostile(_ sql: String) async throws {
        let home = ScratchHome()
        defer { home.remove() }
        try #require(try await home.escrow("init").succeeded)

        let outcome = try await home.escrow("lineage", "--sql", sql)
        #expect(outcome.status != 0, "\(outcome)")
        #expect(outcome.standardOutput.isEmpty, "\(outcome)")
        #expect(outcome.standardError.hasPrefix("escrow: access SQL refused:"), "\(outcome)")
    }
}
