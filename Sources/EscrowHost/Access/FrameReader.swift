import CSQLite
import EscrowCore
import EscrowStore

/// Reads a statement's rows straight into typed `Frame` columns, enforcing the row, byte and
/// value-length limits, and resolves `Photos.asset` ids into the files' bytes (the paper's
/// asset-type conversion) before compute() sees them.
struct FrameReader {
    let statement: OpaquePointer
    let policy: AccessPolicy
    let assets: AssetStore
    let database: OpaquePointer
    /// Whether pictures lose the metadata that may locate them (EXIF, XMP, text chunks): under a
    /// location accuracy below exact, a picture's bytes must not carry what its masked
    /// coordinates hide.
    var stripLocation = false

    func read(interruption: () -> AccessError?) throws -> AccessResult {
        let columnCount = Int(sqlite3_column_count(statement))
        var builders: [ColumnBuilder] = []
        var names: [String] = []
        var assetColumns: [Bool] = []
        builders.reserveCapacity(columnCount)
        for index in 0..<Int32(columnCount) {
            let name = sqlite3_column_name(statement, index).map { String(cString: $0) } ?? "column\(index + 1)"
            let origin = Self.origin(statement, index)
            let isAsset = origin?.table == "Photos" && origin?.column == "asset"
            assetColumns.append(isAsset)
            let declared = isAsset ? ColumnType.bytes : Self.declaredType(statement, index)
            names.append(name)
            builders.append(ColumnBuilder(name: name, type: declared))
        }

        var rows = 0
        var bytes = 0
        var knownDigests = KnownDigests()
        while true {
            let rc = sqlite3_step(statement)
            if rc == SQLITE_DONE { break }
            guard rc == SQLITE_ROW else {
                if let interruption = interruption() { throw interruption }
                if rc & 0xff == SQLITE_TOOBIG { throw AccessError.runningValueTooLarge(limit: policy.runningValueLimit) }
                throw AccessError.executionFailed(message: String(cString: sqlite3_errmsg(database)))
            }
            rows += 1
            guard rows <= policy.maxRows else { throw AccessError.tooManyRows(limit: policy.maxRows) }
            for column in 0..<columnCount {
                let index = Int32(column)
                switch sqlite3_column_type(statement, index) {
                case SQLITE_INTEGER:
                    builders[column].append(sqlite3_column_int64(statement, index))
                    bytes += 8
                case SQLITE_FLOAT:
                    builders[column].append(sqlite3_column_double(statement, index))
                    bytes += 8
                case SQLITE_TEXT:
                    let count = Int(sqlite3_column_bytes(statement, index))
                    if !assetColumns[column] { try checkValue(count, column: names[column]) }
                    let text = sqlite3_column_text(statement, index).map {
                        String(decoding: UnsafeBufferPointer(start: $0, count: count), as: UTF8.self)
                    } ?? ""
                    if assetColumns[column] {
                        var content = try assets.bytes(of: text)
                        if stripLocation {
                            content = try LocationMetadata.strip(content)
                        } else {
                            // Stripped bytes are no longer the asset whose id is their hash.
                            knownDigests.record(content, assetID: text)
                        }
                        bytes += content.count
                        guard bytes <= policy.maxBytes else { throw AccessError.tooManyBytes(limit: policy.maxBytes) }
                        builders[column].append(bytes: content)
                    } else {
                        builders[column].append(text)
                        bytes += count
                    }
                case SQLITE_BLOB:
                    let count = Int(sqlite3_column_bytes(statement, index))
                    try checkValue(count, column: names[column])
                    let blob = sqlite3_column_blob(statement, index).map {
                        Array(UnsafeRawBufferPointer(start: $0, count: count))
                    } ?? []
                    builders[column].append(bytes: blob)
                    bytes += count
                default:
                    builders[column].appendNull()
                }
            }
            guard bytes <= policy.maxBytes else { throw AccessError.tooManyBytes(limit: policy.maxBytes) }
        }
        let frame: Frame
        do {
            frame = try Frame(columns: builders.map { $0.build() })
        } catch {
            throw AccessError.invalidSQL(message: error.description, offset: nil)
        }
        return AccessResult(frame: frame, rowCount: rows, byteCount: bytes, knownDigests: knownDigests)
    }

    /// Fails when one text or blob value of the result is over `maxValueBytes` (a picture's bytes
    /// are not a value the query built: they count towards `maxBytes` only).
    private func checkValue(_ count: Int, column: String) throws(AccessError) {
        guard count <= policy.maxValueBytes else {
            throw .valueTooLarge(column: column, bytes: count, limit: policy.maxValueBytes)
        }
    }

    /// The table and column a result column comes from, when it is a plain column reference.
    private static func origin(_ statement: OpaquePointer, _ index: Int32) -> (table: String, column: String)? {
        guard let table = sqlite3_column_table_name(statement, index),
              let column = sqlite3_column_origin_name(statement, index) else { return nil }
        return (String(cString: table), String(cString: column))
    }

    /// The frame type implied by a column's declared type, when it has one.
    private static func declaredType(_ statement: OpaquePointer, _ index: Int32) -> ColumnType? {
        guard let declared = sqlite3_column_decltype(statement, index) else { return nil }
        switch String(cString: declared).uppercased() {
        case "INTEGER", "INT": return .int64
        case "REAL", "DOUBLE", "FLOAT": return .double
        case "TEXT": return .string
        case "BLOB": return .bytes
        case "BOOLEAN", "BOOL": return .bool
        default: return nil
        }
    }
}
