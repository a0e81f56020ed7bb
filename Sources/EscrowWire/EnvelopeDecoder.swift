import EscrowCore
import NIOCore
import SwiftProtobuf

/// Reads the protocol's messages: each a 4-byte big-endian length N, then N bytes of one
/// serialized `Envelope`.
///
/// The decoder enforces the maximum message length *before* buffering the message: a peer announcing
/// a 2 GiB message is refused at once (nio-extras' `LengthFieldBasedFrameDecoder` has no maximum,
/// so it would keep reading). Invalid protobuf is refused too. Both errors are fired down the
/// pipeline as `RPCError` for the connection handler to answer and close.
///
/// With a `maximumModuleLength` (the daemon's socket), a longer message is read when it is a run
/// request whose compute module makes up the difference: its other fields still fit the maximum,
/// and the module is at most `maximumModuleLength` bytes. Which it is shows in its first bytes
/// (`admitsModule`), so no more than the maximum is buffered before a message that is not one is
/// refused.
public struct EnvelopeDecoder: ByteToMessageDecoder {
    public typealias InboundOut = ReceivedEnvelope

    /// The largest message accepted, in bytes (the protocol's default: 64 MiB), not counting a
    /// run request's compute module when `maximumModuleLength` is above 0.
    public let maximumMessageLength: Int
    /// The largest compute module a run request may carry beyond `maximumMessageLength`; 0 takes
    /// no message over the maximum (the compute protocol's side).
    public let maximumModuleLength: Int
    /// The length of the message under way when `admitsModule` let it past the maximum.
    private var admittedLength: Int?

    public init(maximumMessageLength: Int = RPCLimits.defaultMaximumMessageLength, maximumModuleLength: Int = 0) {
        self.maximumMessageLength = maximumMessageLength
        self.maximumModuleLength = maximumModuleLength
    }

    public mutating func decode(context: ChannelHandlerContext, buffer: inout ByteBuffer) throws -> DecodingState {
        guard let prefix = buffer.getInteger(at: buffer.readerIndex, as: UInt32.self) else { return .needMoreData }
        let length = Int(prefix)
        if length > maximumMessageLength, admittedLength != length {
            guard try admitsModule(buffer, length: length) else { return .needMoreData }
            admittedLength = length
        }
        guard buffer.readableBytes >= 4 + length else {
            // A large message under way: once a megabyte of it is here, make room for the rest at
            // once instead of regrowing (and copying) the buffer as it arrives. Only then, so a
            // peer cannot make the receiver allocate a whole maximum message for a few bytes.
            let missing = 4 + length - buffer.readableBytes
            if buffer.readableBytes >= 1 << 20, buffer.writableBytes < missing {
                buffer.reserveCapacity(minimumWritableBytes: missing)
            }
            return .needMoreData
        }
        buffer.moveReaderIndex(forwardBy: 4)
        guard let body = buffer.readSlice(length: length) else { return .needMoreData }
        admittedLength = nil
        let (envelope, frame) = try Self.read(body)
        context.fireChannelRead(wrapInboundOut(ReceivedEnvelope(envelope: envelope, frame: frame, byteCount: 4 + length)))
        return .continue
    }

    public mutating func decodeLast(context: ChannelHandlerContext, buffer: inout ByteBuffer, seenEOF: Bool) throws -> DecodingState {
        while try decode(context: context, buffer: &buffer) == .continue {}
        if buffer.readableBytes > 0 {
            // The peer closed in the middle of a message: nothing to answer; the connection ends.
            buffer.moveReaderIndex(to: buffer.writerIndex)
        }
        return .needMoreData
    }
}

extension EnvelopeDecoder {
    /// The envelope in a received message's body, and the `Frame` its body carries.
    ///
    /// An envelope carrying a frame in the usual form (one body, the frame once, nothing unknown)
    /// is split: SwiftProtobuf reads the body's other fields and `FrameWire` the frame, whose
    /// cells are copied once, straight out of the received bytes. Anything else, including bytes
    /// that are not protobuf, is read by SwiftProtobuf alone, which has the final word.
    ///
    /// - Throws: `RPCError.invalidMessage` when the bytes are not a protobuf `Envelope`. A frame
    ///   that is protobuf but not a valid `Frame` is not thrown: it is returned as the failure in
    ///   `frame`, for the receiver to answer.
    public static func read(_ body: ByteBuffer) throws(RPCError) -> (Escrow_V1_Envelope, Result<Frame, FrameDecodingError>) {
        if let split = readSplit(body) { return split }
        var envelope: Escrow_V1_Envelope
        do {
            envelope = try Escrow_V1_Envelope(serializedBytes: ProtobufByteBuffer(body: body))
        } catch {
            throw RPCError.invalidMessage("the message does not hold a protobuf Envelope (\(error))")
        }
        guard let carrier = FrameCarrier(envelope.body) else { return (envelope, .success(.empty)) }
        let proto = carrier.removeFrame(from: &envelope)
        return (envelope, Result { () throws(FrameDecodingError) in try Frame(proto) })
    }

    /// The fast path of `read`; nil when the envelope is not in the form it handles.
    private static func readSplit(_ body: ByteBuffer) -> (Escrow_V1_Envelope, Result<Frame, FrameDecodingError>)? {
        guard let layout = body.withUnsafeReadableBytes({ try? SplitLayout(raw: $0) }) else { return nil }
        func slice(_ range: Range<Int>) -> ProtobufByteBuffer? {
            body.getSlice(at: body.readerIndex + range.lowerBound, length: range.count).map(ProtobufByteBuffer.init(body:))
        }
        guard let before = slice(layout.beforeFrame), let after = slice(layout.afterFrame) else { return nil }
        var envelope = Escrow_V1_Envelope()
        envelope.requestID = layout.requestID
        guard (try? layout.carrier.setBody(of: &envelope, from: [before, after])) != nil else { return nil }
        guard let frameRange = layout.frame else { return (envelope, .success(.empty)) }
        guard let frame = body.withUnsafeReadableBytes({ try? FrameWire.read($0, range: frameRange) }) else { return nil }
        return (envelope, frame)
    }
}
