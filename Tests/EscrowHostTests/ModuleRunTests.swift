import EscrowCore
import EscrowEgress
import EscrowHost
import EscrowModules
import EscrowNetwork
import EscrowStore
import EscrowTestSupport
import EscrowWire
import Foundation
import Logging
import Testing
import WAT

/// Compute modules through the whole pipeline, on the device and on a real compute server: the
/// same output as the equivalent Swift function, a changed module a new pending flow, hostile
/// modules refused or stopped with their own errors and audited while the host goes on serving,
/// and a module's requests recorded and blocked like a function's.
@Suite(.serialized) struct ModuleRunTests {
    let logger = Logger(label: "test")
    static let places = "SELECT latitude, longitude FROM Location"

    enum Place: String, CaseIterable, Sendable, CustomStringConvertible {
        case device, computeServer
        var description: String { rawValue }

        /// Runs `body` with a host of a seeded home, prepared for this place, and the flows' destination.
        ///
        /// - Parameter serverLog: given the compute server's standard error once `body` is done.
        func with(network: (any NetworkClient)? = nil, serverArguments: [String] = [], logger: Logger = Logger(label: "test"),
                  serverLog: (String) -> Void = { _ in }, _ body: (EscrowHost, Destination) async throws -> Void) async throws {
            try await TemporaryHome.with { temporary in
                try temporary.seed()
                let host = try EscrowHost(home: temporary.home, network: network, logger: logger)
                switch self {
                case .device:
                    try await body(host, .device)
                case .computeServer:
                    try await ComputeServerProcess.with(extraArguments: serverArguments) { server, certificates in
                        try host.register(server, certificates)
                        do {
                            try await body(host, .server("compute-1"))
                            serverLog(server.standardError)
                        } catch {
                            throw FixtureError("\(error); escrow-compute's standard error: \(server.standardError)")
                        }
                    }
                }
            }
        }
    }

    static func bounds(_ bytes: [UInt8], on destination: Destination, decimals: String = "2") -> DataflowRequest {
        DataflowRequest(app: "org.example.places", purpose: "The area you were in", access: places, compute: "",
                        destination: destination, parameters: ComputeParameters(["decimals": decimals]), module: .bytes(bytes))
    }

    @Test(arguments: Place.allCases)
    func aModuleGivesTheSameOutputAsTheEquivalentSwiftFunction(_ place: Place) async throws {
        let bytes = try ExampleModules.bytes("location-bounds")
        try await place.with { host, destination in
            let result = try await host.runApproving(Self.bounds(bytes, on: destination, decimals: "3"), accuracy: .exact)
            // The built-in Swift function of the same computation, through the same pipeline.
            let native = try await host.runApproving(app: "org.example.places", purpose: "The area you were in", access: Self.places,
                                                     compute: "location.bounds", on: destination,
                                                     parameters: ComputeParameters(["decimals": "3"])).output
            #expect(result.output == native)
            #expect(try result.output.column("places").int64(at: 0) == Int64(SampleRecords.locations.count))
            let module = try ComputeModule(bytes: bytes)
            #expect(result.flow.function == module.descriptor)
            #expect(result.auditEntry.facts.moduleSHA256 == module.sha256)
            #expect(result.auditEntry.facts.functionID == "example.location-bounds")
            #expect(result.auditEntry.facts.destination == destination.description)
            let flow = try host.flows.flow(result.flowID)
            #expect(flow.isModule)
            #expect(flow.moduleBytes == bytes.count)
            #expect(flow.function.codeDigest == module.sha256)
            #expect(flow.identityKey == flow.key)
            #expect(host.modules.keeps(module.sha256), "the module the app brought is kept in the home")
            // Named by digest alone, the kept module runs the same flow.
            var byDigest = Self.bounds(bytes, on: destination, decimals: "3")
            byDigest.module = .sha256(module.sha256)
            let again = try await host.run(byDigest)
            #expect(again.flowID == result.flowID)
            #expect(again.output == native)
            #expect(try host.audit.verify() == .intact(entries: try host.audit.entries().count))
        }
    }

