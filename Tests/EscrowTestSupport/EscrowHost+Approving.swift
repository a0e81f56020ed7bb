import EscrowCore
import EscrowHost

extension EscrowHost {
    /// Runs a dataflow as an app would after the individual approved it: when the flow is new,
    /// approves it (always) and runs it again.
    public func runApproving(app: String, purpose: String, access: String, compute: String,
                             on destination: Destination = .device,
                             parameters: ComputeParameters = ComputeParameters()) async throws -> RunResult {
        let request = DataflowRequest(app: app, purpose: purpose, access: access, compute: compute,
                                      destination: destination, parameters: parameters)
        do {
            return try await run(request)
        } catch let DecisionError.awaitingApproval(flow) {
            try flows.approve(flow, .always)
            return try await run(request)
        }
    }

    /// Runs `request`; when its flow is new, approves it (always, at `accuracy` when given, as the
    /// individual choosing an accuracy would) and runs it again.
    public func runApproving(_ request: DataflowRequest, accuracy: LocationAccuracy? = nil) async throws -> RunResult {
        do {
            return try await run(request)
        } catch let DecisionError.awaitingApproval(flow) {
            try flows.approve(flow, .always, accuracy: accuracy)
            return try await run(request)
        }
    }
}
