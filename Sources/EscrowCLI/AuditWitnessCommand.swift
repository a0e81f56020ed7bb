import ArgumentParser
import EscrowHost
import EscrowWire

struct AuditWitnessCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "witness",
        abstract: "The compute servers that countersign the audit log's head, outside the escrow home.",
        discussion: """
            A witness is a registered compute server started with --witness-store. The
            escrow sends it the log's signed head after runs (in the background; a run
            never waits for it or fails because of it) and keeps its countersignature;
            `escrow audit verify` then detects a log truncated or rewritten before the
            newest witnessed entry. Without a subcommand, sends the head now and reports.

            Example:
              escrow audit witness add compute-1
              escrow audit witness
              escrow audit witness list
            """,
        subcommands: [AuditWitnessPushCommand.self, AuditWitnessListCommand.self, AuditWitnessAddCommand.self,
                      AuditWitnessRemoveCommand.self],
        defaultSubcommand: AuditWitnessPushCommand.self
    )
}

extension GlobalOptions {
    /// The audit witnessing of the escrow home, without opening the data database.
    func witnessing() throws -> AuditWitnessing {
        let state = try stateDatabase()
        return AuditWitnessing(audit: AuditLog(state: state), servers: ServerRegistry(state: state), logger: logger())
    }
}

struct AuditWitnessPushCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "push",
        abstract: "Send the audit log's signed head to every witness now and report what each did.",
        discussion: """
            Exit status 0 when every witness countersigned, 1 otherwise (each problem is
            named on standard error).

            Example:
              escrow audit witness push
            """
    )

    @OptionGroup var global: GlobalOptions

    @Option(help: ArgumentHelp("Seconds to wait for each witness.", valueName: "S"))
    var timeout = 10

    func validate() throws {
        guard timeout >= 1 else { throw ValidationError("--timeout must be at least 1 second") }
    }

    func run() async throws {
        try await reportingErrors {
            let witnessing = try global.witnessing()
            guard !(try witnessing.witnesses().isEmpty) else {
                throw CLIError("this escrow has no audit witness; add a registered compute server with `escrow audit witness add SERVER`")
            }
            let results = await witnessing.push(timeout: .seconds(timeout))
            guard !results.isEmpty else {
                print("the audit log is empty: nothing to witness yet")
                return
            }
            var failed = false
            for result in results {
                if let witnessed = result.witnessed {
                    print("witness \(result.serverID) countersigned entry \(witnessed.head.seq) at \(witnessed.witnessedAt)")
                } else {
                    failed = true
                    Terminal.standardError.write("escrow: witness \(result.serverID): \(result.problem ?? "no answer")\n")
                }
            }
            if failed { throw ExitCode.failure }
        }
    }
}

struct AuditWitnessListCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "List the witnesses, their pinned keys and the newest entry each countersigned.",
        discussion: "Example:\n  escrow audit witness list"
    )

    @OptionGroup var global: GlobalOptions

    func run() async throws {
        try await reportingErrors {
            let witnessing = try global.witnessing()
            let witnesses = try witnessing.witnesses()
            guard !witnesses.isEmpty else {
                print("no audit witness; add a registered compute server with `escrow audit witness add SERVER`")
                return
            }
            var newest: [String: String] = [:]
            for stored in try witnessing.storedHeads() {
                newest[stored.serverID] = stored.head.map { "entry \(stored.seq) at \($0.witnessedAt)" } ?? "entry \(stored.seq) (altered)"
            }
            print(TextTable.render(header: ["WITNESS", "KEY (PINNED)", "ADDED (UTC)", "COUNTERSIGNED"], rows: witnesses.map { witness in
                [witness.serverID, witness.witnessKey.map { "\($0.prefix(16))…" } ?? "not yet", witness.addedAt,
                 newest[witness.serverID] ?? "nothing yet"]
            }), terminator: "")
        }
    }
}

struct AuditWitnessAddCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "add",
        abstract: "Make a registered compute server a witness of the audit log.",
        discussion: """
            The server must have been started with --witness-store. Its key is pinned
            when it first countersigns.

            Example:
              escrow audit witness add compute-1
            """
    )

    @OptionGroup var global: GlobalOptions

    @Argument(help: "The compute server's id (see `escrow servers`).")
    var server: String

    func run() async throws {
        try await reportingErrors {
            try global.witnessing().add(server)
            print("compute server \(server) now witnesses the audit log; `escrow audit witness` sends it the head now")
        }
    }
}

struct AuditWitnessRemoveCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "remove",
        abstract: "Stop sending the audit head to a witness (the heads it countersigned are still checked).",
        discussion: "Example:\n  escrow audit witness remove compute-1"
    )

    @OptionGroup var global: GlobalOptions

    @Argument(help: "The compute server's id.")
    var server: String

    func run() async throws {
        try await reportingErrors {
            try global.witnessing().remove(server)
            print("compute server \(server) no longer witnesses the audit log")
        }
    }
}
