import EscrowCore

/// The failures an app tells apart, on the socket between the daemon and the SDK: one table, read
/// both ways.
extension AppFailure.Kind {
    private static let codes: [(AppFailure.Kind, Escrow_V1_Error.Code)] = [
        (.awaitingApproval, .awaitingApproval), (.denied, .denied), (.revoked, .revoked),
        (.unknownFunction, .unknownFunction), (.invalidAccess, .invalidAccess), (.invalidRequest, .badRequest),
        (.serverUnavailable, .serverUnavailable), (.inputMismatch, .inputMismatch), (.functionFailed, .functionFailed),
        (.auditFailed, .auditFailed), (.escrowFailed, .escrowFailed), (.invalidModule, .invalidModule),
    ]

    /// The code the daemon sends for this kind.
    public var wireCode: Escrow_V1_Error.Code {
        Self.codes.first { $0.0 == self }?.1 ?? .unspecified
    }

    /// The kind a code names; nil for codes that are not about a run (overloaded, too large…).
    public init?(wireCode: Escrow_V1_Error.Code) {
        guard let kind = Self.codes.first(where: { $0.1 == wireCode })?.0 else { return nil }
        self = kind
    }
}

extension Escrow_V1_Error {
    /// The error the daemon sends an app for `failure`.
    public init(_ failure: AppFailure) {
        self.init()
        code = failure.kind.wireCode
        message = failure.message
        flowID = failure.flow ?? ""
    }
}

extension RPCError {
    /// The failure of a run this error reports, when the other side answered with one.
    public var appFailure: AppFailure? {
        switch self {
        case .decision(let code, let flow, let message):
            AppFailure.Kind(wireCode: code).map { AppFailure($0, flow: flow, message: message) }
        case .remote(let code, let message):
            AppFailure.Kind(wireCode: code).map { AppFailure($0, message: message) }
        default:
            nil
        }
    }
}
