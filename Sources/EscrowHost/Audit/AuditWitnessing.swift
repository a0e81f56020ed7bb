import EscrowCore
import EscrowWire
import EscrowStore
import Foundation
import Logging
import Synchronization

/// A compute server the host sends its signed audit head to.
public struct AuditWitnessRecord: Sendable, Hashable {
    /// The registered compute server's id.
    public let serverID: String
    /// The witness's Ed25519 public key (hex), pinned on first use; nil before.
    public let witnessKey: String?
    public let addedAt: String
}

/// What one push of the audit head to one witness came to.
public struct WitnessPushResult: Sendable, Hashable {
    public let serverID: String
    /// The countersigned head, when the witness countersigned.
    public let witnessed: WitnessedAuditHead?
    /// Why not, in words, when it did not (unreachable, refused, a conflict with the log here).
    public let problem: String?
}

/// Anchors the audit log outside the escrow home: sends the host's signed head to the witnesses
/// (registered compute servers started with `--witness-store`), keeps their countersignatures,
/// and checks the log against the heads they countersigned.
///
/// Pushing never delays or fails a run: the daemon calls `schedule()` after runs (one push at a
/// time; runs meanwhile make one more push when it ends), the one-shot CLI `push(timeout:)`s at
/// exit. Before countersigning, a witness must be shown the host's entry hash at the latest seq
/// it holds; when that entry is missing or differs here, nothing is pushed and the conflict is
/// reported (`escrow audit verify` names it).
///
/// Thread safety: may be shared by all runs of a host.
public final class AuditWitnessing: Sendable {
    private let audit: AuditLog
    private let servers: ServerRegistry
    private let logger: Logger
    /// Whether a scheduled push is running, and whether another was asked for meanwhile.
    private let pushing = Mutex((running: false, again: false))
    /// The last problem a background push logged as a warning, per witness (a witness that stays
    /// down is one warning, not one per run).
    private let warned = Mutex<[String: String]>([:])

    public init(audit: AuditLog, servers: ServerRegistry, logger: Logger) {
        self.audit = audit
        self.servers = servers
        self.logger = logger
    }

    private var state: StateDatabase { audit.state }

    // MARK: Witnesses

    /// Makes the registered compute server `serverID` a witness of this log.
    ///
    /// - Throws: `ServerError.unknownServer`; `WitnessingError.alreadyWitness`.
    public func add(_ serverID: String) throws {
        _ = try servers.server(serverID)
        try state.write { database in
            let existing = try database.prepare("SELECT 1 FROM AuditWitness WHERE serverId = ?")
            try existing.bind(.text(serverID), at: 1)
            if try existing.step() { throw WitnessingError.alreadyWitness(serverID) }
            try database.prepare("INSERT INTO AuditWitness (serverId, witnessKey, addedAt) VALUES (?, NULL, ?)")
                .run([.text(serverID), .text(state.clock.now().text)])
        }
    }

    /// Stops sending heads to `serverID` (the heads it countersigned stay, as evidence).
    ///
    /// - Throws: `WitnessingError.notAWitness`.
    public func remove(_ serverID: String) throws {
        try state.write { database in
            try database.prepare("DELETE FROM AuditWitness WHERE serverId = ?").run([.text(serverID)])
            guard database.changes == 1 else { throw WitnessingError.notAWitness(serverID) }
        }
    }

    /// The witnesses, by server id.
    public func witnesses() throws -> [AuditWitnessRecord] {
        try state.read { database in
            let query = try database.prepare("SELECT serverId, witnessKey, addedAt FROM AuditWitness ORDER BY serverId")
            var records: [AuditWitnessRecord] = []
            while try query.step() {
                records.append(AuditWitnessRecord(serverID: query.string(0) ?? "", witnessKey: query.string(1),
                                                  addedAt: query.string(2) ?? ""))
            }
            return records
        }
    }

