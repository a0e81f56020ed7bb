import ArgumentParser
import EscrowHost

struct AuditVerifyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "verify",
        abstract: "Check that no audit entry was edited, deleted, reordered or cut off.",
        discussion: """
            Exit status 0 when the log is intact, 1 when it is not (the first broken
            entry is named on standard error).

            Example:
              escrow audit verify
            """
    )

    @OptionGroup var global: GlobalOptions

    func run() async throws {
        try await reportingErrors {
            switch try AuditLog(state: try global.stateDatabase()).verify() {
            case .intact(let entries):
                print("audit log intact: \(PlainWords.count(entries, "entry", plural: "entries"))")
            case .broken(let seq, let reason):
                throw CLIError("audit log broken at entry \(seq): \(reason)")
            }
        }
    }
}
