import EscrowCore
import NIOCore
import SwiftProtobuf

extension Escrow_V1_Envelope {
    /// The envelope as one length-prefixed message, ready to write: serialized straight into the
    /// buffer behind its length prefix.
    public func message() throws -> ByteBuffer {
        let message: ProtobufByteBuffer = try serializedBytes()
        return message.buffer
    }

    /// The envelope as one length-prefixed message whose body carries `frame`: a compute request's
    /// input, a compute response's or a run response's output (whatever that field holds in
    /// `self` is replaced).
    ///
    /// The body's other fields are serialized by SwiftProtobuf, the frame by `FrameWire` straight
    /// into the buffer, each binary cell copied once. The frame field comes last in the body;
    /// protobuf readers accept fields in any order.
    ///
    /// - Throws: `RPCError.invalidMessage` when the body carries no frame or the envelope would
    ///   not fit a 4-byte length prefix; SwiftProtobuf's errors.
    public func message(carrying frame: Frame) throws -> ByteBuffer {
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
    /// cannot be encoded (too large for the length prefix) gets the message of `failure(error)`
    /// instead, so the caller hears why; nil only when that cannot be encoded either.
    public func replyMessage(carrying output: Frame?, orElse failure: (any Error) -> Escrow_V1_Envelope) -> ByteBuffer? {
        do {
            return try output.map(message(carrying:)) ?? message()
        } catch {
            return try? failure(error).message()
        }
    }
}
