import EscrowCore
import EscrowWire

/// Why a run gave the app no output. Cases an app is expected to handle are named; the message
/// of each says what happened and what to do.
public enum EscrowError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The individual has not decided on this dataflow yet. Tell the user the command to approve it.
    case awaitingApproval(flow: String)
    /// The individual denied the dataflow.
    case denied(flow: String, reason: String)
    /// The individual revoked the dataflow's approval.
    case revoked(flow: String)
    /// No compute function is registered under that id.
    case unknownFunction(String)
    /// The compute server could not be reached, refused the call, or offers other code.
    case serverUnavailable(String)
    /// The access SQL was refused or is not valid.
    case invalidAccess(String)
    /// A text of the request breaks the escrow's rules (an app id that is not reverse-DNS, a
    /// purpose or parameter with control or invisible characters, control characters in the SQL),
    /// or a parameter the function does not take. Nothing was recorded.
    case invalidRequest(String)
    /// The compute module the app brought was refused: not valid WebAssembly, an import the
    /// escrow does not offer, no manifest (the message says which). Nothing ran.
    case invalidModule(String)
    /// No escrow daemon answers (or the embedded escrow home cannot be opened).
    case daemonUnavailable(String)
    /// Anything else (the function failed, its input did not fit, the audit could not be written…).
    case failed(String)

    /// The command that approves a pending flow, to show the user.
    public var approvalCommand: String? {
        if case .awaitingApproval(let flow) = self { return "escrow approve \(flow)" }
        return nil
    }

    public var description: String {
        switch self {
        case .awaitingApproval(let flow):
            "dataflow \(flow) is awaiting your approval: review it with `escrow flows show \(flow)`, approve it with `escrow approve \(flow)`"
        case .denied(let flow, let reason): "dataflow \(flow) was denied\(reason.isEmpty ? "" : ": \(reason)")"
        case .revoked(let flow): "dataflow \(flow) was revoked"
        case .unknownFunction(let message), .serverUnavailable(let message), .invalidAccess(let message),
             .invalidRequest(let message), .invalidModule(let message), .daemonUnavailable(let message), .failed(let message):
            message
        }
    }

    /// The app-facing error for a failure of the run, told by the daemon or by an embedded host.
    package init(_ failure: AppFailure) {
        switch failure.kind {
        case .awaitingApproval: self = .awaitingApproval(flow: failure.flow ?? "")
        case .denied: self = .denied(flow: failure.flow ?? "", reason: failure.message)
        case .revoked: self = .revoked(flow: failure.flow ?? "")
        case .unknownFunction: self = .unknownFunction(failure.message)
        case .invalidAccess: self = .invalidAccess(failure.message)
        case .invalidRequest: self = .invalidRequest(failure.message)
        case .serverUnavailable: self = .serverUnavailable(failure.message)
        case .invalidModule: self = .invalidModule(failure.message)
        case .inputMismatch, .functionFailed, .auditFailed, .escrowFailed: self = .failed(failure.message)
        }
    }

    /// The app-facing error for what the daemon answered (or the socket did).
    init(daemon error: any Error) {
        switch error {
        case let error as EscrowError:
            self = error
        case let rpc as RPCError:
            if let failure = rpc.appFailure {
                self.init(failure)
            } else if case .connectionClosed = rpc {
                self = .daemonUnavailable("the connection to the escrow daemon closed before it answered")
            } else if case .connectionFailed(let reason) = rpc {
                self = .daemonUnavailable("the connection to the escrow daemon failed: \(reason)")
            } else if case .remote(_, let message) = rpc {
                self = .failed(message)
            } else {
                self = .failed(rpc.description)
            }
        default:
            self = .failed("\(error)")
        }
    }
}
