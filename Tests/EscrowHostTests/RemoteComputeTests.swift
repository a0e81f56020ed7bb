import EscrowCore
import EscrowFunctions
@testable import EscrowHost
import EscrowWire
import EscrowStore
import EscrowTestSupport
import Foundation
import Logging
import Testing

/// Dataflows approved for a compute server, against a real `escrow-compute` on 127.0.0.1.
@Suite(.serialized) struct RemoteComputeTests {
    let logger = Logger(label: "test")
    static let contactsSQL = "SELECT givenName, familyName, phoneNumbers FROM Contact"

    @Test func remoteRunGivesTheDeviceOutputAndIsAuditedWithItsBytes() async throws {
        try await ComputeServerProcess.with { server, certificates in
            try await TemporaryHome.with { temporary in
                try temporary.seed()
                let host = try EscrowHost(home: temporary.home, logger: logger)
                try host.register(server, certificates)
                let local = try await host.runApproving(app: "org.signal", purpose: "contact discovery", access: Self.contactsSQL,
                                                        compute: "contacts.tuples")
                let remote = try await host.runApproving(app: "org.signal", purpose: "contact discovery", access: Self.contactsSQL,
                                                         compute: "contacts.tuples", on: .server("compute-1"))
                #expect(remote.output == local.output)
                #expect(remote.flowID != local.flowID, "the destination is part of the flow")
                let entry = remote.auditEntry.facts
                #expect(entry.destination == "server:compute-1")
                #expect(entry.bytesSent > remote.bytesToCompute)
                #expect(entry.bytesReceived > 0)
                #expect((entry.serverLatencyMs ?? 0) > 0)
            let computeMs = try #require(entry.serverComputeMs)
            #expect(computeMs > 0 && computeMs <= (entry.serverLatencyMs ?? 0), "compute is part of the round trip")
            #expect(local.auditEntry.facts.serverComputeMs == nil)
                #expect(try host.audit.verify() == .intact(entries: 4))
            }
        }
    }

    @Test func aMovedHomeStillReachesItsServers() async throws {
        try await ComputeServerProcess.with { server, certificates in
            try await TemporaryHome.with { temporary in
                try temporary.seed()
                try EscrowHost(home: temporary.home, logger: logger).register(server, certificates)
                let moved = temporary.url.deletingLastPathComponent().appendingPathComponent("moved-\(UUID().uuidString)")
                try FileManager.default.moveItem(at: temporary.home.url, to: moved)
                defer { try? FileManager.default.removeItem(at: moved) }
                let host = try EscrowHost(home: EscrowHome(url: moved), logger: logger)
                #expect(try host.servers.server("compute-1").caFile.hasPrefix(moved.standardizedFileURL.path))
                let result = try await host.runApproving(app: "org.signal", purpose: "contact discovery", access: Self.contactsSQL,
                                                         compute: "contacts.tuples", on: .server("compute-1"))
                #expect(result.output.rowCount > 0)
            }
        }
    }

    @Test(arguments: [10, 100, 1000])
    func sixteenKilobyteImagesGoThroughOneCall(count: Int) async throws {
        try await ComputeServerProcess.with { server, certificates in
            try await TemporaryHome.with { temporary in
                let folder = temporary.url.appendingPathComponent("photos", isDirectory: true)
                try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
                for index in 1...count {
                    try Data(MediaFixtures.jpeg(variant: index, payloadBytes: 16 * 1024))
                        .write(to: folder.appendingPathComponent("IMG_\(index).jpg"))
                }
                _ = try Importer(home: temporary.home, logger: logger).importPhotos(from: folder)
                let host = try EscrowHost(home: temporary.home, logger: logger)
                try host.register(server, certificates)
                let result = try await host.runApproving(app: "org.example.labels", purpose: "label photos",
                                                         access: "SELECT asset FROM Photos WHERE mediaType = 'image' ORDER BY creationDate DESC",
                                                         compute: "identity", on: .server("compute-1"))
                #expect(result.output.rowCount == count)
                let assets = try result.output.column("asset")
                let total = (0..<count).reduce(0) { $0 + (assets.bytes(at: $1)?.count ?? 0) }
                #expect(total >= count * 16 * 1024 - count * 8)
                #expect(result.auditEntry.facts.bytesSent >= total)
                #expect(result.auditEntry.facts.bytesReceived >= total)
            }
        }
    }

