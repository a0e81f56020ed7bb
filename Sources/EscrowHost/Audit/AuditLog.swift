import EscrowCore
import EscrowEgress
import EscrowStore

/// The append-only, hash-chained audit log of every run attempt.
///
/// Each entry carries the hash of the entry before it and a hash of its own contents (SHA-256
/// over a canonical encoding); the newest entry's number and hash are kept beside the log, in the
/// same transaction. `verify()` therefore detects an edited field, a deleted entry, reordered
/// entries and a log cut short.
///
/// Durability: `append` returns after the entry is committed (WAL; survives a killed process, and
/// with `AuditDurability.powerLoss` also power loss).
///
/// Thread safety: may be shared; appends from any number of tasks and processes are serialised
/// by the state database's write lock, so sequence numbers never repeat or skip.
public struct AuditLog: Sendable {
    public let state: StateDatabase

    static let genesis = String(repeating: "0", count: 64)

    public init(state: StateDatabase) {
        self.state = state
    }

    /// Appends an entry and commits it.
    ///
    /// - Throws: `AuditError` when the entry could not be committed.
    @discardableResult
    public func append(_ facts: AuditDraft) throws(AuditError) -> AuditEntry {
        do {
            return try state.write { database in
                let head = try database.cached("SELECT seq, hash FROM AuditHead WHERE id = 1")
                defer { head.reset() }
                var seq = 1
                var prevHash = Self.genesis
                if try head.step() {
                    seq = Int(head.int64(0)) + 1
                    prevHash = head.string(1) ?? Self.genesis
                }
                let time = state.clock.now().text
                let hash = AuditEntry.computeHash(seq: seq, time: time, facts: facts, prevHash: prevHash)
                try database.cached("""
                    INSERT INTO AuditEntry (seq, time, flowId, app, purpose, functionId, outcome, reason, reads, rowsRead,
                        bytesToCompute, destination, bytesSent, bytesReceived, serverLatencyMs, durationMs, outputSHA256,
                        prevHash, hash, caller, serverComputeMs, locationAccuracy, locationRadius, locationK, locationRuns,
                        moduleSHA256, attempts)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """).run([
                        .integer(Int64(seq)), .text(time), .nullable(facts.flowID), .text(facts.app), .text(facts.purpose),
                        .text(facts.functionID), .text(facts.outcome.rawValue), .nullable(facts.reason),
                        .text(JSONStrings.encode(facts.reads)), .integer(Int64(facts.rowsRead)),
                        .integer(Int64(facts.bytesToCompute)), .text(facts.destination), .integer(Int64(facts.bytesSent)),
                        .integer(Int64(facts.bytesReceived)), .nullable(facts.serverLatencyMs), .real(facts.durationMs),
                        .nullable(facts.outputSHA256), .text(prevHash), .text(hash), .nullable(facts.caller),
                        .nullable(facts.serverComputeMs), .nullable(facts.location?.accuracy),
                        .nullable(facts.location?.radius), facts.location?.k.map { .integer(Int64($0)) },
                        facts.location.map { .integer(Int64($0.runs)) }, .nullable(facts.moduleSHA256),
                        facts.attempts.isEmpty ? nil : .text(facts.attempts.stored),
                    ])
                if !facts.egress.isEmpty {
                    let insert = try database.cached("""
                        INSERT INTO EgressRequest (auditSeq, position, time, host, domain, method, bytesOut, bytesIn, status,
                            blocked, tracker, sentData)
                        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                        """)
                    for (position, record) in facts.egress.enumerated() {
                        let observation = record.observation
                        try insert.run([
                            .integer(Int64(seq)), .integer(Int64(position)), .integer(observation.time), .text(observation.host),
                            .text(record.domain), .text(observation.method), .integer(Int64(observation.bytesOut)),
                            .integer(Int64(observation.bytesIn)), observation.status.map { .integer(Int64($0)) },
                            .integer(observation.blocked ? 1 : 0), .nullable(record.tracker), .integer(observation.sentData ? 1 : 0),
                        ])
                    }
                }
                try database.cached("""
                    INSERT INTO AuditHead (id, seq, hash) VALUES (1, ?, ?)
                    ON CONFLICT(id) DO UPDATE SET seq = excluded.seq, hash = excluded.hash
                    """).run([.integer(Int64(seq)), .text(hash)])
                return AuditEntry(seq: seq, time: time, facts: facts, prevHash: prevHash, hash: hash)
            }
        } catch {
            throw AuditError(error)
        }
    }

