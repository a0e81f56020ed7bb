import NIOCore
import SwiftProtobuf

/// The protocol's framing: a 4-byte big-endian length N, then N bytes of one serialized
/// `Envelope`.
///
/// The decoder enforces the maximum frame length *before* buffering the frame: a peer announcing
/// a 2 GiB frame is refused at once (nio-extras' `LengthFieldBasedFrameDecoder` has no maximum,
/// so it would keep reading). Invalid protobuf is refused too. Both errors are fired down the
/// pipeline as `RPCError` for the connection handler to answer and close.
public struct EnvelopeDecoder: ByteToMessageDecoder {
    public typealias InboundOut = ReceivedEnvelope

    /// The largest frame accepted, in bytes (the protocol's default: 64 MiB).
    public let maximumFrameLength: Int

    public init(maximumFrameLength: Int = RPCLimits.defaultMaximumFrameLength) {
        self.maximumFrameLength = maximumFrameLength
    }

    public mutating func decode(context: ChannelHandlerContext, buffer: inout ByteBuffer) throws -> DecodingState {
        guard let length = buffer.getInteger(at: buffer.readerIndex, as: UInt32.self) else { return .needMoreData }
        guard Int(length) <= maximumFrameLength else {
            throw RPCError.frameTooLarge(length: Int(length), maximum: maximumFrameLength)
        }
        guard buffer.readableBytes >= 4 + Int(length) else {
            // A large frame under way: once a megabyte of it is here, make room for the rest at
            // once instead of regrowing (and copying) the buffer as it arrives. Only then, so a
            // peer cannot make the receiver allocate a whole maximum frame for a few bytes.
            let missing = 4 + Int(length) - buffer.readableBytes
            if buffer.readableBytes >= 1 << 20, buffer.writableBytes < missing {
                buffer.reserveCapacity(minimumWritableBytes: missing)
            }
            return .needMoreData
        }
        buffer.moveReaderIndex(forwardBy: 4)
        guard let body = buffer.readSlice(length: Int(length)) else { return .needMoreData }
        do {
            let envelope = try Escrow_V1_Envelope(serializedBytes: ProtobufByteBuffer(body: body))
            context.fireChannelRead(wrapInboundOut(ReceivedEnvelope(envelope: envelope, byteCount: 4 + Int(length))))
        } catch {
            throw RPCError.invalidMessage("the frame does not hold a protobuf Envelope (\(error))")
        }
        return .continue
    }

    public mutating func decodeLast(context: ChannelHandlerContext, buffer: inout ByteBuffer, seenEOF: Bool) throws -> DecodingState {
        while try decode(context: context, buffer: &buffer) == .continue {}
        if buffer.readableBytes > 0 {
            // The peer closed in the middle of a frame: nothing to answer; the connection ends.
            buffer.moveReaderIndex(to: buffer.writerIndex)
        }
        return .needMoreData
    }
}

/// An envelope as it arrived, with the size of its frame on the wire.
public struct ReceivedEnvelope: Sendable {
    public let envelope: Escrow_V1_Envelope
    /// The frame's bytes, length prefix included.
    public let byteCount: Int
}

extension Escrow_V1_Envelope {
    /// The envelope as one length-prefixed frame, ready to write: serialized straight into the
    /// buffer behind its length prefix.
    public func frame() throws -> ByteBuffer {
        let frame: ProtobufByteBuffer = try serializedBytes()
        return frame.buffer
    }
}

/// Limits of the protocol.
public enum RPCLimits {
    /// The default largest frame: 64 MiB.
    public static let defaultMaximumFrameLength = 64 * 1024 * 1024
    /// The protocol version this build speaks.
    public static let protocolVersion: UInt32 = 1
}
