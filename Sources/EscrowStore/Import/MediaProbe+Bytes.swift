import Foundation

/// A bounds-checked, read-only view of a file's bytes for the media probes.
///
/// Every accessor returns `nil` instead of trapping when the requested bytes lie outside the
/// buffer, so the parsers can treat "past the end" as ordinary truncation.
///
/// Thread safety: an immutable value; `Sendable`.
struct ProbeBytes: Sendable {
    /// The file's bytes; memory-mapped when read from a file, so a large video is not copied.
    let bytes: Data

    init(_ bytes: [UInt8]) { self.bytes = Data(bytes) }

    init(_ bytes: Data) {
        // Index from zero whatever `Data` slice we were given.
        self.bytes = bytes.startIndex == 0 ? bytes : Data(bytes)
    }

    var count: Int { bytes.count }

    /// Whether `offset ..< offset + length` lies inside the buffer (false for negative values).
    func contains(_ offset: Int, _ length: Int) -> Bool {
        offset >= 0 && length >= 0 && offset <= bytes.count && length <= bytes.count - offset
    }

    func hasPrefix(_ prefix: [UInt8]) -> Bool {
        bytes.count >= prefix.count && bytes[0 ..< prefix.count].elementsEqual(prefix)
    }

    func u8(at offset: Int) -> UInt8? {
        contains(offset, 1) ? bytes[offset] : nil
    }

    func u16be(at offset: Int) -> UInt16? {
        guard contains(offset, 2) else { return nil }
        return UInt16(bytes[offset]) << 8 | UInt16(bytes[offset + 1])
    }

    func u16le(at offset: Int) -> UInt16? {
        guard contains(offset, 2) else { return nil }
        return UInt16(bytes[offset + 1]) << 8 | UInt16(bytes[offset])
    }

    func u24le(at offset: Int) -> UInt32? {
        guard contains(offset, 3) else { return nil }
        return UInt32(bytes[offset + 2]) << 16 | UInt32(bytes[offset + 1]) << 8 | UInt32(bytes[offset])
    }

    func u32be(at offset: Int) -> UInt32? {
        guard contains(offset, 4) else { return nil }
        return (0 ..< 4).reduce(UInt32(0)) { $0 << 8 | UInt32(bytes[offset + $1]) }
    }

    func u32le(at offset: Int) -> UInt32? {
        guard contains(offset, 4) else { return nil }
        return (0 ..< 4).reversed().reduce(UInt32(0)) { $0 << 8 | UInt32(bytes[offset + $1]) }
    }

    func u64be(at offset: Int) -> UInt64? {
        guard contains(offset, 8) else { return nil }
        return (0 ..< 8).reduce(UInt64(0)) { $0 << 8 | UInt64(bytes[offset + $1]) }
    }

    /// Reads an unsigned big-endian integer of 0, 4 or 8 bytes (the variable-size fields of `iloc`).
    func uintBE(at offset: Int, size: Int) -> UInt64? {
        switch size {
        case 0: return 0
        case 4: return u32be(at: offset).map(UInt64.init)
        case 8: return u64be(at: offset)
        default: return nil
        }
    }

    /// Four bytes as an ISO-8859-1 string (box types and brands; `©xyz` keeps its `©`).
    func fourCC(at offset: Int) -> String? {
        guard contains(offset, 4) else { return nil }
        return String(bytes[offset ..< offset + 4].map { Character(Unicode.Scalar($0)) })
    }

    /// The `length` bytes at `offset`, clamped to the buffer.
    func slice(_ offset: Int, _ length: Int) -> [UInt8] {
        let start = min(max(offset, 0), bytes.count)
        let end = length >= bytes.count - start ? bytes.count : start + max(length, 0)
        return [UInt8](bytes[start ..< end])
    }
}
