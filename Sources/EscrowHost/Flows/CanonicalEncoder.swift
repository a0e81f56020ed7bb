import Crypto
import EscrowStore

/// A deterministic byte encoding for hashing: each value tagged and length-prefixed, so no two
/// different sequences of values encode alike.
///
/// The encoding is hashed as it is written: values are copied into a fixed 16 KB buffer that is
/// hashed whenever it fills (a long text goes to the hash directly), so encoding a frame of tens
/// of thousands of cells costs one copy of each value's bytes and no allocation.
struct CanonicalEncoder {
    private var hash = SHA256()
    private var buffer: [UInt8]
    private var used = 0
    private static let bufferSize = 16 * 1024

    init() {
        buffer = [UInt8](repeating: 0, count: Self.bufferSize)
    }

    mutating func append(_ text: String?) {
        guard let text else {
            appendTag(0x00)
            return
        }
        append(text: text)
    }

    /// A text that is there (the common case of a frame's text cells, without an `Optional`).
    @inline(__always)
    mutating func append(text: borrowing String) {
        // Native strings are contiguous UTF-8: read in place, without a copy of the string.
        let appended: Void? = text.utf8.withContiguousStorageIfAvailable { utf8 in
            appendTagged(0x01, UnsafeRawBufferPointer(utf8))
        }
        if appended == nil {
            var text = copy text
            text.withUTF8 { appendTagged(0x01, UnsafeRawBufferPointer($0)) }
        }
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
        appendFixedWidth(0x05, UInt64(byteCount).bigEndian)
        if sha256.withContiguousStorageIfAvailable({ write(UnsafeRawBufferPointer($0)) }) == nil {
            Array(sha256).withUnsafeBytes { write($0) }
        }
    }

    /// A digest of encoded values (a frame column's cells): the tag 0x06 and its 32 bytes.
    mutating func append(digest: [UInt8]) {
        appendTag(0x06)
        digest.withUnsafeBytes { write($0) }
    }

    /// A tag, then the value's 8 big-endian bytes; a lone 0x00 for nil.
    private mutating func appendFixedWidth<Value: FixedWidthInteger>(_ tag: UInt8, _ bigEndian: Value?) {
        guard var bigEndian else {
            appendTag(0x00)
            return
        }
        if used + 1 + MemoryLayout<Value>.size <= Self.bufferSize {
            // The common case in one access to the buffer (tens of thousands of cells per frame).
            let used = self.used
            buffer.withUnsafeMutableBytes { raw in
                raw[used] = tag
                raw.storeBytes(of: bigEndian, toByteOffset: used + 1, as: Value.self)
            }
            self.used += 1 + MemoryLayout<Value>.size
            return
        }
        appendTag(tag)
        withUnsafeBytes(of: &bigEndian) { write($0) }
    }

    /// A tag, the 8-byte big-endian length of `bytes`, then `bytes`.
    private mutating func appendTagged(_ tag: UInt8, _ bytes: UnsafeRawBufferPointer) {
        if used + 9 + bytes.count <= Self.bufferSize {
            let used = self.used
            buffer.withUnsafeMutableBytes { raw in
                raw[used] = tag
                raw.storeBytes(of: UInt64(bytes.count).bigEndian, toByteOffset: used + 1, as: UInt64.self)
                if let source = bytes.baseAddress, let target = raw.baseAddress, !bytes.isEmpty {
                    (target + used + 9).copyMemory(from: source, byteCount: bytes.count)
                }
            }
            self.used += 9 + bytes.count
            return
        }
        appendFixedWidth(tag, UInt64(bytes.count).bigEndian)
        write(bytes)
    }

    private mutating func appendTag(_ tag: UInt8) {
        if used == Self.bufferSize { flush() }
        buffer[used] = tag
        used += 1
    }

    /// Copies `bytes` into the buffer, flushing it first when they do not fit; bytes that would
    /// fill most of it are hashed directly.
    private mutating func write(_ bytes: UnsafeRawBufferPointer) {
        if bytes.count > Self.bufferSize - used {
            flush()
            if bytes.count > Self.bufferSize / 2 {
                hash.update(bufferPointer: bytes)
                return
            }
        }
        let start = used
        buffer.withUnsafeMutableBytes { UnsafeMutableRawBufferPointer(rebasing: $0[start ..< start + bytes.count]).copyMemory(from: bytes) }
        used += bytes.count
    }

    private mutating func flush() {
        let used = self.used
        buffer.withUnsafeBytes { hash.update(bufferPointer: UnsafeRawBufferPointer(rebasing: $0[..<used])) }
        self.used = 0
    }

    /// The SHA-256 (hex) of everything appended.
    func sha256() -> String {
        Hex.encode(digest())
    }

    /// The SHA-256 of everything appended, 32 bytes.
    func digest() -> [UInt8] {
        var hash = self.hash
        buffer.withUnsafeBytes { hash.update(bufferPointer: UnsafeRawBufferPointer(rebasing: $0[..<used])) }
        return Array(hash.finalize())
    }
}
