// The protobuf wire format at its lowest level (https://protobuf.dev/programming-guides/encoding/):
// varints, tags and length-delimited fields, read from and written to raw memory. The frame codec
// (FrameWire.swift) and the envelope codec use it to move `Frame`s without building protobuf
// message objects; everything else goes through SwiftProtobuf.

/// The wire types this codec meets. Groups (3, 4) are deprecated and never produced by proto3
/// peers; the reader declines them so the caller can fall back to SwiftProtobuf.
enum WireType: UInt8 {
    case varint = 0
    case fixed64 = 1
    case lengthDelimited = 2
    case fixed32 = 5
}

/// Bytes that are not the wire form the reader expected (truncated, overlong, a wire type it does
/// not read). The fast paths answer it by handing the message to SwiftProtobuf, which has the
/// final word (and the error message) on malformed input.
struct WireFormatError: Error, Equatable {}

/// Reads protobuf wire data from memory the caller keeps alive for the reader's lifetime.
///
/// Thread safety: a value over memory it does not own; use it where that memory is valid.
struct WireReader {
    let bytes: UnsafeRawBufferPointer
    private(set) var position: Int
    private let end: Int

    /// A reader over `range` of `bytes`.
    init(_ bytes: UnsafeRawBufferPointer, range: Range<Int>? = nil) {
        self.bytes = bytes
        position = range?.lowerBound ?? 0
        end = range?.upperBound ?? bytes.count
    }

    var isAtEnd: Bool { position >= end }

    mutating func varint() throws(WireFormatError) -> UInt64 {
        var result: UInt64 = 0
        var shift: UInt64 = 0
        while position < end {
            let byte = bytes[position]
            position += 1
            if shift == 63, byte > 1 { throw WireFormatError() }
            result |= UInt64(byte & 0x7F) << shift
            if byte < 0x80 { return result }
            shift += 7
            if shift > 63 { throw WireFormatError() }
        }
        throw WireFormatError()
    }

    /// The next field's number and wire type.
    ///
    /// A tag takes at most 5 bytes, as SwiftProtobuf and protoc read it: a longer one (padded
    /// with 0x80 bytes) is refused, so that the fast paths accept no message SwiftProtobuf refuses
    /// (found by fuzzing, docs/RELIABILITY.md).
    mutating func tag() throws(WireFormatError) -> (field: UInt64, type: WireType) {
        let start = position
        let key = try varint()
        let field = key >> 3
        guard position - start <= 5, field > 0, field <= 0x1FFF_FFFF, let type = WireType(rawValue: UInt8(key & 7)) else {
            throw WireFormatError()
        }
        return (field, type)
    }

    /// The range of a length-delimited field's payload, which the reader then skips.
    mutating func lengthDelimited() throws(WireFormatError) -> Range<Int> {
        let length = try varint()
        guard length <= UInt64(end - position) else { throw WireFormatError() }
        let start = position
        position += Int(length)
        return start..<position
    }

    mutating func fixed64() throws(WireFormatError) -> UInt64 {
        guard end - position >= 8 else { throw WireFormatError() }
        defer { position += 8 }
        return UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: position, as: UInt64.self))
    }

    /// Skips the value of a field of wire type `type`.
    mutating func skip(_ type: WireType) throws(WireFormatError) {
        switch type {
        case .varint: _ = try varint()
        case .fixed64: _ = try fixed64()
        case .lengthDelimited: _ = try lengthDelimited()
        case .fixed32:
            guard end - position >= 4 else { throw WireFormatError() }
            position += 4
        }
    }
}

/// Writes protobuf wire data into memory sized beforehand with the `size` functions below.
///
/// Thread safety: a value over memory it does not own; use it where that memory is valid.
struct WireWriter {
    let bytes: UnsafeMutableRawBufferPointer
    private(set) var position = 0

    init(_ bytes: UnsafeMutableRawBufferPointer) {
        self.bytes = bytes
    }

    mutating func varint(_ value: UInt64) {
        var value = value
        while value >= 0x80 {
            bytes[position] = UInt8(truncatingIfNeeded: value) | 0x80
            position += 1
            value >>= 7
        }
        bytes[position] = UInt8(value)
        position += 1
    }

    /// The next `count` bytes, for the caller to fill (the writer moves past them).
    mutating func claim(_ count: Int) -> UnsafeMutableRawBufferPointer {
        defer { position += count }
        return UnsafeMutableRawBufferPointer(rebasing: bytes[position ..< position + count])
    }

    mutating func byte(_ value: UInt8) {
        bytes[position] = value
        position += 1
    }

    mutating func tag(_ field: UInt64, _ type: WireType) {
        varint(field << 3 | UInt64(type.rawValue))
    }

    mutating func fixed64(_ value: UInt64) {
        bytes.storeBytes(of: value.littleEndian, toByteOffset: position, as: UInt64.self)
        position += 8
    }

    mutating func raw(_ source: UnsafeRawBufferPointer) {
        guard let base = source.baseAddress, let target = bytes.baseAddress, !source.isEmpty else { return }
        (target + position).copyMemory(from: base, byteCount: source.count)
        position += source.count
    }

    /// A length-delimited field: tag, length, then the bytes.
    mutating func field(_ field: UInt64, bytes source: UnsafeRawBufferPointer) {
        tag(field, .lengthDelimited)
        varint(UInt64(source.count))
        raw(source)
    }
}

/// Sizes on the wire.
enum WireSize {
    static func varint(_ value: UInt64) -> Int {
        // 1 byte per started 7 bits, at least 1.
        (64 - (value | 1).leadingZeroBitCount + 6) / 7
    }

    static func tag(_ field: UInt64) -> Int { varint(field << 3) }

    /// A length-delimited field whose payload is `length` bytes, tag included.
    static func field(_ field: UInt64, length: Int) -> Int {
        tag(field) + varint(UInt64(length)) + length
    }
}

/// ZigZag encoding of `sint64` (protobuf's signed varints).
enum ZigZag {
    static func encode(_ value: Int64) -> UInt64 { UInt64(bitPattern: (value << 1) ^ (value >> 63)) }
    static func decode(_ value: UInt64) -> Int64 { Int64(bitPattern: (value >> 1) ^ (0 &- (value & 1))) }
}
