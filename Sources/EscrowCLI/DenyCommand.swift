import ArgumentParser
import EscrowCore
import EscrowHost

struct DenyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "deny",
        abstract: "Refuse a dataflow; the app's runs of it fail, with your reason.",
        discussion: """
            Example:
              escrow deny 1a2b3c4d --reason "I don't share my contacts"
            """
    )

    @OptionGroup var global: GlobalOptions

    @Argument(help: "The dataflow's id (or an unambiguous prefix).")
    var flow: String

    @Option(help: ArgumentHelp("Why, told to the app.", valueName: "TEXT"))
    var reason: String?

    func run() async throws {
        try await reportingErrors {
            let record = try FlowStore(state: try global.stateDatabase()).deny(flow, reason: reason)
            print(DisplayText.escaped("denied \(record.id)\(reason.map { ": \($0)" } ?? ""); the app's runs of it are refused"))
        }
    }
}
