import EscrowCore

// `FrameWire`'s reader and writer, reached by the fuzzing harness (`Fuzz/`) through
// `@_spi(Fuzzing)` so that it can check them against SwiftProtobuf's. Not for other callers: the
// RPC moves frames with `EnvelopeDecoder` and `Escrow_V1_Envelope.message(carrying:)`.

extension Frame {
    /// `FrameWire`'s reading of the bytes of one `escrow.v1.Frame` message.
    ///
    /// - Returns: nil when `FrameWire` declines the bytes (malformed, or a form it leaves to
    ///   SwiftProtobuf); otherwise the frame, or why it is not a valid frame.
    @_spi(Fuzzing) public static func readWire(_ bytes: [UInt8]) -> Result<Frame, FrameDecodingError>? {
        bytes.withUnsafeBytes { raw in try? FrameWire.read(raw, range: 0..<raw.count) }
    }

    /// `FrameWire`'s writing of the frame: the bytes of one `escrow.v1.Frame` message, the ones
    /// SwiftProtobuf writes for `Escrow_V1_Frame(self)`.
    @_spi(Fuzzing) public var wireBytes: [UInt8] { FrameWire.bytes(self) }
}
