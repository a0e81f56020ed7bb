import ArgumentParser
import EscrowCore
import EscrowHost

/// `escrow config unset NAME`: back to the setting's default.
struct ConfigUnsetCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "unset",
        abstract: "Return a setting to its default (from the next command on).",
        discussion: """
            Example:
              escrow config unset retention-days    # keep every audit entry again
            """
    )

    @OptionGroup var global: GlobalOptions

    @Argument(help: "The setting: audit.durability, retention-days, tracker-lists or network.resolve.")
    var name: String

    func run() async throws {
        try await reportingErrors {
            let setting = try ConfigSetting(named: name)
            let state = try global.stateDatabase()
            let wasSet = setting == .retentionDays ? try AuditRetention.unset(on: state) : try state.removeSetting(setting.rawValue)
            print(wasSet ? "\(setting.rawValue) is back to its default" : "\(setting.rawValue) was not set; its default applies")
        }
    }
}
