import ArgumentParser
import EscrowCore
import EscrowHost

struct ConfigSetCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "set",
        abstract: "Change a setting (from the next command on).",
        discussion: """
            audit.durability is process-crash (the default) or power-loss (an fsync
            per commit, about 60–130 µs more per run on these machines).

            Example:
              escrow config set audit.durability power-loss
            """
    )

    @OptionGroup var global: GlobalOptions

    @Argument(help: "The setting: audit.durability, retention-days, tracker-lists or network.resolve.")
    var name: String

    @Argument(help: "Its new value.")
    var value: String

    func run() async throws {
        try await reportingErrors {
            let setting = try ConfigSetting(named: name)
            let meaning = try setting.check(value)
            let state = try global.stateDatabase()
            if setting == .retentionDays {
                // Recorded with the time of the change, which `audit verify` checks the checkpoint against.
                try AuditRetention.set(value, on: state)
            } else {
                try state.setSetting(setting.rawValue, to: value)
            }
            print("\(setting.rawValue) = \(DisplayText.escaped(value)): \(meaning)")
            if setting == .retentionDays {
                let deleted = try AuditLog(state: state).applyRetention()
                if deleted > 0 { print("deleted \(deleted) audit entr\(deleted == 1 ? "y" : "ies") older than that") }
            }
        }
    }
}
