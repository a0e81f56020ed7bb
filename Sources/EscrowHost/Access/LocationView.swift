import CSQLite
import EscrowStore

/// Location as a run under an accuracy below exact sees it: each stored point replaced by its
/// masked point, and the other columns that locate dropped.
///
/// The guarded connection materializes it into `temp.Location` and `temp.Photos` before it
/// compiles the query, with the authorizer off, and then lets the query read those tables only
/// from `temp`. Unqualified names resolve to `temp` first, so the app's SQL runs unchanged.
///
/// Thread safety: a value; its mask is `@Sendable`.
public struct LocationView: Sendable {
    /// Identifies the masked rows: the same id over unchanged data gives the same tables, which
    /// are then kept from one run to the next.
    public let id: String
    /// The value `Location.horizontalAccuracy` takes (the mask's outer radius), nil for NULL.
    public let horizontalAccuracy: Double?
    /// Masks one stored point (latitude, longitude in degrees).
    public let mask: @Sendable (_ latitude: Double, _ longitude: Double) -> (latitude: Double, longitude: Double)
    /// The tables the query reads, of Location and Photos: only these are copied. Both are
    /// readable only as copies either way (a table not copied cannot be read at all).
    public let copied: Set<String>

    public init(id: String, horizontalAccuracy: Double?, copying copied: Set<String> = Set(LocationView.tables),
                mask: @escaping @Sendable (_ latitude: Double, _ longitude: Double) -> (latitude: Double, longitude: Double)) {
        self.id = id
        self.horizontalAccuracy = horizontalAccuracy
        self.copied = copied
        self.mask = mask
    }

    /// The tables a view replaces, and per table the columns it changes.
    public static let tables = ["Location", "Photos"]
    /// Location's columns that locate besides the coordinates: dropped (NULL) under any accuracy
    /// below exact. Altitude and floor place a person in a building or on a mountain, speed and
    /// course with times reconstruct a path, vertical accuracy qualifies altitude.
    public static let droppedLocationColumns: [String] = ["altitude", "verticalAccuracy", "speed", "course", "floor"]
}

extension GuardedConnection {
    /// Makes `view` the location the next queries read (nil: the stored location, exact).
    ///
    /// Materializes the masked copies of Location and Photos into `temp` when they are not
    /// there yet for this view or the data changed since, and marks the tables masked in the
    /// guard. With nil, drops any masked copies, so an unqualified name reads `main` again.
    ///
    /// - Throws: `StoreError` when the copies cannot be built.
    func use(_ view: LocationView?) throws(StoreError) {
        guard let view else {
            if materializedView != nil {
                try withoutGuard { () throws(StoreError) in try dropMaskedTables() }
                materializedView = nil
            }
            state.maskedTables = []
            return
        }
        let version = try dataVersion()
        let id = view.id + "|" + view.copied.sorted().joined(separator: ",")
        if materializedView?.id != id || materializedView?.dataVersion != version {
            try withoutGuard { () throws(StoreError) in
                try dropMaskedTables()
                try database.execute("BEGIN")
                do throws(StoreError) {
                    for table in LocationView.tables where view.copied.contains(table) { try materialize(table, view: view) }
                    try database.execute("COMMIT")
                } catch {
                    // The copy's error is the one to report; a failing rollback leaves only
                    // temporary tables behind, which the next build drops.
                    try? database.execute("ROLLBACK")
                    throw error
                }
            }
            materializedView = (id, version)
        }
        state.maskedTables = Set(LocationView.tables)
    }

    /// Where the individual was last: the newest row of Location (by time, then id), or with
    /// `fromLocationTable` false the newest photo that has coordinates; nil when there is none.
    /// Read by the escrow itself, never by an app's SQL.
    func latestLocation(fromLocationTable: Bool) throws(StoreError) -> (latitude: Double, longitude: Double)? {
        try trusted { () throws(StoreError) in
            // The newest fix with a time (through the timestamp index), else the last one stored.
            let queries = fromLocationTable
                ? ["SELECT latitude, longitude FROM main.Location WHERE timestamp IS NOT NULL ORDER BY timestamp DESC, id DESC LIMIT 1",
                   "SELECT latitude, longitude FROM main.Location ORDER BY id DESC LIMIT 1"]
                : ["""
                   SELECT latitude, longitude FROM main.Photos WHERE latitude IS NOT NULL AND longitude IS NOT NULL
                   ORDER BY creationDate IS NULL, creationDate DESC, id DESC LIMIT 1
                   """]
            for sql in queries {
                let query = try database.cached(sql)
                defer { query.reset() }
                if try query.step() { return (query.double(0), query.double(1)) }
            }
            return nil
        }
    }

    /// `PRAGMA data_version` of the data database: changes when another connection commits.
    private func dataVersion() throws(StoreError) -> Int64 {
        try trusted { () throws(StoreError) in try database.scalarInt("PRAGMA main.data_version") ?? 0 }
    }

    /// Runs `body`, the escrow's own reads, with the authorizer allowing everything. Unlike
    /// removing the authorizer, this leaves the compiled statements valid (SQLite expires them all
    /// when an authorizer is set), so an app's cached query is not compiled again.
    private func trusted<T>(_ body: () throws(StoreError) -> T) throws(StoreError) -> T {
        state.trusted = true
        defer { state.trusted = false }
        return try body()
    }

