import ArgumentParser
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

    @Argument(help: "The setting: audit.durability.")
    var name: String

    @Argument(help: "Its new value.")
    var value: String

    func run() async throws {
        try await reportingErrors {
            let setting = try ConfigSetting(named: name)
            try setting.check(value)
            try global.stateDatabase().setSetting(setting.rawValue, to: value)
            let meaning = setting.values.first { $0.value == value }?.meaning ?? ""
            print("\(setting.rawValue) = \(value): \(meaning)")
        }
    }
}
