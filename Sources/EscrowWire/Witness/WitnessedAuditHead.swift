import Crypto
import Foundation
import SwiftProtobuf

/// An audit head as a witness countersigned it: the host's signed head, whom the witness holds it
/// for (the SHA-256 of the host's TLS client certificate), when, and the witness's Ed25519 key
/// and signature.
///
/// The countersignature covers the canonical encoding of `"escrow.audit-witness.v1"`, the host
/// certificate's hash, the head's seq, entry hash, time, host key (hex) and host signature (hex),
/// the witnessing time and the witness key (hex).
///
/// Thread safety: an immutable value.
public struct WitnessedAuditHead: Sendable, Hashable {
    public let head: SignedAuditHead
    /// SHA-256 (lower-case hex) of the DER of the host's TLS client certificate.
    public let hostCertificate: String
    /// When the witness countersigned, ISO 8601 UTC, by its clock.
    public let witnessedAt: String
    /// The witness's Ed25519 public key (32 bytes).
    public let witnessKey: Data
    /// The witness's Ed25519 signature (64 bytes).
    public let witnessSignature: Data

    /// Countersigns `head` for the host whose certificate hashes to `hostCertificate`.
    package static func countersign(_ head: SignedAuditHead, hostCertificate: String, witnessedAt: String,
                            with key: Curve25519.Signing.PrivateKey) throws(WitnessError) -> WitnessedAuditHead {
        let witnessKey = key.publicKey.rawRepresentation
        let bytes = signedBytes(head, hostCertificate: hostCertificate, witnessedAt: witnessedAt, witnessKey: witnessKey)
        do {
            return WitnessedAuditHead(head: head, hostCertificate: hostCertificate, witnessedAt: witnessedAt,
                                      witnessKey: witnessKey, witnessSignature: try key.signature(for: bytes))
        } catch {
            throw .storage("cannot countersign the audit head: \(error)")
        }
    }

    private init(head: SignedAuditHead, hostCertificate: String, witnessedAt: String, witnessKey: Data, witnessSignature: Data) {
        self.head = head
        self.hostCertificate = hostCertificate
        self.witnessedAt = witnessedAt
        self.witnessKey = witnessKey
        self.witnessSignature = witnessSignature
    }

    /// A countersigned head read from the wire or the witness's store, checked: the head and its
    /// signature, the fields' format and the witness's signature.
    ///
    /// - Throws: `WitnessError.malformed` or `.badSignature`.
    public init(_ message: Escrow_V1_WitnessedHead) throws(WitnessError) {
        guard message.hasHead else { throw .malformed("the countersigned head carries no head") }
        let head = try SignedAuditHead(message.head)
        guard WitnessHex.isHex(message.hostCertificate, count: 64) else {
            throw .malformed("the host certificate's hash is not 64 lower-case hex digits")
        }
        guard !message.witnessedAt.isEmpty, message.witnessedAt.utf8.count <= SignedAuditHead.maximumTimeLength else {
            throw .malformed("the witnessing time is empty or over \(SignedAuditHead.maximumTimeLength) bytes")
        }
        guard message.witnessKey.count == 32 else { throw .malformed("the witness key has \(message.witnessKey.count) bytes, not 32") }
        guard message.witnessSignature.count == 64 else {
            throw .malformed("the witness signature has \(message.witnessSignature.count) bytes, not 64")
        }
        let bytes = Self.signedBytes(head, hostCertificate: message.hostCertificate, witnessedAt: message.witnessedAt,
                                     witnessKey: message.witnessKey)
        guard let key = try? Curve25519.Signing.PublicKey(rawRepresentation: message.witnessKey),
              key.isValidSignature(message.witnessSignature, for: bytes) else { throw .badSignature("the witness's") }
        self.init(head: head, hostCertificate: message.hostCertificate, witnessedAt: message.witnessedAt,
                  witnessKey: message.witnessKey, witnessSignature: message.witnessSignature)
    }

    /// The countersigned head as a protobuf message.
    public var message: Escrow_V1_WitnessedHead {
        .with {
            $0.head = head.message
            $0.hostCertificate = hostCertificate
            $0.witnessedAt = witnessedAt
            $0.witnessKey = witnessKey
            $0.witnessSignature = witnessSignature
        }
    }

    /// The countersigned head as bytes to keep (a serialized `WitnessedHead` message).
    public func serialized() throws(WitnessError) -> [UInt8] {
        do {
            return try message.serializedBytes()
        } catch {
            throw .storage("cannot encode a countersigned head: \(error)")
        }
    }

    /// A countersigned head kept as `serialized()` wrote it, checked like one from the wire.
    ///
    /// - Throws: `WitnessError.malformed` for bytes that are not a `WitnessedHead`, or as
    ///   `init(_:)`.
    public init(serialized bytes: [UInt8]) throws(WitnessError) {
        let message: Escrow_V1_WitnessedHead
        do {
            message = try Escrow_V1_WitnessedHead(serializedBytes: bytes)
        } catch {
            throw .malformed("not a countersigned head (\(error))")
        }
        try self.init(message)
    }

    /// The witness key as lower-case hex.
    public var witnessKeyHex: String { WitnessHex.encode(witnessKey) }

    private static func signedBytes(_ head: SignedAuditHead, hostCertificate: String, witnessedAt: String,
                                    witnessKey: Data) -> [UInt8] {
        var bytes = SignedBytes("escrow.audit-witness.v1")
        bytes.append(hostCertificate)
        bytes.append(head.seq)
        bytes.append(head.entryHash)
        bytes.append(head.time)
        bytes.append(head.hostKeyHex)
        bytes.append(WitnessHex.encode(head.hostSignature))
        bytes.append(witnessedAt)
        bytes.append(WitnessHex.encode(witnessKey))
        return bytes.bytes
    }
}
