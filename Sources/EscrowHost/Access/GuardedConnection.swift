import CSQLite
import EscrowCore
import EscrowStore

/// The read-only connection that runs developers' access SQL under the guard.
///
/// It opens only the data database (`SQLITE_OPEN_READONLY`, `query_only`), never the escrow's own
/// database, and installs an authorizer that allows nothing but reading the data tables (plus
/// pure functions, recursive CTEs and `json_each`/`json_tree`) and records every column read, and
/// a progress handler that interrupts a query past its instruction budget or time limit, and a
/// watchdog that interrupts it at its time limit when the time goes inside one function call.
/// `printf` and `format` are replaced by `PrintfGuard`, which fails instead of returning NULL for
/// an output over the length limit, and `instr` and `replace` by `SubstringSearch`, which finds
/// in linear time what SQLite's own search finds in the product of the two lengths, and `trim`,
/// `ltrim` and `rtrim` by `CharacterTrim`, which does not compare the whole set at every position.
///
/// Not thread-safe: one caller at a time (the host keeps it behind a lock).
public final class GuardedConnection {
    public let policy: AccessPolicy
    let database: Database
    let state: GuardState
    /// The location view whose masked tables are in `temp` now, and the data version they were
    /// built from (nil: none, queries read the stored location).
    var materializedView: (id: String, dataVersion: Int64)?
    private let watchdog: GuardWatchdog
    private let printf: PrintfGuard
    private var cache: [String: AccessStatement] = [:]
    private static let cacheLimit = 128

    /// Opens the guarded connection on the data database of `home`.
    ///
    /// - Throws: `StoreError` when the home is not initialised or the file cannot be opened.
    public init(home: EscrowHome, policy: AccessPolicy = AccessPolicy()) throws(StoreError) {
        try home.requireInitialized()
        self.policy = policy
        database = try Database(path: home.dataDatabasePath, mode: .readOnly)
        try database.execute("PRAGMA query_only = 1; PRAGMA trusted_schema = 0")
        // The first use of an eponymous virtual table on a connection registers it, which the
        // authorizer would see as an UPDATE of sqlite_master: register the allowed ones now.
        try database.execute("SELECT * FROM json_each('[]'); SELECT * FROM json_tree('[]')")
        let handle = database.handle
        sqlite3_limit(handle, SQLITE_LIMIT_ATTACHED, 0)
        sqlite3_limit(handle, SQLITE_LIMIT_SQL_LENGTH, Int32(clamping: policy.maxSQLLength))
        sqlite3_limit(handle, SQLITE_LIMIT_LENGTH, Int32(policy.runningValueLimit))
        sqlite3_limit(handle, SQLITE_LIMIT_LIKE_PATTERN_LENGTH, Int32(clamping: max(1, policy.maxPatternBytes)))
        state = GuardState(policy: policy)
        watchdog = GuardWatchdog(connection: handle)
        printf = try PrintfGuard(connection: handle, limit: policy.runningValueLimit)
        SubstringSearch.install(on: handle)
        CharacterTrim.install(on: handle)
        installCallbacks()
    }

    /// Installs the authorizer and the progress handler, with `state` as their context.
    func installCallbacks() {
        let context = Unmanaged.passUnretained(state).toOpaque()
        sqlite3_set_authorizer(database.handle, guardAuthorizer, context)
        sqlite3_progress_handler(database.handle, GuardState.progressInterval, guardProgressHandler, context)
    }

    deinit {
        // The watchdog must not interrupt a closed connection, and the callbacks hold unretained
        // pointers to `state` and `printf`: remove them before those go.
        watchdog.close()
        sqlite3_set_authorizer(database.handle, nil, nil)
        sqlite3_progress_handler(database.handle, 0, nil, nil)
        printf.uninstall()
    }

