/// Limits of the protocol.
public enum RPCLimits {
    /// The default largest message: 64 MiB.
    public static let defaultMaximumMessageLength = 64 * 1024 * 1024
    /// The protocol version this build speaks.
    public static let protocolVersion: UInt32 = 1
}
