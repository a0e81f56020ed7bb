import EscrowCore
import EscrowTestSupport
import Foundation
import Testing

/// `escrow servers …` and `escrow run --server` against a real `escrow-compute`.
@Suite struct ServersCommandTests {
    static let sql = "SELECT givenName, familyName, phoneNumbers FROM Contact"

    /// A compute server and a new escrow home holding the sample contacts, removed afterwards.
    static func withServerAndHome(_ body: (ComputeServerProcess, DevCertificates, ScratchHome) async throws -> Void) async throws {
        let certificates = try await DevCertificates.make()
        defer { certificates.remove() }
        let server = try await ComputeServerProcess.start(certificates: certificates)
        defer { server.kill() }
        let home = ScratchHome()
        defer { home.remove() }
        #expect(try await home.escrow("init").succeeded)
        #expect(try await home.escrow("import", "contacts", "Examples/SampleData/contacts.vcf").succeeded)
        try await body(server, certificates, home)
    }

    @Test func registerRunRemotelyAndRemove() async throws {
        try await Self.withServerAndHome { server, certificates, home in

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

    @Test func serversShowTellsEachAddressesStateAndAuditShowTheAttempts() async throws {
        try await Self.withServerAndHome { server, certificates, home in
            // Nothing listens on port 1 of the loopback.
            let added = try await home.escrow("servers", "add", "tier", "--address", "127.0.0.1:1", "--address", server.address,
                                              "--ca", certificates.path("ca.pem"), "--server-name", "compute-1",
                                              "--client-cert", certificates.path("client.pem"), "--client-key", certificates.path("client-key.pem"))
            #expect(added.succeeded, "\(added)")
            let fresh = try await home.escrow("servers", "show", "tier")
            #expect(fresh.succeeded)
            #expect(fresh.standardOutput.contains("127.0.0.1:1"))
            #expect(fresh.standardOutput.components(separatedBy: "working").count == 3, "both addresses working before any run: \(fresh.standardOutput)")

            // Each run tries until an address answers: the dead one is tried at most once, then skipped.
            let ran = try await home.runApproved(sql: Self.sql, compute: "contacts.tuples", extra: ["--server", "tier"])
            #expect(ran.succeeded, "\(ran)")
            let audit = try await home.escrow("audit", "--json")
            let entries = try #require(try JSONSerialization.jsonObject(with: Data(audit.standardOutput.utf8)) as? [[String: Any]])
            let attempts = try #require(entries.last?["attempts"] as? [[String: Any]])
            #expect(attempts.last?["address"] as? String == server.address)
            #expect(attempts.last?["outcome"] as? String == "answered")
            #expect(attempts.dropLast().allSatisfy { $0["address"] as? String == "127.0.0.1:1" && $0["outcome"] as? String == "unreachable" })
            let seq = try #require(entries.last?["seq"] as? Int)
            let shown = try await home.escrow("audit", "show", String(seq))
            #expect(shown.standardOutput.contains("Attempts:"))
            #expect(shown.standardOutput.contains("\(server.address) answered"))

            // A server whose only address is dead: the run fails, and the address is skipped for a while.
            #expect(try await home.escrow("servers", "add", "down", "--address", "127.0.0.1:1", "--ca", certificates.path("ca.pem"),
                                          "--server-name", "compute-1").succeeded)
            let first = try await home.run(sql: Self.sql, compute: "contacts.tuples", extra: ["--server", "down"])
            #expect(first.status == 2, "awaits approval: \(first)")
            #expect(try await home.escrow("approve", try #require(first.pendingFlow)).succeeded)
            let failed = try await home.run(sql: Self.sql, compute: "contacts.tuples", extra: ["--server", "down"])
            #expect(!failed.succeeded)
            #expect(failed.standardError.contains("127.0.0.1:1"), "\(failed)")
            let down = try await home.escrow("servers", "show", "down", "--json")
            let object = try #require(try JSONSerialization.jsonObject(with: Data(down.standardOutput.utf8)) as? [String: Any])
            let state = try #require((object["states"] as? [[String: Any]])?.first)
            #expect(state["address"] as? String == "127.0.0.1:1")
            // Skipped for 1 s after one failure ("failing" once that second is over: a loaded machine
            // may take longer than that between the run and this command).
            #expect(["skipped", "failing"].contains(state["state"] as? String ?? ""), "\(state)")
            #expect(state["failures"] as? Int == 1)
            let failedAt = try #require((state["failedAt"] as? String).flatMap { Timestamp.parse($0) })
            let retryAt = try #require((state["retryAt"] as? String).flatMap { Timestamp.parse($0) })
            #expect(abs(retryAt - failedAt - 1) < 0.01, "a back-off of 1 s after one failure")
            #expect((state["lastError"] as? String)?.contains("connection refused") == true)
            let text = try await home.escrow("servers", "show", "down")
            #expect(text.standardOutput.contains("skipped for") || text.standardOutput.contains("failing; tried again on its next call"))
            #expect(text.standardOutput.contains("connection refused"))
            let missing = try await home.escrow("servers", "show", "nowhere")
            #expect(!missing.succeeded)
            #expect(missing.standardError.contains("unknown compute server 'nowhere'"))
            #expect(try await home.escrow("audit", "verify").succeeded)
        }
    }
}
