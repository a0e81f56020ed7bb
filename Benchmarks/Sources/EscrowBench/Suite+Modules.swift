import EscrowComputeRuntime
import EscrowCore
import EscrowFunctions
import EscrowHost
import EscrowModules
import EscrowStore
import EscrowWire
import Foundation
import NIOPosix

// Issue 16's figures: compute modules against native Swift. The module is
// Examples/Modules/location-bounds (C, built by scripts/build-modules.sh), the native function its
// twin `location.bounds`: the same computation, step for step.
extension Suite {
    static let moduleCallsPerBlock = 20
    static let moduleBlocks = 10
    static let moduleFrameRows = 10_000
    static let moduleLocationSQL = "SELECT latitude, longitude FROM Location ORDER BY timestamp DESC LIMIT 1"

    /// The example module's bytes, built from source when missing.
    static func boundsModule() throws -> [UInt8] {
        let root = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let file = root.appendingPathComponent(".build/modules/location-bounds.wasm")
        if !FileManager.default.fileExists(atPath: file.path) {
            let process = Process()
            process.executableURL = root.appendingPathComponent("scripts/build-modules.sh")
            process.arguments = ["location-bounds"]
            try process.run()
            process.waitUntilExit()
            guard process.terminationStatus == 0 else { throw BenchError("scripts/build-modules.sh location-bounds failed") }
        }
        return [UInt8](try Data(contentsOf: file))
    }

    func modules() async throws -> [FigureResult] {
        let bytes = try Self.boundsModule()
        return try await moduleRunOverhead(bytes) + moduleComputation(bytes) + moduleFirstRun(bytes) + moduleFirstRunThroughRun(bytes)
            + moduleOnServer(bytes)
    }

    private struct ModuleFlowFixture {
        let scratch: ScratchHome
        let host: EscrowHost
        let native: DataflowRequest
        let module: DataflowRequest
    }

    /// The location flow through run() on the device, with `location.bounds` and with the module
    /// (named by digest, kept and parsed: the cached case), alternating in blocks of 20 calls.
    private func moduleRunOverhead(_ bytes: [UInt8]) async throws -> [FigureResult] {
        let clock = ContinuousClock()
        let locations = RecordGenerator.locations(Self.locationRows)
        let logger = self.logger
        let samples = try await sampler.collect(
            setUp: { () throws -> ModuleFlowFixture in
                let scratch = try ScratchHome.initialized()
                _ = try DataWriter(home: scratch.home).insertLocations(locations)
                let host = try EscrowHost(home: scratch.home, logger: logger)
                let module = try host.modules.add(bytes)
                let parameters = ComputeParameters(["decimals": "2"])
                let native = DataflowRequest(app: "org.example.area", purpose: "The area", access: Self.moduleLocationSQL,
                                             compute: LocationBounds.id, parameters: parameters)
                let viaModule = DataflowRequest(app: "org.example.area", purpose: "The area", access: Self.moduleLocationSQL,
                                                compute: "", parameters: parameters, module: .sha256(module.sha256))
                for request in [native, viaModule] {
                    do {
                        _ = try await host.run(request)
                    } catch let DecisionError.awaitingApproval(flow) {
                        try host.flows.approve(flow, .always)
                    }
                }
                return ModuleFlowFixture(scratch: scratch, host: host, native: native, module: viaModule)
            },
            body: { fixture -> (native: Double, module: Double) in
                for _ in 0..<10 {
                    guard try await fixture.host.run(fixture.native).output == fixture.host.run(fixture.module).output else {
                        throw BenchError("the module and location.bounds disagree")
                    }
                }
                var native = Duration.zero
                var module = Duration.zero
                for _ in 0..<Self.moduleBlocks {
                    native += try await clock.measure {
                        for _ in 0..<Self.moduleCallsPerBlock { _ = try await fixture.host.run(fixture.native) }
                    }
                    module += try await clock.measure {
                        for _ in 0..<Self.moduleCallsPerBlock { _ = try await fixture.host.run(fixture.module) }
                    }
                }
                let calls = Double(Self.moduleBlocks * Self.moduleCallsPerBlock)
                return (native.seconds / calls, module.seconds / calls)
            },
            tearDown: { fixture in fixture.scratch.remove() }
        )
        return [
            FigureResult(name: "run() location flow, location.bounds (native)", unit: .microseconds, seconds: samples.map(\.native)),
            FigureResult(name: "run() location flow, the same as a module (cached)", unit: .microseconds, seconds: samples.map(\.module)),
            FigureResult(name: "module run() overhead over native", unit: .microseconds, seconds: samples.map { $0.module - $0.native },
                         target: 200),
        ]
    }