    /// Checks `sql` with the guard and compiles it.
    ///
    /// - Returns: the compiled statement with its column-level lineage.
    /// - Throws: `AccessError` naming the refused part, or SQLite's message for invalid SQL.
    public func prepare(_ sql: String) throws(AccessError) -> AccessStatement {
        // A statement compiled against the masked tables is another statement than one compiled
        // against the stored ones.
        let cacheKey = state.compilingForLineage ? "lineage\u{0}" + sql : state.maskedTables.isEmpty ? sql : "masked\u{0}" + sql
        if let cached = cache[cacheKey] { return cached }
        let length = sql.utf8.count
        guard length <= policy.maxSQLLength else { throw .sqlTooLong(length: length, limit: policy.maxSQLLength) }
        let keyword = SQLText.firstKeyword(sql)
        switch keyword {
        case "SELECT", "WITH", "VALUES": break
        case "": throw .emptyStatement
        case "EXPLAIN": throw .refused(.explain)
        case "PRAGMA": throw .refused(.pragma(Self.pragmaName(sql)))
        case "ATTACH": throw .refused(.attach(""))
        case "DETACH": throw .refused(.detach(""))
        default: throw .refused(.statement(keyword))
        }

        // SQLite compares the columns of a NATURAL or USING join without asking the authorizer:
        // such a join could read (and filter on, or return) columns the lineage never names.
        for token in SQLText.tokens(sql) where token.count == 5 || token.count == 7 {
            let word = String(decoding: token, as: UTF8.self).uppercased()
            if word == "USING" || word == "NATURAL" { throw .refused(.implicitJoin(word)) }
        }

        // Table-valued pragma functions (pragma_table_info, …) are pragmas too.
        if let pragma = SQLText.identifiers(sql).first(where: { $0.lowercased().hasPrefix("pragma_") }) {
            throw .refused(.pragma(String(pragma.dropFirst("pragma_".count))))
        }

        state.beginPrepare()
        var statement: OpaquePointer?
        var remainder: [UInt8] = []
        let rc = sql.withCString { text in
            var tail: UnsafePointer<CChar>?
            let rc = sqlite3_prepare_v3(database.handle, text, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, &tail)
            if let tail { remainder = Array(String(cString: tail).utf8) }
            return rc
        }
        guard rc == SQLITE_OK else {
            sqlite3_finalize(statement)
            if let refusal = state.refusal { throw .refused(refusal) }
            let offset = sqlite3_error_offset(database.handle)
            throw .invalidSQL(message: String(cString: sqlite3_errmsg(database.handle)), offset: offset >= 0 ? Int(offset) : nil)
        }
        guard let statement else { throw .emptyStatement }
        let compiled = AccessStatement(handle: statement, sql: sql, lineage: Lineage(state.reads))
        if SQLText.holdsAnotherStatement(remainder) { throw .refused(.multipleStatements) }
        if let refusal = state.refusal { throw .refused(refusal) }
        guard sqlite3_stmt_readonly(statement) != 0 else { throw .refused(.statement(keyword)) }
        if cache.count >= Self.cacheLimit { cache.removeAll() }
        cache[cacheKey] = compiled
        return compiled
    }

    /// The column-level lineage of `sql`: exactly the (table, column) pairs it reads.
    public func lineage(of sql: String) throws(AccessError) -> Lineage {
        state.compilingForLineage = true
        defer { state.compilingForLineage = false }
        return try prepare(sql).lineage
    }

    /// Runs access SQL over the stored location (`view` nil) or a masked view of it, and builds
    /// its result frame.
    ///
    /// - Throws: `AccessError` when the SQL is refused (under a view: also any read of the stored
    ///   location) or fails; `StoreError` when the masked tables cannot be built or an asset is
    ///   missing.
    public func run(_ sql: String, view: LocationView?, assets: AssetStore) throws -> AccessResult {
        try use(view)
        return try execute(try prepare(sql), assets: assets)
    }

    /// Runs a compiled access statement and builds its result frame, turning `Photos.asset`
    /// ids into the files' bytes.
    ///
    /// - Throws: `AccessError` when the query exceeds its budget, time, row, byte or value-length
    ///   limit, or fails; `StoreError` when an asset file is missing.
    public func execute(_ statement: AccessStatement, assets: AssetStore) throws -> AccessResult {
        state.beginExecution()
        watchdog.arm(seconds: policy.timeLimit)
        // Deferred blocks run last first: the watchdog is disarmed before the statement is reset.
        defer { sqlite3_reset(statement.handle) }
        defer { watchdog.disarm() }
        var reader = FrameReader(statement: statement.handle, policy: policy, assets: assets, database: database.handle)
        reader.stripLocation = !state.maskedTables.isEmpty
        return try reader.read(interruption: { self.interruption })
    }

    /// Why the running query was interrupted: the progress handler's reason, or the time limit
    /// when the watchdog interrupted it.
    private var interruption: AccessError? {
        if let reason = state.interruption { return reason }
        return watchdog.hasFired ? .timeLimitExceeded(seconds: policy.timeLimit) : nil
    }

    private static func pragmaName(_ sql: String) -> String {
        let words = sql.split(whereSeparator: { $0 == " " || $0 == "\n" || $0 == "\t" || $0 == ";" || $0 == "=" || $0 == "(" })
        return words.count > 1 ? String(words[1]) : ""
    }
}

/// A compiled, guard-checked access statement and its lineage.
public final class AccessStatement {
    let handle: OpaquePointer
    /// The SQL as the app sent it.
    public let sql: String
    /// The columns the statement reads.
    public let lineage: Lineage

    init(handle: OpaquePointer, sql: String, lineage: Lineage) {
        self.handle = handle
        self.sql = sql
        self.lineage = lineage
    }

    deinit {
        sqlite3_finalize(handle)
    }
}

/// What access() produced: Ds as a frame, with its size for the audit.
public struct AccessResult: Sendable {
    public let frame: Frame
    /// Rows read.
    public let rowCount: Int
    /// Bytes in the frame (assets included): what is given to compute().
    public let byteCount: Int
    /// The content hashes of the pictures read from the asset store, so the output digest need
    /// not hash a picture that compute() passed through unchanged again.
    let knownDigests: KnownDigests
}
