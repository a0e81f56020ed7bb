import EscrowCore
import EscrowLocation
import EscrowModules
import EscrowStore
import EscrowWire

extension AppFailure {
    /// What an app is told when `EscrowHost.run` threw `error`: the one mapping from the host's
    /// errors to the kinds an app tells apart, for the daemon and the embedded SDK alike.
    ///
    /// For a denial the message is the individual's reason alone (possibly empty); the kind and
    /// the flow id say the rest.
    public init(hostError error: any Error) {
        switch error {
        case let failure as AppFailure:
            self = failure
        case let decision as DecisionError:
            switch decision {
            case .awaitingApproval(let flow): self.init(.awaitingApproval, flow: flow, message: decision.description)
            case .denied(let flow, let reason): self.init(.denied, flow: flow, message: reason ?? "")
            case .revoked(let flow): self.init(.revoked, flow: flow, message: decision.description)
            }
        case let run as RunError:
            switch run {
            case .inputMismatch: self.init(.inputMismatch, message: run.description)
            case .computeFailed, .moduleFailed: self.init(.functionFailed, message: run.description)
            }
        default:
            self.init(Self.kind(of: error), message: "\(error)")
        }
    }

    private static func kind(of error: any Error) -> Kind {
        switch error {
        case is AccessError, is LocationMetadataError: .invalidAccess
        case is CatalogError: .unknownFunction
        case is RequestTextError, is ComputeError: .invalidRequest
        // From the host, a protocol or connection error can only come from a compute server.
        case is ServerError, is RemoteComputeError, is RPCError: .serverUnavailable
        case is AuditError: .auditFailed
        case is ModuleError: .invalidModule
        case is StoreError, is SettingError, is PlaceTableError, is LocationMaskError: .escrowFailed
        default: .functionFailed
        }
    }
}
