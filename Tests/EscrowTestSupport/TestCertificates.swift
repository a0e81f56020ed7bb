import EscrowWire
import Foundation
import Testing

/// Development certificates made at test time by `certs/make-dev-certs.sh --negative` in a
/// temporary folder: the escrow CA, a server certificate (SANs `localhost`, `compute-1`,
/// `127.0.0.1`), a client certificate, an expired client certificate, and a client certificate
/// from another CA. No key is ever committed; the folder is removed when the suite ends.
///
/// Thread safety: an immutable value.
public struct TestCertificates: Sendable {
    /// The folder holding the PEM files.
    public let folder: URL

    /// Certificates already made in `folder`.
    public init(folder: URL) {
        self.folder = folder
    }

    /// The certificates of the running suite (set by the `.devCertificates` trait).
    @TaskLocal public static var current: TestCertificates?

    /// The certificates of the running suite.
    ///
    /// - Throws: when the test does not run under the `.devCertificates` trait.
    public static func forCurrentSuite() throws -> TestCertificates {
        guard let current else { throw Missing() }
        return current
    }

    /// Makes them in a fresh temporary folder (EscrowTestSupport's `DevCertificates`, with the
    /// negative-test certificates).
    public static func generate() async throws -> TestCertificates {
        TestCertificates(folder: try await DevCertificates.make(negative: true).folder)
    }

    /// Removes the folder and every key in it.
    public func remove() {
        try? FileManager.default.removeItem(at: folder)
    }

    public func path(_ name: String) -> String { folder.appendingPathComponent(name).path }

    /// The server's files for `escrow-compute --cert/--key/--client-ca`.
    public var server: TLSFiles { files("server") }
    /// A client certificate signed by the escrow CA.
    public var client: TLSFiles { files("client") }
    /// A client certificate signed by the escrow CA that expired yesterday.
    public var expiredClient: TLSFiles { files("expired-client") }
    /// A client certificate signed by an unrelated CA (the client still trusts the escrow CA, so
    /// only the server can refuse it).
    public var otherCAClient: TLSFiles { files("other-client") }

    private func files(_ name: String) -> TLSFiles {
        TLSFiles(certificate: path("\(name).pem"), privateKey: path("\(name)-key.pem"), certificateAuthority: path("ca.pem"))
    }

    /// The test did not run under the `.devCertificates` trait.
    public struct Missing: Error, CustomStringConvertible {
        public var description: String { "no test certificates: add the .devCertificates trait to the suite" }
    }
}

/// Generates the development certificates once for the suite it is attached to, and removes
/// them when the suite has finished.
public struct DevCertificatesTrait: SuiteTrait, TestScoping {
    public func provideScope(for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void) async throws {
        let certificates = try await TestCertificates.generate()
        defer { certificates.remove() }
        try await TestCertificates.$current.withValue(certificates) {
            try await function()
        }
    }
}

extension Trait where Self == DevCertificatesTrait {
    /// Certificates made at test time with `certs/make-dev-certs.sh`, shared by the suite's tests.
    public static var devCertificates: Self { Self() }
}

extension ComputeServerProcess {
    /// Starts `escrow-compute` with the suite's certificates.
    public static func start(certificates: TestCertificates, extraArguments: [String] = [],
                      timeout: Duration = .seconds(20)) async throws -> ComputeServerProcess {
        try await start(certificates: DevCertificates(folder: certificates.folder), extraArguments: extraArguments, timeout: timeout)
    }
}