    /// The computation alone over 10,000 places: the native function against the module in the
    /// sandbox (instance, input copy, interpretation, output decoding).
    private func moduleComputation(_ bytes: [UInt8]) async throws -> [FigureResult] {
        let clock = ContinuousClock()
        let module = try ComputeModule(bytes: bytes)
        let sandbox = ModuleSandbox()
        var latitudes = ColumnBuilder(name: "latitude", type: .double)
        var longitudes = ColumnBuilder(name: "longitude", type: .double)
        for location in RecordGenerator.locations(Self.moduleFrameRows) {
            latitudes.append(location.latitude)
            longitudes.append(location.longitude)
        }
        let input = try Frame(columns: [latitudes.build(), longitudes.build()])
        let context = ComputeContext(parameters: ComputeParameters(["decimals": "2"]))
        let samples = try await sampler.collect(
            setUp: { () },
            body: { _ -> (native: Double, module: Double, tiny: Double) in
                let expected = try LocationBounds().compute(input, context: context)
                guard try await sandbox.run(module, input: input, context: context) == expected else {
                    throw BenchError("the module and location.bounds disagree over 10,000 places")
                }
                let calls = 20
                let native = try clock.measure { for _ in 0..<calls { _ = try LocationBounds().compute(input, context: context) } }
                let viaModule = try await clock.measure {
                    for _ in 0..<calls { _ = try await sandbox.run(module, input: input, context: context) }
                }
                let one = try Frame(columns: [Column(name: "latitude", values: .double([48.85])), Column(name: "longitude", values: .double([2.35]))])
                let tiny = try await clock.measure {
                    for _ in 0..<200 { _ = try await sandbox.run(module, input: one, context: context) }
                }
                return (native.seconds / Double(calls), viaModule.seconds / Double(calls), tiny.seconds / 200)
            },
            tearDown: { _ in }
        )
        return [
            FigureResult(name: "bounds of 10,000 places, native Swift", unit: .microseconds, seconds: samples.map(\.native)),
            FigureResult(name: "bounds of 10,000 places, module (WasmKit)", unit: .microseconds, seconds: samples.map(\.module)),
            FigureResult(name: "module / native, 10,000 places", unit: .ratio, values: samples.map { $0.module / $0.native }),
            FigureResult(name: "module run, cached, one place (sandbox alone)", unit: .microseconds, seconds: samples.map(\.tiny)),
        ]
    }

    /// The first run's cost: checking the module when it is added or first seen (WasmKit parses
    /// it, validates and translates every function body once), against a run of a cached one.
    private func moduleFirstRun(_ bytes: [UInt8]) async throws -> [FigureResult] {
        let clock = ContinuousClock()
        let samples = try await sampler.collect(
            setUp: { () },
            body: { _ -> Double in
                let calls = 50
                let elapsed = try clock.measure { for _ in 0..<calls { _ = try ComputeModule(bytes: bytes) } }
                return elapsed.seconds / Double(calls)
            },
            tearDown: { _ in }
        )
        return [FigureResult(name: "module check alone (parse, validate, compile every body in a throwaway instance; \(bytes.count) bytes)",
                             unit: .microseconds, seconds: samples)]
    }

    private struct FirstRunFixture {
        let scratch: ScratchHome
        /// The module's builds (one more custom section each: the same code, other digests), each
        /// with its flow approved; the first warms the host up.
        let builds: [[UInt8]]
    }

    /// The first run of a module end to end, through run() on the device: the app brings bytes
    /// this process has not checked (as `escrow run --module` does in a process of its own, or
    /// the daemon after a restart; the module's file is kept and its flow approved already), so
    /// run() checks them (parse, validate, compile every body), instantiates the module, compiles
    /// the functions it calls as it calls them, and runs it. Against the second run of the same
    /// builds on the same host (cached), in the same repetition.
    private func moduleFirstRunThroughRun(_ bytes: [UInt8]) async throws -> [FigureResult] {
        let clock = ContinuousClock()
        let locations = RecordGenerator.locations(Self.locationRows)
        let logger = self.logger
        let parameters = ComputeParameters(["decimals": "2"])
        func request(_ module: [UInt8]) -> DataflowRequest {
            DataflowRequest(app: "org.example.area", purpose: "The area", access: Self.moduleLocationSQL, compute: "",
                            parameters: parameters, module: .bytes(module))
        }
        let samples = try await sampler.collect(
            setUp: { () throws -> FirstRunFixture in
                let scratch = try ScratchHome.initialized()
                _ = try DataWriter(home: scratch.home).insertLocations(locations)
                let approving = try EscrowHost(home: scratch.home, logger: logger)
                let builds = (0...10).map { ModuleBinary.appendingCustomSection("bench", Array("\($0) \(UUID())".utf8), to: bytes) }
                for build in builds {
                    do {
                        _ = try await approving.run(request(build))
                        throw BenchError("a module's first run did not await approval")
                    } catch let DecisionError.awaitingApproval(flow) {
                        try approving.flows.approve(flow, .always)
                    }
                }
                return FirstRunFixture(scratch: scratch, builds: builds)
            },
            body: { fixture -> (first: Double, cached: Double) in
                // A host that has checked none of them, warmed up by the first build's first runs.
                let host = try EscrowHost(home: fixture.scratch.home, logger: logger)
                let measured = fixture.builds.dropFirst()
                for _ in 0..<2 { _ = try await host.run(request(fixture.builds[0])) }
                var first = Duration.zero
                for build in measured {
                    first += try await clock.measure { _ = try await host.run(request(build)) }
                }
                var cached = Duration.zero
                for build in measured {
                    cached += try await clock.measure { _ = try await host.run(request(build)) }
                }
                return (first.seconds / Double(measured.count), cached.seconds / Double(measured.count))
            },
            tearDown: { fixture in fixture.scratch.remove() }
        )
        return [
            FigureResult(name: "run() location flow, a module's first run (check, instantiate, compile as called, run)",
                         unit: .microseconds, seconds: samples.map(\.first)),
            FigureResult(name: "run() location flow, the same module's next run (cached)", unit: .microseconds,
                         seconds: samples.map(\.cached)),
            FigureResult(name: "a module's first run over its next run", unit: .microseconds,
                         seconds: samples.map { $0.first - $0.cached }),
        ]
    }

