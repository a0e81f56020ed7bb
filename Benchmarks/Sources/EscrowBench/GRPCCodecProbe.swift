import EscrowCore
import EscrowRPC
import Foundation
import NIOCore
import SwiftProtobuf

// `ESCROW_BENCH_GRPC_PROFILE=codec escrow-bench --only grpc`: what each step of our framing
// (EscrowRPC's EnvelopeCodec.swift and Frame+Proto.swift) costs for the 16 MB request of the
// large call, in isolation, next to serializing into and parsing from the ByteBuffer directly,
// as gRPC's ProtobufSerializer/ProtobufDeserializer do. Found while profiling the large-call
// figure (docs/PERFORMANCE.md, issue 6); prints, gives no figures.

/// A ByteBuffer with room for the 4-byte length prefix, into which SwiftProtobuf serializes
/// directly (no zeroing, no intermediate array).
struct FramedBytes: SwiftProtobufContiguousBytes {
    var buffer: ByteBuffer

    init(repeating: UInt8, count: Int) {
        buffer = ByteBufferAllocator().buffer(capacity: 4 + count)
        buffer.writeInteger(UInt32(count))
        buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: count) { _ in count }
        buffer.moveReaderIndex(forwardBy: 4)
    }

    init<S: Sequence>(_ sequence: S) where S.Element == UInt8 {
        buffer = ByteBuffer(bytes: Array(sequence))
    }

    var count: Int { buffer.readableBytes }

    func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try buffer.withUnsafeReadableBytes(body)
    }

    mutating func withUnsafeMutableBytes<R>(_ body: (UnsafeMutableRawBufferPointer) throws -> R) rethrows -> R {
        try buffer.withUnsafeMutableReadableBytes(body)
    }
}

/// A read-only view of a ByteBuffer's readable bytes for parsing.
struct BufferView: SwiftProtobufContiguousBytes {
    var buffer: ByteBuffer
    init(buffer: ByteBuffer) { self.buffer = buffer }
    init(repeating: UInt8, count: Int) { buffer = ByteBuffer(repeating: repeating, count: count) }
    init<S: Sequence>(_ sequence: S) where S.Element == UInt8 { buffer = ByteBuffer(bytes: Array(sequence)) }
    var count: Int { buffer.readableBytes }
    func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R { try buffer.withUnsafeReadableBytes(body) }
    mutating func withUnsafeMutableBytes<R>(_ body: (UnsafeMutableRawBufferPointer) throws -> R) rethrows -> R {
        try buffer.withUnsafeMutableReadableBytes(body)
    }
}

enum CodecProbe {
    /// Times each step 15 times and prints the median and the minimum.
    static func run(large: Frame, function: FunctionDescriptor) throws {
        let clock = ContinuousClock()
        func median(_ label: String, _ body: () throws -> Void) rethrows {
            var times: [Double] = []
            for _ in 0..<15 {
                let started = clock.now
                try body()
                times.append((clock.now - started).seconds * 1e3)
            }
            times.sort()
            print(String(format: "%-62@ %7.2f ms (min %.2f)", label as NSString, times[times.count / 2], times[0]))
        }
        var envelope = Escrow_V1_Envelope()
        envelope.requestID = 7
        envelope.computeRequest = .with {
            $0.functionID = function.id
            $0.functionVersion = Int64(function.version)
            $0.codeDigest = function.codeDigest
            $0.input = Escrow_V1_Frame(large)
        }
        let allocator = ByteBufferAllocator()
        let frame = try envelope.frame(allocator: allocator)
        print("request frame: \(frame.readableBytes) bytes")

        try median("Escrow_V1_Frame(frame)            [Data per cell]") { _ = Escrow_V1_Frame(large) }
        try median("envelope.frame(allocator:)        [now: [UInt8] + copy]") { _ = try envelope.frame(allocator: allocator) }
        try median("  serializedBytes() -> [UInt8] alone") { let _: [UInt8] = try envelope.serializedBytes() }
        try median("serialize into ByteBuffer directly [FramedBytes]") {
            var framed: FramedBytes = try envelope.serializedBytes()
            framed.buffer.moveReaderIndex(to: 0)
            precondition(framed.buffer.readableBytes == frame.readableBytes)
        }
        var direct: FramedBytes = try envelope.serializedBytes()
        direct.buffer.moveReaderIndex(to: 0)
        precondition(direct.buffer == frame, "direct serialization differs")

        try median("decode now: readBytes + Envelope(serializedBytes: [UInt8])") {
            var buffer = frame
            buffer.moveReaderIndex(forwardBy: 4)
            let bytes = buffer.readBytes(length: buffer.readableBytes)!
            _ = try Escrow_V1_Envelope(serializedBytes: bytes)
        }
        try median("  readBytes alone") {
            var buffer = frame
            buffer.moveReaderIndex(forwardBy: 4)
            _ = buffer.readBytes(length: buffer.readableBytes)!
        }
        try median("decode from the ByteBuffer directly [BufferView]") {
            var buffer = frame
            buffer.moveReaderIndex(forwardBy: 4)
            _ = try Escrow_V1_Envelope(serializedBytes: BufferView(buffer: buffer))
        }
        let decoded = try Escrow_V1_Envelope(serializedBytes: BufferView(buffer: frame.getSlice(at: 4, length: frame.readableBytes - 4)!))
        precondition(decoded == envelope)
        try median("Frame(Escrow_V1_Frame)            [[UInt8] per cell]") { _ = try Frame(decoded.computeRequest.input) }
        try median("accumulate 16 MB from 16 KB reads (ByteBuffer appends)") {
            var cumulation = allocator.buffer(capacity: 16 * 1024)
            var source = frame
            while source.readableBytes > 0 {
                var chunk = source.readSlice(length: min(16 * 1024, source.readableBytes))!
                cumulation.writeBuffer(&chunk)
            }
        }
        try median("  same with the whole frame reserved up front") {
            var cumulation = allocator.buffer(capacity: frame.readableBytes)
            var source = frame
            while source.readableBytes > 0 {
                var chunk = source.readSlice(length: min(16 * 1024, source.readableBytes))!
                cumulation.writeBuffer(&chunk)
            }
        }
    }
}
