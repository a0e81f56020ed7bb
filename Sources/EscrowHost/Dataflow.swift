import EscrowCore

/// What an app asks the escrow to run: access() SQL, a registered compute() function, where to
/// run it, and why.
public struct DataflowRequest: Sendable, Hashable {
    /// The app's id (reverse-DNS: `org.example.weather`).
    public var app: String
    /// The purpose the app declares, shown to the individual.
    public var purpose: String
    /// The access() SQL over Contact, Location and Photos.
    public var access: String
    /// The id of a registered compute function.
    public var compute: String
    /// Where compute() runs.
    public var destination: Destination
    /// Non-personal inputs for compute() (part of the flow the individual sees).
    public var parameters: ComputeParameters
    /// Who asked, when the escrow knows (the daemon: `uid N pid M, PATH (SHA-256 HEX)`). Recorded
    /// in the audit entry; not part of the dataflow's identity.
    public var caller: String?
    /// The program that asked, when the escrow knows (runs through the daemon). Its path is part
    /// of the dataflow's identity; its digest is checked against the one the decision was made for.
    public var program: CallerProgram?

    public init(app: String, purpose: String, access: String, compute: String,
                destination: Destination = .device, parameters: ComputeParameters = ComputeParameters()) {
        self.app = app
        self.purpose = purpose
        self.access = access
        self.compute = compute
        self.destination = destination
        self.parameters = parameters
    }
}

/// A request the escrow has identified: the function it names and the exact columns its SQL
/// reads. This is what the individual approves.
public struct Dataflow: Sendable, Hashable {
    public let request: DataflowRequest
    public let function: FunctionDescriptor
    public let lineage: Lineage
    /// What makes this flow this flow (and not another that needs its own decision).
    public let identity: FlowIdentity
}

/// What a run returns to the app: compute()'s output (Dt) and facts about the run. Never the
/// access() result (Ds).
public struct RunResult: Sendable {
    /// compute()'s output.
    public let output: Frame
    /// The dataflow that ran.
    public let flow: Dataflow
    /// The flow's short id, as the individual sees it.
    public let flowID: String
    /// The audit entry written for this run (committed before the output was returned).
    public let auditEntry: AuditEntry
    /// Rows access() read.
    public let rowsRead: Int
    /// Bytes given to compute().
    public let bytesToCompute: Int
    /// Wall-clock time of the whole run, in seconds.
    public let duration: Double
}

/// A request the escrow could not run, other than bad access SQL (`AccessError`) or a failing
/// compute function.
public enum RunError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The access result does not have the columns the function declares.
    case inputMismatch(function: String, expects: String, problem: FrameError)
    /// compute() threw.
    case computeFailed(function: String, reason: String)

    public var description: String {
        switch self {
        case .inputMismatch(let function, let expects, let problem):
            "the access result does not fit \(function): \(problem); it expects \(expects)"
        case .computeFailed(let function, let reason):
            "compute function \(function) failed: \(reason)"
        }
    }
}
