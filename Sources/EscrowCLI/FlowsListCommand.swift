import ArgumentParser
import EscrowCore
import EscrowHost

struct FlowsListCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "List dataflows, newest first.",
        discussion: """
            Example:
              escrow flows --status pending
              escrow flows list --app org.wikipedia --json
            """
    )

    @OptionGroup var global: GlobalOptions

    @Option(help: "Only flows with this status.")
    var status: FlowStatus?

    @Option(help: ArgumentHelp("Only flows of this app.", valueName: "ID"))
    var app: String?

    @Flag(help: "Print the flows as a JSON array.")
    var json = false

    func run() async throws {
        try await reportingErrors {
            let flows = try FlowStore(state: try global.stateDatabase()).list(status: status, app: app)
            if json {
                print(FlowRendering.json(flows))
            } else if flows.isEmpty {
                print(DisplayText.escaped("no dataflows\(status.map { " with status \($0.rawValue)" } ?? "")\(app.map { " of \($0)" } ?? "")"))
            } else {
                print(FlowRendering.table(flows, palette: .standardOutput), terminator: "")
            }
        }
    }
}
