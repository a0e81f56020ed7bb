import Escrow
import EscrowCore
import EscrowTestSupport
import Foundation
import Testing

/// The real `escrow serve` process.
@Suite struct ServeCommandTests {
    /// Runs `escrow` to completion.
    static func escrow(_ arguments: [String]) throws -> ChildProcess.Outcome {
        try ChildProcess.run(try BuiltExecutable.url(named: "escrow"), arguments)
    }

    @Test func serveAppsRefuseASecondDaemonAndStopCleanly() async throws {
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("escrow-serve-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: home) }
        #expect(try Self.escrow(["--home", home.path, "init"]).status == 0)
        let contacts = BuiltExecutable.packageRoot.appendingPathComponent("Examples/SampleData/contacts.vcf").path
        #expect(try Self.escrow(["--home", home.path, "import", "contacts", contacts]).status == 0)

        let daemon = Process()
        daemon.executableURL = try BuiltExecutable.url(named: "escrow")
        // Deadlines for a loaded machine (the whole suite on two cores), not the 10 s for real clients.
        daemon.arguments = ["--home", home.path, "serve", "--first-request-timeout", "120"]
        let output = Pipe()
        daemon.standardOutput = output
        daemon.standardError = FileHandle.nullDevice
        try daemon.run()
        defer { if daemon.isRunning { kill(daemon.processIdentifier, SIGKILL) } }
        var printed = Data()
        while !printed.contains(0x0A) {
            let chunk = PipeRead.chunk(output.fileHandleForReading)
            if chunk.isEmpty { break }
            printed.append(chunk)
        }
        let socket = home.appendingPathComponent("escrow.sock").path
        #expect(String(decoding: printed, as: UTF8.self) == "escrow daemon listening on \(socket)\n")

        let second = try Self.escrow(["--home", home.path, "serve"])
        #expect(second.status != 0)
        #expect(second.errors.contains("another escrow daemon is already serving this escrow home (pid \(daemon.processIdentifier))"))

        let escrow = try await Escrow.connect(app: "org.example.cli", socket: socket)
        var flow = ""
        do throws(EscrowError) {
            _ = try await escrow.runFrame(access: "SELECT givenName FROM Contact", compute: "identity", purpose: "list")
        } catch {
            guard case .awaitingApproval(let id) = error else { throw error }
            flow = id
        }
        #expect(try Self.escrow(["--home", home.path, "approve", flow]).status == 0)
        let names = try await escrow.runFrame(access: "SELECT givenName FROM Contact", compute: "identity", purpose: "list")
        #expect(names.rowCount == 21)
        await escrow.close()

        daemon.terminate()
        daemon.waitUntilExit()
        #expect(daemon.terminationReason == .exit)
        #expect(daemon.terminationStatus == 0)
        #expect(!FileManager.default.fileExists(atPath: socket))
        let verify = try Self.escrow(["--home", home.path, "audit", "verify"])
        #expect(verify.output.contains("audit log intact: 2 entries"))
        // The run came through the socket from this test process: the entry names it.
        let shown = try Self.escrow(["--home", home.path, "audit", "show", "2"])
        #expect(shown.output.contains("Asked by:"))
        #expect(shown.output.contains("process uid \(getuid()) pid \(getpid()), \(try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) (SHA-256 "),
                "the caller and the program it runs: \(shown.output)")
        #expect(shown.output.contains("(through the daemon)"))
    }

    @Test(arguments: [
        (["--max-request", "100"], "--max-request must be at least 1024 bytes"),
        (["--max-connections", "0"], "--max-connections must be at least 1"),
        (["--idle-timeout", "0"], "--idle-timeout must be a number of seconds above 0 and at most 86400"),
        (["--first-request-timeout", "nan"], "--first-request-timeout must be a number of seconds above 0"),
    ])
    func aServeLimitOutOfRangeIsAUsageError(flags: [String], message: String) throws {
        let outcome = try Self.escrow(["--home", "/nonexistent-escrow-home", "serve"] + flags)
        #expect(outcome.status == 64)
        #expect(outcome.errors.contains(message), "\(outcome.errors)")
    }
}
