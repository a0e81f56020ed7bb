/// Limits of the protocol.
public enum RPCLimits {
    /// The default largest message: 64 MiB.
    public static let defaultMaximumMessageLength = 64 * 1024 * 1024
    /// The most bytes a compute module may be (docs/MODULES.md): the escrow refuses a larger one
    /// when it is added, and the daemon's socket takes a run request carrying one up to this much
    /// above its maximum request (`EnvelopeDecoder.maximumModuleLength`).
    public static let maximumModuleLength = 16 * 1024 * 1024
    /// The protocol version this build speaks.
    public static let protocolVersion: UInt32 = 1
}