    @Test func aChangedModuleIsANewPendingFlow() async throws {
        let bytes = try ExampleModules.bytes("location-bounds")
        try await Place.device.with { host, destination in
            let first = try await host.runApproving(Self.bounds(bytes, on: destination), accuracy: .exact)
            let changed = ExampleModules.appendingSection("build", Array("rebuilt".utf8), to: bytes)
            do {
                _ = try await host.run(Self.bounds(changed, on: destination))
                Issue.record("a changed module ran on the old approval")
            } catch let DecisionError.awaitingApproval(flow) {
                #expect(flow != first.flowID)
                let pending = try host.flows.flow(flow)
                #expect(pending.status == .pending)
                #expect(pending.function.id == first.flow.function.id)
                #expect(pending.function.codeDigest == ComputeModule.sha256(of: changed))
            }
            // The first flow is untouched and still runs.
            #expect(try await host.run(Self.bounds(bytes, on: destination)).flowID == first.flowID)
        }
    }

    struct Hostile: Sendable, CustomTestStringConvertible {
        let name: String
        /// The module's text, or nil for `bytes`.
        let bytes: @Sendable () throws -> [UInt8]
        /// Whether it is refused when added (nothing is pending, nothing runs).
        let refusedWhenAdded: Bool
        let says: String
        var testDescription: String { name }
    }

    static func wat(_ text: String) throws -> [UInt8] {
        ExampleModules.withManifest(try wat2wasm(text), ExampleModules.manifest(id: "test.hostile"))
    }

