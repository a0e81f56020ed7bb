import EscrowCore
import EscrowHost
import EscrowStore
import EscrowTestSupport
import Foundation
import Logging
import Testing

/// `EscrowHost.run(_:waitingForDecision:)`: the one approval wait the daemon and the embedded SDK
/// share. Each test decides while a run waits, from the outside, as the individual would.
@Suite struct ApprovalWaitTests {
    let logger = Logger(label: "test")
    static let request = DataflowRequest(app: "org.example.weather", purpose: "Show the weather",
                                         access: "SELECT longitude, latitude FROM Location ORDER BY timestamp DESC LIMIT 1",
                                         compute: "location.region", parameters: ComputeParameters(["radius": "1000"]))

    /// The id of the flow once the waiting run has recorded it as pending.
    func pendingFlow(_ host: EscrowHost) async throws -> String {
        let clock = ContinuousClock()
        let deadline = clock.now + .seconds(60)
        while clock.now < deadline {
            if let flow = try host.flows.list(status: .pending).first { return flow.id }
            try await Task.sleep(for: .milliseconds(20))
        }
        throw CancellationError()
    }

    @Test func anApprovalDuringTheWaitLetsTheRunGoAhead() async throws {
        try await TemporaryHome.with { temporary in
            try temporary.seed()
            let host = try EscrowHost(home: temporary.home, logger: logger)
            let run = Task { try await host.run(Self.request, waitingForDecision: .seconds(120)) }
            let flow = try await pendingFlow(host)
            try host.flows.approve(flow, .once)
            let result = try await run.value
            #expect(result.flowID == flow)
            #expect(result.output.rowCount == 1)
            // The pending attempt and the run that went ahead are both in the log.
            #expect(try host.audit.entries().map(\.facts.outcome) == [.pending, .ok])
        }
    }

    @Test func aDenialDuringTheWaitEndsItAtOnce() async throws {
        try await TemporaryHome.with { temporary in
            try temporary.seed()
            let host = try EscrowHost(home: temporary.home, logger: logger)
            let run = Task { try await host.run(Self.request, waitingForDecision: .seconds(120)) }
            let flow = try await pendingFlow(host)
            try host.flows.deny(flow, reason: "not now")
            await #expect(throws: DecisionError.denied(flow: flow, reason: "not now")) { try await run.value }
        }
    }

    @Test func noDecisionInTimeLeavesTheFlowAwaitingApproval() async throws {
        try await TemporaryHome.with { temporary in
            try temporary.seed()
            let host = try EscrowHost(home: temporary.home, logger: logger)
            await #expect(throws: DecisionError.self) {
                try await host.run(Self.request, waitingForDecision: .milliseconds(300))
            }
            let flow = try #require(try host.flows.list(status: .pending).first)
            #expect(try host.audit.entries().map(\.facts.outcome) == [.pending])
            #expect(AppFailure(hostError: DecisionError.awaitingApproval(flow: flow.id)).kind == .awaitingApproval)
        }
    }

    /// The escrow's own records become unreadable while a run waits: the caller hears why, at
    /// once, instead of the wait retrying until its end.
    @Test func aStorageErrorDuringTheWaitReachesTheCaller() async throws {
        try await TemporaryHome.with { temporary in
            try temporary.seed()
            let host = try EscrowHost(home: temporary.home, logger: logger)
            let run = Task { try await host.run(Self.request, waitingForDecision: .seconds(600)) }
            _ = try await pendingFlow(host)
            let other = try Database(path: temporary.home.stateDatabasePath, mode: .readWrite)
            try other.execute("ALTER TABLE Flow RENAME TO FlowElsewhere")
            let error = await #expect(throws: StoreError.self) { try await run.value }
            #expect(error?.description.contains("no such table: Flow") == true)
            let failure = AppFailure(hostError: try #require(error))
            #expect(failure.kind == .escrowFailed)
        }
    }
}
