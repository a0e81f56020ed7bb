import EscrowCore
import EscrowStore
import Synchronization

/// How durable a committed audit entry (and decision) is.
public enum AuditDurability: String, Sendable, CaseIterable {
    /// Survives a crash or kill of the process (WAL, `synchronous=NORMAL`). The default.
    case processCrash = "process-crash"
    /// Also survives power loss or an OS crash (`synchronous=FULL`: an fsync per commit).
    case powerLoss = "power-loss"

    /// The setting of the escrow home that holds the durability.
    public static let settingName = "audit.durability"
}

/// The escrow's own database (`escrow.sqlite`): flows, decisions, the audit log, settings. Never
/// opened by the guarded connection.
///
/// Thread safety: shared by all tasks of a process; one caller at a time uses the connection
/// (a lock), and writers of different processes take turns through SQLite's write lock
/// (`BEGIN IMMEDIATE`). `@unchecked Sendable` because the connection is only touched under `lock`.
public final class StateDatabase: @unchecked Sendable {
    private let database: Database
    private let lock = Mutex(())
    public let home: EscrowHome
    /// The durability this connection commits with (the home's `audit.durability` setting).
    public let durability: AuditDurability
    /// The clock the flows, the audit log and the server registry over this database read the
    /// time from (decisions, expiry, entry times, when a server or witness was added).
    public let clock: any WallClock

    /// Opens the state database of an initialised home, upgrading its schemas first.
    ///
    /// - Parameter clock: the time the escrow decides and records by (the system's by default).
    public init(home: EscrowHome, clock: any WallClock = .system) throws(StoreError) {
        try home.upgrade()
        self.home = home
        self.clock = clock
        let database = try Database(path: home.stateDatabasePath, mode: .readWrite)
        try database.execute("PRAGMA journal_mode = WAL; PRAGMA foreign_keys = ON")
        let setting = try Self.setting(AuditDurability.settingName, in: database)
        durability = setting.flatMap(AuditDurability.init(rawValue:)) ?? .processCrash
        try database.execute(durability == .powerLoss ? "PRAGMA synchronous = FULL" : "PRAGMA synchronous = NORMAL")
        self.database = database
    }

    /// Runs `body` in one write transaction (`BEGIN IMMEDIATE`): committed when it returns,
    /// rolled back when it throws. The commit is durable as `durability` says when this returns.
    public func write<T>(_ body: (Database) throws -> T) throws -> T {
        try lock.withLock { _ in
            try database.execute("BEGIN IMMEDIATE")
            do {
                let result = try body(database)
                try database.execute("COMMIT")
                return result
            } catch {
                try? database.execute("ROLLBACK")
                throw error
            }
        }
    }

    /// Runs `body` for reading (one snapshot).
    public func read<T>(_ body: (Database) throws -> T) throws -> T {
        try lock.withLock { _ in
            try database.execute("BEGIN")
            defer { try? database.execute("COMMIT") }
            return try body(database)
        }
    }

    static func setting(_ name: String, in database: Database) throws(StoreError) -> String? {
        let query = try database.prepare("SELECT value FROM Setting WHERE name = ?")
        try query.bind(.text(name), at: 1)
        return try query.step() ? query.string(0) : nil
    }

    /// A setting of this home.
    ///
    /// - Throws: `StoreError` when the database cannot be read.
    public func setting(_ name: String) throws(StoreError) -> String? {
        do {
            return try read { database in try Self.setting(name, in: database) }
        } catch let error as StoreError {
            throw error
        } catch {
            throw StoreError(message: "the setting \(name) cannot be read: \(error)")
        }
    }

    /// Changes a setting of this home (takes effect for connections opened afterwards).
    public func setSetting(_ name: String, to value: String) throws {
        try write { database in
            try database.prepare("INSERT INTO Setting (name, value) VALUES (?, ?) ON CONFLICT(name) DO UPDATE SET value = excluded.value")
                .run([.text(name), .text(value)])
        }
    }

    /// Removes a setting of this home, so its default applies again.
    ///
    /// - Returns: whether it was set.
    @discardableResult
    public func removeSetting(_ name: String) throws -> Bool {
        try write { database in
            try database.prepare("DELETE FROM Setting WHERE name = ?").run([.text(name)])
            return database.changes > 0
        }
    }
}
