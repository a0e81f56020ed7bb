import EscrowCore
import EscrowHost
import EscrowEgress
import EscrowTestSupport
import EscrowWire
import Foundation
import Logging
import Testing

/// A compute server reports the requests its function made with its answer. A server that reports
/// requests out of the protocol's bounds (an empty or over-long host, a method no HTTP client
/// sends, a status that is no HTTP status, byte counts past what a run can send) has those left
/// out, and one that reports more than a run may make has the rest dropped: the host records what
/// a real `escrow-compute` could have reported, and its audit log still verifies.
@Suite struct EgressReportBoundsTests {
    /// A request as a server reports it.
    static func reported(host: String = "api.weather.example.com", method: String = "GET", status: UInt32 = 200,
                         bytesOut: UInt64 = 120, bytesIn: UInt64 = 512) -> Escrow_V1_EgressRequest {
        var request = Escrow_V1_EgressRequest()
        request.time = 1_790_000_000
        request.host = host
        request.method = method
        request.status = status
        request.bytesOut = bytesOut
        request.bytesIn = bytesIn
        return request
    }

    /// Runs the area module on a server answering `reports`, and returns the run's audit entry.
    func run(reporting reports: [Escrow_V1_EgressRequest]) async throws -> (entry: AuditEntry, intact: Bool) {
        let certificates = try await DevCertificates.make()
        defer { certificates.remove() }
        let server = try await LyingServer.start(certificates, answer: .egress(reports))
        defer { server.stop() }
        let bytes = try ExampleModules.bytes("location-bounds")
        return try await TemporaryHome.with { temporary in
            try temporary.seed()
            let host = try EscrowHost(home: temporary.home, logger: Logger(label: "test"))
            let request = try ModuleLyingServerTests.register(server, certificates, on: host, module: bytes)
            let result = try await host.runApproving(request)
            let entry = try #require(try host.audit.entry(result.auditEntry.seq))
            let entries = try host.audit.entries().count
            return (entry, try host.audit.verify() == .intact(entries: entries))
        }
    }

    @Test func requestsOutOfBoundsAreLeftOutAndTheRestRecorded() async throws {
        let reports = [
            Self.reported(),
            Self.reported(host: ""),
            Self.reported(host: String(repeating: "a", count: 250) + ".com"),
            Self.reported(method: ""),
            Self.reported(method: String(repeating: "G", count: 17)),
            Self.reported(status: 42),
            Self.reported(status: 1000),
            Self.reported(bytesOut: UInt64(Int.max) + 1),
            Self.reported(bytesIn: .max),
            Self.reported(host: "SSL.Google-Analytics.COM.", method: "POST", status: 0),
        ]
        let (entry, intact) = try await run(reporting: reports)
        #expect(entry.facts.outcome == .ok)
        let recorded = entry.facts.egress.map { "\($0.observation.method) \($0.observation.host) \($0.domain) \($0.observation.status.map(String.init) ?? "-")" }
        #expect(recorded == ["GET api.weather.example.com example.com 200",
                             "POST ssl.google-analytics.com google-analytics.com -"], "\(recorded)")
        #expect(intact)
    }

    @Test func requestsBeyondWhatOneRunMayMakeAreDropped() async throws {
        let limit = Escrow_V1_EgressRequest.maximumPerCall
        #expect(limit == EgressRecorder.defaultLimit, "the host drops what the server itself would have refused")
        let reports = (0...limit).map { Self.reported(host: "h\($0).example.com") }
        let (entry, intact) = try await run(reporting: reports)
        #expect(entry.facts.outcome == .ok)
        #expect(entry.facts.egress.count == limit)
        #expect(entry.facts.egress.first?.observation.host == "h0.example.com")
        #expect(entry.facts.egress.last?.observation.host == "h\(limit - 1).example.com", "the first ones reported are kept")
        #expect(intact)
    }
}
