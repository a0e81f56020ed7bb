import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The example apps' platform service (`EscrowPlatform`) on 127.0.0.1 with a free port.
public final class PlatformServiceProcess: Sendable {
    /// The address it listens on (127.0.0.1 unless started with another).
    public let host: String
    public let port: Int
    private let process: Process

    /// Starts it on `host` (a free port) and waits for its "listening on" line.
    public init(host: String = "127.0.0.1") throws {
        let process = Process()
        process.executableURL = try BuiltExecutable.url(named: "EscrowPlatform")
        process.arguments = ["--listen", "\(host):0"]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        var printed = Data()
        while !printed.contains(0x0A) {
            let chunk = PipeRead.chunk(output.fileHandleForReading)
            if chunk.isEmpty { break }
            printed.append(chunk)
        }
        let line = String(decoding: printed, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard line.hasPrefix("listening on "), let colon = line.lastIndex(of: ":"), let port = Int(line[line.index(after: colon)...]) else {
            kill(process.processIdentifier, SIGKILL)
            throw FixtureError("the platform service did not start: '\(line)'")
        }
        self.process = process
        self.host = host
        self.port = port
    }

    /// Starts it (`init(host:)`) without blocking the task pool while it waits for the service.
    public static func start(host: String = "127.0.0.1") async throws -> PlatformServiceProcess {
        try await offPool { try PlatformServiceProcess(host: host) }
    }

    /// `http://HOST:PORT`.
    public var baseURL: String { "http://\(host):\(port)" }

    /// Stops the service: kills it and waits up to 5 s for Foundation to see it exit.
    ///
    /// Not `waitUntilExit()`: called from a `defer` on the task pool, it blocked a pool thread for
    /// good once while Foundation's process monitor was busy, and with it the whole suite.
    public func stop() {
        guard process.isRunning else { return }
        kill(process.processIdentifier, SIGKILL)
        for _ in 0..<500 where process.isRunning {
            usleep(10_000)
        }
    }

    deinit { stop() }
}
