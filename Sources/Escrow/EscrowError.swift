import EscrowCore
import EscrowHost
import EscrowRPC

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
             .invalidRequest(let message), .daemonUnavailable(let message), .failed(let message):
            message
        }
    }

    /// The app-facing error for what the daemon answered (or the socket did).
    init(daemon error: any Error) {
        guard let rpc = error as? RPCError else {
            self = error as? EscrowError ?? .failed("\(error)")
            return
        }
        switch rpc {
        case .decision(let code, let flow, let message):
            switch code {
            case .awaitingApproval: self = .awaitingApproval(flow: flow)
            case .revoked: self = .revoked(flow: flow)
            default: self = .denied(flow: flow, reason: message)
            }
        case .remote(let code, let message):
            switch code {
            case .unknownFunction: self = .unknownFunction(message)
            case .invalidAccess: self = .invalidAccess(message)
            case .serverUnavailable: self = .serverUnavailable(message)
            case .badRequest: self = .invalidRequest(message)
            default: self = .failed(message)
            }
        case .connectionClosed:
            self = .daemonUnavailable("the connection to the escrow daemon closed before it answered")
        case .connectionFailed(let reason):
            self = .daemonUnavailable("the connection to the escrow daemon failed: \(reason)")
        default:
            self = .failed("\(rpc)")
        }
    }

    /// The app-facing error for what the embedded host threw: the same cases an app gets from
    /// the daemon for the same failure.
    init(host error: any Error) {
        switch error {
        case let error as EscrowError:
            self = error
        case let decision as DecisionError:
            switch decision {
            case .awaitingApproval(let flow): self = .awaitingApproval(flow: flow)
            case .denied(let flow, let reason): self = .denied(flow: flow, reason: reason ?? "")
            case .revoked(let flow): self = .revoked(flow: flow)
            }
        case is AccessError: self = .invalidAccess("\(error)")
        case is RequestTextError, is ComputeError: self = .invalidRequest("\(error)")
        case is CatalogError: self = .unknownFunction("\(error)")
        // From the host, a protocol or connection error can only come from a compute server.
        case is ServerError, is RemoteComputeError, is RPCError: self = .serverUnavailable("\(error)")
        default: self = .failed("\(error)")
        }
    }
}
