import Logging
import Testing

@testable import EscrowComputeRuntime
@testable import EscrowWire

/// The admission rule of the compute server: at most `maximumConcurrency` calls run at once,
/// across connections; more are refused OVERLOADED, and every call is refused SHUTTING_DOWN once
/// draining began. (The end-to-end overload test covers the same rule through a real process.)
struct ServerStateTests {
    private static let connections = ConnectionRegistry(maximum: 16, logger: Logger(label: "test"))

    @Test func admitsUpToTheMaximumThenOverloaded() {
        let state = ServerState(maximumConcurrency: 2, connections: Self.connections)
        #expect(state.admit() == nil)
        #expect(state.admit() == nil)
        #expect(state.running == 2)
        #expect(state.admit() == .overloaded)
        #expect(state.running == 2, "a refused call is not counted")
        state.finished()
        #expect(state.admit() == nil)
        #expect(state.admit() == .overloaded)
    }

    @Test func aMaximumBelowOneMeansOne() {
        let state = ServerState(maximumConcurrency: 0, connections: Self.connections)
        #expect(state.maximumConcurrency == 1)
        #expect(state.admit() == nil)
        #expect(state.admit() == .overloaded)
    }

    @Test func drainingRefusesNewCallsButCountsRunningOnes() {
        let state = ServerState(maximumConcurrency: 4, connections: Self.connections)
        #expect(state.admit() == nil)
        state.beginDraining()
        #expect(state.admit() == .shuttingDown)
        #expect(state.running == 1)
        state.finished()
        #expect(state.running == 0)
        #expect(state.admit() == .shuttingDown)
    }

    @Test func concurrentAdmissionsNeverExceedTheMaximum() async {
        let state = ServerState(maximumConcurrency: 5, connections: Self.connections)
        let admitted = await withTaskGroup(of: Bool.self) { group in
            for _ in 0..<200 { group.addTask { state.admit() == nil } }
            return await group.reduce(0) { $0 + ($1 ? 1 : 0) }
        }
        #expect(admitted == 5)
        #expect(state.running == 5)
    }
}
