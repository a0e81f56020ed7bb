import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// A real `escrow-compute` process listening on 127.0.0.1, for end-to-end tests.
///
/// `start` waits for the "listening on HOST:PORT" line and reads the port from it. Stop the
/// process with `terminate()` (SIGTERM: graceful) or `kill()` (SIGKILL), or halt it with
/// `freeze()` (SIGSTOP); `deinit` kills it if it is still running, so a failing test never
/// leaves a server behind, but tests should still call `kill()` in a `defer`.
///
/// Thread safety: all methods may be called from any task.
public final class ComputeServerProcess: Sendable {
    /// The address it listens on (127.0.0.1 unless started with another `listen`).
    public let host: String
    public let port: Int
    /// The health listener's port, when started with `--health-listen`.
    public let healthPort: Int?
    private let process: Process
    /// The server's standard output, kept open for its life (it prints only the listening line).
    private let output: Pipe
    private let errorLog: URL

    private init(process: Process, output: Pipe, host: String, port: Int, healthPort: Int?, errorLog: URL) {
        self.process = process
        self.host = host
        self.output = output
        self.port = port
        self.healthPort = healthPort
        self.errorLog = errorLog
    }

    /// Starts `escrow-compute --listen 127.0.0.1:0` (or `listen`) with the certificates' server
    /// files and `extraArguments` (e.g. `["--max-message", "65536"]`); with a `launcher`, through
    /// it (`["/usr/sbin/ip", "netns", "exec", NAME]` starts it in a network namespace: `ip`
    /// execs the server, so the process is the server itself).
    ///
    /// - Throws: `StartFailed` when the process exits or prints nothing within `timeout`.
    public static func start(certificates: DevCertificates, extraArguments: [String] = [], listen: String = "127.0.0.1:0",
                             launcher: [String] = [], timeout: Duration = .seconds(60)) async throws -> ComputeServerProcess {
        let executable = try BuiltExecutable.url(named: "escrow-compute")
        let process = Process()
        process.executableURL = launcher.first.map { URL(fileURLWithPath: $0) } ?? executable
        // The default deadlines (10 s) are for a server's real clients; the whole suite starting
        // dozens of servers and clients at once on two cores can keep one handshake waiting
        // longer. A test of the deadlines passes its own.
        let deadlines = ["--handshake-timeout", "--first-request-timeout"].filter { !extraArguments.contains($0) }
            .flatMap { [$0, "120"] }
        process.arguments = (launcher.isEmpty ? [] : Array(launcher.dropFirst()) + [executable.path])
            + ["--listen", listen, "--cert", certificates.path("server.pem"),
               "--key", certificates.path("server-key.pem"), "--client-ca", certificates.path("ca.pem")]
            + deadlines + extraArguments
        let output = Pipe()
        process.standardOutput = output
        let errorLog = certificates.folder.appendingPathComponent("escrow-compute-\(UUID().uuidString).log")
        guard FileManager.default.createFile(atPath: errorLog.path, contents: nil) else {
            throw StartFailed(stdout: "", stderr: "cannot create \(errorLog.path)")
        }
        let errorHandle = try FileHandle(forWritingTo: errorLog)
        defer { try? errorHandle.close() }
        process.standardError = errorHandle

        let printed = PrintedText()
        try process.run()
        // Read the "listening on" line on a thread of its own, with blocking reads: a dispatch
        // readability source on the pipe crashed libdispatch when the pipe closed under it as a
        // killed server went away while other tests' processes exited.
        let reader = output.fileHandleForReading
        Thread.detachNewThread {
            while true {
                let data = PipeRead.chunk(reader)
                if data.isEmpty { break }
                printed.append(data)
                if Self.port(in: printed.text) != nil { break }
            }
        }

        let clock = ContinuousClock()
        let deadline = clock.now + timeout
        while clock.now < deadline {
            if let port = Self.port(in: printed.text) {
                let host = String(listen[..<(listen.lastIndex(of: ":") ?? listen.endIndex)])
                return ComputeServerProcess(process: process, output: output, host: host, port: port,
                                            healthPort: Self.port(in: printed.text, after: "health on "), errorLog: errorLog)
            }
            if !process.isRunning { break }
            try await Task.sleep(for: .milliseconds(10))
        }
        if process.isRunning { Glibc.kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
        let errors = (try? String(contentsOf: errorLog, encoding: .utf8)) ?? ""
        throw StartFailed(stdout: printed.text, stderr: errors)
    }

    /// Runs `escrow-compute` with `arguments` where it must refuse to start, and waits for it to
    /// exit.
    ///
    /// - Returns: its exit status and what it wrote to standard error.
    public static func refusedStart(arguments: [String]) throws -> (status: Int32, standardError: String) {
        let process = Process()
        process.executableURL = try BuiltExecutable.url(named: "escrow-compute")
        process.arguments = arguments
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        let printed = PipeRead.toEnd(errors.fileHandleForReading)
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: printed, as: UTF8.self))
    }

    /// The port of a "listening on HOST:PORT" line (or another prefix's).
    private static func port(in text: String, after prefix: String = "listening on ") -> Int? {
        for line in text.split(separator: "\n") where line.hasPrefix(prefix) {
            if let colon = line.lastIndex(of: ":"), let port = Int(line[line.index(after: colon)...]) { return port }
        }
        return nil
    }

    /// `HOST:PORT` it listens on (`127.0.0.1:PORT` by default).
    public var address: String { "\(host):\(port)" }

    public var isRunning: Bool { process.isRunning }

    /// Sends SIGTERM: the server drains its running calls and exits.
    public func terminate() {
        if process.isRunning { Glibc.kill(process.processIdentifier, SIGTERM) }
    }

    /// Sends SIGSTOP: the process keeps its sockets but runs no more code until it is killed, so
    /// a call sent now is certainly in flight and certainly unanswered.
    public func freeze() {
        if process.isRunning { Glibc.kill(process.processIdentifier, SIGSTOP) }
    }

    /// Sends SIGKILL and waits for the process to go.
    public func kill() {
        if process.isRunning { Glibc.kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
    }

    /// Waits for the process to exit.
    ///
    /// - Returns: its exit status, or nil when it is still running after `timeout` or died of a
    ///   signal.
    public func waitForExit(timeout: Duration) async throws -> Int32? {
        let clock = ContinuousClock()
        let deadline = clock.now + timeout
        while process.isRunning, clock.now < deadline {
            try await Task.sleep(for: .milliseconds(10))
        }
        guard !process.isRunning, process.terminationReason == .exit else { return nil }
        return process.terminationStatus
    }

    /// What the server wrote to standard error so far (warnings and errors; never payloads).
    public var standardError: String { (try? String(contentsOf: errorLog, encoding: .utf8)) ?? "" }

    deinit {
        if process.isRunning { Glibc.kill(process.processIdentifier, SIGKILL) }
    }

    /// What the process printed on standard output so far.
    private final class PrintedText: Sendable {
        private let bytes = Mutex<[UInt8]>([])
        func append(_ data: Data) { bytes.withLock { $0.append(contentsOf: data) } }
        var text: String { bytes.withLock { String(decoding: $0, as: UTF8.self) } }
    }

    struct StartFailed: Error, CustomStringConvertible {
        let stdout: String
        let stderr: String
        var description: String { "escrow-compute did not start; stdout: \(stdout) stderr: \(stderr)" }
    }
}
