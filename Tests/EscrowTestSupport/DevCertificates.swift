import Foundation

/// Development certificates made at test time by `certs/make-dev-certs.sh` (never committed).
public struct DevCertificates: Sendable {
    public let folder: URL

    /// Makes a CA, a server certificate (names `localhost`, `compute-1`, IP 127.0.0.1) and a client
    /// certificate; with `negative`, also an expired client certificate and a foreign CA.
    public init(negative: Bool = false) throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("escrow-certs-\(UUID().uuidString)")
        let script = BuiltExecutable.packageRoot.appendingPathComponent("certs/make-dev-certs.sh").path
        let made = try ChildProcess.run(URL(fileURLWithPath: "/bin/bash"), [script, folder.path, "--quiet"] + (negative ? ["--negative"] : []))
        guard made.status == 0 else {
            throw FixtureError("make-dev-certs.sh failed: \(made.errors)")
        }
    }

    /// Makes them (`init(negative:)`, about a second of `openssl`) without blocking the task pool.
    public static func make(negative: Bool = false) async throws -> DevCertificates {
        try await offPool { try DevCertificates(negative: negative) }
    }

    /// Certificates already made in `folder`.
    public init(folder: URL) {
        self.folder = folder
    }

    public func path(_ name: String) -> String { folder.appendingPathComponent(name).path }

    public func remove() { try? FileManager.default.removeItem(at: folder) }
}

/// A fixture that could not be set up.
public struct FixtureError: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
