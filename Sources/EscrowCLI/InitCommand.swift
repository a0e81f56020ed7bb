import ArgumentParser
import EscrowCore
import EscrowStore
import Foundation

struct InitCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "init",
        abstract: "Create an escrow home (or bring an existing one up to date).",
        discussion: "Example:\n  escrow --home ~/escrow init"
    )

    @OptionGroup var global: GlobalOptions

    func run() async throws {
        try await reportingErrors {
            let home = try global.escrowHome()
            try home.initialize()
            print(DisplayText.escaped("escrow home ready at \(home.url.path)"))
        }
    }
}
