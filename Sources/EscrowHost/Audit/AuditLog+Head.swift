import Crypto
import EscrowCore
import EscrowWire
import EscrowStore
import Foundation

extension AuditLog {
    /// The file of the host's Ed25519 audit key, which signs the log's head: `<home>/audit-key`
    /// (mode 0600; made on first use). Anyone who can read the home can read it too: a signed
    /// head proves nothing against them; a witness's countersignature does (docs/AUDIT.md).
    public var signingKeyPath: String { state.home.url.appendingPathComponent("audit-key").path }

    /// The number and hash of the newest entry, as the log's head record names them; nil for an
    /// empty log.
    public func head() throws -> (seq: Int, hash: String)? {
        try state.read { database in
            let query = try database.prepare("SELECT seq, hash FROM AuditHead WHERE id = 1")
            guard try query.step() else { return nil }
            return (Int(query.int64(0)), query.string(1) ?? "")
        }
    }

    /// The number of the newest entry the log holds or deleted by retention (0 when it is empty),
    /// whatever the head says.
    public func lastSeq() throws -> Int {
        try state.read { database in
            Int(try database.scalarInt("""
                SELECT max(coalesce((SELECT max(seq) FROM AuditEntry), 0), coalesce((SELECT seq FROM AuditCheckpoint), 0))
                """) ?? 0)
        }
    }

    /// The log's head signed with the host's audit key (made now if the home has none); nil for
    /// an empty log.
    ///
    /// - Throws: `WitnessError.storage` when the key cannot be read or made, `StoreError` when
    ///   the head cannot be read.
    public func signedHead() throws -> SignedAuditHead? {
        guard let head = try head() else { return nil }
        let key = try SigningKeyFile.loadOrCreate(at: signingKeyPath)
        return try SignedAuditHead.sign(seq: head.seq, entryHash: head.hash, time: state.clock.now().text, with: key)
    }

    /// The host's audit public key, 32 bytes (the key is made now if the home has none).
    public func signingPublicKey() throws(WitnessError) -> Data {
        try SigningKeyFile.loadOrCreate(at: signingKeyPath).publicKey.rawRepresentation
    }
}
