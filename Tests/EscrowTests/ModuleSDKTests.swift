import Escrow
import EscrowCore
import EscrowDaemon
import EscrowHost
import EscrowModules
import EscrowTestSupport
import EscrowWire
import Foundation
import Logging
import Testing
import WAT

/// An app bringing its compute module's bytes through the SDK, against the real daemon: the bytes
/// overload of `run(access:module:…)`, modules the escrow refuses (`EscrowError.invalidModule`,
/// naming the reason), and modules at and over the size limit, which the daemon's 1 MiB request
/// limit must not cut short.
@Suite(.serialized) struct ModuleSDKTests {
    static let places = "SELECT latitude, longitude FROM Location"
    static let purpose = "The area you were in"

    /// A seeded home with a running daemon, and an SDK connection to it; both closed afterwards.
    func withEscrow(_ body: (Escrow, HostDaemon) async throws -> Void) async throws {
        let logger = Logger(label: "test")
        try await TemporaryHome.with { temporary in
            try temporary.seed()
            let daemon = try HostDaemon(host: try EscrowHost(home: temporary.home, logger: logger), limits: .forTests, logger: logger)
            try await daemon.start()
            do {
                let escrow = try await Escrow.connect(app: "org.example.places", socket: daemon.socketPath)
                try await body(escrow, daemon)
                await escrow.close()
            } catch {
                await daemon.shutdown()
                throw error
            }
            await daemon.shutdown()
        }
    }

    /// Runs `module` over `places`: the first run is pending, then it is approved and run again.
    ///
    /// - Returns: the output and the flow.
    static func runApproving(_ escrow: Escrow, _ daemon: HostDaemon, module: [UInt8]) async throws -> (output: Frame, flow: String) {
        let parameters = ["decimals": "2"]
        var pending: String?
        do throws(EscrowError) {
            _ = try await escrow.run(access: places, module: module, purpose: purpose, parameters: parameters)
            Issue.record("a module's first run must await approval")
        } catch {
            guard case .awaitingApproval(let flow) = error else { throw error }
            pending = flow
        }
        let flow = try #require(pending)
        try daemon.host.flows.approve(flow, .always)
        return (try await escrow.run(access: places, module: module, purpose: purpose, parameters: parameters), flow)
    }

    /// location-bounds padded with a custom section to exactly `size` bytes: the same code and
    /// manifest, a valid module of that size.
    static func bounds(paddedTo size: Int) throws -> [UInt8] {
        let bytes = try ExampleModules.bytes("location-bounds")
        let name = "padding"
        // Section id (1) + its length as 4-byte LEB128 (sizes from 2 MiB to 256 MiB) + the name's
        // length (1) + the name.
        let padding = size - bytes.count - 1 - 4 - 1 - name.utf8.count
        let padded = ExampleModules.appendingSection(name, [UInt8](repeating: 0x2A, count: padding), to: bytes)
        try #require(padded.count == size)
        return padded
    }

