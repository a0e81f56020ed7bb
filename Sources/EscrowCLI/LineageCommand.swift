import ArgumentParser
import EscrowCore
import EscrowHost

struct LineageCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "lineage",
        abstract: "Show exactly which columns access SQL reads, one Table.column per line.",
        discussion: """
            Table.* means the query reads the table as a whole (for example count(*)).
            The query is checked against the tables of your escrow home.

            Example:
              escrow --home ~/escrow lineage \\
                --sql "SELECT givenName, familyName, phoneNumbers FROM Contact"
            """
    )

    @OptionGroup var global: GlobalOptions

    @Option(parsing: .unconditional, help: "The access() SQL (may start with a -- comment).")
    var sql: String

    func run() async throws {
        try await reportingErrors {
            let host = try EscrowHost(home: try global.escrowHome(), logger: global.logger())
            for read in try host.lineage(of: sql).sorted {
                print(DisplayText.escaped(read.description))
            }
        }
    }
}