    /// On a compute server (in process, mutual TLS on loopback): a call of `location.bounds`
    /// against a call of the module the server has cached, and a first call (MODULE_NEEDED, then
    /// the bytes, checked and compiled) of a module the server has not seen.
    private func moduleOnServer(_ bytes: [UInt8]) async throws -> [FigureResult] {
        let clock = ContinuousClock()
        let folder = try Self.certificates()
        defer { try? FileManager.default.removeItem(at: folder) }
        let one = try Frame(columns: [Column(name: "latitude", values: .double([48.85])), Column(name: "longitude", values: .double([2.35]))])
        let parameters = ComputeParameters(["decimals": "2"])
        let native = try EscrowFunctions.catalog.function(LocationBounds.id).descriptor
        let samples = try await sampler.collect(
            setUp: { try await remoteFixture(certificates: folder) },
            body: { fixture -> (native: Double, module: Double, first: Double) in
                let module = try ComputeModule(bytes: bytes)
                let cached = ModuleCall(sha256: module.sha256, bytes: bytes)
                _ = try await fixture.connection.compute(module.descriptor, input: one, parameters: parameters, module: cached,
                                                         deadline: .seconds(10))
                let calls = 100
                var nativeTime = Duration.zero
                var moduleTime = Duration.zero
                for _ in 0..<5 {
                    nativeTime += try await clock.measure {
                        for _ in 0..<(calls / 5) {
                            _ = try await fixture.connection.compute(native, input: one, parameters: parameters, deadline: .seconds(10))
                        }
                    }
                    moduleTime += try await clock.measure {
                        for _ in 0..<(calls / 5) {
                            _ = try await fixture.connection.compute(module.descriptor, input: one, parameters: parameters,
                                                                     module: ModuleCall(sha256: module.sha256), deadline: .seconds(10))
                        }
                    }
                }
                // A module the server has not seen: the digest alone, MODULE_NEEDED, then the bytes.
                var first = Duration.zero
                let firsts = 10
                for index in 0..<firsts {
                    let fresh = try ComputeModule(bytes: ModuleBinary.appendingCustomSection("bench", Array("\(index) \(UUID())".utf8), to: bytes))
                    first += try await clock.measure {
                        do {
                            _ = try await fixture.connection.compute(fresh.descriptor, input: one, parameters: parameters,
                                                                     module: ModuleCall(sha256: fresh.sha256), deadline: .seconds(10))
                            throw BenchError("the server ran a module it had not seen without its bytes")
                        } catch RPCError.remote(code: .moduleNeeded, _) {
                            _ = try await fixture.connection.compute(fresh.descriptor, input: one, parameters: parameters,
                                                                     module: ModuleCall(sha256: fresh.sha256, bytes: fresh.bytes),
                                                                     deadline: .seconds(10))
                        }
                    }
                }
                return (nativeTime.seconds / Double(calls), moduleTime.seconds / Double(calls), first.seconds / Double(firsts))
            },
            tearDown: { fixture in fixture.closeWaiting() }
        )
        return [
            FigureResult(name: "server call, location.bounds (native)", unit: .microseconds, seconds: samples.map(\.native)),
            FigureResult(name: "server call, the module (cached on the server)", unit: .microseconds, seconds: samples.map(\.module)),
            FigureResult(name: "server call, a module first seen (needed, sent, checked)", unit: .microseconds, seconds: samples.map(\.first)),
        ]
    }
}