    @Test func aServerOfferingOtherCodeGetsNoData() async throws {
        try await ComputeServerProcess.with { server, certificates in
            try await TemporaryHome.with { temporary in
                try temporary.seed()
                // The host's reviewed copy of `test.count`… the server offers only the shipped catalog, so
                // approve a flow whose function the host knows under a digest the server does not run.
                struct ReviewedTuples: ComputeFunction {
                    static let id = "contacts.tuples"
                    static let version = 1
                    static let summary = "Reviewed copy."
                    static let inputs = InputContract.any
                    static let codeDigest = String(repeating: "c", count: 64)
                    func compute(_ input: Frame, context: ComputeContext) -> Frame { input }
                }
                let host = try EscrowHost(home: temporary.home, catalog: FunctionCatalog([RegisteredFunction(ReviewedTuples.self)]),
                                          logger: logger)
                try host.register(server, certificates)
                await #expect {
                    try await host.runApproving(app: "org.signal", purpose: "contact discovery", access: Self.contactsSQL,
                                                compute: "contacts.tuples", on: .server("compute-1"))
                } throws: { error in
                    guard case .digestMismatch(let serverID, _, let approved, _)? = error as? RemoteComputeError else { return false }
                    return serverID == "compute-1" && approved == ReviewedTuples.codeDigest
                }
                let entry = try #require(try host.audit.entries().last)
                #expect(entry.facts.outcome == .failed)
                #expect(entry.facts.bytesSent == 0)
                #expect(entry.facts.reason?.contains("refused to send data") == true)
            }
        }
    }

    @Test func aKilledServerIsAClearErrorWithinTheDeadlineAndAudited() async throws {
        let certificates = try await DevCertificates.make()
        defer { certificates.remove() }
        let server = try await ComputeServerProcess.start(certificates: certificates)
        try await TemporaryHome.with { temporary in
            try temporary.seed()
            let host = try EscrowHost(home: temporary.home, remoteDeadline: .seconds(5), logger: logger)
            try host.register(server, certificates)
            _ = try await host.runApproving(app: "org.signal", purpose: "contact discovery", access: Self.contactsSQL,
                                            compute: "contacts.tuples", on: .server("compute-1"))
            server.kill()
            let clock = ContinuousClock()
            let started = clock.now
            let error = await #expect(throws: RPCError.self) {
                try await host.run(app: "org.signal", purpose: "contact discovery", access: Self.contactsSQL,
                                   compute: "contacts.tuples", on: .server("compute-1"))
            }
            // A refused connection, not the 5 s deadline running out. The time bound only catches
            // a hang: under a loaded test run wake-ups have been seen seconds late.
            if case .deadlineExceeded = error { Issue.record("the dead server was only noticed at the deadline") }
            #expect(clock.now - started < .seconds(30))
            let entry = try #require(try host.audit.entries().last)
            #expect(entry.facts.outcome == .failed)
            #expect(entry.facts.destination == "server:compute-1")
        }
    }

    @Test func unknownServersAndRegistrationErrorsAreClear() async throws {
        try await TemporaryHome.with { temporary in
            let host = try EscrowHost(home: temporary.home, logger: logger)
            await #expect(throws: ServerError.unknownServer("nowhere")) {
                try await host.run(app: "a.b", purpose: "p", access: Self.contactsSQL, compute: "contacts.tuples", on: .server("nowhere"))
            }
            #expect(throws: ServerError.missingClientCertificate(host.servers.tlsFolder.path)) {
                try host.servers.add(id: "x", addresses: ["127.0.0.1:1"], caFile: "/etc/hostname", serverName: nil)
            }
            #expect(throws: ServerError.invalidAddress("no-port")) {
                try host.servers.add(id: "x", addresses: ["no-port"], caFile: "/etc/hostname", serverName: nil)
            }
            let badID = #expect(throws: ServerError.invalidServerID("bad id")) {
                try host.servers.add(id: "bad id", addresses: ["127.0.0.1:1"], caFile: "/etc/hostname", serverName: nil)
            }
            #expect(badID?.description == "'bad id' cannot be a server id; use letters, digits, '-', '_' or '.'")
            #expect(throws: ServerError.noAddress) {
                try host.servers.add(id: "x", addresses: [], caFile: "/etc/hostname", serverName: nil)
            }
        }
    }
}
