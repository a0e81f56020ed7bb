import ArgumentParser
import EscrowHost
import EscrowRPC
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

    func run() async throws {
        MemoryTuning.reuseFreedMemoryForLargeFrames()
        try await reportingErrors {
            let host = try EscrowHost(home: try global.escrowHome(), logger: global.logger())
            let daemon = try HostDaemon(host: host, socketPath: socket, logger: global.logger())
            try await daemon.start()
            FileHandle.standardOutput.write(Data("escrow daemon listening on \(daemon.socketPath)\n".utf8))
            await ShutdownSignal.wait()
            await daemon.shutdown()
        }
    }
}