    /// Entries matching `filter`, oldest first (at most `limit`, the newest ones).
    public func entries(_ filter: AuditFilter = AuditFilter(), limit: Int? = nil) throws -> [AuditEntry] {
        try state.read { database in
            let query = try database.prepare("""
                SELECT * FROM (
                    SELECT \(Self.columns) FROM AuditEntry
                    WHERE (?1 IS NULL OR app = ?1)
                      AND (?2 IS NULL OR substr(flowId, 1, length(?2)) = ?2)
                      AND (?3 IS NULL OR time >= ?3)
                      AND (?4 IS NULL OR outcome = ?4)
                    ORDER BY seq DESC LIMIT ?5
                ) ORDER BY seq
                """)
            try query.bind(.nullable(filter.app), at: 1)
            try query.bind(.nullable(filter.flow), at: 2)
            try query.bind(.nullable(filter.since.map { Timestamp.format(secondsSince1970: $0) }), at: 3)
            try query.bind(.nullable(filter.outcome?.rawValue), at: 4)
            try query.bind(.integer(Int64(limit ?? -1)), at: 5)
            var entries: [AuditEntry] = []
            while try query.step() { entries.append(try Self.entry(query)) }
            guard let first = entries.first?.seq, let last = entries.last?.seq else { return entries }
            let egress = try EgressRows.load(seqs: first...last, in: database)
            for index in entries.indices {
                if let records = egress[entries[index].seq] { entries[index].facts.egress = records }
            }
            return entries
        }
    }

    /// The entry numbered `seq`, or nil.
    public func entry(_ seq: Int) throws -> AuditEntry? {
        try state.read { database in
            let query = try database.prepare("SELECT \(Self.columns) FROM AuditEntry WHERE seq = ?")
            try query.bind(.integer(Int64(seq)), at: 1)
            guard try query.step() else { return nil }
            var entry = try Self.entry(query)
            entry.facts.egress = try EgressRows.load(seqs: seq...seq, in: database)[seq] ?? []
            return entry
        }
    }

    /// Checks the whole chain: numbering, links, contents and the recorded head.
    public func verify() throws -> AuditVerification {
        let chain = try verifyChain()
        // A chain that checks out from the retention checkpoint on may still start from a
        // checkpoint the retention setting cannot have written (one moved forward by hand).
        if case .intact = chain, let (seq, reason) = try checkpointContradiction() {
            return .broken(seq: seq, reason: reason)
        }
        return chain
    }

    /// Numbering, links, contents and the recorded head, from the retention checkpoint on.
    private func verifyChain() throws -> AuditVerification {
        try state.read { database in
            let query = try database.prepare("SELECT \(Self.columns) FROM AuditEntry ORDER BY seq")
            var expected = 1
            var prevHash = Self.genesis
            // Entries up to the retention checkpoint were deleted; the chain goes on from its hash.
            if let checkpoint = try Self.checkpoint(in: database) {
                expected = checkpoint.seq + 1
                prevHash = checkpoint.hash
            }
            let firstKept = expected
            let rows = try database.prepare(EgressRows.selectFrom)
            try rows.bind(.integer(Int64(firstKept)), at: 1)
            var egress = EgressRows.Cursor(rows)
            while try query.step() {
                var entry: AuditEntry
                do throws(StoreError) {
                    entry = try Self.entry(query)
                    entry.facts.egress = try egress.records(of: entry.seq)
                } catch {
                    guard case .unreadableValue(_, _, let column) = error.kind else { throw error }
                    return .broken(seq: Int(query.int64(0)),
                                   reason: "its contents were altered after it was written (its \(column) cannot be read back)")
                }
                if let orphan = egress.skipped {
                    return .broken(seq: orphan, reason: "recorded requests of entry \(orphan) remain, but the entry does not: entries were deleted")
                }
                if entry.seq != expected {
                    return .broken(seq: expected, reason: entry.seq > expected
                        ? "entry \(expected) is missing: entries were deleted"
                        : "entry \(entry.seq) appears twice")
                }
                if entry.prevHash != prevHash {
                    return .broken(seq: entry.seq, reason: "does not follow entry \(entry.seq - 1): entries were removed, reordered or altered")
                }
                let recomputed = AuditEntry.computeHash(seq: entry.seq, time: entry.time, facts: entry.facts, prevHash: entry.prevHash)
                if recomputed != entry.hash {
                    return .broken(seq: entry.seq, reason: "its contents were altered after it was written")
                }
                prevHash = entry.hash
                expected += 1
            }
            if let orphan = try egress.remaining() {
                return .broken(seq: orphan, reason: "requests are recorded for entry \(orphan), which the log does not hold")
            }
            let count = expected - 1
            let kept = expected - firstKept
            let head = try database.prepare("SELECT seq, hash FROM AuditHead WHERE id = 1")
            guard try head.step() else {
                return count == 0 ? .intact(entries: 0) : .broken(seq: 1, reason: "the log's head record is missing")
            }
            let headSeq = Int(head.int64(0))
            if headSeq > count {
                return .broken(seq: count + 1, reason: "entries \(count + 1)…\(headSeq) are missing: the log was truncated")
            }
            if headSeq < count {
                return .broken(seq: headSeq + 1, reason: "entries after \(headSeq) were not written by the escrow")
            }
            if head.string(1) != prevHash {
                return .broken(seq: count, reason: "the newest entry does not match the log's head record")
            }
            return .intact(entries: kept)
        }
    }

