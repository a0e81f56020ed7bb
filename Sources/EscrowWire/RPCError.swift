/// A failure of the compute RPC, on either side.
public enum RPCError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A message's length prefix announced more bytes than the maximum.
    case messageTooLarge(length: Int, maximum: Int)
    /// A message that is not a valid `Envelope`, or an envelope the protocol does not allow here.
    case invalidMessage(String)
    /// The server answered with an error.
    case remote(code: Escrow_V1_Error.Code, message: String)
    /// The escrow host answered with an error about a dataflow (awaiting approval, denied, revoked).
    case decision(code: Escrow_V1_Error.Code, flow: String, message: String)
    /// The call did not finish within its deadline.
    case deadlineExceeded(seconds: Double)
    /// The connection closed before the answer came.
    case connectionClosed
    /// TLS or the connection could not be set up (certificate files, handshake, address).
    case connectionFailed(String)
    /// The server does not offer the function, or offers other code under its id.
    case catalogMismatch(String)

    public var description: String {
        switch self {
        case .messageTooLarge(let length, let maximum):
            "a message of \(length) bytes is over the maximum of \(maximum) bytes"
        case .invalidMessage(let reason):
            "invalid message: \(reason)"
        case .remote(let code, let message):
            "the compute server answered \(code): \(message)"
        case .decision(_, _, let message):
            message
        case .deadlineExceeded(let seconds):
            "the compute server did not answer within \(seconds) s"
        case .connectionClosed:
            "the connection to the compute server closed before it answered"
        case .connectionFailed(let reason):
            "cannot connect to the compute server: \(reason)"
        case .catalogMismatch(let reason):
            reason
        }
    }
}
