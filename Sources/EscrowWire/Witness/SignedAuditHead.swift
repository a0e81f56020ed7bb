import Crypto
import Foundation
import SwiftProtobuf

/// The signed head of an escrow host's audit log: the newest entry's number and hash, when the
/// host signed, and the host's Ed25519 audit key and signature.
///
/// A head from the wire is hostile until `init(_:)` has checked every field and the signature.
/// The signature covers the canonical encoding of `"escrow.audit-head.v1"`, seq, entry hash,
/// time and the host key as hex (docs/AUDIT.md, "Witnesses").
///
/// Thread safety: an immutable value.
public struct SignedAuditHead: Sendable, Hashable {
    /// The newest entry's number (at least 1).
    public let seq: Int
    /// That entry's hash: 64 lower-case hex digits.
    public let entryHash: String
    /// When the host signed, ISO 8601 UTC.
    public let time: String
    /// The host's Ed25519 public key (32 bytes).
    public let hostKey: Data
    /// The host's Ed25519 signature (64 bytes).
    public let hostSignature: Data

    /// The longest `time` accepted.
    static let maximumTimeLength = 64

    /// Signs a head with the host's audit key.
    ///
    /// - Throws: `WitnessError.malformed` for a seq below 1, a hash that is not 64 hex digits or
    ///   an empty or overlong time.
    public static func sign(seq: Int, entryHash: String, time: String,
                            with key: Curve25519.Signing.PrivateKey) throws(WitnessError) -> SignedAuditHead {
        let hostKey = key.publicKey.rawRepresentation
        try checkFields(seq: seq, entryHash: entryHash, time: time)
        let bytes = signedBytes(seq: seq, entryHash: entryHash, time: time, hostKey: hostKey)
        let signature: Data
        do {
            signature = try key.signature(for: bytes)
        } catch {
            throw .storage("cannot sign the audit head: \(error)")
        }
        return SignedAuditHead(seq: seq, entryHash: entryHash, time: time, hostKey: hostKey, hostSignature: signature)
    }

    private init(seq: Int, entryHash: String, time: String, hostKey: Data, hostSignature: Data) {
        self.seq = seq
        self.entryHash = entryHash
        self.time = time
        self.hostKey = hostKey
        self.hostSignature = hostSignature
    }

    /// A head read from the wire or a file, checked: its fields' format and the host's signature.
    ///
    /// - Throws: `WitnessError.malformed` or `.badSignature`.
    public init(_ message: Escrow_V1_AuditHead) throws(WitnessError) {
        guard message.seq >= 1, message.seq <= UInt64(Int64.max) else {
            throw .malformed("seq \(message.seq) is not a positive 63-bit number")
        }
        let seq = Int(message.seq)
        try Self.checkFields(seq: seq, entryHash: message.entryHash, time: message.time)
        guard message.hostKey.count == 32 else { throw .malformed("the host key has \(message.hostKey.count) bytes, not 32") }
        guard message.hostSignature.count == 64 else {
            throw .malformed("the host signature has \(message.hostSignature.count) bytes, not 64")
        }
        self.init(seq: seq, entryHash: message.entryHash, time: message.time, hostKey: message.hostKey,
                  hostSignature: message.hostSignature)
        let bytes = Self.signedBytes(seq: seq, entryHash: entryHash, time: time, hostKey: hostKey)
        guard let key = try? Curve25519.Signing.PublicKey(rawRepresentation: hostKey),
              key.isValidSignature(hostSignature, for: bytes) else { throw .badSignature("the host's") }
    }

    /// The head as a protobuf message.
    public var message: Escrow_V1_AuditHead {
        .with {
            $0.seq = UInt64(seq)
            $0.entryHash = entryHash
            $0.time = time
            $0.hostKey = hostKey
            $0.hostSignature = hostSignature
        }
    }

    /// The host key as lower-case hex.
    public var hostKeyHex: String { WitnessHex.encode(hostKey) }

    private static func checkFields(seq: Int, entryHash: String, time: String) throws(WitnessError) {
        guard seq >= 1 else { throw .malformed("seq \(seq) is below 1") }
        guard WitnessHex.isHex(entryHash, count: 64) else { throw .malformed("the entry hash is not 64 lower-case hex digits") }
        guard !time.isEmpty, time.utf8.count <= maximumTimeLength else {
            throw .malformed("the time is empty or over \(maximumTimeLength) bytes")
        }
    }

    private static func signedBytes(seq: Int, entryHash: String, time: String, hostKey: Data) -> [UInt8] {
        var bytes = SignedBytes("escrow.audit-head.v1")
        bytes.append(seq)
        bytes.append(entryHash)
        bytes.append(time)
        bytes.append(WitnessHex.encode(hostKey))
        return bytes.bytes
    }
}
