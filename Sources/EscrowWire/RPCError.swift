/// A failure of the compute RPC, on either side.
public enum RPCError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A message's length prefix announced more bytes than the maximum (plus, on the daemon's
    /// socket, the compute module a run request may carry besides: `moduleAllowance`).
    case messageTooLarge(length: Int, maximum: Int, moduleAllowance: Int = 0)
    /// A run request's compute module is larger than a module may be.
    case moduleTooLarge(length: Int, maximum: Int)
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
        case .messageTooLarge(let length, let maximum, 0):
            "a message of \(length) bytes is over the maximum of \(maximum) bytes"
        case .messageTooLarge(let length, let maximum, let module):
            "a message of \(length) bytes is over the maximum of \(maximum) bytes, not counting the compute module "
                + "a run request may carry (up to \(Self.bytes(module)))"
        case .moduleTooLarge(let length, let maximum):
            "the module is \(length) bytes; the escrow keeps modules of at most \(Self.bytes(maximum))"
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

    /// A byte count, in MiB too when it is a whole number of them.
    private static func bytes(_ count: Int) -> String {
        count % (1 << 20) == 0 ? "\(count) bytes (\(count >> 20) MiB)" : "\(count) bytes"
    }
}
