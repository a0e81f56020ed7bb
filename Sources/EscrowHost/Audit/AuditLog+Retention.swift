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
    /// When the setting was last set or unset (ISO 8601 UTC), kept beside it so that
    /// `AuditLog.checkpointContradiction()` knows which setting held when the checkpoint was
    /// written. Written only by `set(_:on:)` and `unset(on:)`.
    static let changedAtName = "retention-days.changed-at"

    /// The days in `value`, the setting's text.
    ///
    /// - Throws: `RetentionError` when it is not a whole number of days from 1 to `maximumDays`.
    public static func days(_ value: String) throws(RetentionError) -> Int {
        guard let days = Int(value), (1...maximumDays).contains(days) else { throw RetentionError(value: value) }
        return days
    }
}

extension AuditRetention {
    /// Sets the retention to `value` days (`escrow config set retention-days`), recording when.
    ///
    /// It deletes nothing itself: `AuditLog.applyRetention()` does, as every host does when it opens.
    ///
    /// - Returns: the days.
    /// - Throws: `RetentionError` when `value` is not a number of days; `StoreError`.
    @discardableResult
    public static func set(_ value: String, on state: StateDatabase) throws -> Int {
        let days = try days(value)
        try state.write { database in
            try database.prepare("INSERT INTO Setting (name, value) VALUES (?, ?) ON CONFLICT(name) DO UPDATE SET value = excluded.value")
                .run([.text(settingName), .text(String(days))])
            try record(changeAt: state.clock.now().text, in: database)
        }
        return days
    }

    /// Turns retention off (`escrow config unset retention-days`): entries are kept again. Records
    /// when, so a checkpoint written before stays explained.
    ///
    /// - Returns: whether a retention was set.
    /// - Throws: `StoreError`.
    @discardableResult
    public static func unset(on state: StateDatabase) throws -> Bool {
        try state.write { database in
            try database.prepare("DELETE FROM Setting WHERE name = ?").run([.text(settingName)])
            guard database.changes > 0 else { return false }
            try record(changeAt: state.clock.now().text, in: database)
            return true
        }
    }

    private static func record(changeAt time: String, in database: Database) throws(StoreError) {
        try database.prepare("INSERT INTO Setting (name, value) VALUES (?, ?) ON CONFLICT(name) DO UPDATE SET value = excluded.value")
            .run([.text(changedAtName), .text(time)])
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

    /// Why the retention checkpoint cannot have been written by the retention setting, or nil when
    /// it can (or there is none): the part of `verify()` that the chain alone cannot do, as it cannot
    /// tell a checkpoint moved forward from an honest one.
    ///
    /// A checkpoint is contradicted when its times cannot be read; when its entry was deleted
    /// less than a day after it was written (the shortest retention); and, when the setting was
    /// last changed before the checkpoint was written (so that setting held then), when no
    /// retention was in force or its entry was younger than the days set. With no record of a
    /// change (the setting written by hand or by a build before this check), a checkpoint with no
    /// setting in force is contradicted too. Someone who can write the home and knows these rules
    /// can still forge a consistent checkpoint; only a witness or a head kept elsewhere detects
    /// that (docs/AUDIT.md).
    ///
    /// - Returns: the checkpoint's entry and the reason, in words.
    /// - Throws: `StoreError` when the database cannot be read.
    public func checkpointContradiction() throws -> (seq: Int, reason: String)? {
        guard let checkpoint = try checkpoint() else { return nil }
        let seq = checkpoint.seq
        let deletedEntries = seq == 1 ? "entry 1" : "entries 1…\(seq)"
        guard let written = Timestamp.parse(checkpoint.time), let deleted = Timestamp.parse(checkpoint.deletedAt) else {
            return (seq, "the retention checkpoint's times ('\(DisplayText.escaped(checkpoint.time))', "
                + "'\(DisplayText.escaped(checkpoint.deletedAt))') cannot be read: it was edited by hand")
        }
        let age = deleted - written
        let said = "the retention checkpoint says entry \(seq), written \(checkpoint.time), was deleted \(checkpoint.deletedAt)"
        if age < 86_400 {
            return (seq, "\(said), less than a day later; retention keeps every entry at least a day, "
                + "so \(deletedEntries) were deleted by hand")
        }
        let setting = try state.setting(AuditRetention.settingName)
        let changed = try state.setting(AuditRetention.changedAtName)
        guard let changed, let changedAt = Timestamp.parse(changed) else {
            guard setting != nil else {
                return (seq, "\(said), but no retention setting is in force and none was ever turned off: "
                    + "\(deletedEntries) were deleted by hand")
            }
            return nil
        }
        // The setting changed after the deletion: what held then is not known.
        guard changedAt <= deleted else { return nil }
        guard let setting else {
            return (seq, "\(said), but retention-days was turned off before that (\(changed)): "
                + "\(deletedEntries) were deleted by hand")
        }
        if let days = try? AuditRetention.days(setting), age < Double(days) * 86_400 {
            return (seq, "\(said), younger than the \(days) days retention-days kept since \(changed): "
                + "\(deletedEntries) were deleted by hand")
        }
        return nil
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
