/// Why a run gave an app no output, as the app is told: what kind of failure it is (what the app
/// can do about it), the dataflow it concerns, and a message.
///
/// The host turns its own errors into an `AppFailure` in one place (`AppFailure(hostError:)` in
/// EscrowHost); the daemon sends it over the socket (`Escrow_V1_Error`, mapped in EscrowWire) and
/// the SDK turns it into the `EscrowError` an app catches, whether the host runs in the daemon or
/// in the app's process.
public struct AppFailure: Error, Sendable, Hashable, CustomStringConvertible {
    /// The kinds of failure an app tells apart.
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        /// The individual has not decided on the dataflow yet.
        case awaitingApproval
        /// The individual denied the dataflow; the message is their reason (possibly empty).
        case denied
        /// The individual revoked the dataflow's approval.
        case revoked
        /// No compute function is registered under the id.
        case unknownFunction
        /// The access SQL was refused or is not valid.
        case invalidAccess
        /// A text of the request breaks the escrow's rules, or a parameter the function does not take.
        case invalidRequest
        /// The compute server is unknown, cannot be reached, refuses the call or offers other code.
        case serverUnavailable
        /// The access result does not have the columns the function declares.
        case inputMismatch
        /// The compute function failed.
        case functionFailed
        /// The compute module the app brought was refused (not valid, an import the escrow does
        /// not offer, no manifest…).
        case invalidModule
        /// The run's audit entry could not be written, so its output was withheld.
        case auditFailed
        /// The escrow could not read or write its own records while it handled the run.
        case escrowFailed
    }

    public var kind: Kind
    /// The dataflow's short id, for decisions (awaiting approval, denied, revoked).
    public var flow: String?
    /// What happened, in words; for a denial the individual's reason alone.
    public var message: String

    public init(_ kind: Kind, flow: String? = nil, message: String) {
        self.kind = kind
        self.flow = flow
        self.message = message
    }

    public var description: String { message }
}
