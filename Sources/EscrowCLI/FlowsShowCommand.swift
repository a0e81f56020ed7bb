import ArgumentParser
import EscrowHost

struct FlowsShowCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "show",
        abstract: "Show a dataflow in plain words: who, why, what it reads, what leaves.",
        discussion: """
            FLOW is the id `escrow flows` shows, or its first few characters.

            Example:
              escrow flows show 1a2b3c4d
              escrow flows show 1a2b --json
            """
    )

    @OptionGroup var global: GlobalOptions

    @Argument(help: "The dataflow's id (or an unambiguous prefix).")
    var flow: String

    @Flag(help: "Print the flow as a JSON object.")
    var json = false

    /// How many of the flow's latest audit entries to show.
    static let recentRuns = 5

    func run() async throws {
        try await reportingErrors {
            let state = try global.stateDatabase()
            let flows = FlowStore(state: state)
            let record = try flows.flow(flow)
            let history = try flows.history(record.id)
            let runs = try AuditLog(state: state).entries(AuditFilter(flow: record.id), limit: Self.recentRuns)
            let contacted = try EgressLog(state: state).hosts(ofFlow: record.id)
            let check = FlowRendering.Check(record, home: try global.escrowHome())
            if json {
                print(FlowRendering.json(record, history: history, runs: runs, contacted: contacted, module: check.module))
            } else {
                print(FlowRendering.text(record, check: check, history: history, runs: runs, contacted: contacted,
                                         palette: .standardOutput),
                      terminator: "")
            }
        }
    }
}
