import EscrowCore
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
        let (envelope, frame) = try Self.read(body)
        context.fireChannelRead(wrapInboundOut(ReceivedEnvelope(envelope: envelope, frame: frame, byteCount: 4 + Int(length))))
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

extension EnvelopeDecoder {
    /// The envelope in a received frame's body, and the `Frame` its body carries.
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
            throw RPCError.invalidMessage("the frame does not hold a protobuf Envelope (\(error))")
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

/// Where the parts of an envelope carrying a frame lie in its bytes, for `EnvelopeDecoder`'s fast
/// path. Its initializer throws for every envelope not in the usual form: a body other than a
/// compute request, compute response or run response; the body or the frame field more than once;
/// a top-level field other than the request id and the body; malformed bytes.
private struct SplitLayout {
    var requestID: UInt64 = 0
    /// The kind of body.
    var carrier = FrameCarrier.computeRequest
    /// The body's bytes before and after its frame field (each range holds whole fields).
    var beforeFrame = 0..<0
    var afterFrame = 0..<0
    /// The frame message's bytes; nil when the body has no frame field.
    var frame: Range<Int>?

    init(raw: UnsafeRawBufferPointer) throws(WireFormatError) {
        var reader = WireReader(raw)
        var bodyRange: Range<Int>?
        while !reader.isAtEnd {
            switch try reader.tag() {
            case (1, .varint):
                requestID = try reader.varint()
            case (let field, .lengthDelimited) where bodyRange == nil && FrameCarrier(rawValue: field) != nil:
                carrier = FrameCarrier(rawValue: field) ?? carrier
                bodyRange = try reader.lengthDelimited()
            default:
                throw WireFormatError()
            }
        }
        guard let bodyRange else { throw WireFormatError() }
        let frameField = carrier.frameField
        var body = WireReader(raw, range: bodyRange)
        var frameFieldRange: Range<Int>?
        while !body.isAtEnd {
            let start = body.position
            let (field, type) = try body.tag()
            guard field == frameField else {
                try body.skip(type)
                continue
            }
            guard type == .lengthDelimited, frameFieldRange == nil else { throw WireFormatError() }
            frame = try body.lengthDelimited()
            frameFieldRange = start..<body.position
        }
        let cut = frameFieldRange ?? bodyRange.upperBound..<bodyRange.upperBound
        beforeFrame = bodyRange.lowerBound..<cut.lowerBound
        afterFrame = cut.upperBound..<bodyRange.upperBound
    }
}

/// An envelope as it arrived, with the frame its body carries and the size of its frame on the wire.
public struct ReceivedEnvelope: Sendable {
    /// The message, without the frame its body carries (that field is left empty).
    public let envelope: Escrow_V1_Envelope
    /// The frame carried by the body: a compute request's input, a compute response's or a run
    /// response's output; `.empty` for other bodies or when the field is absent. A failure says
    /// why the peer's frame is not valid.
    public let frame: Result<Frame, FrameDecodingError>
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

    /// The envelope as one length-prefixed frame whose body carries `frame`: a compute request's
    /// input, a compute response's or a run response's output (whatever that field holds in
    /// `self` is replaced).
    ///
    /// The body's other fields are serialized by SwiftProtobuf, the frame by `FrameWire` straight
    /// into the buffer, each binary cell copied once. The frame field comes last in the body;
    /// protobuf readers accept fields in any order.
    ///
    /// - Throws: `RPCError.invalidMessage` when the body carries no frame or the envelope would
    ///   not fit a 4-byte length prefix; SwiftProtobuf's errors.
    public func frame(carrying frame: Frame) throws -> ByteBuffer {
        guard let carrier = FrameCarrier(body) else {
            throw RPCError.invalidMessage("an envelope with \(body.map { "\($0)" } ?? "no body") carries no frame")
        }
        let (field, frameField) = (carrier.rawValue, carrier.frameField)
        let bodyBytes = try carrier.bodyWithoutFrame(self)
        let layout = FrameWire.layout(of: frame)
        let bodySize = bodyBytes.count + WireSize.field(frameField, length: layout.size)
        var size = WireSize.field(field, length: bodySize)
        if requestID != 0 { size += 1 + WireSize.varint(requestID) }
        guard size <= Int(UInt32.max) else {
            throw RPCError.invalidMessage("an envelope of \(size) bytes does not fit the protocol's 4-byte length prefix")
        }
        let requestID = self.requestID
        var buffer = ByteBufferAllocator().buffer(capacity: 4 + size)
        buffer.writeInteger(UInt32(size))
        buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: size) { raw in
            var writer = WireWriter(raw)
            if requestID != 0 {
                writer.tag(1, .varint)
                writer.varint(requestID)
            }
            writer.tag(field, .lengthDelimited)
            writer.varint(UInt64(bodySize))
            bodyBytes.withUnsafeBytes { writer.raw($0) }
            writer.tag(frameField, .lengthDelimited)
            writer.varint(UInt64(layout.size))
            FrameWire.write(frame, layout: layout, to: &writer)
            return writer.position
        }
        return buffer
    }
}