    /// The newest countersigned head kept here for each server that witnessed, as stored: nil
    /// in place of a head whose stored proof does not verify (it was altered).
    public func storedHeads() throws -> [(serverID: String, seq: Int, head: WitnessedAuditHead?)] {
        try state.read { database in
            let query = try database.prepare("SELECT serverId, seq, proof FROM WitnessedHead ORDER BY serverId")
            var heads: [(serverID: String, seq: Int, head: WitnessedAuditHead?)] = []
            while try query.step() {
                let proof = Hex.decode(query.string(2) ?? "").flatMap { try? WitnessedAuditHead(serialized: $0) }
                heads.append((query.string(0) ?? "", Int(query.int64(1)), proof))
            }
            return heads
        }
    }

    // MARK: Pushing

    /// Starts a push in the background unless one is running; then that one pushes once more
    /// when it ends. Returns at once; failures are logged, never thrown.
    public func schedule() {
        let start = pushing.withLock { flags -> Bool in
            if flags.running {
                flags.again = true
                return false
            }
            flags.running = true
            return true
        }
        guard start else { return }
        Task.detached { [self] in
            while true {
                // Nobody else hears of a background push: a new failure is a warning in the log.
                for result in await push(timeout: .seconds(10)) {
                    let isNew = warned.withLock { warned -> Bool in
                        defer { warned[result.serverID] = result.problem }
                        return result.problem != nil && warned[result.serverID] != result.problem
                    }
                    if isNew, let problem = result.problem {
                        logger.warning("audit head not witnessed", metadata: ["witness": "\(result.serverID)", "error": "\(problem)"])
                    }
                }
                let again = pushing.withLock { flags -> Bool in
                    if flags.again {
                        flags.again = false
                        return true
                    }
                    flags.running = false
                    return false
                }
                if !again { return }
            }
        }
    }

    /// Sends the log's current signed head to every witness and keeps their countersignatures.
    /// Failures are the caller's to report (they are logged at level info only).
    ///
    /// - Parameter timeout: per witness, for connecting and for each answer.
    /// - Returns: one result per witness (none when there are none or the log is empty).
    public func push(timeout: Duration) async -> [WitnessPushResult] {
        let witnesses: [AuditWitnessRecord]
        do {
            witnesses = try self.witnesses()
        } catch {
            logger.warning("cannot read the audit witnesses", metadata: ["error": "\(error)"])
            return []
        }
        guard !witnesses.isEmpty else { return [] }
        let head: SignedAuditHead?
        do {
            head = try audit.signedHead()
        } catch {
            logger.info("cannot sign the audit head", metadata: ["error": "\(error)"])
            return witnesses.map {
                WitnessPushResult(serverID: $0.serverID, witnessed: nil, problem: "cannot sign the audit head: \(error)")
            }
        }
        guard let head else { return [] }
        return await withTaskGroup(of: WitnessPushResult.self) { group in
            for witness in witnesses {
                group.addTask { await self.push(head, to: witness, timeout: timeout) }
            }
            var results: [WitnessPushResult] = []
            for await result in group { results.append(result) }
            return results.sorted { $0.serverID < $1.serverID }
        }
    }

    private func push(_ head: SignedAuditHead, to witness: AuditWitnessRecord, timeout: Duration) async -> WitnessPushResult {
        let id = witness.serverID
        do {
            let witnessed = try await withConnection(to: id, timeout: timeout) { connection in
                let held = try await connection.witnessedHeads(deadline: timeout)
                for earlier in held { try pin(earlier, of: witness) }
                var previousSeq = 0
                var previousHash = ""
                if let latest = held.last {
                    if let problem = try contradiction(latest, by: id) {
                        throw WitnessingError.conflict("not sent: \(problem)")
                    }
                    previousSeq = latest.head.seq
                    previousHash = latest.head.entryHash
                }
                return try await connection.witness(head, previousSeq: previousSeq, previousHash: previousHash, deadline: timeout)
            }
            try pin(witnessed, of: witness)
            try keep(witnessed, from: id)
            logger.info("audit head witnessed", metadata: ["witness": "\(id)", "seq": "\(witnessed.head.seq)"])
            return WitnessPushResult(serverID: id, witnessed: witnessed, problem: nil)
        } catch {
            logger.info("audit head not witnessed", metadata: ["witness": "\(id)", "error": "\(error)"])
            return WitnessPushResult(serverID: id, witnessed: nil, problem: "\(error)")
        }
    }

