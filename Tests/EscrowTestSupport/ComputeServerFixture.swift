import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Development certificates made at test time by `certs/make-dev-certs.sh` (never committed).
public struct DevCertificates: Sendable {
    public let folder: URL

    /// Makes a CA, a server certificate (names `localhost`, `compute-1`, IP 127.0.0.1) and a client
    /// certificate; with `negative`, also an expired client certificate and a foreign CA.
    public init(negative: Bool = false) throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("escrow-certs-\(UUID().uuidString)")
        let script = BuiltExecutable.packageRoot.appendingPathComponent("certs/make-dev-certs.sh").path
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = [script, folder.path, "--quiet"] + (negative ? ["--negative"] : [])
        process.standardOutput = FileHandle.nullDevice
        let errors = Pipe()
        process.standardError = errors
        try process.run()
        let message = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw FixtureError("make-dev-certs.sh failed: \(String(decoding: message, as: UTF8.self))")
        }
    }

    public func path(_ name: String) -> String { folder.appendingPathComponent(name).path }

    public func remove() { try? FileManager.default.removeItem(at: folder) }
}

/// A real `escrow-compute` process on 127.0.0.1 with a free port.
public final class ComputeServerFixture: @unchecked Sendable {
    // Set once in init; `process` is only signalled afterwards.
    public let port: Int
    private let process: Process

    /// Starts the server and waits (up to 30 s) for its "listening on" line.
    public init(certificates: DevCertificates, extraArguments: [String] = []) throws {
        process = Process()
        process.executableURL = try BuiltExecutable.url(named: "escrow-compute")
        process.arguments = ["--listen", "127.0.0.1:0", "--cert", certificates.path("server.pem"),
                             "--key", certificates.path("server-key.pem"), "--client-ca", certificates.path("ca.pem")]
            + extraArguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        var received = Data()
        let deadline = Date().addingTimeInterval(30)
        while !received.contains(0x0A), Date() < deadline {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            received.append(chunk)
        }
        let line = String(decoding: received, as: UTF8.self)
        guard line.hasPrefix("listening on "), let colon = line.lastIndex(of: ":"),
              let port = Int(line[line.index(after: colon)...].trimmingCharacters(in: .whitespacesAndNewlines)) else {
            process.terminate()
            throw FixtureError("escrow-compute did not start: '\(line)'")
        }
        self.port = port
    }

    public var address: String { "127.0.0.1:\(port)" }

    /// Kills the server at once (SIGKILL) and waits for it.
    public func kill() {
        guard process.isRunning else { return }
        Glibc.kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    /// Asks the server to shut down gracefully (SIGTERM) and waits; returns its exit status.
    @discardableResult
    public func stop() -> Int32 {
        if process.isRunning {
            process.terminate()
            process.waitUntilExit()
        }
        return process.terminationStatus
    }

    deinit {
        if process.isRunning { Glibc.kill(process.processIdentifier, SIGKILL) }
    }
}

/// A fixture that could not be set up.
public struct FixtureError: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
