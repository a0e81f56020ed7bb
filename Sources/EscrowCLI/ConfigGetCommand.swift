import ArgumentParser
import EscrowCore
import EscrowHost

struct ConfigGetCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "get",
        abstract: "Print a setting's value (its default when never set).",
        discussion: """
            Example:
              escrow config get audit.durability
            """
    )

    @OptionGroup var global: GlobalOptions

    @Argument(help: "The setting: audit.durability, retention-days, tracker-lists or network.resolve.")
    var name: String

    func run() async throws {
        try await reportingErrors {
            let setting = try ConfigSetting(named: name)
            print(DisplayText.escaped(try setting.current(on: try global.stateDatabase())))
        }
    }
}