    @Test func theBytesOverloadRunsTheModuleTheAppBringsAsTheSwiftFunctionDoes() async throws {
        let bytes = try ExampleModules.bytes("location-bounds")
        try await withEscrow { escrow, daemon in
            let (output, flow) = try await Self.runApproving(escrow, daemon, module: bytes)
            #expect(try output.column("places").int64(at: 0) == Int64(SampleRecords.locations.count))
            let entry = try #require(try daemon.host.audit.entries().last)
            #expect(entry.facts.outcome == .ok)
            #expect(entry.facts.moduleSHA256 == ComputeModule.sha256(of: bytes))
            #expect(entry.facts.caller?.hasPrefix("uid \(getuid()) pid \(getpid())") == true, "the daemon names the app's process")
            #expect(try daemon.host.flows.flow(flow).isModule)
            // The Swift function of the same computation, through the same SDK and daemon.
            var nativeFlow: String?
            do throws(EscrowError) {
                _ = try await escrow.runFrame(access: Self.places, compute: "location.bounds", purpose: Self.purpose,
                                              parameters: ["decimals": "2"])
            } catch {
                guard case .awaitingApproval(let id) = error else { throw error }
                nativeFlow = id
            }
            try daemon.host.flows.approve(try #require(nativeFlow), .always)
            let native = try await escrow.runFrame(access: Self.places, compute: "location.bounds", purpose: Self.purpose,
                                                   parameters: ["decimals": "2"])
            #expect(output == native)
        }
    }

    struct Invalid: Sendable, CustomTestStringConvertible {
        let name: String
        let bytes: @Sendable () throws -> [UInt8]
        let says: String
        var testDescription: String { name }
    }

    static let invalid: [Invalid] = [
        Invalid(name: "truncated bytes", bytes: { Array(try ExampleModules.bytes("location-bounds").prefix(1000)) },
                says: "the module is not valid WebAssembly"),
        Invalid(name: "an unknown import", bytes: {
            ExampleModules.withManifest(try wat2wasm("""
                (module (import "wasi_snapshot_preview1" "clock_time_get" (func (param i32 i64 i32) (result i32)))
                  (memory (export "memory") 1) (func (export "escrow_run") (result i32) (i32.const 0)))
                """), ExampleModules.manifest(id: "test.clock"))
        }, says: "the module imports wasi_snapshot_preview1.clock_time_get, which the escrow does not offer"),
        Invalid(name: "no manifest", bytes: {
            try wat2wasm(#"(module (memory (export "memory") 1) (func (export "escrow_run") (result i32) (i32.const 0)))"#)
        }, says: "the module has no \"escrow.module\" custom section"),
    ]

    @Test("an invalid module is EscrowError.invalidModule naming the reason; nothing is pending, and the app goes on",
          arguments: invalid)
    func anInvalidModuleIsInvalidModule(_ invalid: Invalid) async throws {
        let bytes = try invalid.bytes()
        try await withEscrow { escrow, daemon in
            do throws(EscrowError) {
                _ = try await escrow.run(access: Self.places, module: bytes, purpose: Self.purpose)
                Issue.record("\(invalid.name) was taken")
            } catch {
                guard case .invalidModule(let message) = error else { throw error }
                #expect(message.contains(invalid.says), "\(message)")
                #expect(error.description == message)
            }
            #expect(try daemon.host.flows.list().isEmpty, "a refused module is no flow to decide on")
            #expect(try daemon.host.modules.list().isEmpty, "a refused module is not kept")
            let entry = try #require(try daemon.host.audit.entries().last, "the refused attempt is audited")
            #expect(entry.facts.outcome == .failed)
            // The same connection serves the app's next run.
            let (output, _) = try await Self.runApproving(escrow, daemon, module: try ExampleModules.bytes("location-bounds"))
            #expect(output.rowCount == 1)
        }
    }

    @Test func aModuleOfTheLargestSizeIsTakenThroughTheDaemonAndRuns() async throws {
        let largest = try Self.bounds(paddedTo: RPCLimits.maximumModuleLength)
        try await withEscrow { escrow, daemon in
            #expect(largest.count > daemon.maximumRequestLength, "the module alone is over the daemon's request limit")
            let (output, flow) = try await Self.runApproving(escrow, daemon, module: largest)
            #expect(try output.column("places").int64(at: 0) == Int64(SampleRecords.locations.count))
            #expect(try daemon.host.flows.flow(flow).moduleBytes == RPCLimits.maximumModuleLength)
            #expect(daemon.host.modules.keeps(ComputeModule.sha256(of: largest)))
        }
    }

    @Test func aModuleOverTheLimitIsRefusedNamingTheLimitAndTheAppGoesOn() async throws {
        let over = try Self.bounds(paddedTo: RPCLimits.maximumModuleLength + 1)
        try await withEscrow { escrow, daemon in
            do throws(EscrowError) {
                _ = try await escrow.run(access: Self.places, module: over, purpose: Self.purpose)
                Issue.record("a module over the limit was taken")
            } catch {
                guard case .invalidModule(let message) = error else { throw error }
                #expect(message == "the module is 16777217 bytes; the escrow keeps modules of at most 16777216 bytes (16 MiB)")
            }
            #expect(try daemon.host.flows.list().isEmpty)
            let (output, _) = try await Self.runApproving(escrow, daemon, module: try ExampleModules.bytes("location-bounds"))
            #expect(output.rowCount == 1)
        }
    }
}
