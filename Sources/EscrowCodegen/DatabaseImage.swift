import CSQLite
import Foundation

/// The file a new database of one schema starts as: every migration applied, in one
/// transaction, to an empty in-memory database, then serialised, in WAL mode. A new escrow home
/// writes these bytes instead of running the DDL (parsing it was most of the time `init` took);
/// a test checks that the result equals running the migrations.
func databaseImage(migrations: [(version: Int, sql: String)], origin: String) -> [UInt8] {
    var handle: OpaquePointer?
    guard sqlite3_open_v2(":memory:", &handle, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nil) == SQLITE_OK,
          let database = handle else { fail("\(origin): cannot open an in-memory SQLite database") }
    defer { sqlite3_close_v2(database) }
    func execute(_ sql: String) {
        var message: UnsafeMutablePointer<CChar>?
        guard sqlite3_exec(database, sql, nil, nil, &message) == SQLITE_OK else {
            fail("\(origin): \(message.map { String(cString: $0) } ?? "SQLite error") in\n\(sql)")
        }
    }
    execute("BEGIN IMMEDIATE")
    for migration in migrations { execute(migration.sql) }
    execute("PRAGMA user_version = \(migrations.last?.version ?? 0)")
    execute("COMMIT")
    var size: sqlite3_int64 = 0
    guard let bytes = sqlite3_serialize(database, "main", &size, 0), size >= 100 else {
        fail("\(origin): SQLite could not serialise the database")
    }
    defer { sqlite3_free(bytes) }
    var image = Array(UnsafeBufferPointer(start: bytes, count: Int(size)))
    // Bytes 18 and 19 of the header, the file format's write and read versions: 2 is WAL
    // (sqlite.org/fileformat2.html#database_header), what `PRAGMA journal_mode = WAL` writes.
    image[18] = 2
    image[19] = 2
    return image
}

/// Swift source for `image`: its size and its non-zero stretches as (offset, Base64) pairs. A
/// new database is mostly zero-filled pages, so this stays a few kilobytes of literals.
func imageLiteral(_ image: [UInt8]) -> String {
    var segments: [(offset: Int, bytes: ArraySlice<UInt8>)] = []
    var index = 0
    while index < image.count {
        guard image[index] != 0 else {
            index += 1
            continue
        }
        let start = index
        var zeros = 0
        // A stretch ends at 32 zero bytes in a row (shorter runs are cheaper kept inline).
        while index < image.count && zeros < 32 {
            zeros = image[index] == 0 ? zeros + 1 : 0
            index += 1
        }
        segments.append((start, image[start..<(index - zeros)]))
    }
    var source = "DatabaseImage(size: \(image.count), segments: [\n"
    for segment in segments {
        source += "            (\(segment.offset), \(literal(Data(segment.bytes).base64EncodedString()))),\n"
    }
    return source + "        ])"
}
