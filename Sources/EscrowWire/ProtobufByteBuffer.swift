import NIOCore
import SwiftProtobuf

/// A `ByteBuffer` that SwiftProtobuf serializes into and parses from in place, so an envelope
/// of megabytes is not copied through an intermediate `[UInt8]` on its way to or from the socket.
///
/// Made by SwiftProtobuf for serializing (`init(repeating:count:)`), it holds a message: room for
/// the 4-byte length prefix, already written, then the message. Made by the decoder over a
/// received message's body (`init(body:)`), it exposes those bytes as they are.
///
/// Thread safety: a value type over a copy-on-write buffer.
struct ProtobufByteBuffer: SwiftProtobufContiguousBytes {
    /// The bytes, after `offset` bytes of length prefix.
    private(set) var buffer: ByteBuffer
    private let offset: Int

    /// A message of `count` bytes, each `repeating`, behind the length prefix.
    init(repeating: UInt8, count: Int) {
        buffer = ByteBufferAllocator().buffer(capacity: 4 + count)
        buffer.writeInteger(UInt32(truncatingIfNeeded: count))
        buffer.writeRepeatingByte(repeating, count: count)
        offset = 4
    }

    /// A message holding `sequence` as its bytes, behind the length prefix.
    init<S: Sequence>(_ sequence: S) where S.Element == UInt8 {
        let bytes = Array(sequence)
        buffer = ByteBufferAllocator().buffer(capacity: 4 + bytes.count)
        buffer.writeInteger(UInt32(truncatingIfNeeded: bytes.count))
        buffer.writeBytes(bytes)
        offset = 4
    }

    /// The body of a received message, parsed where it lies.
    init(body: ByteBuffer) {
        buffer = body
        offset = 0
    }

    var count: Int { buffer.readableBytes - offset }

    func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try buffer.withUnsafeReadableBytes { try body(UnsafeRawBufferPointer(rebasing: $0[offset...])) }
    }

    mutating func withUnsafeMutableBytes<R>(_ body: (UnsafeMutableRawBufferPointer) throws -> R) rethrows -> R {
        let offset = self.offset
        return try buffer.withUnsafeMutableReadableBytes { try body(UnsafeMutableRawBufferPointer(rebasing: $0[offset...])) }
    }
}
