import EscrowCore
import EscrowModules

/// A request the escrow has identified: the function it names and the exact columns its SQL
/// reads. This is what the individual approves.
public struct Dataflow: Sendable, Hashable {
    public let request: DataflowRequest
    public let function: FunctionDescriptor
    /// The compute module the flow runs, when the app brought one (nil: a built-in function).
    public let module: ComputeModule?
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
///
/// Two values are equal when they are the same case, for the same function, and read the same:
/// the error a function threw is compared by its description (errors are not `Equatable`).
public enum RunError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The access result does not have the columns the function declares.
    case inputMismatch(function: String, expects: String, problem: FrameError)
    /// compute() threw `underlying`, the function's own error, kept as it was thrown.
    case computeFailed(function: String, underlying: any Error)
    /// A compute module's run produced no output: a limit it hit, a trap, its own failure.
    case moduleFailed(module: String, underlying: ModuleRunError)

    public var description: String {
        switch self {
        case .inputMismatch(let function, let expects, let problem):
            "the access result does not fit \(function): \(problem); it expects \(expects)"
        case .computeFailed(let function, let underlying):
            "compute function \(function) failed: \(underlying)"
        case .moduleFailed(let module, let underlying):
            "compute module \(module) failed: \(underlying)"
        }
    }

    public static func == (lhs: RunError, rhs: RunError) -> Bool {
        switch (lhs, rhs) {
        case (.inputMismatch(let a, let b, let c), .inputMismatch(let x, let y, let z)):
            a == x && b == y && c == z
        case (.computeFailed(let function, let underlying), .computeFailed(let otherFunction, let otherUnderlying)):
            function == otherFunction && "\(underlying)" == "\(otherUnderlying)"
        case (.moduleFailed(let module, let underlying), .moduleFailed(let otherModule, let otherUnderlying)):
            module == otherModule && underlying == otherUnderlying
        default:
            false
        }
    }
}