    static let hostile: [Hostile] = [
        Hostile(name: "an infinite loop", bytes: {
            try wat(#"(module (memory (export "memory") 1) (func (export "escrow_run") (result i32) (loop $l (br $l)) (i32.const 0)))"#)
        }, refusedWhenAdded: false, says: "more than 2000000 instructions"),
        Hostile(name: "a memory bomb", bytes: {
            try wat("""
                (module (memory (export "memory") 1)
                  (func (export "escrow_run") (result i32)
                    (loop $l (br_if $l (i32.ne (memory.grow (i32.const 16)) (i32.const -1)))) unreachable))
                """)
        }, refusedWhenAdded: false, says: "bytes of memory; one run may have at most 2097152"),
        Hostile(name: "a trap", bytes: {
            try wat(#"(module (memory (export "memory") 1) (func (export "escrow_run") (result i32) unreachable))"#)
        }, refusedWhenAdded: false, says: "trapped (unreachable)"),
        Hostile(name: "an unknown import", bytes: {
            try wat("""
                (module (import "wasi_snapshot_preview1" "random_get" (func (param i32 i32) (result i32)))
                  (memory (export "memory") 1) (func (export "escrow_run") (result i32) (i32.const 0)))
                """)
        }, refusedWhenAdded: true, says: "imports wasi_snapshot_preview1.random_get, which the escrow does not offer"),
        Hostile(name: "a truncated binary", bytes: { Array(try ExampleModules.bytes("location-bounds").prefix(1000)) },
                refusedWhenAdded: true, says: "not valid WebAssembly"),
    ]

    /// Small limits, so the loop and the bomb stop quickly.
    static let limits = [(ModuleSettings.fuelName, "2000000"), (ModuleSettings.memoryName, "2")]
    static let serverLimits = ["--module-fuel", "2000000", "--module-memory-mb", "2"]

    /// All hostile modules on one host (and one compute server), one after the other: each is
    /// refused or stopped with its own error and audited, and the host serves the next.
    @Test(arguments: Place.allCases)
    func aHostileModuleFailsWithItsOwnErrorIsAuditedAndTheHostGoesOnServing(_ place: Place) async throws {
        try await place.with(serverArguments: Self.serverLimits) { host, destination in
            for (name, value) in Self.limits { try host.flows.state.setSetting(name, to: value) }
            for hostile in Self.hostile {
                let bytes = try hostile.bytes()
                let request = DataflowRequest(app: "org.example.hostile", purpose: "Test the sandbox", access: Self.places,
                                              compute: "", destination: destination, module: .bytes(bytes))
                do {
                    _ = try await host.runApproving(request, accuracy: .exact)
                    Issue.record("\(hostile.name) produced an output")
                } catch {
                    #expect("\(error)".contains(hostile.says), "\(hostile.name): \(error)")
                    if hostile.refusedWhenAdded {
                        #expect(error is ModuleError, "\(hostile.name): \(error)")
                        #expect(AppFailure(hostError: error).kind == .invalidModule)
                        #expect(try host.flows.list().allSatisfy { $0.function.codeDigest != ComputeModule.sha256(of: bytes) },
                                "a refused module is no flow to decide on")
                        #expect(!host.modules.keeps(ComputeModule.sha256(of: bytes)), "a refused module is not kept")
                    } else {
                        guard case RunError.moduleFailed = error else { Issue.record("\(hostile.name): \(error)"); continue }
                        #expect(AppFailure(hostError: error).kind == .functionFailed)
                    }
                }
                let entry = try #require(try host.audit.entries().last)
                #expect(entry.facts.outcome == .failed, "\(hostile.name)")
                #expect(entry.facts.reason?.contains(hostile.says) == true, "\(hostile.name): \(entry.facts.reason ?? "")")
                #expect(entry.facts.moduleSHA256 == ComputeModule.sha256(of: bytes))
                // The host goes on serving, modules and functions alike.
                let good = try await host.runApproving(Self.bounds(try ExampleModules.bytes("location-bounds"), on: destination),
                                                       accuracy: .exact)
                #expect(good.output.rowCount == 1)
            }
            #expect(try host.audit.verify() == .intact(entries: try host.audit.entries().count))
        }
    }

    /// How a compute server's operator keeps a module from running there.
    enum Refusing: String, CaseIterable, Sendable, CustomStringConvertible {
        case noModules, anotherModuleAllowed
        var description: String { rawValue }

        func arguments() throws -> [String] {
            switch self {
            case .noModules: ["--no-modules"]
            case .anotherModuleAllowed: ["--allow-module", ComputeModule.sha256(of: try ExampleModules.bytes("weather-swift"))]
            }
        }

        func says(_ digest: String) -> String {
            switch self {
            case .noModules: "this server's operator runs no compute modules"
            case .anotherModuleAllowed: "this server's operator does not accept module \(digest)"
            }
        }
    }

    /// A real compute server whose operator does not accept the module (MODULE_REFUSED): the run
    /// fails saying so, the attempt is audited, no data was computed on, and the host serves the
    /// next run, on that server and on the device.
    @Test(arguments: Refusing.allCases)
    func aServerThatRefusesTheModuleFailsTheRunClearlyAndTheHostGoesOn(_ refusing: Refusing) async throws {
        let bytes = try ExampleModules.bytes("location-bounds")
        let digest = ComputeModule.sha256(of: bytes)
        try await Place.computeServer.with(serverArguments: try refusing.arguments()) { host, destination in
            do {
                _ = try await host.runApproving(Self.bounds(bytes, on: destination), accuracy: .exact)
                Issue.record("a server that refuses the module ran it")
            } catch {
                guard case RPCError.remote(code: .moduleRefused, let message) = error else {
                    Issue.record("\(error)")
                    return
                }
                #expect(message.hasPrefix(refusing.says(digest)), "\(message)")
                #expect(AppFailure(hostError: error).kind == .serverUnavailable)
                #expect(AppFailure(hostError: error).message.contains(refusing.says(digest)))
            }
            let entry = try #require(try host.audit.entries().last)
            #expect(entry.facts.outcome == .failed)
            #expect(entry.facts.outputSHA256 == nil)
            #expect(entry.facts.moduleSHA256 == digest)
            #expect(entry.facts.destination == destination.description)
            #expect(entry.facts.reason?.contains(refusing.says(digest)) == true, "\(entry.facts.reason ?? "")")
            // The host goes on serving: a built-in function on the same server, the module on the device.
            let native = try await host.runApproving(app: "org.example.places", purpose: "The area you were in", access: Self.places,
                                                     compute: "location.bounds", on: destination,
                                                     parameters: ComputeParameters(["decimals": "2"]))
            let onDevice = try await host.runApproving(Self.bounds(bytes, on: .device), accuracy: .exact)
            #expect(onDevice.output == native.output)
            #expect(try host.audit.verify() == .intact(entries: try host.audit.entries().count))
        }
    }

    /// A module's `log` lines reach the escrow host's own log at debug level, with the module's id
    /// and the line alone; never the audit log or the app; and a compute server drops them, even
    /// when its operator asks for its most verbose log.
    @Test(arguments: Place.allCases)
    func aModulesLogLinesReachOnlyTheHostsDebugLog(_ place: Place) async throws {
        let marker = "module-log-marker-7f3a"
        let output = try Frame(columns: [Column(name: "n", values: .int64([1]))]).encoded
        let bytes = ExampleModules.withManifest(try wat2wasm("""
            (module
              (import "escrow" "log" (func $log (param i32 i32)))
              (import "escrow" "output_write" (func $out (param i32 i32)))
              (memory (export "memory") 1)
              (data (i32.const 0) "\(ExampleModules.watString(output))")
              (data (i32.const 1024) "\(marker)")
              (func (export "escrow_run") (result i32)
                (call $log (i32.const 1024) (i32.const \(marker.utf8.count)))
                (call $out (i32.const 0) (i32.const \(output.count)))
                (i32.const 0)))
            """), ExampleModules.manifest(id: "test.logger"))
        let captured = CapturedLog()
        var serverLog = ""
        try await place.with(serverArguments: ["--verbose"], logger: captured.logger, serverLog: { serverLog = $0 }) { host, destination in
            let request = DataflowRequest(app: "org.example.logger", purpose: "Test the log", access: Self.places, compute: "",
                                          destination: destination, module: .bytes(bytes))
            let result = try await host.runApproving(request, accuracy: .exact)
            #expect(try result.output.column("n").int64(at: 0) == 1)
            #expect(!"\(result.auditEntry)".contains(marker), "never in the audit log")
        }
        let mentions = captured.records.filter { $0.text.contains(marker) }
        switch place {
        case .device:
            #expect(mentions == [CapturedLog.Record(level: .debug, message: "module log",
                                                    metadata: ["module": "test.logger", "line": marker])])
        case .computeServer:
            #expect(mentions.isEmpty, "the host never gets a server's module log lines: \(mentions)")
            #expect(!serverLog.contains(marker), "\(serverLog)")
        }
    }

    @Test(arguments: Place.allCases)
    func aModulesRequestIsRecordedAndABlockedDomainRefused(_ place: Place) async throws {
        let platform = try await PlatformServiceProcess.start()
        defer { platform.stop() }
        let weatherHost = "api.weather.example.com"
        let resolve = ["\(weatherHost)=127.0.0.1"]
        let network = HTTPNetworkClient(resolve: try HostResolution(parsing: resolve))
        let bytes = try ExampleModules.bytes("weather-swift")
        try await place.with(network: network, serverArguments: resolve.flatMap { ["--resolve", $0] }) { host, destination in
            let request = DataflowRequest(
                app: "org.example.weather", purpose: "Weather where you are",
                access: "SELECT latitude, longitude FROM Location ORDER BY timestamp DESC LIMIT 1", compute: "",
                destination: destination, parameters: ComputeParameters(["service": "http://\(weatherHost):\(platform.port)"]),
                module: .bytes(bytes))
            let result = try await host.runApproving(request, accuracy: .exact)
            #expect(result.output.rowCount == 1)
            #expect(try result.output.column("temperature").double(at: 0) != nil)
            let recorded = result.auditEntry.facts.egress
            #expect(recorded.map(\.observation.host) == [weatherHost])
            #expect(recorded.first?.domain == "example.com")
            #expect(recorded.first?.observation.status == 200)
            #expect(recorded.first?.observation.sentData == true, "the location went into the URL")

            // The same module through the Swift function gives the same weather.
            let native = try await host.runApproving(app: "org.example.weather", purpose: "Weather where you are",
                                                     access: request.access, compute: "weather.current",
                                                     on: destination, parameters: request.parameters)
            #expect(try native.output.column("temperature").double(at: 0) == (try result.output.column("temperature").double(at: 0)))
            #expect(try native.output.column("condition").string(at: 0) == (try result.output.column("condition").string(at: 0)))

            try host.filters.set(.block, for: "example.com")
            do {
                _ = try await host.run(request)
                Issue.record("a blocked domain's request went through")
            } catch {
                #expect("\(error)".contains("the request to \(weatherHost) was refused: the individual blocks example.com"), "\(error)")
            }
            let blocked = try #require(try host.audit.entries().last)
            #expect(blocked.facts.outcome == .failed)
            #expect(blocked.facts.egress.map(\.observation.blocked) == [true])
        }
    }
}