extension Escrow_V1_Envelope {
    /// A reply ready to write: `self`, its body carrying `output` when there is one. An output that
    /// cannot be encoded (too large for the length prefix) gets the frame of `failure(error)`
    /// instead, so the caller hears why; nil only when that cannot be encoded either.
    public func replyFrame(carrying output: Frame?, orElse failure: (any Error) -> Escrow_V1_Envelope) -> ByteBuffer? {
        do {
            return try output.map(frame(carrying:)) ?? frame()
        } catch {
            return try? failure(error).frame()
        }
    }
}

/// The envelope bodies that carry a `Frame`, by their field number in `Envelope`
/// (Proto/escrow.proto), with where the frame is inside them: the one place that knows.
enum FrameCarrier: UInt64 {
    case computeRequest = 4
    case computeResponse = 5
    case runResponse = 11

    /// The frame's field number inside the body (`input` or `output`).
    var frameField: UInt64 { self == .computeRequest ? 4 : 1 }

    /// The carrier of `body`; nil for bodies without a frame.
    init?(_ body: Escrow_V1_Envelope.OneOf_Body?) {
        switch body {
        case .computeRequest: self = .computeRequest
        case .computeResponse: self = .computeResponse
        case .runResponse: self = .runResponse
        default: return nil
        }
    }

    /// Takes the frame out of `envelope`'s body (of this kind) and returns it.
    func removeFrame(from envelope: inout Escrow_V1_Envelope) -> Escrow_V1_Frame {
        switch self {
        case .computeRequest:
            defer { envelope.computeRequest.clearInput() }
            return envelope.computeRequest.input
        case .computeResponse:
            defer { envelope.computeResponse.clearOutput() }
            return envelope.computeResponse.output
        case .runResponse:
            defer { envelope.runResponse.clearOutput() }
            return envelope.runResponse.output
        }
    }

    /// The serialization of `envelope`'s body (of this kind) without its frame.
    func bodyWithoutFrame(_ envelope: Escrow_V1_Envelope) throws -> [UInt8] {
        var envelope = envelope
        _ = removeFrame(from: &envelope)
        switch self {
        case .computeRequest: return try envelope.computeRequest.serializedBytes()
        case .computeResponse: return try envelope.computeResponse.serializedBytes()
        case .runResponse: return try envelope.runResponse.serializedBytes()
        }
    }

    /// Sets `envelope`'s body to one of this kind read from `parts`, each a run of whole fields.
    func setBody(of envelope: inout Escrow_V1_Envelope, from parts: [ProtobufByteBuffer]) throws {
        switch self {
        case .computeRequest:
            var body = Escrow_V1_ComputeRequest()
            for part in parts { try body.merge(serializedBytes: part) }
            envelope.computeRequest = body
        case .computeResponse:
            var body = Escrow_V1_ComputeResponse()
            for part in parts { try body.merge(serializedBytes: part) }
            envelope.computeResponse = body
        case .runResponse:
            var body = Escrow_V1_RunResponse()
            for part in parts { try body.merge(serializedBytes: part) }
            envelope.runResponse = body
        }
    }
}

/// Limits of the protocol.
public enum RPCLimits {
    /// The default largest frame: 64 MiB.
    public static let defaultMaximumFrameLength = 64 * 1024 * 1024
    /// The protocol version this build speaks.
    public static let protocolVersion: UInt32 = 1
}

extension ChannelHandlerContext {
    /// Answers a protocol error (a frame over the maximum, bytes that are not an `Envelope`) with
    /// `Error{FRAME_TOO_LARGE}` or `Error{BAD_REQUEST}` under request id 0, then closes the
    /// connection: the stream can no longer be trusted. For the handler that owns this context,
    /// whose outbound type is `ByteBuffer`.
    public func answerThenClose(_ error: RPCError) {
        var envelope = Escrow_V1_Envelope()
        envelope.error = .with {
            $0.code = if case .frameTooLarge = error { .frameTooLarge } else { .badRequest }
            $0.message = "\(error)"
        }
        guard let frame = try? envelope.frame() else {
            close(promise: nil)
            return
        }
        let channel = self.channel
        writeAndFlush(NIOAny(frame)).whenComplete { _ in channel.close(promise: nil) }
    }
}
