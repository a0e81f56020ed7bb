import CSQLite

/// `instr` and `replace` for access SQL: SQLite's own results, found in linear time.
///
/// SQLite (3.40) looks for the needle by comparing it at every position of the text, so one call
/// costs the text's length times the needle's: `instr(x, y)` with a 10-million-byte `x` and a
/// 5-million-byte `y` that almost matches everywhere runs for hours inside one call, where neither
/// the progress handler nor the watchdog's `sqlite3_interrupt` reaches. These replacements search
/// with `memmem` (two-way: linear in both lengths) and otherwise follow SQLite's code: the same
/// conversions, NULL handling and character positions, and the length limit on `replace`'s
/// output.
///
/// Thread safety: the functions keep no state; SQLite calls them on the connection's thread.
enum SubstringSearch {
    /// Installs `instr` and `replace` on `connection`.
    static func install(on connection: OpaquePointer) {
        let flags = SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_INNOCUOUS
        sqlite3_create_function_v2(connection, "instr", 2, flags, nil, linearInstr, nil, nil, nil)
        sqlite3_create_function_v2(connection, "replace", 3, flags, nil, linearReplace, nil, nil, nil)
    }

    /// The offset of the first occurrence of `needle` in `haystack` at or after `start`, if any.
    static func find(_ needle: UnsafeRawBufferPointer, in haystack: UnsafeRawBufferPointer, from start: Int) -> Int? {
        guard let base = haystack.baseAddress, let pattern = needle.baseAddress, start <= haystack.count else { return nil }
        guard let found = memmem(base + start, haystack.count - start, pattern, needle.count) else { return nil }
        return base.distance(to: UnsafeRawPointer(found))
    }

    /// `instr(haystack, needle)`, as SQLite's `instrFunc`.
    fileprivate static func instr(_ context: OpaquePointer, _ haystackValue: OpaquePointer?, _ needleValue: OpaquePointer?) {
        let haystackType = sqlite3_value_type(haystackValue)
        let needleType = sqlite3_value_type(needleValue)
        guard haystackType != SQLITE_NULL, needleType != SQLITE_NULL else { return }
        let asBlobs = haystackType == SQLITE_BLOB && needleType == SQLITE_BLOB
        // A blob beside a text is compared as text, on copies (SQLite converts copies too).
        let mixed = !asBlobs && (haystackType == SQLITE_BLOB || needleType == SQLITE_BLOB)
        let haystackCopy = mixed ? sqlite3_value_dup(haystackValue) : nil
        let needleCopy = mixed ? sqlite3_value_dup(needleValue) : nil
        defer {
            sqlite3_value_free(haystackCopy)
            sqlite3_value_free(needleCopy)
        }
        let haystack = Self.bytes(mixed ? haystackCopy : haystackValue, asBlob: asBlobs)
        let needle = Self.bytes(mixed ? needleCopy : needleValue, asBlob: asBlobs)
        guard let haystack, let needle else {
            sqlite3_result_error_nomem(context)
            return
        }
        guard needle.count > 0 else {
            sqlite3_result_int(context, 1)
            return
        }
        var start = 0
        while let offset = find(needle, in: haystack, from: start) {
            guard !asBlobs else {
                sqlite3_result_int64(context, Int64(offset + 1))
                return
            }
            // SQLite steps from the first byte a character at a time: a match that starts inside
            // a character is not one, and the position counts the steps.
            guard offset > 0 else {
                sqlite3_result_int(context, 1)
                return
            }
            guard haystack[offset] & 0xC0 == 0x80 else {
                let steps = haystack[1...offset].reduce(0) { $1 & 0xC0 == 0x80 ? $0 : $0 + 1 }
                sqlite3_result_int64(context, Int64(steps + 1))
                return
            }
            start = offset + 1
        }
        sqlite3_result_int(context, 0)
    }

    /// `replace(text, pattern, replacement)`, as SQLite's `replaceFunc`.
    fileprivate static func replace(_ context: OpaquePointer, _ values: UnsafeMutablePointer<OpaquePointer?>) {
        guard let text = bytes(values[0], asBlob: false) else { return }
        guard let pattern = bytes(values[1], asBlob: false) else { return }
        guard let first = pattern.first, first != 0 else {
            sqlite3_result_value(context, values[0])
            return
        }
        guard let replacement = bytes(values[2], asBlob: false) else { return }
        let limit = Int(sqlite3_limit(sqlite3_context_db_handle(context), SQLITE_LIMIT_LENGTH, -1))
        var output: [UInt8] = []
        output.reserveCapacity(text.count)
        var start = 0
        while let offset = find(pattern, in: text, from: start) {
            output.append(contentsOf: text[start..<offset])
            output.append(contentsOf: replacement)
            start = offset + pattern.count
            guard output.count + (text.count - start) <= limit else {
                sqlite3_result_error_toobig(context)
                return
            }
        }
        output.append(contentsOf: text[start...])
        guard !output.isEmpty else {
            sqlite3_result_text(context, "", 0, sqliteTransient)
            return
        }
        output.withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) { characters in
                sqlite3_result_text64(context, characters.baseAddress, sqlite3_uint64(characters.count),
                                      sqliteTransient, UInt8(SQLITE_UTF8))
            }
        }
    }

    /// A value's bytes as text (`sqlite3_value_text`) or as a blob; nil for NULL or when SQLite
    /// ran out of memory converting it.
    private static func bytes(_ value: OpaquePointer?, asBlob: Bool) -> UnsafeRawBufferPointer? {
        let start: UnsafeRawPointer? = asBlob ? sqlite3_value_blob(value) : sqlite3_value_text(value).map(UnsafeRawPointer.init)
        let count = Int(sqlite3_value_bytes(value))
        guard let start else { return sqlite3_value_type(value) == SQLITE_NULL ? nil : UnsafeRawBufferPointer(start: nil, count: 0) }
        return UnsafeRawBufferPointer(start: start, count: count)
    }

    /// SQLite's `SQLITE_TRANSIENT`: copy the bytes before returning.
    private static let sqliteTransient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
}

private let linearInstr: @convention(c) (OpaquePointer?, Int32, UnsafeMutablePointer<OpaquePointer?>?) -> Void = {
    context, _, values in
    guard let context, let values else { return }
    SubstringSearch.instr(context, values[0], values[1])
}

private let linearReplace: @convention(c) (OpaquePointer?, Int32, UnsafeMutablePointer<OpaquePointer?>?) -> Void = {
    context, _, values in
    guard let context, let values else { return }
    SubstringSearch.replace(context, values)
}
