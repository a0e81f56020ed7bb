import EscrowCore
import EscrowFunctions
import EscrowWire
import Foundation
import NIOSSL

// Issue 6: our compute RPC and gRPC Swift 2 side by side, in the same run, over the same mutual
// TLS on loopback, doing the same work per call (GRPCComputeService.swift, GRPCPeer.swift).
//
// gRPC runs twice, each with a server and a client of its own: as shipped (`GRPCPeer.Tuning
// .defaults`, only the message limit raised, which the 16 MB call needs) and tuned for this
// workload (`.tuned`). The ratios are Escrow's figure over gRPC's, per repetition.
extension Suite {
    /// Sequential small calls per system and repetition, after `grpcWarmUpCalls` unmeasured ones:
    /// six blocks of 350, one per order of the three systems, so each runs first, second and last
    /// equally often.
    static let grpcSmallCalls = 2100
    static let grpcWarmUpCalls = 200
    /// Large calls per system and repetition (the repetition's figure is their median), in rotating
    /// order.
    static let grpcLargeCalls = 3

    /// One system under test: its name in the figures and its two calls.
    private struct RPCSystem {
        let name: String
        let small: () async throws -> Frame
        let large: () async throws -> Frame
    }

    /// Our server and the two gRPC servers, with one client each, from one set of certificates.
    private struct SideBySide {
        let folder: URL
        let escrow: RemoteFixture
        let grpc: GRPCPeer
        let grpcTuned: GRPCPeer
    }

    /// One repetition of one system: every small call's round trip and each large call, in seconds.
    private struct Timings {
        var small: [Double] = []
        var large: [Double] = []
    }

    /// Small calls (`contacts.tuples` over one contact): p50 and p99 of 2100 sequential calls per
    /// repetition for each system, and Escrow's over gRPC's; the large call (`identity` over
    /// 1000 × 16 KB images) for each system, and the same ratio. Every answer is compared with the
    /// expected output, outside the timed interval.
    func grpcSideBySide() async throws -> [FigureResult] {
        let clock = ContinuousClock()
        let (small, large) = try Self.remoteInputs()
        let tuplesFunction = try EscrowFunctions.catalog.function(ContactsTuples.id)
        let tuples = tuplesFunction.descriptor
        let identity = try EscrowFunctions.catalog.function(Identity.id).descriptor
        // What a correct server answers for the small call, computed here without any RPC.
        let smallExpected = try await tuplesFunction(small, context: ComputeContext())
        guard smallExpected.rowCount > 0 else { throw BenchError("contacts.tuples gave no rows for the small call") }
        let parameters = ComputeParameters()

        func systems(_ fixture: SideBySide) -> [RPCSystem] {
            func grpc(_ name: String, _ peer: GRPCPeer) -> RPCSystem {
                RPCSystem(name: name,
                       small: { try await peer.client.compute(tuples, input: small, parameters: parameters, deadline: .seconds(10)) },
                       large: { try await peer.client.compute(identity, input: large, parameters: parameters, deadline: .seconds(60)) })
            }
            let connection = fixture.escrow.connection
            return [
                RPCSystem(name: "Escrow RPC",
                       small: { try await connection.compute(tuples, input: small, parameters: parameters, deadline: .seconds(10)).output },
                       large: { try await connection.compute(identity, input: large, parameters: parameters, deadline: .seconds(60)).output }),
                grpc("gRPC Swift 2", fixture.grpc),
                grpc("gRPC Swift 2 tuned", fixture.grpcTuned),
            ]
        }

        /// Times `count` sequential calls into `samples`, checking each answer against `expected`.
        func timeCalls(_ count: Int, into samples: inout [Double], expected: Frame, what: String,
                       _ call: () async throws -> Frame) async throws {
            for _ in 0..<count {
                let started = clock.now
                let output = try await call()
                let elapsed = clock.now - started
                guard output == expected else { throw BenchError("\(what) answered a different frame") }
                samples.append(elapsed.seconds)
            }
        }

        func setUp() async throws -> SideBySide {
            let folder = try Self.certificates()
            let escrow = try await remoteFixture(certificates: folder)
            var peers: [GRPCPeer] = []
            do {
                for tuning in [GRPCPeer.Tuning.defaults, .tuned] {
                    peers.append(try await GRPCPeer(certificates: folder, catalog: EscrowFunctions.catalog, tuning: tuning))
                }
            } catch {
                for peer in peers { await peer.close() }
                await escrow.close()
                try? FileManager.default.removeItem(at: folder)
                throw error
            }
            return SideBySide(folder: folder, escrow: escrow, grpc: peers[0], grpcTuned: peers[1])
        }

        if let profile = ProcessInfo.processInfo.environment["ESCROW_BENCH_GRPC_PROFILE"], !profile.isEmpty {
            return try await profileLoop(profile, setUp: setUp, systems: systems)
        }
        print("gRPC Swift 2: message limit \(GRPCPeer.maximumMessageBytes) bytes both ways; "
              + "as shipped otherwise (\(GRPCPeer.Tuning.defaults)); tuned: \(GRPCPeer.Tuning.tuned)")

        let samples = try await sampler.collect(
            setUp: setUp,
            body: { fixture -> [Timings] in
                let systems = systems(fixture)
                var timings = [Timings](repeating: Timings(), count: systems.count)
                var discard: [Double] = []
                for system in systems {
                    try await timeCalls(Self.grpcWarmUpCalls, into: &discard, expected: smallExpected, what: system.name, system.small)
                }
                let orders = Self.permutations(Array(systems.indices))
                let perBlock = Self.grpcSmallCalls / orders.count
                for order in orders {
                    for index in order {
                        try await timeCalls(perBlock, into: &timings[index].small, expected: smallExpected, what: systems[index].name,
                                            systems[index].small)
                    }
                }
                for call in 0..<Self.grpcLargeCalls {
                    for offset in systems.indices {
                        let index = (call + offset) % systems.count
                        try await timeCalls(1, into: &timings[index].large, expected: large, what: "\(systems[index].name) (1000 images)",
                                            systems[index].large)
                    }
                }
                // Same TLS on both sides: our server accepts only TLS 1.3; check gRPC's did too.
                for peer in [fixture.grpc, fixture.grpcTuned] {
                    let versions = peer.negotiatedVersions
                    guard !versions.isEmpty, versions.allSatisfy({ $0 == .tlsv13 }) else {
                        throw BenchError("the gRPC connections negotiated \(versions), not only TLS 1.3")
                    }
                }
                return timings
            },
            tearDown: { fixture in
                let semaphore = DispatchSemaphore(value: 0)
                Task {
                    await fixture.grpcTuned.close()
                    await fixture.grpc.close()
                    await fixture.escrow.close()
                    semaphore.signal()
                }
                semaphore.wait()
                try? FileManager.default.removeItem(at: fixture.folder)
            }
        )

        let names = ["Escrow RPC", "gRPC Swift 2", "gRPC Swift 2 tuned"]
        let micro = FigureResult.Unit.microseconds.perSecond
        let milli = FigureResult.Unit.milliseconds.perSecond
        // Per system, per repetition.
        let p50 = names.indices.map { system in samples.map { Self.percentile($0[system].small, 0.50) } }
        let p99 = names.indices.map { system in samples.map { Self.percentile($0[system].small, 0.99) } }
        let largeMedian = names.indices.map { system in samples.map { Self.percentile($0[system].large, 0.50) } }
        func ratio(_ values: [[Double]], _ grpc: Int) -> [Double] { zip(values[0], values[grpc]).map { $0 / $1 } }

        var figures: [FigureResult] = []
        for system in names.indices {
            figures.append(FigureResult(name: "small call p50, \(names[system])", unit: .microseconds, values: p50[system].map { $0 * micro }))
            figures.append(FigureResult(name: "small call p99, \(names[system])", unit: .microseconds, values: p99[system].map { $0 * micro }))
        }
        for (grpc, suffix) in [(1, ""), (2, " tuned")] {
            figures.append(FigureResult(name: "small call p50 Escrow/gRPC\(suffix)", unit: .ratio, values: ratio(p50, grpc), target: 0.5))
            figures.append(FigureResult(name: "small call p99 Escrow/gRPC\(suffix)", unit: .ratio, values: ratio(p99, grpc), target: 0.5))
        }
        for system in names.indices {
            figures.append(FigureResult(name: "1000 × 16 KB in one call, \(names[system])", unit: .milliseconds,
                                        values: largeMedian[system].map { $0 * milli }))
        }
        for (grpc, suffix) in [(1, ""), (2, " tuned")] {
            figures.append(FigureResult(name: "1000 × 16 KB in one call Escrow/gRPC\(suffix)", unit: .ratio,
                                        values: ratio(largeMedian, grpc), target: 0.8))
        }
        return figures
    }