    /// The retention checkpoint: the newest entry deleted so far (nil when none was).
    public func checkpoint() throws -> AuditCheckpoint? {
        try state.read { database in try Self.checkpoint(in: database) }
    }

    static func checkpoint(in database: Database) throws(StoreError) -> AuditCheckpoint? {
        let query = try database.cached("SELECT seq, hash, time, deletedAt FROM AuditCheckpoint WHERE id = 1")
        defer { query.reset() }
        guard try query.step() else { return nil }
        return AuditCheckpoint(seq: Int(query.int64(0)), hash: query.string(1) ?? "", time: query.string(2) ?? "",
                               deletedAt: query.string(3) ?? "")
    }

    private static let columns = """
        seq, time, flowId, app, purpose, functionId, outcome, reason, reads, rowsRead, bytesToCompute, destination,
        bytesSent, bytesReceived, serverLatencyMs, durationMs, outputSHA256, prevHash, hash, caller, serverComputeMs,
        locationAccuracy, locationRadius, locationK, locationRuns, moduleSHA256, attempts
        """

    /// - Throws: `StoreError.unreadableValue` when its stored `reads` cannot be read back.
    private static func entry(_ row: Statement) throws(StoreError) -> AuditEntry {
        var facts = AuditDraft(
            flowID: row.string(2), app: row.string(3) ?? "", purpose: row.string(4) ?? "", functionID: row.string(5) ?? "",
            outcome: AuditOutcome(rawValue: row.string(6) ?? "") ?? .failed, reason: row.string(7),
            destination: row.string(11) ?? ""
        )
        facts.reads = try JSONStrings.decode(row.string(8), table: "audit entry", record: String(row.int64(0)), column: "reads")
        facts.rowsRead = Int(row.int64(9))
        facts.bytesToCompute = Int(row.int64(10))
        facts.bytesSent = Int(row.int64(12))
        facts.bytesReceived = Int(row.int64(13))
        facts.serverLatencyMs = row.isNull(14) ? nil : row.double(14)
        facts.durationMs = row.double(15)
        facts.outputSHA256 = row.string(16)
        facts.caller = row.string(19)
        facts.serverComputeMs = row.isNull(20) ? nil : row.double(20)
        if let accuracy = row.string(21) {
            facts.location = AuditLocation(accuracy: accuracy, radius: row.isNull(22) ? nil : row.double(22),
                                           k: row.isNull(23) ? nil : Int(row.int64(23)), runs: Int(row.int64(24)))
        }
        facts.moduleSHA256 = row.string(25)
        if let attempts = row.string(26) { facts.attempts = try .decodeStored(attempts, seq: Int(row.int64(0))) }
        return AuditEntry(seq: Int(row.int64(0)), time: row.string(1) ?? "", facts: facts,
                          prevHash: row.string(17) ?? "", hash: row.string(18) ?? "")
    }
}
