import ArgumentParser
import EscrowHost

struct AuditListCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "List audit entries, oldest first (the newest --limit of them).",
        discussion: """
            DATE is an ISO 8601 date-time or a date alone (from the start of that
            day, UTC).

            Example:
              escrow audit --outcome denied
              escrow audit list --flow 1a2b3c4d --since 2026-05-01 --json
            """
    )

    @OptionGroup var global: GlobalOptions

    @Option(help: ArgumentHelp("Only entries of this app.", valueName: "ID"))
    var app: String?

    @Option(help: ArgumentHelp("Only entries of this dataflow (id or prefix).", valueName: "FLOW"))
    var flow: String?

    @Option(help: ArgumentHelp("Only entries at or after this date.", valueName: "DATE"))
    var since: String?

    @Option(help: "Only entries with this outcome.")
    var outcome: AuditOutcome?

    @Option(help: ArgumentHelp("At most this many entries, the newest.", valueName: "N"))
    var limit = 50

    @Flag(help: "Print the entries as a JSON array.")
    var json = false

    func validate() throws {
        guard limit > 0 else { throw ValidationError("--limit must be at least 1") }
    }

    func run() async throws {
        try await reportingErrors {
            let filter = AuditFilter(app: app, flow: flow, since: try since.map { try DateArgument.start($0, option: "--since") },
                                     outcome: outcome)
            let entries = try AuditLog(state: try global.stateDatabase()).entries(filter, limit: limit)
            if json {
                print(AuditRendering.json(entries))
            } else if entries.isEmpty {
                print("no audit entries\(filter == AuditFilter() ? "" : " match")")
            } else {
                print(AuditRendering.table(entries, palette: .standardOutput), terminator: "")
                if entries.count == limit { print("(the newest \(limit); --limit N shows more)") }
            }
        }
    }
}