    /// Runs `body` over a new connection to `serverID`, closed afterwards.
    private func withConnection<T: Sendable>(to serverID: String, timeout: Duration,
                                             _ body: (ComputeConnection) async throws -> T) async throws -> T {
        try await servers.connect(to: serverID, timeout: timeout).closing(after: body)
    }

    /// Pins the witness's key on first use; afterwards a head signed by another key is refused.
    private func pin(_ witnessed: WitnessedAuditHead, of witness: AuditWitnessRecord) throws {
        let key = witnessed.witnessKeyHex
        if let pinned = witness.witnessKey {
            guard pinned == key else { throw WitnessingError.keyChanged(server: witness.serverID, pinned: pinned, answered: key) }
            return
        }
        try state.write { database in
            try database.prepare("UPDATE AuditWitness SET witnessKey = ? WHERE serverId = ? AND witnessKey IS NULL")
                .run([.text(key), .text(witness.serverID)])
            let pinned = try database.prepare("SELECT witnessKey FROM AuditWitness WHERE serverId = ?")
            try pinned.bind(.text(witness.serverID), at: 1)
            if try pinned.step(), let stored = pinned.string(0), stored != key {
                throw WitnessingError.keyChanged(server: witness.serverID, pinned: stored, answered: key)
            }
        }
    }

    /// Keeps `witnessed` as the newest head `serverID` countersigned, unless a newer one is kept.
    private func keep(_ witnessed: WitnessedAuditHead, from serverID: String) throws {
        let proof = Hex.encode(try witnessed.serialized())
        try state.write { database in
            try database.prepare("""
                INSERT INTO WitnessedHead (serverId, seq, hash, witnessedAt, proof) VALUES (?, ?, ?, ?, ?)
                ON CONFLICT(serverId) DO UPDATE SET seq = excluded.seq, hash = excluded.hash,
                    witnessedAt = excluded.witnessedAt, proof = excluded.proof
                WHERE excluded.seq >= WitnessedHead.seq
                """).run([.text(serverID), .integer(Int64(witnessed.head.seq)), .text(witnessed.head.entryHash),
                          .text(witnessed.witnessedAt), .text(proof)])
        }
    }

    // MARK: Checking

    /// Checks the log against every head its witnesses countersigned: those kept here and those
    /// each reachable witness holds (so deleting the copies here does not help).
    ///
    /// - Parameter timeout: per witness, for connecting and answering.
    public func check(timeout: Duration) async throws -> WitnessCheck {
        var check = WitnessCheck(lastSeq: try audit.lastSeq())
        let witnesses = try witnesses()
        let stored = try storedHeads()
        // Without witnesses there is nothing to check (and no audit key to make: verify stays
        // read-only for a home that never used one).
        guard !witnesses.isEmpty || !stored.isEmpty else { return check }
        let hostKey = try audit.signingPublicKey()
        let pinned = Dictionary(witnesses.map { ($0.serverID, $0.witnessKey) }, uniquingKeysWith: { first, _ in first })
        for stored in stored {
            guard let head = stored.head else {
                check.contradictions.append("the head witness \(stored.serverID) countersigned for entry \(stored.seq), kept here, was altered: its signatures do not verify")
                continue
            }
            try note(head, by: stored.serverID, pinned: pinned[stored.serverID] ?? nil, hostKey: hostKey, into: &check)
        }
        for witness in witnesses {
            do {
                let held = try await withConnection(to: witness.serverID, timeout: timeout) { connection in
                    try await connection.witnessedHeads(deadline: timeout)
                }
                check.asked.append(witness.serverID)
                for head in held { try note(head, by: witness.serverID, pinned: witness.witnessKey, hostKey: hostKey, into: &check) }
            } catch {
                check.unreachable.append((witness.serverID, "\(error)"))
            }
        }
        return check
    }

