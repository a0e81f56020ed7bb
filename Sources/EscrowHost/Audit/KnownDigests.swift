import EscrowStore

/// SHA-256 digests already known for byte buffers, by buffer identity: the pictures the guarded
/// reader loaded from the content-addressed asset store, whose ids are the SHA-256 of their
/// content (taken at import).
///
/// A cell of compute()'s output that is still one of these buffers (same storage, same length:
/// the function passed the picture through without touching it) gets its digest from here
/// instead of being hashed again. A changed or new buffer is never found: Swift arrays copy on
/// write, and the buffers are held here so their storage cannot be freed and reused while the
/// output is digested.
struct KnownDigests: Sendable {
    private var buffers: [UInt: (bytes: [UInt8], sha256: [UInt8])] = [:]

    static let none = KnownDigests()

    var isEmpty: Bool { buffers.isEmpty }

    /// Records `bytes`, read from the asset with this id; an id that is not a SHA-256 is ignored.
    mutating func record(_ bytes: [UInt8], assetID: String) {
        guard !bytes.isEmpty, let digest = Hex.decode(assetID), digest.count == 32,
              let address = Self.address(of: bytes) else { return }
        buffers[address] = (bytes, digest)
    }

    /// The SHA-256 of `bytes` when they are one of the recorded buffers.
    func sha256(of bytes: [UInt8]) -> [UInt8]? {
        guard let address = Self.address(of: bytes), let known = buffers[address],
              known.bytes.count == bytes.count else { return nil }
        return known.sha256
    }

    private static func address(of bytes: [UInt8]) -> UInt? {
        bytes.withUnsafeBufferPointer { $0.baseAddress.map { UInt(bitPattern: $0) } }
    }
}
