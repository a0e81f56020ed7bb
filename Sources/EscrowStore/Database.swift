import CSQLite
import Foundation

/// SQLite's "copy the value now" destructor, which Swift does not import.
let sqliteTransient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

/// One SQLite connection over the C API.
///
/// Not thread-safe: a connection is used by one thread at a time; owners serialise access (the
/// escrow keeps each connection behind a lock).
public final class Database {
    /// How a connection opens its file.
    public enum Mode: Sendable {
        /// Read and write; creates the file when missing.
        case readWrite
        /// Read only (`SQLITE_OPEN_READONLY`): the guarded connection for developer SQL.
        case readOnly
    }

    /// The raw handle, for the guard's authorizer and progress handler.
    public let handle: OpaquePointer
    /// Compiled statements kept for reuse, by SQL text (see `cached(_:)`).
    private var statementCache: [String: Statement] = [:]
    /// The file this connection opened.
    public let path: String

    /// Opens (or, in `.readWrite` mode, creates) the database at `path`.
    ///
    /// - Throws: `StoreError` when the file cannot be opened.
    public init(path: String, mode: Mode) throws(StoreError) {
        _ = Self.libraryConfigured
        var db: OpaquePointer?
        let flags: Int32 = switch mode {
        case .readWrite: SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_EXRESCODE
        case .readOnly: SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_EXRESCODE
        }
        let rc = sqlite3_open_v2(path, &db, flags, nil)
        guard rc == SQLITE_OK, let db else {
            let message = db.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            sqlite3_close_v2(db)
            throw StoreError(code: rc, message: "cannot open database \(path): \(message)")
        }
        handle = db
        self.path = path
        sqlite3_extended_result_codes(db, 1)
        sqlite3_busy_timeout(db, 5000)
    }

    /// The process-wide SQLite settings, applied once before the first connection opens.
    private static let libraryConfigured: Bool = escrow_sqlite_disable_memory_statistics() == SQLITE_OK

    deinit {
        statementCache.removeAll()
        sqlite3_close_v2(handle)
    }

    /// The last error SQLite reported on this connection, as a `StoreError`.
    public func error(_ code: Int32, sql: String? = nil, context: String? = nil) -> StoreError {
        let message = String(cString: sqlite3_errmsg(handle))
        let prefix = context.map { "\($0): " } ?? ""
        return StoreError(code: code, message: prefix + message, sql: sql)
    }

    /// Runs one or more statements that return no rows (schema, pragmas).
    public func execute(_ sql: String) throws(StoreError) {
        let rc = sqlite3_exec(handle, sql, nil, nil, nil)
        guard rc == SQLITE_OK else { throw error(rc, sql: sql) }
    }

    /// Compiles one statement.
    public func prepare(_ sql: String) throws(StoreError) -> Statement {
        var statement: OpaquePointer?
        let rc = sqlite3_prepare_v3(handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil)
        guard rc == SQLITE_OK, let statement else { throw error(rc, sql: sql) }
        return Statement(handle: statement, database: self)
    }

    /// A compiled statement for `sql`, compiled once per connection and reused (reset, bindings
    /// cleared). For the statements a connection runs on every call.
    public func cached(_ sql: String) throws(StoreError) -> Statement {
        if let statement = statementCache[sql] {
            statement.reset()
            return statement
        }
        let statement = try prepare(sql)
        statementCache[sql] = statement
        return statement
    }

    /// Runs `body` in an immediate transaction: committed when it returns, rolled back when it
    /// throws (so nothing half-written is left).
    public func transaction<T>(_ body: () throws(StoreError) -> T) throws(StoreError) -> T {
        try execute("BEGIN IMMEDIATE")
        do {
            let result = try body()
            try execute("COMMIT")
            return result
        } catch {
            try? execute("ROLLBACK")
            throw error
        }
    }

    /// An integer pragma or one-value query.
    public func scalarInt(_ sql: String) throws(StoreError) -> Int64? {
        let statement = try prepare(sql)
        guard try statement.step() else { return nil }
        return statement.isNull(0) ? nil : statement.int64(0)
    }

    /// Rows changed by the last INSERT, UPDATE or DELETE.
    public var changes: Int { Int(sqlite3_changes(handle)) }
}

/// A compiled statement. Reset it to run it again with new bindings.
public final class Statement {
    public let handle: OpaquePointer
    private unowned let database: Database

    init(handle: OpaquePointer, database: Database) {
        self.handle = handle
        self.database = database
    }

