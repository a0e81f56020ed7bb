import EscrowTestSupport
import Foundation
import Testing

/// `escrow servers …` and `escrow run --server` against a real `escrow-compute`.
@Suite struct ServersCommandTests {
    static let sql = "SELECT givenName, familyName, phoneNumbers FROM Contact"

    @Test func registerRunRemotelyAndRemove() async throws {
        let certificates = try await DevCertificates.make()
        defer { certificates.remove() }
        let server = try await ComputeServerProcess.start(certificates: certificates)
        defer { server.kill() }
        let home = ScratchHome()
        defer { home.remove() }
        #expect(try await home.escrow("init").succeeded)
        #expect(try await home.escrow("import", "contacts", "Examples/SampleData/contacts.vcf").succeeded)

        let empty = try await home.escrow("servers")
        #expect(empty.succeeded)
        #expect(empty.standardOutput.contains("no compute servers registered"))

        let noCertificate = try await home.escrow("servers", "add", "compute-1", "--address", server.address,
                                            "--ca", certificates.path("ca.pem"))
        #expect(!noCertificate.succeeded)
        #expect(noCertificate.standardError.contains("; pass --client-cert FILE --client-key FILE to `escrow servers add`"))

        let added = try await home.escrow("servers", "add", "compute-1", "--address", server.address,
                                    "--ca", certificates.path("ca.pem"), "--server-name", "compute-1",
                                    "--client-cert", certificates.path("client.pem"), "--client-key", certificates.path("client-key.pem"))
        #expect(added.succeeded, "\(added)")
        let again = try await home.escrow("servers", "add", "compute-1", "--address", server.address, "--ca", certificates.path("ca.pem"),
                                    "--server-name", "compute-1")
        #expect(!again.succeeded)
        #expect(again.standardError.contains("already registered; remove it first with `escrow servers remove compute-1`"))
        let ipOnly = try await home.escrow("servers", "add", "compute-2", "--address", server.address, "--ca", certificates.path("ca.pem"))
        #expect(!ipOnly.succeeded)
        #expect(ipOnly.standardError.contains("is an IP address; the escrow checks the server by the DNS name in its certificate, which is needed; give it with --server-name"))

        let listed = try await home.escrow("servers", "list", "--json")
        let servers = try #require(try JSONSerialization.jsonObject(with: Data(listed.standardOutput.utf8)) as? [[String: Any]])
        #expect(servers.first?["id"] as? String == "compute-1")
        #expect(servers.first?["addresses"] as? [String] == [server.address])
        let key = home.url.appendingPathComponent("tls/client-key.pem").path
        let mode = try FileManager.default.attributesOfItem(atPath: key)[.posixPermissions] as? NSNumber
        #expect(mode?.intValue == 0o600)

        let onDevice = try await home.runApproved(sql: Self.sql, compute: "contacts.tuples")
        let remote = try await home.runApproved(sql: Self.sql, compute: "contacts.tuples", extra: ["--server", "compute-1"])
        #expect(remote.succeeded, "\(remote)")
        #expect(remote.standardOutput == onDevice.standardOutput)

        let audit = try await home.escrow("audit", "--json")
        let entries = try #require(try JSONSerialization.jsonObject(with: Data(audit.standardOutput.utf8)) as? [[String: Any]])
        let last = try #require(entries.last)
        #expect(last["destination"] as? String == "server:compute-1")
        #expect((last["bytesSent"] as? Int ?? 0) > 0)
        #expect((last["bytesReceived"] as? Int ?? 0) > 0)

        #expect(try await home.escrow("servers", "remove", "compute-1").succeeded)
        let gone = try await home.run(sql: Self.sql, compute: "contacts.tuples", extra: ["--server", "compute-1"])
        #expect(gone.status == 1)
        #expect(gone.standardError.contains("unknown compute server 'compute-1'; register it with `escrow servers add compute-1 "))
        #expect(!(try await home.escrow("servers", "remove", "compute-1").succeeded))
    }
}
