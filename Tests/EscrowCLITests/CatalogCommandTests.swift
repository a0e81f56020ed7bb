import Foundation
import Testing

@Suite("escrow functions, schema and --help")
struct CatalogCommandTests {
    @Test("functions lists the registered compute functions")
    func functions() async throws {
        let outcome = try await EscrowProcess.run(["functions"])
        #expect(outcome.succeeded, "\(outcome)")
        let lines = outcome.outputLines
        #expect(lines.first?.hasPrefix("FUNCTION") == true, "\(outcome)")
        let ids = lines.dropFirst().compactMap { $0.split(separator: " ").first.map(String.init) }
        #expect(ids.sorted() == ["articles.nearby", "contacts.discovery", "contacts.tuples", "identity", "location.bounds", "location.region", "photos.labels", "photos.summary", "weather.current"])
    }

    @Test("schema lists Contact, Location and Photos with their columns")
    func schema() async throws {
        let home = ScratchHome()
        defer { home.remove() }
        try #require(try await home.escrow("init").succeeded)

        let outcome = try await home.escrow("schema")
        #expect(outcome.succeeded, "\(outcome)")
        let tables = outcome.outputLines.filter { !$0.hasPrefix(" ") }
        #expect(tables == ["Contact", "Location", "Photos"])
        let columns = Set(outcome.outputLines.filter { $0.hasPrefix("  ") }
            .compactMap { $0.split(separator: " ").first.map(String.init) })
        for column in ["givenName", "phoneNumbers", "timestamp", "latitude", "longitude", "asset", "mediaType",
                       "creationDate", "contentHash"] {
            #expect(columns.contains(column), "\(outcome)")
        }
    }

    @Test("--help shows an example", arguments: [
        ["run"], ["import"], ["lineage"], [], ["flows"], ["flows", "list"], ["flows", "show"], ["approve"], ["deny"],
        ["revoke"], ["audit"], ["audit", "list"], ["audit", "show"], ["audit", "verify"], ["config"], ["config", "get"],
        ["config", "set"],
    ])
    func helpHasExample(_ command: [String]) async throws {
        let outcome = try await EscrowProcess.run(command + ["--help"])
        #expect(outcome.succeeded, "\(outcome)")
        #expect(outcome.standardOutput.contains("Example"), "\(outcome)")
        #expect(outcome.standardOutput.contains("USAGE: escrow"), "\(outcome)")
    }
}
