import ArgumentParser
import EscrowStore
import Foundation
import Logging

/// `escrow`: the individual's command line for their data escrow.
@main
struct EscrowCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "escrow",
        abstract: "Your data escrow: apps send code to your data instead of copying it.",
        discussion: """
            The escrow home (--home, or ESCROW_HOME) holds your data and the escrow's records.

            Example:
              escrow --home ~/escrow init
              escrow --home ~/escrow import contacts ~/contacts.vcf
              escrow --home ~/escrow run --app org.wikipedia --purpose "Articles near you" \\
                  --sql "SELECT longitude, latitude FROM Location
                         ORDER BY timestamp DESC LIMIT 1" \\
                  --compute location.region
            """,
        subcommands: [InitCommand.self, ImportCommand.self, RunCommand.self, LineageCommand.self,
                      FunctionsCommand.self, SchemaCommand.self]
    )

    @OptionGroup var global: GlobalOptions
}

/// Options every command takes; they may also come before the command name.
struct GlobalOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("The escrow home folder (default: $ESCROW_HOME).", valueName: "DIR"))
    var home: String?

    @Flag(name: .shortAndLong, help: "Log what the escrow does (never your data) to standard error.")
    var verbose = false

    /// The escrow home chosen by `--home` or `ESCROW_HOME`.
    func escrowHome() throws -> EscrowHome {
        let path = home ?? ProcessInfo.processInfo.environment["ESCROW_HOME"]
        guard let path, !path.isEmpty else {
            throw CLIError("no escrow home: pass --home DIR or set ESCROW_HOME")
        }
        let expanded = (path as NSString).expandingTildeInPath
        return EscrowHome(url: URL(fileURLWithPath: expanded, isDirectory: true))
    }

    /// A logger writing to standard error, at `info` with --verbose, else `warning`.
    func logger() -> Logger {
        var logger = Logger(label: "escrow") { label in StreamLogHandler.standardError(label: label) }
        logger.logLevel = verbose ? .info : .warning
        return logger
    }
}

/// An error the CLI reports itself: one line on standard error, exit status 1.
struct CLIError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// Runs a command body, printing any failure as `escrow: message` on standard error.
func reportingErrors<T>(_ body: () async throws -> T) async throws -> T {
    do {
        return try await body()
    } catch let exit as ExitCode {
        throw exit
    } catch {
        Terminal.standardError.write("escrow: \(error)\n")
        throw ExitCode.failure
    }
}
