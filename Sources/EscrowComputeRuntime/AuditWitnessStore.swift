import EscrowWire
import Crypto
import EscrowCore
import Foundation
import SwiftProtobuf
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// A witness's durable store: per escrow host (by the SHA-256 of its TLS client certificate) the
/// countersigned audit heads it holds, and the witness's own Ed25519 key.
///
/// The folder holds `witness-key` (the key, mode 0600, created on first start), `lock` (held
/// while a server uses the store, so two servers cannot write it at once) and `hosts/HASH.pb`,
/// one file per host: a serialized `WitnessState`, replaced atomically and fsynced on every
/// countersignature, so a head the witness answered survives a crash or a restart.
///
/// A head is countersigned only if it extends the latest one held for the host: a higher seq,
/// with `previousHash` equal to the held hash (or the same seq and hash again), signed by the
/// same host key. The store keeps at most `maximumHeadsPerHost` heads per host (the first, the
/// latest, older ones thinned out evenly) and heads of at most `maximumHosts` hosts.
///
/// Thread safety: may be shared; one countersignature at a time (a lock), each written before
/// it is returned.
public final class AuditWitnessStore: Sendable {
    /// The store's folder.
    public let folder: URL
    /// The witness's Ed25519 key, raw (the key type itself is not `Sendable`).
    private let key: Data
    /// The witness's public key (32 bytes): what hosts pin.
    public let publicKey: Data
    /// The public key as lower-case hex (as hosts show it when they pin it).
    public var publicKeyHex: String { WitnessHex.encode(publicKey) }
    private let hostCount: Mutex<Int>
    /// The open descriptor holding the store's lock, for the life of the process.
    private let lockDescriptor: Int32
    /// The clock a countersignature's time (`witnessedAt`) is read from.
    public let clock: any WallClock

    /// Heads kept per host.
    public static let maximumHeadsPerHost = 32
    /// Hosts a store keeps heads for; a new host beyond this is refused.
    public static let maximumHosts = 100_000

