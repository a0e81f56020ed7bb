import EscrowCore

extension EscrowHost {
    /// Runs a dataflow; when it awaits the individual's decision, waits up to `wait` for them to
    /// decide and runs it once more. The one approval wait, for the daemon and the embedded SDK.
    ///
    /// Each attempt is a run of its own, audited as such (the first one as pending). The wait
    /// looks at the flow's status every `pollInterval`; it ends as soon as the individual
    /// decides either way (a denial then reaches the app as `DecisionError.denied`).
    ///
    /// - Throws: what `run(_:)` throws; `DecisionError.awaitingApproval` when the flow is still
    ///   pending after `wait`; a `StoreError` when the escrow cannot read the flow while waiting
    ///   (never retried silently); `CancellationError` when the task is cancelled.
    public func run(_ request: DataflowRequest, waitingForDecision wait: Duration,
                    pollInterval: Duration = .milliseconds(100)) async throws -> RunResult {
        let clock = ContinuousClock()
        let deadline = clock.now + wait
        while true {
            do {
                return try await run(request)
            } catch let DecisionError.awaitingApproval(flow) where clock.now < deadline {
                while try flows.flow(flow).status == .pending {
                    guard clock.now < deadline else { throw DecisionError.awaitingApproval(flow: flow) }
                    try await Task.sleep(for: min(pollInterval, deadline - clock.now))
                }
            }
        }
    }
}
