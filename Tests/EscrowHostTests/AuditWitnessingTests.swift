import EscrowCore
import EscrowDaemon
import EscrowHost
import EscrowWire
import EscrowTestSupport
import Foundation
import Logging
import NIOPosix
import SwiftProtobuf
import Testing

/// The daemon sends the audit head to a real witness (`escrow-compute --witness-store` on
/// 127.0.0.1) in the background after runs; the library checks the log against it.
@Suite struct AuditWitnessingTests {
    let logger = Logger(label: "test")
    static let countSQL = "SELECT count(*) AS n FROM Contact"

    @Test func runsThroughTheDaemonGetTheirHeadWitnessedInTheBackground() async throws {
        let store = FileManager.default.temporaryDirectory.appendingPathComponent("escrow-witness-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: store) }
        try await ComputeServerProcess.with(extraArguments: ["--witness-store", store.path]) { server, certificates in
            try await TemporaryHome.with { temporary in
                try temporary.seed()
                let host = try EscrowHost(home: temporary.home, logger: logger)
                try host.register(server, certificates)
                try host.witnessing.add("compute-1")
                #expect(throws: WitnessingError.alreadyWitness("compute-1")) { try host.witnessing.add("compute-1") }
                _ = try await host.runApproving(app: "org.example.count", purpose: "Count contacts", access: Self.countSQL,
                                                compute: "identity")
                let daemon = try HostDaemon(host: host, limits: .forTests, logger: logger)
                try await daemon.start()
                do {
                    let connection = try await ComputeConnection.connect(unixSocket: daemon.socketPath, group: MultiThreadedEventLoopGroup.singleton)
                    let request = Escrow_V1_RunRequest.with {
                        $0.app = "org.example.count"
                        $0.purpose = "Count contacts"
                        $0.accessSql = Self.countSQL
                        $0.functionID = "identity"
                    }
                    // Through the daemon the flow is bound to this program: a flow of its own, approved here.
                    await #expect(throws: RPCError.self) { try await connection.run(request, deadline: .seconds(30)) }
                    let flow = try #require(try host.flows.list(status: .pending).first)
                    try host.flows.approve(flow.id, .always)
                    for _ in 0..<5 {
                        _ = try await connection.run(request, deadline: .seconds(30))
                    }
                    await connection.close()
                } catch {
                    await daemon.shutdown()
                    throw error
                }
                // The pushes run in the background: wait (generously) for the last one to land.
                let newest = try #require(try host.audit.head()).seq
                let clock = ContinuousClock()
                let deadline = clock.now + .seconds(120)
                while try host.witnessing.storedHeads().first?.seq != newest, clock.now < deadline {
                    try await Task.sleep(for: .milliseconds(50))
                }
                await daemon.shutdown()
                #expect(try host.witnessing.storedHeads().first?.seq == newest, "the daemon's last push reached the witness")

                let check = try await host.witnessing.check(timeout: .seconds(10))
                #expect(check.contradictions.isEmpty, "\(check.contradictions)")
                #expect(check.unreachable.isEmpty)
                #expect(check.asked == ["compute-1"])
                #expect(check.newest?.head.head.seq == newest)
                #expect(check.lastSeq == newest)
                let pinned = try #require(try host.witnessing.witnesses().first?.witnessKey)
                #expect(check.newest?.head.witnessKeyHex == pinned, "the witness's key is pinned on first use")

                try AuditTampering.rewrite(home: temporary.url, entry: 2, reason: "edited")
                #expect(try host.audit.verify() == .intact(entries: newest), "the recomputed chain checks out alone")
                let tampered = try await host.witnessing.check(timeout: .seconds(10))
                #expect(tampered.contradictions.contains { $0.contains("entry \(newest)'s hash differs from the head witness compute-1 countersigned") },
                        "\(tampered.contradictions)")
                #expect(tampered.newest == nil || tampered.newest?.head.head.seq ?? 0 < 2)
            }
        }
    }
}
