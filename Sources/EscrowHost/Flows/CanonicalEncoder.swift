import Crypto
import EscrowStore

/// A deterministic byte encoding for hashing: each value tagged and length-prefixed, so no two
/// different sequences of values encode alike.
///
/// The encoding is hashed as it is written, through a small buffer.
struct CanonicalEncoder {
    private var hash = SHA256()
    private var buffer: [UInt8] = []
    private static let bufferSize = 16 * 1024

    init() {
        buffer.reserveCapacity(Self.bufferSize)
    }

    mutating func append(_ text: String?) {
        guard let text else {
            buffer.append(0x00)
            return
        }
        buffer.append(0x01)
        appendLength(text.utf8.count)
        buffer.append(contentsOf: text.utf8)
        flushIfFull()
    }

    mutating func append(_ value: Int64?) {
        appendFixedWidth(0x02, value?.bigEndian)
    }

    mutating func append(_ value: Double?) {
        appendFixedWidth(0x03, value?.bitPattern.bigEndian)
    }

    /// Binary data by its length and SHA-256: hashing a frame's pictures can then use the digests
    /// already known for them, and spread the rest over the processors.
    mutating func append(byteCount: Int, sha256: some Collection<UInt8>) {
        buffer.append(0x05)
        appendLength(byteCount)
        buffer.append(contentsOf: sha256)
        flushIfFull()
    }

    /// A tag, then the value's 8 big-endian bytes; a lone 0x00 for nil.
    private mutating func appendFixedWidth<Value: FixedWidthInteger>(_ tag: UInt8, _ bigEndian: Value?) {
        guard let bigEndian else {
            buffer.append(0x00)
            return
        }
        buffer.append(tag)
        withUnsafeBytes(of: bigEndian) { buffer.append(contentsOf: $0) }
        flushIfFull()
    }

    private mutating func appendLength(_ count: Int) {
        withUnsafeBytes(of: UInt64(count).bigEndian) { buffer.append(contentsOf: $0) }
    }

    private mutating func flushIfFull() {
        if buffer.count >= Self.bufferSize { flush() }
    }

    private mutating func flush() {
        buffer.withUnsafeBytes { hash.update(bufferPointer: $0) }
        buffer.removeAll(keepingCapacity: true)
    }

    /// The SHA-256 (hex) of everything appended.
    func sha256() -> String {
        var hash = self.hash
        buffer.withUnsafeBytes { hash.update(bufferPointer: $0) }
        return Hex.encode(hash.finalize())
    }
}
