import ArgumentParser
import EscrowCore
import EscrowHost
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

            Nothing runs until you approve it: the first run of a new dataflow stops
            and names it; `escrow flows show` explains it, `escrow approve` allows it,
            and `escrow audit` lists every attempt.

            Example:
              export ESCROW_HOME=~/escrow
              escrow init
              escrow import contacts ~/contacts.vcf
              escrow run --app org.wikipedia --purpose "Articles near you" \\
                  --sql "SELECT longitude, latitude FROM Location
                         ORDER BY timestamp DESC LIMIT 1" \\
                  --compute location.region
              escrow flows show 1a2b3c4d    # the id the run named
              escrow approve 1a2b3c4d
            """,
        subcommands: [InitCommand.self, ImportCommand.self, RunCommand.self, FlowsCommand.self,
                      ApproveCommand.self, DenyCommand.self, RevokeCommand.self, AuditCommand.self,
                      LineageCommand.self, FunctionsCommand.self, SchemaCommand.self, ServersCommand.self, ServeCommand.self, ConfigCommand.self,
                      FilterCommand.self, ReportCommand.self, ExportCommand.self, ModulesCommand.self]
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

    /// The escrow's own database of the chosen home (flows, decisions, audit log, settings).
    func stateDatabase() throws -> StateDatabase {
        try StateDatabase(home: try escrowHome())
    }

    /// A logger writing to standard error, at `info` with --verbose, else `warning`.
    func logger() -> Logger {
        var logger = Logger(label: "escrow") { label in StreamLogHandler.standardError(label: label) }
        logger.logLevel = verbose ? .info : .warning
        return logger
    }
}

/// An error the CLI reports itself: one line on standard error, exit status 1 (or `exitCode`).
struct CLIError: Error, CustomStringConvertible {
    let description: String
    let exitCode: ExitCode
    init(_ description: String, exitCode: ExitCode = .failure) {
        self.description = description
        self.exitCode = exitCode
    }
}

/// Runs a command body, printing any failure as `escrow: message` on standard error, with the
/// CLI's hint (`ErrorHints`).
///
/// Exit status: 2 when a dataflow awaits the individual's approval, 3 when it was denied or
/// revoked, 1 for any other error (see docs/CLI.md).
func reportingErrors<T>(_ body: () async throws -> T) async throws -> T {
    do {
        return try await body()
    } catch let exit as ExitCode {
        throw exit
    } catch {
        // An error may quote what an app or a file sent: shown escaped, line breaks kept. The
        // hint names the command to run next (the libraries' descriptions name none).
        Terminal.standardError.write("escrow: \(DisplayText.escaped(ErrorHints.text(of: error), lineBreaks: true))\n")
        throw exitCode(for: error)
    }
}

/// The exit status for an error a command threw.
func exitCode(for error: any Error) -> ExitCode {
    switch error {
    case DecisionError.awaitingApproval: ExitCode(2)
    case DecisionError.denied, DecisionError.revoked: ExitCode(3)
    case let error as CLIError: error.exitCode
    default: .failure
    }
}
