import EscrowCore

/// An envelope as it arrived, with the frame its body carries and the size of its message on the wire.
public struct ReceivedEnvelope: Sendable {
    /// The envelope, without the frame its body carries (that field is left empty).
    public let envelope: Escrow_V1_Envelope
    /// The frame carried by the body: a compute request's input, a compute response's or a run
    /// response's output; `.empty` for other bodies or when the field is absent. A failure says
    /// why the peer's frame is not valid.
    public let frame: Result<Frame, FrameDecodingError>
    /// The message's bytes, length prefix included.
    public let byteCount: Int
}
