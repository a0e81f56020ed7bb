import ArgumentParser
import EscrowHost

struct RevokeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "revoke",
        abstract: "Withdraw an approval; the dataflow's next run is refused.",
        discussion: """
            Example:
              escrow revoke 1a2b3c4d
            """
    )

    @OptionGroup var global: GlobalOptions

    @Argument(help: "The dataflow's id (or an unambiguous prefix).")
    var flow: String

    func run() async throws {
        try await reportingErrors {
            let record = try FlowStore(state: try global.stateDatabase()).revoke(flow)
            print("revoked \(record.id): its next run is refused; `escrow approve \(record.id)` allows it again")
        }
    }
}
