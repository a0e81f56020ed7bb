import EscrowCore
import EscrowStore

/// The newest audit entry deleted by the retention setting: the chain goes on from its hash.
public struct AuditCheckpoint: Sendable, Hashable {
    /// The last deleted entry's number; the oldest kept entry is `seq + 1`.
    public let seq: Int
    /// Its hash, which the oldest kept entry names as `prevHash` (and its own hash covers).
    public let hash: String
    /// Its time, ISO 8601 UTC.
    public let time: String
    /// When it was deleted, ISO 8601 UTC.
    public let deletedAt: String
}

/// How long the escrow keeps audit entries and the requests recorded with them.
public enum AuditRetention {
    /// The setting of the escrow home: whole days, or absent to keep everything.
    public static let settingName = "retention-days"
    /// The longest retention the setting takes (about 100 years).
    public static let maximumDays = 36_500

    /// The days in `value`, the setting's text.
    ///
    /// - Throws: `RetentionError` when it is not a whole number of days from 1 to `maximumDays`.
    public static func days(_ value: String) throws(RetentionError) -> Int {
        guard let days = Int(value), (1...maximumDays).contains(days) else { throw RetentionError(value: value) }
        return days
    }
}

/// A retention setting that is not a number of days.
public struct RetentionError: Error, Sendable, Equatable, CustomStringConvertible {
    public let value: String

    public var description: String {
        "\(AuditRetention.settingName) must be a whole number of days from 1 to \(AuditRetention.maximumDays), not '\(DisplayText.escaped(value))'"
    }
}

extension AuditLog {
    /// Deletes the entries (and their recorded requests) older than the home's retention setting,
    /// moving the checkpoint to the newest deleted one; nothing when the setting is absent.
    ///
    /// The oldest entries go first and never a newer one before an older: when the clock was set
    /// back, an old-looking entry after a kept one stays. The newest entry is kept as the head of
    /// the chain even when it is old, so `verify()` and the witnesses still have it.
    ///
    /// - Returns: how many entries were deleted.
    /// - Throws: `RetentionError` for a setting that is not a number of days; `StoreError`.
    @discardableResult
    public func applyRetention() throws -> Int {
        guard let value = try state.setting(AuditRetention.settingName) else { return 0 }
        let days = try AuditRetention.days(value)
        let now = state.clock.now()
        return try deleteEntries(before: now.seconds - Double(days) * 86_400, deletedAt: now.text)
    }

    /// Deletes the entries older than `cutoff` (seconds since 1970), oldest first, keeping the newest.
    func deleteEntries(before cutoff: Double, deletedAt: String) throws -> Int {
        try state.write { database in
            let cutoffText = Timestamp.format(secondsSince1970: cutoff)
            // The oldest entry to keep: the first one that is not old, or the newest.
            let firstKept = try database.cached("""
                SELECT coalesce(min(seq), (SELECT max(seq) FROM AuditEntry)) FROM AuditEntry WHERE time >= ?
                """)
            defer { firstKept.reset() }
            try firstKept.bind(.text(cutoffText), at: 1)
            guard try firstKept.step(), !firstKept.isNull(0) else { return 0 }
            let keepFrom = firstKept.int64(0)
            let last = try database.cached("SELECT seq, hash, time FROM AuditEntry WHERE seq < ? ORDER BY seq DESC LIMIT 1")
            defer { last.reset() }
            try last.bind(.integer(keepFrom), at: 1)
            guard try last.step() else { return 0 }
            let through = last.int64(0)
            try database.cached("""
                INSERT INTO AuditCheckpoint (id, seq, hash, time, deletedAt) VALUES (1, ?, ?, ?, ?)
                ON CONFLICT(id) DO UPDATE SET seq = excluded.seq, hash = excluded.hash, time = excluded.time,
                    deletedAt = excluded.deletedAt
                """).run([.integer(through), .nullable(last.string(1)), .nullable(last.string(2)), .text(deletedAt)])
            try database.cached("DELETE FROM EgressRequest WHERE auditSeq <= ?").run([.integer(through)])
            let before = try database.scalarInt("SELECT count(*) FROM AuditEntry") ?? 0
            try database.cached("DELETE FROM AuditEntry WHERE seq <= ?").run([.integer(through)])
            let after = try database.scalarInt("SELECT count(*) FROM AuditEntry") ?? 0
            return Int(before - after)
        }
    }
}
