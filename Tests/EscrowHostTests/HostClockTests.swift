import EscrowCore
import EscrowHost
import EscrowTestSupport
import EscrowWire
import Foundation
import Logging
import Testing

/// The times the host records (audit entries, the signed head, servers and witnesses added) come
/// from the clock it is given, not from the system.
@Suite struct HostClockTests {
    let logger = Logger(label: "test")
    static let countSQL = "SELECT count(*) AS n FROM Contact"

    @Test func auditEntriesCarryTheClocksTimeAndTheChainStillVerifies() async throws {
        try await TemporaryHome.with { temporary in
            try temporary.seed()
            let clock = try SettableClock(at: "2031-02-03T04:05:06.789Z")
            let host = try EscrowHost(home: temporary.home, clock: clock, logger: logger)
            _ = try await host.runApproving(app: "org.example.count", purpose: "Count contacts", access: Self.countSQL,
                                            compute: "identity")
            clock.advance(by: .seconds(86_400))
            _ = try await host.runApproving(app: "org.example.count", purpose: "Count contacts", access: Self.countSQL,
                                            compute: "identity")
            let entries = try host.audit.entries()
            #expect(entries.map(\.time) == ["2031-02-03T04:05:06.789Z", "2031-02-03T04:05:06.789Z", "2031-02-04T04:05:06.789Z"])
            #expect(entries.map(\.facts.outcome) == [.pending, .ok, .ok])
            #expect(try host.audit.verify() == .intact(entries: 3))
            #expect(try host.audit.entries(AuditFilter(since: clock.secondsSince1970)).map(\.seq) == [3],
                    "the filter compares with the times the clock gave")
            #expect(try host.audit.signedHead()?.time == "2031-02-04T04:05:06.789Z")
        }
    }

    @Test func serversAndWitnessesAreAddedAtTheClocksTime() async throws {
        let certificates = try await DevCertificates.make()
        defer { certificates.remove() }
        try await TemporaryHome.with { temporary in
            let clock = try SettableClock(at: "2031-02-03T04:05:06Z")
            let host = try EscrowHost(home: temporary.home, clock: clock, logger: logger)
            let server = try host.servers.add(id: "compute-1", addresses: ["127.0.0.1:1"], caFile: certificates.path("ca.pem"),
                                              serverName: "compute-1", clientCertificate: certificates.path("client.pem"),
                                              clientKey: certificates.path("client-key.pem"))
            #expect(server.addedAt == "2031-02-03T04:05:06.000Z")
            #expect(try host.servers.server("compute-1").addedAt == "2031-02-03T04:05:06.000Z")
            clock.advance(by: .seconds(60))
            try host.witnessing.add("compute-1")
            #expect(try host.witnessing.witnesses().map(\.addedAt) == ["2031-02-03T04:06:06.000Z"])
        }
    }
}
