import ArgumentParser
import EscrowDaemon
import EscrowHost
import EscrowWire
import Foundation

struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Run the escrow daemon: apps reach your data only through its socket.",
        discussion: """
            Listens on <home>/escrow.sock (mode 0600) unless --socket is given, runs the
            dataflows apps ask for through the same approvals and audit log as `escrow run`,
            and records each caller's uid and pid in the audit log. Only one daemon may serve
            a home. SIGTERM or SIGINT: runs in flight finish and are audited, then it exits.

            Example:
              escrow --home ~/escrow serve
            """
    )

    @OptionGroup var global: GlobalOptions

    @Option(help: ArgumentHelp("The socket to listen on (default: <home>/escrow.sock).", valueName: "PATH"))
    var socket: String?

    @Option(name: .customLong("max-connections"),
            help: ArgumentHelp("App connections open at once; more are closed as soon as they are accepted (default: half the descriptor limit, at most 4096).",
                               valueName: "N"))
    var maximumConnections: Int?

    @Option(name: .customLong("max-request"),
            help: ArgumentHelp("Largest request an app may send, in bytes, not counting a compute module it brings (up to \(RPCLimits.maximumModuleLength >> 20) MiB more); a longer one is refused before it is read.",
                               valueName: "BYTES"))
    var maximumRequest = HostDaemon.defaultMaximumRequestLength

    @Option(name: .customLong("first-request-timeout"),
            help: ArgumentHelp("Seconds an app has, after connecting, to send its first request.", valueName: "SECONDS"))
    var firstRequestTimeout = 10.0

    @Option(name: .customLong("idle-timeout"),
            help: ArgumentHelp("Seconds an app connection may go without a request while none of its runs is in flight.", valueName: "SECONDS"))
    var idleTimeout = 300.0

    func validate() throws {
        if let maximumConnections, maximumConnections < 1 { throw ValidationError("--max-connections must be at least 1") }
        guard maximumRequest >= 1024 else { throw ValidationError("--max-request must be at least 1024 bytes") }
        for (flag, seconds) in [("--first-request-timeout", firstRequestTimeout), ("--idle-timeout", idleTimeout)]
        where !(seconds > 0 && seconds <= 86_400) {
            throw ValidationError("\(flag) must be a number of seconds above 0 and at most 86400 (a day)")
        }
    }

    func run() async throws {
        MemoryTuning.reuseFreedMemoryForLargeFrames()
        try await reportingErrors {
            let host = try EscrowHost(home: try global.escrowHome(), logger: global.logger())
            let limits = ConnectionLimits(maximumConnections: maximumConnections, firstRequestTimeout: .seconds(firstRequestTimeout),
                                          idleTimeout: .seconds(idleTimeout))
            let daemon = try HostDaemon(host: host, socketPath: socket, limits: limits, maximumRequestLength: maximumRequest,
                                        logger: global.logger())
            try await daemon.start()
            FileHandle.standardOutput.write(Data("escrow daemon listening on \(daemon.socketPath)\n".utf8))
            await ShutdownSignal.wait()
            await daemon.shutdown()
        }
    }
}
