import EscrowComputeRuntime
import EscrowCore
import EscrowFunctions
import EscrowWire
import Foundation

// Compute-server throughput for small calls from many hosts at once.
extension Suite {
    static let throughputConnections = 32
    /// Calls each connection keeps in flight: one (each waits for its answer) or several
    /// (pipelined on the connection, matched by request id).
    static let throughputDepths = [1, 8]
    static let throughputWindow = Duration.seconds(2)

    private struct ThroughputFixture {
        let server: ComputeServer
        let connections: [ComputeConnection]

        func close() async {
            for connection in connections { await connection.close() }
            await server.shutdown()
        }
    }

    /// Per depth: an in-process compute server on 127.0.0.1 allowing every call in flight at
    /// once (`--max-concurrency` 32 × depth; the default, twice the cores, is for CPU-bound
    /// calls and would answer most of these OVERLOADED), and 32 mutual-TLS connections to it,
    /// greeted (untimed). Timed: `depth` workers per connection, each calling `contacts.tuples`
    /// over one contact back to back for 2 s; calls answered per second in total, every answer
    /// checked.
    func throughput() async throws -> [FigureResult] {
        let certificates = try Self.certificates()
        defer { try? FileManager.default.removeItem(at: certificates) }
        let small = try Self.remoteInputs().small
        let tuples = try EscrowFunctions.catalog.function(ContactsTuples.id)
        let expected = try await tuples(small, context: ComputeContext())
        let logger = self.logger
        let clock = ContinuousClock()
        var results: [FigureResult] = []
        for depth in Self.throughputDepths {
            let samples = try await sampler.collect(
                setUp: { () async throws -> ThroughputFixture in
                    let (server, port) = try await Self.startComputeServer(
                        certificates: certificates, maximumConcurrency: Self.throughputConnections * depth, logger: logger)
                    var connections: [ComputeConnection] = []
                    for _ in 0..<Self.throughputConnections {
                        connections.append(try await Self.connect(to: port, certificates: certificates))
                    }
                    return ThroughputFixture(server: server, connections: connections)
                },
                body: { fixture -> Double in
                    let started = clock.now
                    let deadline = started + Self.throughputWindow
                    do {
                        let calls = try await withThrowingTaskGroup(of: Int.self) { group in
                            for connection in fixture.connections {
                                for _ in 0..<depth {
                                    group.addTask {
                                        var calls = 0
                                        while clock.now < deadline {
                                            let output = try await connection.compute(
                                                tuples.descriptor, input: small, parameters: ComputeParameters(), deadline: .seconds(10)).output
                                            guard output == expected else { throw BenchError("a small call came back wrong") }
                                            calls += 1
                                        }
                                        return calls
                                    }
                                }
                            }
                            return try await group.reduce(0, +)
                        }
                        let elapsed = clock.now - started
                        await fixture.close()
                        return Double(calls) / elapsed.seconds
                    } catch {
                        await fixture.close()
                        throw error
                    }
                },
                tearDown: { _ in }
            )
            results.append(FigureResult(
                name: "compute server, \(Self.throughputConnections) connections × \(depth) in flight (contacts.tuples, 1 contact)",
                unit: .callsPerSecond, values: samples, target: 30_000, higherIsBetter: true))
        }
        return results
    }
}