    /// Opens (creating when needed) the store in `folder`.
    ///
    /// - Parameter clock: the time countersignatures carry (the system's by default).
    /// - Throws: `WitnessError.storage` when the folder or key cannot be made or read, or another
    ///   process holds the store's lock.
    public init(folder path: String, clock: any WallClock = .system) throws(WitnessError) {
        folder = URL(fileURLWithPath: path, isDirectory: true)
        self.clock = clock
        let hosts = folder.appendingPathComponent("hosts", isDirectory: true)
        do {
            try FileManager.default.createDirectory(at: hosts, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw .storage("cannot create the folder \(hosts.path); give a --witness-store whose parent folder exists and is writable by this user")
        }
        let lockPath = folder.appendingPathComponent("lock").path
        lockDescriptor = open(lockPath, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard lockDescriptor >= 0 else { throw .storage("cannot open \(lockPath): \(String(cString: strerror(errno)))") }
        guard flock(lockDescriptor, LOCK_EX | LOCK_NB) == 0 else {
            close(lockDescriptor)
            throw .storage("another process uses the witness store \(path); stop it or give another --witness-store")
        }
        do {
            let signingKey = try SigningKeyFile.loadOrCreate(at: folder.appendingPathComponent("witness-key").path)
            key = signingKey.rawRepresentation
            publicKey = signingKey.publicKey.rawRepresentation
        } catch {
            close(lockDescriptor)
            throw error
        }
        let files = (try? FileManager.default.contentsOfDirectory(atPath: hosts.path)) ?? []
        hostCount = Mutex(files.filter { $0.hasSuffix(".pb") }.count)
    }

    deinit {
        close(lockDescriptor)
    }


    /// The heads held for the host whose certificate hashes to `host`, oldest first.
    ///
    /// - Throws: `WitnessError.storage` when the host's file cannot be read or is corrupt.
    public func heads(for host: String) throws(WitnessError) -> [WitnessedAuditHead] {
        try hostCount.withLock { _ throws(WitnessError) in try read(host) }
    }

    /// Countersigns `request`'s head for `host` if it extends the latest head held, stores it
    /// (durably) and returns it. The countersignature's time is `clock`'s now.
    ///
    /// - Throws: `WitnessError.malformed`/`.badSignature` for a bad head, `.refused` for a head
    ///   that does not extend the held one (rollback, fork, another previous hash or host key),
    ///   `.storage` when it cannot be stored.
    public func witness(_ request: Escrow_V1_WitnessRequest, host: String) throws(WitnessError) -> WitnessedAuditHead {
        guard request.hasHead else { throw .malformed("the request carries no head") }
        let head = try SignedAuditHead(request.head)
        return try hostCount.withLock { count throws(WitnessError) in
            var heads = try read(host)
            if let latest = heads.last {
                let held = latest.head
                guard head.hostKey == held.hostKey else {
                    throw .refused("refused: the head is signed by another host key than the one this witness holds heads of (\(held.hostKeyHex.prefix(16))…); an escrow whose audit key changed needs the witness's operator to remove its file")
                }
                guard head.seq >= held.seq else {
                    throw .refused("refused as a rollback: this witness countersigned seq \(held.seq) for this host at \(latest.witnessedAt), and seq \(head.seq) is lower")
                }
                if head.seq == held.seq {
                    guard head.entryHash == held.entryHash else {
                        throw .refused("refused as a fork: this witness countersigned seq \(held.seq) for this host with another entry hash at \(latest.witnessedAt)")
                    }
                    return latest
                }
                guard request.previousSeq == UInt64(held.seq), request.previousHash == held.entryHash else {
                    throw .refused("refused: the request's previous head (seq \(request.previousSeq)) is not the one this witness holds (seq \(held.seq), witnessed at \(latest.witnessedAt)): the log was rewritten before it, or the request is stale")
                }
            } else {
                guard count < Self.maximumHosts else {
                    throw .refused("refused: this witness holds heads of \(Self.maximumHosts) hosts, its limit")
                }
            }
            let signingKey: Curve25519.Signing.PrivateKey
            do {
                signingKey = try Curve25519.Signing.PrivateKey(rawRepresentation: key)
            } catch {
                throw .storage("the witness key read from \(folder.path) at start is not usable: \(error)")
            }
            let witnessed = try WitnessedAuditHead.countersign(head, hostCertificate: host, witnessedAt: clock.now().text, with: signingKey)
            let isNew = heads.isEmpty
            heads.append(witnessed)
            heads = Self.thinned(heads, keeping: Self.maximumHeadsPerHost)
            try write(heads, for: host)
            if isNew { count += 1 }
            return witnessed
        }
    }

    /// At most `limit` heads: the first and the latest always; while there are more, the head
    /// whose neighbours are closest (by seq) goes, so the kept ones stay spread evenly over the
    /// whole log, however many heads a host sends.
    static func thinned(_ heads: [WitnessedAuditHead], keeping limit: Int) -> [WitnessedAuditHead] {
        var heads = heads
        while heads.count > max(limit, 2) {
            var densest = 1
            for index in 1..<(heads.count - 1)
            where heads[index + 1].head.seq - heads[index - 1].head.seq < heads[densest + 1].head.seq - heads[densest - 1].head.seq {
                densest = index
            }
            heads.remove(at: densest)
        }
        return heads
    }

    private func path(_ host: String) throws(WitnessError) -> String {
        // The hash comes from the server's own reading of the TLS certificate, but is checked
        // anyway: it becomes a file name.
        guard WitnessHex.isHex(host, count: 64) else { throw .malformed("the host's certificate hash is not 64 hex digits") }
        return folder.appendingPathComponent("hosts/\(host).pb").path
    }

    private func read(_ host: String) throws(WitnessError) -> [WitnessedAuditHead] {
        let path = try path(host)
        guard let data = FileManager.default.contents(atPath: path) else { return [] }
        let state: Escrow_V1_WitnessState
        do {
            state = try Escrow_V1_WitnessState(serializedBytes: data)
        } catch {
            throw .storage("the witness store's file \(path) is corrupt (\(error)); restore it from a backup")
        }
        var heads: [WitnessedAuditHead] = []
        for message in state.heads {
            do {
                heads.append(try WitnessedAuditHead(message))
            } catch {
                throw .storage("the witness store's file \(path) holds a head that does not verify (\(error)); restore it from a backup")
            }
        }
        return heads
    }

    private func write(_ heads: [WitnessedAuditHead], for host: String) throws(WitnessError) {
        let path = try path(host)
        let state = Escrow_V1_WitnessState.with { $0.heads = heads.map(\.message) }
        let bytes: [UInt8]
        do {
            bytes = try state.serializedBytes()
        } catch {
            throw .storage("cannot encode the heads of host \(host.prefix(16))…: \(error)")
        }
        try DurableFile.write(bytes, to: path)
    }
}
