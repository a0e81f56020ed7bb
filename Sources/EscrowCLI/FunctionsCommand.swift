import ArgumentParser
import EscrowCore
import EscrowFunctions

struct FunctionsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "functions",
        abstract: "List the registered compute functions with their version and code digest.",
        discussion: "Example:\n  escrow functions"
    )

    @OptionGroup var global: GlobalOptions

    func run() async throws {
        let rows = EscrowFunctions.catalog.descriptors.map { [$0.id, String($0.version), String($0.codeDigest.prefix(16)), $0.summary] }
        print(TextTable.render(header: ["FUNCTION", "VERSION", "DIGEST", "WHAT IT DOES"], rows: rows), terminator: "")
    }
}
