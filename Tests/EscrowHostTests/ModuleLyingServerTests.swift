import EscrowCore
import EscrowHost
import EscrowModules
import EscrowTestSupport
import EscrowWire
import Foundation
import Logging
import Testing

/// Compute servers that answer a module call as a real `escrow-compute` of this build never
/// would for a module the host accepted: one says it ran another module than the one approved
/// (its output is withheld), one calls the module invalid (INVALID_MODULE). Each attempt is
/// audited, and the host goes on serving.
@Suite struct ModuleLyingServerTests {
    /// Registers the lying server as `compute-1` on `host` and returns the area app's request
    /// that runs the module there.
    static func register(_ server: LyingServer, _ certificates: DevCertificates, on host: EscrowHost,
                  module bytes: [UInt8]) throws -> DataflowRequest {
        try host.servers.add(id: "compute-1", addresses: ["127.0.0.1:\(server.port)"], caFile: certificates.path("ca.pem"),
                             serverName: "compute-1", clientCertificate: certificates.path("client.pem"),
                             clientKey: certificates.path("client-key.pem"))
        return DataflowRequest(app: "org.example.area", purpose: "The area you moved in",
                               access: "SELECT latitude, longitude FROM Location", compute: "",
                               destination: .server("compute-1"), parameters: ComputeParameters(["decimals": "2"]),
                               module: .bytes(bytes))
    }

    @Test func anOutputFromAServerThatRanAnotherModuleIsWithheldAndAudited() async throws {
        let certificates = try await DevCertificates.make()
        defer { certificates.remove() }
        let server = try await LyingServer.start(certificates, answer: .anotherModule)
        defer { server.stop() }
        let bytes = try ExampleModules.bytes("location-bounds")
        let module = try ComputeModule(bytes: bytes)
        try await TemporaryHome.with { temporary in
            try temporary.seed()
            let host = try EscrowHost(home: temporary.home, logger: Logger(label: "test"))
            let request = try Self.register(server, certificates, on: host, module: bytes)
            do {
                _ = try await host.runApproving(request)
                Issue.record("the output of a server that ran another module reached the app")
            } catch let error as RemoteComputeError {
                #expect(error == .moduleMismatch(server: "compute-1", module: "example.location-bounds", approved: module.sha256,
                                                 ran: LyingServer.otherDigest))
                #expect(error.description.contains("its output was withheld: the server is not running what you approved"))
                #expect(AppFailure(hostError: error).kind == .serverUnavailable)
            }
            let entry = try #require(try host.audit.entries().last)
            #expect(entry.facts.outcome == .failed)
            #expect(entry.facts.outputSHA256 == nil)
            #expect(entry.facts.moduleSHA256 == module.sha256)
            #expect(entry.facts.reason?.contains("as if it ran module 0000000000000000") == true, "\(entry.facts.reason ?? "")")
            #expect(try host.audit.verify() == .intact(entries: try host.audit.entries().count))
            // The host goes on serving: the same module on the device.
            var onDevice = request
            onDevice.destination = .device
            #expect(try await host.runApproving(onDevice).output.rowCount == 1)
        }
    }
}

extension ModuleLyingServerTests {
    @Test func aServerThatCallsTheModuleInvalidFailsTheRunClearlyAndTheHostGoesOn() async throws {
        let certificates = try await DevCertificates.make()
        defer { certificates.remove() }
        let server = try await LyingServer.start(certificates, answer: .invalidModule)
        defer { server.stop() }
        let bytes = try ExampleModules.bytes("location-bounds")
        let digest = ComputeModule.sha256(of: bytes)
        try await TemporaryHome.with { temporary in
            try temporary.seed()
            let host = try EscrowHost(home: temporary.home, logger: Logger(label: "test"))
            let request = try Self.register(server, certificates, on: host, module: bytes)
            for attempt in 1...2 {
                do {
                    _ = try await host.runApproving(request)
                    Issue.record("a run the server refused produced an output")
                } catch RPCError.remote(code: .invalidModule, let message) {
                    #expect(message == LyingServer.invalidModule)
                    let failure = AppFailure(hostError: RPCError.remote(code: .invalidModule, message: message))
                    #expect(failure.kind == .serverUnavailable, "the module is valid here: the server is what fails")
                    #expect(failure.message.contains(LyingServer.invalidModule))
                }
                let entry = try #require(try host.audit.entries().last, "attempt \(attempt)")
                #expect(entry.facts.outcome == .failed)
                #expect(entry.facts.outputSHA256 == nil)
                #expect(entry.facts.moduleSHA256 == digest)
                #expect(entry.facts.reason?.contains(LyingServer.invalidModule) == true, "\(entry.facts.reason ?? "")")
            }
            #expect(try host.audit.verify() == .intact(entries: try host.audit.entries().count))
            #expect(host.modules.keeps(digest), "the host's own check still holds: the module stays kept")
            // The host goes on serving: the same module on the device.
            var onDevice = request
            onDevice.destination = .device
            #expect(try await host.runApproving(onDevice).output.rowCount == 1)
        }
    }
}