    /// Runs `body` with the authorizer and progress handler removed and writes allowed: the
    /// escrow's own statements, never an app's.
    private func withoutGuard<T>(_ body: () throws(StoreError) -> T) throws(StoreError) -> T {
        let handle = database.handle
        sqlite3_set_authorizer(handle, nil, nil)
        sqlite3_progress_handler(handle, 0, nil, nil)
        defer { installCallbacks() }
        try database.execute("PRAGMA query_only = 0")
        let result = Result { () throws(StoreError) in try body() }
        // The connection goes back to read-only whatever happened; should even that fail, the
        // authorizer (reinstalled above) still refuses every write an app's SQL could make.
        try database.execute("PRAGMA query_only = 1")
        return try result.get()
    }

    private func dropMaskedTables() throws(StoreError) {
        for table in LocationView.tables {
            try database.execute("DROP TABLE IF EXISTS temp.\(table)")
        }
    }

    /// Copies `main.<table>` into `temp.<table>` (the same columns and declared types, the same
    /// rowids) with its location masked or dropped.
    private func materialize(_ table: String, view: LocationView) throws(StoreError) {
        let info = try database.prepare("SELECT name, type, pk FROM pragma_table_xinfo('\(table)', 'main') ORDER BY cid")
        var columns: [(name: String, type: String, key: Bool)] = []
        while try info.step() {
            columns.append((info.string(0) ?? "", info.string(1) ?? "", info.int64(2) == 1))
        }
        guard !columns.isEmpty else { throw StoreError(message: "the data database has no \(table) table; run `escrow init` again") }
        let quoted = columns.map { "\"\($0.name.split(separator: "\"", omittingEmptySubsequences: false).joined(separator: "\"\""))\"" }
        let definitions = zip(quoted, columns).map { name, column in
            "\(name) \(column.type)\(column.key && column.type.uppercased() == "INTEGER" ? " PRIMARY KEY" : "")"
        }
        try database.execute("CREATE TEMP TABLE \(table) (\(definitions.joined(separator: ", ")))")
        let select = try database.prepare("SELECT \(quoted.joined(separator: ", ")) FROM main.\(table)")
        let insert = try database.prepare("""
            INSERT INTO temp.\(table) (\(quoted.joined(separator: ", "))) VALUES (\(Array(repeating: "?", count: columns.count).joined(separator: ", ")))
            """)
        let names = columns.map(\.name)
        let latitude = names.firstIndex(of: "latitude").map(Int32.init)
        let longitude = names.firstIndex(of: "longitude").map(Int32.init)
        var replaced: [Int32: Double?] = [:]
        if table == "Location" {
            for name in LocationView.droppedLocationColumns {
                if let index = names.firstIndex(of: name) { replaced[Int32(index)] = .some(nil) }
            }
            if let index = names.firstIndex(of: "horizontalAccuracy") { replaced[Int32(index)] = view.horizontalAccuracy }
        }
        while try select.step() {
            for index in 0..<Int32(columns.count) {
                sqlite3_bind_value(insert.handle, index + 1, sqlite3_column_value(select.handle, index))
            }
            for (index, value) in replaced { try insert.bind(real: value, at: index + 1) }
            if let latitude, let longitude {
                if !select.isNull(latitude), !select.isNull(longitude) {
                    let masked = view.mask(select.double(latitude), select.double(longitude))
                    try insert.bind(real: masked.latitude, at: latitude + 1)
                    try insert.bind(real: masked.longitude, at: longitude + 1)
                } else {
                    // A lone coordinate cannot be masked as a point: neither is kept.
                    try insert.bind(real: nil, at: latitude + 1)
                    try insert.bind(real: nil, at: longitude + 1)
                }
            }
            try insert.runBound()
        }
        try copyIndexes(of: table)
    }

    /// The plain-column indexes of `main.<table>` (`Location_timestamp`), made on the copy too, so
    /// a query sorts or filters the masked rows as fast as the stored ones. Never unique: two
    /// points of one cell may mask alike. Indexes on expressions are left out.
    private func copyIndexes(of table: String) throws(StoreError) {
        let indexes = try database.prepare("SELECT name FROM pragma_index_list('\(table)', 'main') WHERE origin = 'c'")
        var names: [String] = []
        while try indexes.step() { names.append(indexes.string(0) ?? "") }
        for name in names where !name.isEmpty {
            let info = try database.prepare("SELECT cid, name FROM pragma_index_info(?1, 'main') ORDER BY seqno")
            try info.bind(.text(name), at: 1)
            var columns: [String] = []
            var plain = true
            while try info.step() {
                if info.int64(0) < 0 { plain = false }
                columns.append(info.string(1) ?? "")
            }
            guard plain, !columns.isEmpty else { continue }
            let quoted = columns.map { "\"\($0)\"" }.joined(separator: ", ")
            try database.execute("CREATE INDEX temp.\"masked_\(name)\" ON \(table) (\(quoted))")
        }
    }
}
