import ArgumentParser
import EscrowHost

struct ApproveCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "approve",
        abstract: "Allow a dataflow to run: always (the default), once, or until a date.",
        discussion: """
            DATE is an ISO 8601 date-time (2026-12-31T18:00:00Z) or a date alone,
            which means until the end of that day, UTC. Give at most one of --once,
            --always and --until.

            Example:
              escrow approve 1a2b3c4d
              escrow approve 1a2b3c4d --once
              escrow approve 1a2b3c4d --until 2026-12-31
            """
    )

    @OptionGroup var global: GlobalOptions

    @Argument(help: "The dataflow's id (or an unambiguous prefix).")
    var flow: String

    @Flag(help: "For the next run only.")
    var once = false

    @Flag(help: "Until you revoke it (the default).")
    var always = false

    @Option(help: ArgumentHelp("Until this date or date-time.", valueName: "DATE"))
    var until: String?

    func validate() throws {
        if [once, always, until != nil].filter({ $0 }).count > 1 {
            throw ValidationError("--once, --always and --until exclude each other; give one of them")
        }
    }

    func run() async throws {
        try await reportingErrors {
            let approval: Approval
            if once {
                approval = .once
            } else if let until {
                approval = .until(try DateArgument.end(until, option: "--until"))
            } else {
                approval = .always
            }
            let record = try FlowStore(state: try global.stateDatabase()).approve(flow, approval)
            let implied = !once && !always && until == nil
            print("approved \(record.id): \(PlainWords.approval(approval))\(implied ? " (the default; see --once, --until)" : "")")
        }
    }
}