    deinit {
        sqlite3_finalize(handle)
    }

    /// The SQL text this statement was compiled from.
    public var sql: String { sqlite3_sql(handle).map { String(cString: $0) } ?? "" }

    /// Binds parameters 1…n in order.
    public func bind(_ values: [SQLValue?]) throws(StoreError) {
        for (offset, value) in values.enumerated() {
            try bind(value, at: Int32(offset + 1))
        }
    }

    /// Binds one parameter (1-based).
    public func bind(_ value: SQLValue?, at index: Int32) throws(StoreError) {
        let rc: Int32
        switch value {
        case nil: rc = sqlite3_bind_null(handle, index)
        case .integer(let x): rc = sqlite3_bind_int64(handle, index, x)
        case .real(let x): rc = sqlite3_bind_double(handle, index, x)
        case .text(let x): rc = sqlite3_bind_text(handle, index, x, -1, sqliteTransient)
        case .blob(let x):
            rc = x.withUnsafeBytes { sqlite3_bind_blob(handle, index, $0.baseAddress, Int32($0.count), sqliteTransient) }
        }
        guard rc == SQLITE_OK else { throw database.error(rc, sql: sql) }
    }

    /// Binds text, or NULL for nil (1-based index). The fast path for writers.
    public func bind(text value: String?, at index: Int32) throws(StoreError) {
        let rc: Int32
        if let value {
            rc = value.utf8.withContiguousStorageIfAvailable { bytes in
                bytes.withMemoryRebound(to: CChar.self) {
                    sqlite3_bind_text(handle, index, $0.baseAddress, Int32($0.count), sqliteTransient)
                }
            } ?? sqlite3_bind_text(handle, index, value, -1, sqliteTransient)
        } else {
            rc = sqlite3_bind_null(handle, index)
        }
        guard rc == SQLITE_OK else { throw database.error(rc, sql: sql) }
    }

    /// Binds a real, or NULL for nil (1-based index).
    public func bind(real value: Double?, at index: Int32) throws(StoreError) {
        let rc = value.map { sqlite3_bind_double(handle, index, $0) } ?? sqlite3_bind_null(handle, index)
        guard rc == SQLITE_OK else { throw database.error(rc, sql: sql) }
    }

    /// Binds an integer, or NULL for nil (1-based index).
    public func bind(integer value: Int64?, at index: Int32) throws(StoreError) {
        let rc = value.map { sqlite3_bind_int64(handle, index, $0) } ?? sqlite3_bind_null(handle, index)
        guard rc == SQLITE_OK else { throw database.error(rc, sql: sql) }
    }

    /// Runs a statement whose parameters are bound, to completion, then resets it (keeping no
    /// bindings).
    public func runBound() throws(StoreError) {
        defer { reset() }
        while try step() {}
    }

    /// Advances to the next row.
    ///
    /// - Returns: true when a row is available, false when the statement is done.
    @discardableResult
    public func step() throws(StoreError) -> Bool {
        let rc = sqlite3_step(handle)
        switch rc {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default: throw database.error(rc, sql: sql)
        }
    }

    /// Resets the statement and clears its bindings.
    public func reset() {
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
    }

    /// Binds, runs to completion, resets. For INSERT/UPDATE/DELETE.
    public func run(_ values: [SQLValue?]) throws(StoreError) {
        defer { reset() }
        try bind(values)
        while try step() {}
    }

    public var columnCount: Int32 { sqlite3_column_count(handle) }
    public func isNull(_ column: Int32) -> Bool { sqlite3_column_type(handle, column) == SQLITE_NULL }
    public func int64(_ column: Int32) -> Int64 { sqlite3_column_int64(handle, column) }
    public func double(_ column: Int32) -> Double { sqlite3_column_double(handle, column) }
    public func string(_ column: Int32) -> String? {
        guard let text = sqlite3_column_text(handle, column) else { return nil }
        return String(cString: text)
    }
}

/// A value bound to a statement parameter.
public enum SQLValue: Sendable, Hashable {
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob([UInt8])
}

extension SQLValue {
    /// Text, or SQL NULL for nil.
    public static func nullable(_ value: String?) -> SQLValue? { value.map(SQLValue.text) }
    /// A real, or SQL NULL for nil.
    public static func nullable(_ value: Double?) -> SQLValue? { value.map(SQLValue.real) }
    /// An integer, or SQL NULL for nil.
    public static func nullable(_ value: Int?) -> SQLValue? { value.map { .integer(Int64($0)) } }
}
