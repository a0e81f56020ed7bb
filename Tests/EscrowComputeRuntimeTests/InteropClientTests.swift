import EscrowCore
import EscrowFunctions
import EscrowTestSupport
import Foundation
import Testing

/// The C client (libprotobuf-c + OpenSSL, no shared code) talks to the Swift `escrow-compute`:
/// the wire format is plain protobuf over TLS that another implementation can speak.
@Suite(.serialized) struct InteropClientTests {
    /// The C client, built once for the whole test run (a static is initialised exactly once).
    static let builtClient: Result<URL, any Error> = Result { try buildClient() }

    /// Builds the C client with make into a temporary folder.
    static func buildClient() throws -> URL {
        // Under .build/, so it is git-ignored and replaced by the next test run's build.
        let folder = BuiltExecutable.packageRoot.appendingPathComponent(".build/interop-c-tests")
        let make = try ChildProcess.run(URL(fileURLWithPath: "/usr/bin/make"),
                                        ["-s", "-C", BuiltExecutable.packageRoot.appendingPathComponent("Examples/interop-c").path,
                                         "BUILD_DIR=\(folder.path)"])
        guard make.status == 0 else {
            throw FixtureError("building the C client failed (install protobuf-c-compiler libprotobuf-c-dev libssl-dev): "
                + make.errors)
        }
        return folder
    }

    static func run(_ executable: URL, _ arguments: [String]) throws -> ChildProcess.Outcome {
        try ChildProcess.run(executable, arguments)
    }

    @Test func theCClientReadsTheCatalogAndMakesAComputeCall() async throws {
        // The first access runs make: on a thread of its own, not the tests' task pool.
        let build = try await offPool { try Self.builtClient.get() }
        let certificates = try await DevCertificates.make()
        defer { certificates.remove() }
        let server = try await ComputeServerProcess.start(certificates: certificates)
        defer { server.kill() }

        let client = build.appendingPathComponent("escrow-interop-client")
        let result = try Self.run(client, [
            "--host", "127.0.0.1", "--port", String(server.port), "--server-name", "compute-1",
            "--ca", certificates.path("ca.pem"), "--cert", certificates.path("client.pem"), "--key", certificates.path("client-key.pem"),
            "--function", "contacts.tuples",
        ])
        #expect(result.status == 0, "\(result.errors)")
        let lines = result.output.split(separator: "\n").map(String.init)
        for descriptor in EscrowFunctions.catalog.descriptors {
            #expect(lines.contains("function \(descriptor.id) \(descriptor.version) \(descriptor.codeDigest)"))
        }
        #expect(lines.contains("columns: givenName,familyName,phoneNumber"))
        #expect(lines.contains("Ada\tLovelace\t+1 555 0100"))
    }

    @Test func theCClientsErrorsAreTheServersTypedErrors() async throws {
        // The first access runs make: on a thread of its own, not the tests' task pool.
        let build = try await offPool { try Self.builtClient.get() }
        let certificates = try await DevCertificates.make()
        defer { certificates.remove() }
        let server = try await ComputeServerProcess.start(certificates: certificates)
        defer { server.kill() }
        let result = try Self.run(build.appendingPathComponent("escrow-interop-client"), [
            "--host", "127.0.0.1", "--port", String(server.port), "--server-name", "compute-1",
            "--ca", certificates.path("ca.pem"), "--cert", certificates.path("client.pem"), "--key", certificates.path("client-key.pem"),
            "--function", "weather.magic",
        ])
        #expect(result.status != 0)
        #expect((result.output + result.errors).contains("weather.magic"))
    }
}