    /// Adds one countersigned head to `check`: its contradiction with the log, or as the newest
    /// witnessed head when it is.
    private func note(_ witnessed: WitnessedAuditHead, by serverID: String, pinned: String?, hostKey: Data,
                      into check: inout WitnessCheck) throws {
        if let pinned, pinned != witnessed.witnessKeyHex {
            let problem = "\(WitnessingError.keyChanged(server: serverID, pinned: pinned, answered: witnessed.witnessKeyHex))"
            if !check.contradictions.contains(problem) { check.contradictions.append(problem) }
            return
        }
        guard witnessed.head.hostKey == hostKey else {
            let problem = "witness \(serverID) countersigned entry \(witnessed.head.seq) signed by audit key \(witnessed.head.hostKeyHex.prefix(16))…, not by this escrow's key \(Hex.encode(hostKey).prefix(16))…: the audit key was replaced"
            if !check.contradictions.contains(problem) { check.contradictions.append(problem) }
            return
        }
        if let problem = try contradiction(witnessed, by: serverID) {
            if !check.contradictions.contains(problem) { check.contradictions.append(problem) }
            return
        }
        if witnessed.head.seq > check.newest?.head.head.seq ?? 0 {
            check.newest = (serverID, witnessed)
        }
    }

    /// Why the log here contradicts `witnessed`, or nil when its entry is there with that hash.
    private func contradiction(_ witnessed: WitnessedAuditHead, by serverID: String) throws -> String? {
        let seq = witnessed.head.seq
        guard let entry = try audit.entry(seq) else {
            if let checkpoint = try audit.checkpoint(), seq <= checkpoint.seq {
                // Deleted by the retention setting: only the newest deleted entry's hash is kept.
                guard seq == checkpoint.seq, checkpoint.hash != witnessed.head.entryHash else { return nil }
                return "entry \(seq)'s hash, kept at the retention checkpoint, differs from the head witness \(serverID) countersigned at \(witnessed.witnessedAt): the log was rewritten"
            }
            return "the log ends at entry \(try audit.lastSeq()) but witness \(serverID) countersigned entry \(seq) at \(witnessed.witnessedAt): entries were removed (the log was truncated)"
        }
        guard entry.hash == witnessed.head.entryHash else {
            return "entry \(seq)'s hash differs from the head witness \(serverID) countersigned at \(witnessed.witnessedAt): the log was rewritten"
        }
        return nil
    }
}

/// The audit log checked against the heads its witnesses countersigned.
public struct WitnessCheck: Sendable {
    /// The newest entry the log holds.
    public let lastSeq: Int
    /// The newest countersigned head the log agrees with, and which witness signed it.
    public var newest: (serverID: String, head: WitnessedAuditHead)?
    /// Heads the log contradicts (truncated or rewritten after they were witnessed), in words.
    public var contradictions: [String] = []
    /// Witnesses that could not be asked, and why.
    public var unreachable: [(serverID: String, reason: String)] = []
    /// Witnesses that answered.
    public var asked: [String] = []

    init(lastSeq: Int) {
        self.lastSeq = lastSeq
    }
}

/// A witness cannot be added, removed or trusted.
public enum WitnessingError: Error, Sendable, Equatable, CustomStringConvertible {
    case alreadyWitness(String)
    case notAWitness(String)
    /// The witness answered with another key than the one pinned on first use.
    case keyChanged(server: String, pinned: String, answered: String)
    /// The witness holds a head the log here contradicts.
    case conflict(String)

    public var description: String {
        switch self {
        case .alreadyWitness(let id):
            "compute server \(id) is already a witness of this audit log"
        case .notAWitness(let id):
            "compute server \(id) is not a witness of this audit log"
        case .keyChanged(let server, let pinned, let answered):
            "witness \(server) answered with key \(answered.prefix(16))…, not the key \(pinned.prefix(16))… pinned when it first countersigned; its answers are not trusted (if its operator really replaced the key, remove and add the witness again)"
        case .conflict(let reason):
            reason
        }
    }
}