    /// `ESCROW_BENCH_GRPC_PROFILE=SYSTEM-KIND` (SYSTEM `escrow`, `grpc` or `grpc-tuned`; KIND
    /// `small` or `large`): one fixture, then only that call in a loop
    /// (`ESCROW_BENCH_GRPC_PROFILE_CALLS` times; 20000 small or 40 large), to run under
    /// `perf record`. Prints the mean and gives no figures.
    private func profileLoop(_ profile: String, setUp: () async throws -> SideBySide,
                             systems: (SideBySide) -> [RPCSystem]) async throws -> [FigureResult] {
        let keys = ["escrow", "grpc", "grpc-tuned"]
        guard let dash = profile.lastIndex(of: "-"), let system = keys.firstIndex(of: String(profile[..<dash])),
              ["small", "large"].contains(profile[profile.index(after: dash)...]) else {
            throw BenchError("ESCROW_BENCH_GRPC_PROFILE is '\(profile)'; use SYSTEM-small or SYSTEM-large with SYSTEM one of \(keys)")
        }
        let isLarge = profile.hasSuffix("-large")
        let calls = ProcessInfo.processInfo.environment["ESCROW_BENCH_GRPC_PROFILE_CALLS"].flatMap { Int($0) } ?? (isLarge ? 40 : 20000)
        let fixture = try await setUp()
        let call = isLarge ? systems(fixture)[system].large : systems(fixture)[system].small
        let clock = ContinuousClock()
        let started = clock.now
        for _ in 0..<calls { _ = try await call() }
        let perCall = (clock.now - started).seconds / Double(calls)
        print("\(profile): \(calls) calls, \(String(format: "%.1f", perCall * 1e6)) µs per call")
        await fixture.grpcTuned.close()
        await fixture.grpc.close()
        await fixture.escrow.close()
        try? FileManager.default.removeItem(at: fixture.folder)
        return []
    }

    /// Every order of `items` (n! of them).
    static func permutations<T>(_ items: [T]) -> [[T]] {
        guard items.count > 1 else { return [items] }
        return items.indices.flatMap { index in
            var rest = items
            let first = rest.remove(at: index)
            return permutations(rest).map { [first] + $0 }
        }
    }

    /// The `p` quantile (0…1) of `values` by nearest rank: the smallest value with at least
    /// `p` of the values at or below it.
    static func percentile(_ values: [Double], _ p: Double) -> Double {
        precondition(!values.isEmpty, "a percentile of no values")
        let sorted = values.sorted()
        let rank = Int((p * Double(sorted.count)).rounded(.up))
        return sorted[min(max(rank, 1), sorted.count) - 1]
    }
}
