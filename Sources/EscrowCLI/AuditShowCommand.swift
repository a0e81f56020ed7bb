import ArgumentParser
import EscrowHost

struct AuditShowCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "show",
        abstract: "Show every field of one audit entry in plain words.",
        discussion: """
            Example:
              escrow audit show 12
              escrow audit show 12 --json
            """
    )

    @OptionGroup var global: GlobalOptions

    @Argument(help: ArgumentHelp("The entry's number (SEQ in `escrow audit`).", valueName: "N"))
    var seq: Int

    @Flag(help: "Print the entry as a JSON object.")
    var json = false

    func run() async throws {
        try await reportingErrors {
            guard let entry = try AuditLog(state: try global.stateDatabase()).entry(seq) else {
                throw CLIError("no audit entry \(seq); list them with `escrow audit`")
            }
            if json {
                print(AuditRendering.json(entry))
            } else {
                print(AuditRendering.text(entry, palette: .standardOutput), terminator: "")
            }
        }
    }
}
